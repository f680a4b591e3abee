package control

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClockOffsetKnownTruth: a worker whose clock runs 250 ms ahead is read as
// 250 ms ahead, within the uncertainty the reading states (half its round trip,
// here over real HTTP on loopback), and the exchange's uncertainty is no wider
// than a round trip can be.
func TestClockOffsetKnownTruth(t *testing.T) {
	const shift = 250 * time.Millisecond
	mux := http.NewServeMux()
	register(mux, nil, nil, func() time.Time { return time.Now().Add(shift) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cl := Client{HTTP: srv.Client()}
	for range 20 {
		rd, err := cl.Clock(t.Context(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if d := rd.Offset - shift; d < -rd.Uncertainty || d > rd.Uncertainty {
			t.Fatalf("offset %s, truth %s: off by %s, beyond the stated ±%s", rd.Offset, shift, d, rd.Uncertainty)
		}
		if rd.Uncertainty <= 0 || rd.Uncertainty > time.Second {
			t.Fatalf("uncertainty %s", rd.Uncertainty)
		}
	}
}

// TestGate: a producer is not ready until it waits, is released with the first
// start only, and gives up after its timeout with an error that says what to check.
func TestGate(t *testing.T) {
	g := NewGate(time.Minute)
	mux := http.NewServeMux()
	Register(mux, g, nil)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cl := Client{HTTP: srv.Client()}
	ctx := t.Context()
	if ready, err := cl.Ready(ctx, srv.URL); err != nil || ready {
		t.Fatalf("ready %v (%v) before the producer waits", ready, err)
	}
	got := make(chan time.Time, 1)
	go func() {
		at, err := g.Wait(ctx, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- at
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ready, err := cl.Ready(ctx, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiting producer never said it is ready")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cl.Start(ctx, srv.URL, time.Now().Add(time.Hour)); err == nil {
		t.Fatal("a start an hour ahead was accepted")
	}
	want := time.Now().Add(time.Millisecond)
	if err := cl.Start(ctx, srv.URL, want); err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(ctx, srv.URL, want.Add(time.Second)); err != nil {
		t.Fatalf("a repeated start is refused: %v", err)
	}
	if at := <-got; !at.Equal(want) {
		t.Fatalf("released at %s, want the first start %s", at, want)
	}
	if _, err := NewGate(time.Minute).Wait(context.Background(), 10*time.Millisecond); err == nil {
		t.Fatal("a gate nobody starts did not time out")
	}
	resp, err := srv.Client().Do(must(http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+StartPath+"?at=soon", nil)))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a malformed start: HTTP %d", resp.StatusCode)
	}
}

// TestBarrier: in-process producers get one instant once the last arrives; an
// abort releases the others with its error.
func TestBarrier(t *testing.T) {
	b := NewBarrier(3, 10*time.Millisecond)
	got := make(chan time.Time, 3)
	for range 3 {
		go func() {
			at, err := b.Wait(t.Context(), time.Minute)
			if err != nil {
				t.Error(err)
			}
			got <- at
		}()
	}
	first := <-got
	if a, b := <-got, <-got; !a.Equal(first) || !b.Equal(first) {
		t.Fatalf("instants %s %s %s differ", first, a, b)
	}
	ab := NewBarrier(2, 0)
	ab.Abort(context.Canceled)
	if _, err := ab.Wait(t.Context(), time.Minute); err == nil {
		t.Fatal("an aborted barrier released a producer without an error")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestGroupEvents: each consumer group event reaches the consumer's hook, a
// pause with its length; a join reaches only a standby, and a bad request is
// refused with what is wrong.
func TestGroupEvents(t *testing.T) {
	var got []string
	grp := &Group{Leave: func() { got = append(got, "leave") }, Pause: func(d time.Duration) { got = append(got, "pause "+d.String()) }}
	mux := http.NewServeMux()
	Register(mux, nil, grp)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cl := Client{HTTP: srv.Client()}
	ctx := t.Context()
	if err := cl.GroupEvent(ctx, srv.URL, ActionPause, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := cl.GroupEvent(ctx, srv.URL, ActionLeave, 0); err != nil {
		t.Fatal(err)
	}
	if err := cl.GroupEvent(ctx, srv.URL, ActionJoin, 0); err == nil || !strings.Contains(err.Error(), "no standby") {
		t.Errorf("a join of a consumer in its group: %v", err)
	}
	if err := cl.GroupEvent(ctx, srv.URL, ActionPause, 0); err == nil || !strings.Contains(err.Error(), "seconds") {
		t.Errorf("a pause of no time: %v", err)
	}
	if err := cl.GroupEvent(ctx, srv.URL, "scale", 0); err == nil || !strings.Contains(err.Error(), "unknown group event") {
		t.Errorf("an unknown event: %v", err)
	}
	if want := []string{"pause 3s", "leave"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	joined := false
	grp.Join = func() { joined = true }
	if err := cl.GroupEvent(ctx, srv.URL, ActionJoin, 0); err != nil || !joined {
		t.Errorf("a standby's join: %v (joined %v)", err, joined)
	}
}
