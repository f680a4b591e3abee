// Package control is how a trial's coordinator (the operator, or the local
// runner) starts a trial's producers together and reads each worker's clock. In a
// pod it is served beside the worker's metrics:
//
//   - GET /clock answers the worker's wall clock, Unix ns, for the coordinator's
//     offset measurement (an NTP-style exchange: the offset is the answer minus
//     the midpoint of the request's round trip, uncertain by half of it);
//   - GET /readyz is 200 once a producer is ready to send (connected, its
//     consumer group stable) and waits for its start, 503 before;
//   - PUT /start?at=<Unix ns on the worker's clock> releases it: its schedule
//     begins at that instant. The first start counts; a repeat is accepted and
//     ignored, so the coordinator can retry;
//   - PUT /group/leave, /group/pause?seconds=<n> and /group/join act on a
//     consumer for a fault scenario's consumer group event (trial.ConsumerFault):
//     it leaves its group, stops taking records for n seconds, or, a standby
//     consumer, joins. A repeat is accepted and ignored (a pause restarts).
package control

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Paths served.
const (
	ClockPath = "/clock"
	ReadyPath = "/readyz"
	StartPath = "/start"
	GroupPath = "/group/"
)

// Group is a consumer's side of a consumer group event.
type Group struct {
	// Leave makes the consumer leave its group.
	Leave func()
	// Pause makes it take no record for a while, staying in its group.
	Pause func(time.Duration)
	// Join releases a standby consumer into its group (nil: no standby).
	Join func()
}

// maxPauseSeconds bounds a pause (a fault's durationSeconds is at most an hour).
const maxPauseSeconds = 3600

// Group event actions, the last element of the path (trial.ConsumerAction's
// values).
const (
	ActionLeave = "leave"
	ActionPause = "pause"
	ActionJoin  = "join"
)

// Gate holds a producer until the coordinator starts it.
type Gate struct {
	// ahead is how far in the future a start may be (refused beyond it).
	ahead   time.Duration
	mu      sync.Mutex
	ready   bool
	started bool
	at      time.Time
	start   chan struct{}
}

// NewGate returns a closed gate that accepts starts at most ahead in the future.
func NewGate(ahead time.Duration) *Gate { return &Gate{ahead: ahead, start: make(chan struct{})} }

