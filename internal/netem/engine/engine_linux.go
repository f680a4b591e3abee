package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/serdebench/serdebench/internal/netem"
)

// Engine impairs the packets that arrive on one interface, from when Apply
// installs its iptables rule until Clear removes it. Only the packets the rule
// hands it are touched, so traffic before and after the fault is not.
type Engine struct {
	iface string
	q     *queue
	imp   atomic.Pointer[sampler]
	in    chan held
	stop  atomic.Bool
	// flush makes the releaser let every held packet through at once (Clear).
	flush atomic.Bool
	// reader and releaser end in that order: the reader sends to in, which then
	// closes.
	reader, releaser sync.WaitGroup
	rule             bool
	// partition is the rule that drops packets sent to the broker (Partition).
	partition bool

	// dropsAtApply is the kernel's drop count for the queue when Apply ran
	// (dropsErr: it could not be read).
	dropsAtApply int64
	dropsErr     error

	mu sync.Mutex // guards st and tally
	st netem.Stats
	tally
}

// tally accumulates what Stats reports of the released packets' timing.
type tally struct {
	n         int64 // Welford's running mean and sum of squares, µs
	mean, m2  float64
	maxLateNs int64
	late      *lateness
}

// held is a packet waiting for its release.
type held struct {
	id          uint32
	bytes       int64
	arrived     int64
	due         int64
	pastBucket  bool
	sampleDelay bool
}

// Open binds NFQUEUE num for packets arriving on iface (in this network
// namespace). Nothing is impaired until Apply. With iface "" the caller manages
// the iptables rule and Apply only sets the impairment.
func Open(iface string, num uint16) (*Engine, error) {
	if _, err := exec.LookPath("iptables"); err != nil && iface != "" {
		return nil, fmt.Errorf("local faults need iptables (NFQUEUE): %w", err)
	}
	q, err := openQueue(num, 1<<16)
	if err != nil {
		return nil, err
	}
	// A receive timeout lets the reader notice Close.
	tv := syscall.NsecToTimeval(int64(100 * time.Millisecond))
	if err := syscall.SetsockoptTimeval(q.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		_ = q.close()
		return nil, fmt.Errorf("netlink receive timeout: %w", err)
	}
	e := &Engine{iface: iface, q: q, in: make(chan held, 1<<16), tally: tally{late: &lateness{}}}
	e.imp.Store(newSampler(netem.Impairment{}, 1))
	e.reader.Add(1)
	e.releaser.Add(1)
	go e.receive()
	go e.release()
	return e, nil
}

// partitionArgs is the rule that drops the packets sent to the broker.
func (e *Engine) partitionArgs(op string) []string {
	return []string{"-w", "-t", "mangle", op, "POSTROUTING", "-o", e.iface, "-j", "DROP"}
}

// ruleArgs is the iptables rule that hands the interface's packets to the queue;
// --queue-bypass lets them through if the engine is gone.
func (e *Engine) ruleArgs(op string) []string {
	return []string{"-w", "-t", "mangle", op, "PREROUTING", "-i", e.iface, "-j", "NFQUEUE", "--queue-num", strconv.Itoa(int(e.q.num)), "--queue-bypass"}
}

func iptables(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "iptables", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("iptables %v: %w: %s", args, err, out)
	}
	return nil
}

// Apply starts impairing the interface's packets with m (seeded for
// reproducibility) and resets the stats.
func (e *Engine) Apply(ctx context.Context, m netem.Impairment, seed uint64) error {
	// The sampler changes under the lock the stats reset under: a packet the
	// new impairment decides counts toward the new stats, never the old.
	e.mu.Lock()
	e.imp.Store(newSampler(m, seed))
	e.st, e.tally = netem.Stats{ReadError: e.st.ReadError}, tally{late: &lateness{}}
	e.mu.Unlock()
	e.flush.Store(false)
	e.dropsAtApply, e.dropsErr = kernelDrops(e.q.num) // unreadable: Clear says so
	if e.iface == "" {
		if m.Partition {
			return fmt.Errorf("a partition needs the engine's interface (it drops packets both ways)")
		}
		return nil
	}
	if m.Partition && !e.partition {
		if err := insert(ctx, e.partitionArgs, &e.partition); err != nil {
			return err
		}
	}
	if e.rule {
		return nil
	}
	return insert(ctx, e.ruleArgs, &e.rule)
}

