// Package usage measures what a process spends on a window of its run: CPU time
// (user + system), peak resident memory and peak Go heap. A sampler reads them
// every Period from the start of the run; the window (known only at its end: a
// producer's last acknowledgement, a consumer's last measured record) is then cut
// out of the samples, CPU interpolated at its bounds. The worker uses it for its
// own process; `serdebench run`, whose workers share one process, for the whole
// process and for the broker's.
package usage

import (
	"context"
	"runtime/metrics"
	"sync"
	"time"
)

// Period is how often a Sampler reads: the window's CPU is exact to about this at
// either end, its peaks are the largest samples inside it.
const Period = 100 * time.Millisecond

// Reading is one sample of a process.
type Reading struct {
	// At is when it was read.
	At time.Time
	// CPUSeconds is the process's user plus system CPU time so far.
	CPUSeconds float64
	// RSSBytes is its resident set (0: not known); HeapBytes its Go heap in use
	// (live and not yet swept objects; 0 for a process that is not this one).
	RSSBytes, HeapBytes int64
}

// Reader reads a process once.
type Reader func() (Reading, error)

// Window is what a process spent in a window.
type Window struct {
	// CPUSeconds of user plus system time in the window.
	CPUSeconds float64 `json:"cpuSeconds"`
	// PeakRSSBytes and PeakHeapBytes are the largest samples in the window.
	PeakRSSBytes  int64 `json:"peakRSSBytes"`
	PeakHeapBytes int64 `json:"peakHeapBytes,omitempty"`
	// JITSeconds is the elapsed time of the JIT compilations that completed in the
	// window, summed over the compiler threads, waits for CPU included (a JVM
	// worker's: HotSpot's CompilationMXBean, whose total grows as each compilation
	// ends; a Go worker has none). A hot method compiled in the window ran
	// unoptimized in it until then.
	JITSeconds float64 `json:"jitSeconds,omitempty"`
	// Seconds is the window's length.
	Seconds float64 `json:"seconds"`
}

// JITShare is JITSeconds over the window's Seconds (0 for a nil window or an
// empty one). It may exceed 1: compiler threads run side by side.
func (w *Window) JITShare() float64 {
	if w == nil || w.Seconds <= 0 {
		return 0
	}
	return w.JITSeconds / w.Seconds
}

// Sampler samples one process until stopped.
type Sampler struct {
	read Reader
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex
	samples []Reading
	err     error
}

// Start samples read every Period until Stop.
func Start(read Reader) *Sampler {
	ctx, stop := context.WithCancel(context.Background())
	s := &Sampler{read: read, stop: stop, done: make(chan struct{})}
	s.sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(Period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				s.sample()
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *Sampler) sample() {
	r, err := s.read()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.samples = append(s.samples, r)
}

// Stop ends sampling (with one last sample) and returns the first read error.
func (s *Sampler) Stop() error {
	s.stop()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// First is the first sample (zero when there is none).
func (s *Sampler) First() Reading {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return Reading{}
	}
	return s.samples[0]
}

// Last is the last sample (zero when there is none).
func (s *Sampler) Last() Reading {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return Reading{}
	}
	return s.samples[len(s.samples)-1]
}

// Whole is the window from the first sample to the last.
func (s *Sampler) Whole() (Window, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) < 2 {
		return Window{}, false
	}
	return Cut(s.samples, s.samples[0].At, s.samples[len(s.samples)-1].At)
}

// Window cuts [from, to] out of the samples taken so far: CPU interpolated
// linearly at both bounds, peaks over the samples inside and the first one after
// (a window shorter than a Period may hold none). ok is false when the samples
// do not cover the window.
func (s *Sampler) Window(from, to time.Time) (Window, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Cut(s.samples, from, to)
}

// Cut is the window [from, to] of samples in time order (of this process or
// another, e.g. a container's CPU as cAdvisor reports it): CPU interpolated
// linearly at both bounds, peaks over the samples inside and the first one after.
// ok is false when the samples do not cover the window.
func Cut(samples []Reading, from, to time.Time) (Window, bool) {
	if len(samples) < 2 || !to.After(from) || from.Before(samples[0].At) || to.After(samples[len(samples)-1].At) {
		return Window{}, false
	}
	w := Window{Seconds: to.Sub(from).Seconds(), CPUSeconds: cpuAt(samples, to) - cpuAt(samples, from)}
	for _, r := range samples {
		if r.At.Before(from) {
			continue
		}
		w.PeakRSSBytes = max(w.PeakRSSBytes, r.RSSBytes)
		w.PeakHeapBytes = max(w.PeakHeapBytes, r.HeapBytes)
		if !r.At.Before(to) {
			break // the first sample at or after the end covers the window's last stretch
		}
	}
	return w, true
}

// cpuAt interpolates the CPU time at t between the samples around it.
func cpuAt(samples []Reading, t time.Time) float64 {
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if !t.After(b.At) {
			span := b.At.Sub(a.At).Seconds()
			if span <= 0 {
				return b.CPUSeconds
			}
			return a.CPUSeconds + (b.CPUSeconds-a.CPUSeconds)*t.Sub(a.At).Seconds()/span
		}
	}
	return samples[len(samples)-1].CPUSeconds
}

// heapObjects is the Go heap in use: live objects and those not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// goHeap reads this process's Go heap in use.
func goHeap() int64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
