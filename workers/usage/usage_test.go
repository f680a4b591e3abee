package usage

import (
	"math"
	"net"
	"os"
	"testing"
	"time"
)

// TestCut: CPU is interpolated at the window's bounds, peaks come from the samples
// inside it and the first after it.
func TestCut(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	samples := []Reading{
		{At: at(0), CPUSeconds: 1, RSSBytes: 900, HeapBytes: 90},
		{At: at(100), CPUSeconds: 1.1, RSSBytes: 100, HeapBytes: 10},
		{At: at(200), CPUSeconds: 1.3, RSSBytes: 300, HeapBytes: 50},
		{At: at(300), CPUSeconds: 1.3, RSSBytes: 200, HeapBytes: 20},
		{At: at(400), CPUSeconds: 1.7, RSSBytes: 800, HeapBytes: 80},
	}
	w, ok := Cut(samples, at(150), at(350))
	// CPU: 1.2 at 150 ms, 1.5 at 350 ms.
	if !ok || math.Abs(w.CPUSeconds-0.3) > 1e-9 || w.PeakRSSBytes != 800 || w.PeakHeapBytes != 80 || w.Seconds != 0.2 {
		t.Fatalf("window %+v ok %v", w, ok)
	}
	if _, ok := Cut(samples, at(-1), at(100)); ok {
		t.Error("a window before the first sample was cut")
	}
	if w, ok := Cut(samples, at(210), at(220)); !ok || w.CPUSeconds != 0 || w.PeakRSSBytes != 200 {
		t.Errorf("a window between two samples: %+v", w)
	}
}

// TestSelf reads this process while it burns 300 ms of CPU and holds 64 MiB. The
// truth for the window's CPU is the process's own reads at its bounds, not the
// 300 ms: a virtual machine paused by its host charges the pause to whichever
// thread was running (CI saw 0.8 s in a 0.3 s burn). Interpolating between the
// sampler's reads can miss by at most what the process spent between the two
// samples around each bound.
func TestSelf(t *testing.T) {
	s := Start(Self())
	self := Self()
	first, err := self()
	if err != nil {
		t.Fatal(err)
	}
	keep := make([]byte, 64<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	last := first
	for last.CPUSeconds-first.CPUSeconds < 0.3 {
		if last, err = self(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * Period)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	w, ok := s.Window(first.At, last.At)
	if !ok {
		t.Fatal("window not covered")
	}
	exact := last.CPUSeconds - first.CPUSeconds
	slack := around(s.samples, first.At) + around(s.samples, last.At)
	t.Logf("window %+v; read at its bounds %.3f s, interpolation may miss by %.3f s", w, exact, slack)
	if math.Abs(w.CPUSeconds-exact) > slack+1e-9 || w.PeakHeapBytes < 64<<20 || w.PeakRSSBytes < 64<<20 {
		t.Fatalf("busy %.3f s of CPU with 64 MiB: %+v", exact, w)
	}
	keep[0] = 1
	// Another process: ours, through /proc.
	r, err := Process(os.Getpid())()
	if err != nil || r.CPUSeconds <= 0 || r.RSSBytes < 64<<20 {
		t.Fatalf("Process(self) = %+v, %v", r, err)
	}
}

// around is the CPU the process spent between the two samples around t.
func around(samples []Reading, t time.Time) float64 {
	for i := 1; i < len(samples); i++ {
		if !t.After(samples[i].At) {
			return samples[i].CPUSeconds - samples[i-1].CPUSeconds
		}
	}
	return 0
}

// TestListeningPID finds this process by a port it listens on.
func TestListeningPID(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	pid, err := ListeningPID(l.Addr().(*net.TCPAddr).Port)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("ListeningPID = %d, %v; want %d", pid, err, os.Getpid())
	}
}