// insert adds rule's rule and notes it in *added; an insert killed by ctx after
// the rule went in still counts, so that it is removed.
func insert(ctx context.Context, rule func(op string) []string, added *bool) error {
	err := iptables(ctx, rule("-I")...)
	if err != nil && iptables(context.WithoutCancel(ctx), rule("-C")...) == nil {
		err = nil
	}
	*added = err == nil
	return err
}

// Clear removes the rule (the fault's end, Stats.Removed), lets every packet
// still held through at once, and waits until the releaser has (at most a second,
// or until ctx ends) before it returns the stats.
func (e *Engine) Clear(ctx context.Context) (netem.Stats, error) {
	// The rules go even if ctx is over: they are this process's change to undo.
	var err error
	if e.partition {
		if err = iptables(context.WithoutCancel(ctx), e.partitionArgs("-D")...); err == nil {
			e.partition = false
		}
	}
	if e.rule {
		if rerr := iptables(context.WithoutCancel(ctx), e.ruleArgs("-D")...); rerr == nil {
			e.rule = false
		} else {
			err = errors.Join(err, rerr)
		}
	}
	removed := time.Now()
	cleared := newSampler(netem.Impairment{}, 1)
	cleared.cleared = true
	e.imp.Store(cleared)
	e.flush.Store(true)
	deadline := time.NewTimer(time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		st := e.Stats()
		if st.Released+st.Lost+st.Overlimit >= st.Packets || st.ReadError != "" {
			break
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	drops, derr := kernelDrops(e.q.num)
	e.mu.Lock()
	e.st.Removed = removed
	if derr == nil && e.dropsErr == nil {
		e.st.KernelDropped = drops - e.dropsAtApply
	} else {
		e.st.KernelDropped = -1
	}
	e.mu.Unlock()
	return e.Stats(), err
}

// kernelDrops is what the kernel dropped of queue num's packets so far: with the
// queue full, or when the message to the engine could not be sent (the
// queue_dropped and user_dropped columns of /proc/net/netfilter/nfnetlink_queue).
func kernelDrops(num uint16) (int64, error) {
	raw, err := os.ReadFile("/proc/net/netfilter/nfnetlink_queue")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		// queue, peer port id, queued, copy mode, copy range, queue dropped,
		// user dropped, last id, 1
		f := strings.Fields(line)
		if len(f) < 7 || f[0] != strconv.Itoa(int(num)) {
			continue
		}
		q, err1 := strconv.ParseInt(f[5], 10, 64)
		u, err2 := strconv.ParseInt(f[6], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return 0, fmt.Errorf("nfnetlink_queue line %q: %w", line, err)
		}
		return q + u, nil
	}
	return 0, fmt.Errorf("queue %d not in /proc/net/netfilter/nfnetlink_queue", num)
}

// Stats returns what the engine did since Apply.
func (e *Engine) Stats() netem.Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, t := e.st, e.tally
	st.DelayMeanMicros = t.mean
	if t.n > 1 {
		st.DelayStdDevMicros = math.Sqrt(t.m2 / float64(t.n-1))
	}
	st.LateMaxMicros = float64(t.maxLateNs) / 1e3
	st.LateMeanMicros, st.LateP50Micros, st.LateP99Micros = t.late.summary()
	return st
}

// Close removes the rule if Clear did not, and unbinds the queue.
func (e *Engine) Close() error {
	var err error
	if e.rule || e.partition {
		_, err = e.Clear(context.Background())
	}
	e.stop.Store(true)
	e.reader.Wait()
	close(e.in)
	e.releaser.Wait()
	return errors.Join(err, e.q.close())
}

