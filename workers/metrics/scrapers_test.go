package metrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// scrape gets /metrics from addr, its connection from the loopback address from
// (127.0.0.x: a scraper of its own), and returns the done gauge's line.
func scrape(t *testing.T, addr, from string) string {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape from %s: %v", from, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "serdebench_done{") {
			return l
		}
	}
	t.Fatalf("no serdebench_done series from %s:\n%s", addr, b)
	return ""
}

func stoppedWithin(wait func(), d time.Duration) bool {
	ch := make(chan struct{})
	go func() { wait(); close(ch) }()
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// TestServeUntilEveryScraperTookTheTotals: after the work, the worker serves until
// each host that scraped it during the run has scraped again (that scrape sees
// done = 1), not for the whole grace; a host that has not yet keeps it serving.
func TestServeUntilEveryScraperTookTheTotals(t *testing.T) {
	w := New(Labels{Experiment: "x", Role: "producer", Worker: "0"})
	ctx, end := context.WithCancel(context.Background())
	const grace = time.Hour // the test fails on its timeout, not on this
	addr, wait, err := w.Serve(ctx, "127.0.0.1:0", grace, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	addr = net.JoinHostPort("127.0.0.1", port)
	// Two Prometheus replicas scrape during the run.
	scrape(t, addr, "127.0.0.2")
	scrape(t, addr, "127.0.0.3")
	w.Done.Set(1)
	end()
	if got := scrape(t, addr, "127.0.0.2"); !strings.HasSuffix(got, " 1") {
		t.Fatalf("the final scrape saw %q, want done 1", got)
	}
	// One replica has the totals; the other has not scraped since the end.
	if stoppedWithin(wait, 500*time.Millisecond) {
		t.Fatal("the worker stopped serving before every scraper seen during the run scraped after its end")
	}
	scrape(t, addr, "127.0.0.3")
	if !stoppedWithin(wait, 30*time.Second) {
		t.Fatal("the worker still serves 30 s after every scraper took the totals (grace 1 h)")
	}
}

// TestServeWholeGraceWithoutScraper: with no scrape seen (no Prometheus, or one
// that has not discovered the pod yet) the worker serves for the whole grace,
// unless a scraper that first comes after the end takes the totals.
func TestServeWholeGraceWithoutScraper(t *testing.T) {
	const grace = 2 * time.Second
	serve := func() (string, func(), func()) {
		w := New(Labels{Experiment: "x", Role: "consumer", Worker: "c0"})
		ctx, end := context.WithCancel(context.Background())
		addr, wait, err := w.Serve(ctx, "127.0.0.1:0", grace, nil)
		if err != nil {
			t.Fatal(err)
		}
		return addr, wait, end
	}
	_, wait, end := serve()
	end()
	if stoppedWithin(wait, grace/2) {
		t.Fatal("stopped serving within half the grace with no scraper seen")
	}
	if !stoppedWithin(wait, 30*time.Second) {
		t.Fatal("still serving 30 s after the grace ended")
	}

	addr, wait, end := serve()
	end()
	scrape(t, addr, "127.0.0.4")
	if !stoppedWithin(wait, 30*time.Second) {
		t.Fatal("still serving 30 s after the only scraper, first seen after the end, took the totals")
	}
}

// TestServeOneGapMoreForASharedAddress: scrapers that share an address (a mesh
// sidecar) take turns within the longest gap seen between its scrapes, so after
// that address's first scrape past the end the worker serves one such gap more.
func TestServeOneGapMoreForASharedAddress(t *testing.T) {
	w := New(Labels{Experiment: "x", Role: "producer", Worker: "0"})
	ctx, end := context.WithCancel(context.Background())
	addr, wait, err := w.Serve(ctx, "127.0.0.1:0", time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	const gap = time.Second
	scrape(t, addr, "127.0.0.5")
	time.Sleep(gap)
	scrape(t, addr, "127.0.0.5")
	end()
	scrape(t, addr, "127.0.0.5")
	if stoppedWithin(wait, gap/3) {
		t.Fatalf("stopped within a third of the %s gap after the shared address's final scrape", gap)
	}
	if !stoppedWithin(wait, 30*time.Second) {
		t.Fatal("still serving 30 s after the gap (grace 1 h)")
	}
}

// TestAbandonedScrapeIsNotFinal: a scrape whose client gave up (its timeout, or
// gone) took no totals: it neither ends the wait nor counts the address.
func TestAbandonedScrapeIsNotFinal(t *testing.T) {
	ended := make(chan struct{})
	close(ended)
	sc := newScrapers(ended)
	h := sc.track(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodGet, "/metrics", nil).WithContext(ctx)
	r.RemoteAddr = "10.0.0.7:41234"
	h.ServeHTTP(httptest.NewRecorder(), r)
	if all, _, _ := sc.final(); all {
		t.Fatal("an abandoned scrape counted as the address's final one")
	}
	r = httptest.NewRequest(http.MethodGet, "/metrics", nil)
	r.RemoteAddr = "10.0.0.7:41235"
	h.ServeHTTP(httptest.NewRecorder(), r)
	if all, _, _ := sc.final(); !all {
		t.Fatal("a completed scrape after the end did not count")
	}
}
