package topics

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// fakeAdmin counts Close; the pool calls nothing else (pure pool logic: the real
// client is exercised by every envtest suite through the operator).
type fakeAdmin struct {
	sarama.ClusterAdmin
	closed atomic.Int32
}

func (f *fakeAdmin) Close() error { f.closed.Add(1); return nil }

func TestPool(t *testing.T) {
	now := time.Unix(1000, 0)
	p := &Pool{MaxIdle: 30 * time.Second, MaxAge: 2 * time.Minute, now: func() time.Time { return now }}
	var opened []*fakeAdmin
	open := func() (sarama.ClusterAdmin, error) {
		f := &fakeAdmin{}
		opened = append(opened, f)
		return f, nil
	}
	key := poolKey([]string{"a:9092"}, kafkaconn.Security{})
	get := func() (sarama.ClusterAdmin, func(bool)) {
		t.Helper()
		l, err := p.get(key, open)
		if err != nil {
			t.Fatal(err)
		}
		return l.admin, l.done
	}
	// closedSoon: Close runs in the background.
	closedSoon := func(f *fakeAdmin, want int32) {
		t.Helper()
		for end := time.Now().Add(2 * time.Second); f.closed.Load() != want && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		if got := f.closed.Load(); got != want {
			t.Fatalf("closed %d times, want %d", got, want)
		}
	}

	// Reused while in use and after.
	a1, r1 := get()
	a2, r2 := get()
	r1(true)
	r2(true)
	a3, r3 := get()
	r3(true)
	if a1 != a2 || a1 != a3 || len(opened) != 1 {
		t.Fatalf("one cluster, one client: opened %d", len(opened))
	}

	// Other credentials, another client.
	if l, err := p.get(poolKey([]string{"a:9092"}, kafkaconn.Security{SASLMechanism: "PLAIN", Username: "u", Password: "p"}), open); err != nil || len(opened) != 2 {
		t.Fatalf("other credentials shared a client (opened %d, %v)", len(opened), err)
	} else {
		l.done(true)
	}

	// A failed call retires the client: the next call opens another; the failed one
	// is closed once its other user is done.
	b1, rb1 := get()
	_, rb2 := get()
	rb1(false)
	c1, rc1 := get()
	if c1 == b1 || len(opened) != 3 {
		t.Fatalf("a client that failed a call was reused (opened %d)", len(opened))
	}
	if b1.(*fakeAdmin).closed.Load() != 0 {
		t.Fatal("a client was closed while a call used it")
	}
	rb2(true)
	closedSoon(b1.(*fakeAdmin), 1)
	rc1(true)

	// Idle past MaxIdle: closed at the next call, which opens a fresh one.
	now = now.Add(31 * time.Second)
	d1, rd1 := get()
	if d1 == c1 {
		t.Fatal("an idle client was reused")
	}
	closedSoon(c1.(*fakeAdmin), 1)

	// Past MaxAge while in use: retired (a new call gets a fresh client), closed
	// only when released.
	now = now.Add(2*time.Minute + time.Second)
	e1, re1 := get()
	if e1 == d1 || d1.(*fakeAdmin).closed.Load() != 0 {
		t.Fatalf("an old client was reused or closed in use")
	}
	rd1(true)
	closedSoon(d1.(*fakeAdmin), 1)
	re1(true)

	// A call its caller gave up on: the client is retired at once (the next call
	// opens another) and closed when the call ends.
	g, err := p.get(key, open)
	if err != nil {
		t.Fatal(err)
	}
	g.abandon()
	h1, rh1 := get()
	if h1 == g.admin || g.admin.(*fakeAdmin).closed.Load() != 0 {
		t.Fatal("an abandoned client was reused, or closed in use")
	}
	g.done(true)
	g.done(true) // once only
	closedSoon(g.admin.(*fakeAdmin), 1)
	rh1(true)

	// Close closes what no call uses, once; later calls get clients of their own,
	// closed after them.
	p.Close()
	closedSoon(h1.(*fakeAdmin), 1)
	p.Close()
	closedSoon(h1.(*fakeAdmin), 1)
	late, rlate := get()
	rlate(true)
	closedSoon(late.(*fakeAdmin), 1)
	if l2, r2 := get(); l2 == late {
		t.Fatal("a client was pooled after Close")
	} else {
		r2(true)
	}
}

// TestPoolConcurrent: many calls at once, some failing, with the clock past the
// limits and Close racing them: no client is ever used after it was closed, and
// every client opened is closed in the end (run under -race).
func TestPoolConcurrent(t *testing.T) {
	var mu sync.Mutex
	var clock time.Time
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	p := &Pool{MaxIdle: time.Millisecond, MaxAge: 5 * time.Millisecond, now: now}
	var all []*fakeAdmin
	open := func() (sarama.ClusterAdmin, error) {
		f := &fakeAdmin{}
		mu.Lock()
		all = append(all, f)
		mu.Unlock()
		return f, nil
	}
	keys := [][sha256.Size]byte{poolKey([]string{"a:1"}, kafkaconn.Security{}), poolKey([]string{"b:1"}, kafkaconn.Security{})}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				l, err := p.get(keys[(g+i)%2], open)
				if err != nil {
					t.Error(err)
					return
				}
				if l.admin.(*fakeAdmin).closed.Load() != 0 {
					t.Error("got a closed client")
				}
				mu.Lock()
				clock = clock.Add(time.Millisecond)
				mu.Unlock()
				if i%97 == 0 {
					l.abandon()
				}
				if l.admin.(*fakeAdmin).closed.Load() != 0 {
					t.Error("a client was closed while a call used it")
				}
				l.done(i%7 != 0)
			}
		})
	}
	wg.Go(func() {
		time.Sleep(time.Millisecond)
		p.Close()
	})
	wg.Wait()
	p.Close()
	deadline := time.Now().Add(2 * time.Second)
	for _, f := range all {
		for f.closed.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := f.closed.Load(); n != 1 {
			t.Fatalf("a client was closed %d times, want 1 (%d opened)", n, len(all))
		}
	}
}