// receive reads packets, drops the lost ones at once and hands the rest to the
// releaser with their due time.
func (e *Engine) receive() {
	defer e.reader.Done()
	runtime.LockOSThread()
	buf := make([]byte, 1<<16)
	var batch []packet
	for !e.stop.Load() {
		var err error
		batch, err = e.q.read(buf, batch[:0])
		now := monotonicNanos()
		wall := time.Now()
		if errors.Is(err, syscall.ENOBUFS) {
			e.mu.Lock()
			e.st.Enobufs++ // the kernel dropped a queue message, and its packet with it
			e.mu.Unlock()
		}
		if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) && !errors.Is(err, syscall.ENOBUFS) {
			// Packets the rule queues now wait for no one (--queue-bypass acts only
			// while nothing is bound): the fault is void, and says so.
			e.mu.Lock()
			e.st.ReadError = err.Error()
			e.mu.Unlock()
			return
		}
		for _, p := range batch {
			// The sampler is read under the lock Apply swaps it and resets the
			// stats under, so every packet counts toward the stats of the
			// impairment that decided its fate; after Clear, packets still queued
			// count as Packets but not as Impaired, so the loss share (Lost /
			// Impaired) is the fault's own.
			e.mu.Lock()
			s := e.imp.Load()
			e.st.Packets++
			if !s.cleared {
				e.st.Impaired++
			}
			if e.st.First.IsZero() {
				e.st.First = wall
			}
			e.st.Last = wall
			lost := s.drop()
			if lost {
				e.st.Lost++
			}
			e.mu.Unlock()
			if lost {
				_ = e.q.verdict(p.id, false)
				continue
			}
			h := held{id: p.id, bytes: p.bytes, arrived: now, due: now + int64(s.hold()), sampleDelay: true}
			if s.m.RateBytesPerSecond == 0 {
				h.pastBucket = true
			}
			select {
			case e.in <- h:
			default: // the releaser is hopelessly behind: let the packet through now
				_ = e.q.verdict(p.id, true)
				e.mu.Lock()
				e.st.Released++
				e.st.ReleasedBytes += p.bytes
				e.st.Unheld++
				e.mu.Unlock()
			}
		}
	}
}

// release holds each packet until it is due (then through the bandwidth cap's
// bucket, if any) and accepts it. It sleeps on hrtimers; while packets may
// arrive that are due before the next one it holds (jitter reorders, as netem
// does), it sleeps at most slice at a time.
func (e *Engine) release() {
	defer e.releaser.Done()
	runtime.LockOSThread()
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	const slice = int64(200 * time.Microsecond)
	var pending heldHeap
	var b *bucket
	var bucketFor *sampler
	open := true
	for open || pending.Len() > 0 {
		if pending.Len() == 0 {
			h, ok := <-e.in
			if !ok {
				return
			}
			heap.Push(&pending, h)
		}
	drain:
		for open {
			select {
			case h, ok := <-e.in:
				if !ok {
					open = false
					break drain
				}
				heap.Push(&pending, h)
			default:
				break drain
			}
		}
		next := pending[0]
		now := monotonicNanos()
		if e.flush.Load() {
			heap.Pop(&pending)
			_ = e.q.verdict(next.id, true)
			e.mu.Lock()
			e.st.Released++
			e.st.ReleasedBytes += next.bytes
			e.st.Flushed++
			e.st.FlushedBytes += next.bytes
			e.mu.Unlock()
			continue
		}
		if next.due > now {
			wake := next.due
			if s := e.imp.Load(); s.m.Jitter > 0 || s.m.RateBytesPerSecond > 0 {
				wake = min(wake, now+slice)
			}
			sleepUntil(wake)
			continue
		}
		heap.Pop(&pending)
		if !next.pastBucket {
			s := e.imp.Load()
			if b == nil || bucketFor != s {
				b, bucketFor = newBucket(s.m, now), s
			}
			at, ok := b.admit(next.due, next.bytes)
			if !ok {
				e.mu.Lock()
				e.st.Overlimit++
				e.mu.Unlock()
				_ = e.q.verdict(next.id, false)
				continue
			}
			next.due, next.pastBucket = at, true
			heap.Push(&pending, next)
			continue
		}
		_ = e.q.verdict(next.id, true)
		done := monotonicNanos()
		e.mu.Lock()
		e.st.Released++
		e.st.ReleasedBytes += next.bytes
		late := done - next.due
		e.maxLateNs = max(e.maxLateNs, late)
		e.late.add(late)
		if next.sampleDelay {
			e.n++
			x := float64(done-next.arrived) / 1e3
			d := x - e.mean
			e.mean += d / float64(e.n)
			e.m2 += d * (x - e.mean)
		}
		e.mu.Unlock()
	}
}

// heldHeap orders held packets by due time, then arrival.
type heldHeap []held

func (h heldHeap) Len() int { return len(h) }
func (h heldHeap) Less(i, j int) bool {
	if h[i].due != h[j].due {
		return h[i].due < h[j].due
	}
	return h[i].arrived < h[j].arrived
}
func (h heldHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heldHeap) Push(x any)   { *h = append(*h, x.(held)) }
func (h *heldHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
