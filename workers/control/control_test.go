package control

import (
	"context"
	"net/http"
	"net/http/httptest"
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
	register(mux, nil, func() time.Time { return time.Now().Add(shift) })
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
	Register(mux, g)
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