// Wait marks the producer ready and blocks until it is started, timeout passes or
// ctx ends; it returns the instant its schedule begins.
func (g *Gate) Wait(ctx context.Context, timeout time.Duration) (time.Time, error) {
	g.mu.Lock()
	g.ready = true
	g.mu.Unlock()
	if err := await(ctx, g.start, timeout, func() error {
		return fmt.Errorf("ready, but not started within %s: the operator releases a trial's producers "+
			"once all are ready, over HTTP to each pod's metrics port (%s): can it reach them (NetworkPolicy)?", timeout, StartPath)
	}); err != nil {
		return time.Time{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at, nil
}

// await blocks until done closes (nil), timeout passes (late's error) or ctx
// ends (its cause).
func await(ctx context.Context, done <-chan struct{}, timeout time.Duration, late func() error) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return late()
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Start releases the gate at instant at (the worker's clock); false if it had
// already been started.
func (g *Gate) Start(at time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started {
		return false
	}
	g.started, g.at = true, at
	close(g.start)
	return true
}

// Ready says whether the producer waits for its start (or has been started).
func (g *Gate) Ready() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ready
}

// Register adds the endpoints to mux: a producer's gate g, or a consumer's group
// events grp; either may be nil (/clock only).
func Register(mux *http.ServeMux, g *Gate, grp *Group) { register(mux, g, grp, time.Now) }

// register is Register with the worker's clock (tests shift it).
func register(mux *http.ServeMux, g *Gate, grp *Group, clock func() time.Time) {
	mux.HandleFunc("GET "+ClockPath, func(rw http.ResponseWriter, _ *http.Request) {
		now := clock().UnixNano()
		rw.Header().Set("Content-Type", "text/plain")
		_, _ = rw.Write([]byte(strconv.FormatInt(now, 10)))
	})
	if grp != nil {
		registerGroup(mux, grp)
	}
	if g == nil {
		return
	}
	mux.HandleFunc("GET "+ReadyPath, func(rw http.ResponseWriter, _ *http.Request) {
		if !g.Ready() {
			http.Error(rw, "not ready", http.StatusServiceUnavailable)
			return
		}
		rw.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("PUT "+StartPath, func(rw http.ResponseWriter, r *http.Request) {
		ns, err := strconv.ParseInt(r.URL.Query().Get("at"), 10, 64)
		if err != nil || ns <= 0 {
			http.Error(rw, "start: want ?at=<Unix ns>", http.StatusBadRequest)
			return
		}
		at := time.Unix(0, ns)
		if d := time.Until(at); d > g.ahead {
			http.Error(rw, fmt.Sprintf("start: %s is %s ahead, more than %s", at.UTC().Format(time.RFC3339Nano), d, g.ahead), http.StatusBadRequest)
			return
		}
		g.Start(at)
		rw.WriteHeader(http.StatusNoContent)
	})
}

// registerGroup serves the consumer group events.
func registerGroup(mux *http.ServeMux, grp *Group) {
	mux.HandleFunc("PUT "+GroupPath+"{action}", func(rw http.ResponseWriter, r *http.Request) {
		switch r.PathValue("action") {
		case ActionLeave:
			grp.Leave()
		case ActionPause:
			s, err := strconv.Atoi(r.URL.Query().Get("seconds"))
			if err != nil || s <= 0 || s > maxPauseSeconds {
				http.Error(rw, fmt.Sprintf("pause: want ?seconds=<n>, 0 < n <= %d", maxPauseSeconds), http.StatusBadRequest)
				return
			}
			grp.Pause(time.Duration(s) * time.Second)
		case ActionJoin:
			if grp.Join == nil {
				http.Error(rw, "join: this consumer is no standby: it is in its group already", http.StatusConflict)
				return
			}
			grp.Join()
		default:
			http.Error(rw, fmt.Sprintf("unknown group event %q (want %s, %s or %s)", r.PathValue("action"), ActionLeave, ActionPause, ActionJoin), http.StatusNotFound)
			return
		}
		rw.WriteHeader(http.StatusNoContent)
	})
}

// Client is the coordinator's side.
type Client struct {
	// HTTP makes the requests; each is bounded by its context.
	HTTP *http.Client
}

// Reading is one clock measurement: the worker's clock minus the coordinator's,
// uncertain by Uncertainty either way (half the round trip).
type Reading struct {
	Offset, Uncertainty time.Duration
	// At is when it was taken, on the coordinator's clock.
	At time.Time
}

// clockSamples is how many exchanges one reading takes; the one with the shortest
// round trip is kept (its midpoint is the least uncertain).
const clockSamples = 3

// Clock measures the worker's clock at base (http://host:port).
func (c Client) Clock(ctx context.Context, base string) (Reading, error) {
	var best Reading
	bestRTT := time.Duration(-1)
	for range clockSamples {
		t0 := time.Now()
		resp, err := c.do(ctx, http.MethodGet, base+ClockPath)
		if err != nil {
			return Reading{}, fmt.Errorf("read the clock of %s: %w", base, err)
		}
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, 64))
		_ = resp.Body.Close()
		t1 := time.Now()
		ns, err := strconv.ParseInt(string(body), 10, 64)
		if resp.StatusCode != http.StatusOK || rerr != nil || err != nil {
			return Reading{}, fmt.Errorf("read the clock of %s: HTTP %d %q", base, resp.StatusCode, body)
		}
		rtt := t1.Sub(t0)
		if bestRTT < 0 || rtt < bestRTT {
			mid := t0.Add(rtt / 2)
			bestRTT, best = rtt, Reading{Offset: time.Unix(0, ns).Sub(mid), Uncertainty: rtt / 2, At: mid}
		}
	}
	return best, nil
}

// Ready says whether the producer at base waits for its start.
func (c Client) Ready(ctx context.Context, base string) (bool, error) {
	resp, err := c.do(ctx, http.MethodGet, base+ReadyPath)
	if err != nil {
		return false, fmt.Errorf("ask %s whether it is ready: %w", base, err)
	}
	drain(resp)
	return resp.StatusCode == http.StatusOK, nil
}

// Start releases the producer at base at instant at, on its own clock.
func (c Client) Start(ctx context.Context, base string, at time.Time) error {
	resp, err := c.do(ctx, http.MethodPut, base+StartPath+"?at="+strconv.FormatInt(at.UnixNano(), 10))
	if err != nil {
		return fmt.Errorf("start %s: %w", base, err)
	}
	drain(resp)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("start %s: HTTP %d", base, resp.StatusCode)
	}
	return nil
}

// GroupEvent makes the consumer at base act out a consumer group event: action
// is ActionLeave, ActionPause (for d, whole seconds) or ActionJoin.
func (c Client) GroupEvent(ctx context.Context, base, action string, d time.Duration) error {
	u := base + GroupPath + action
	if action == ActionPause {
		u += "?seconds=" + strconv.Itoa(int(d/time.Second))
	}
	resp, err := c.do(ctx, http.MethodPut, u)
	if err != nil {
		return fmt.Errorf("consumer group event %s at %s: %w", action, base, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("consumer group event %s at %s: HTTP %d %s", action, base, resp.StatusCode, body)
	}
	return nil
}

// do sends one request without a body.
func (c Client) do(ctx context.Context, method, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	return c.HTTP.Do(req)
}

// drain reads and closes a response's body, so its connection is reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
}
