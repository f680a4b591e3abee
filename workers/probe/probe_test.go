package probe

import (
	"context"
	"net"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/cpuload"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestMeasure: on this machine, a temporary directory and a real listener, every
// part of the probe measures something.
func TestMeasure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	p, err := Measure(context.Background(), t.TempDir(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if p.CPUNanosPerOp <= 0 || p.FsyncMicros <= 0 || p.ConnectMicros <= 0 {
		t.Fatalf("probe %+v: every part must measure", p)
	}
	t.Logf("probe: cpu %d ns/op, fsync %d µs, connect %d µs", p.CPUNanosPerOp, p.FsyncMicros, p.ConnectMicros)
}

// TestMeasureSaysWhatFailed: a directory that does not exist and an address
// nothing listens on leave their parts unmeasured (0) and say so; the CPU part
// still counts.
func TestMeasureSaysWhatFailed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // refused from now on
	p, err := Measure(context.Background(), filepath.Join(t.TempDir(), "absent"), addr)
	if err == nil || p.FsyncMicros != 0 || p.ConnectMicros != 0 || p.CPUNanosPerOp <= 0 {
		t.Fatalf("probe %+v, error %v: want fsync and connect unmeasured, with an error, and the CPU measured", p, err)
	}
	t.Logf("as it must: %v", err)
}

// TestCPUSeesABusyMachine checks the CPU part against a known truth: with three
// goroutines spinning for every processor, the loop gets about a quarter of a
// processor, so each operation takes several times as long. Alternating quiet
// and busy measurements, the busy median must be at least 1.5 times the quiet.
func TestCPUSeesABusyMachine(t *testing.T) {
	var quiet, busy []int64
	for range 3 {
		q, err := CPU()
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, q)
		stop := cpuload.Spin(3 * runtime.GOMAXPROCS(0))
		b, err := CPU()
		stop()
		if err != nil {
			t.Fatal(err)
		}
		busy = append(busy, b)
	}
	q, b := median(quiet), median(busy)
	t.Logf("cpu loop: %d ns/op quiet, %d ns/op busy (%v, %v)", q, b, quiet, busy)
	if float64(b) < 1.5*float64(q) {
		t.Fatalf("the loop took %d ns/op beside %d spinning goroutines and %d ns/op without: it must see a busy machine", b, 3*runtime.GOMAXPROCS(0), q)
	}
}

// TestRecheckCountsOnlyAQuietCore: beside goroutines spinning on every processor
// the second reading's thread shares its core, so it does not count and the first
// reading stands; on a quiet machine it counts, and the part becomes the geometric
// mean of both readings (a first reading planted far from the loop's true time
// moves to between them).
func TestRecheckCountsOnlyAQuietCore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("the thread's CPU time is read on Linux only: this test needs it (GOOS %s)", runtime.GOOS)
	}
	const planted = 1_000_000 // ns/op: far slower than the loop is anywhere
	stop := cpuload.Spin(3 * runtime.GOMAXPROCS(0))
	busy := summary.Probe{CPUNanosPerOp: planted}
	counted, err := Recheck(context.Background(), &busy)
	stop()
	if err != nil || counted || busy.CPUNanosPerOp != planted {
		t.Fatalf("beside a busy machine: %d ns/op (%v), want the first reading kept", busy.CPUNanosPerOp, err)
	}
	// Other suites may be running beside this one: up to 10 rechecks (about 10 s)
	// for a quiet moment.
	quiet := summary.Probe{CPUNanosPerOp: planted}
	for range 10 {
		counted, err := Recheck(context.Background(), &quiet)
		if err != nil {
			t.Fatal(err)
		}
		if counted {
			break
		}
	}
	if quiet.CPUNanosPerOp >= planted/2 || quiet.CPUNanosPerOp <= 0 {
		t.Fatalf("on a machine without spinning goroutines: %d ns/op, want the geometric mean of %d and a reading of tens of µs (no quiet moment in 10 rechecks?)", quiet.CPUNanosPerOp, planted)
	}
	t.Logf("busy: kept %d; quiet: %d", busy.CPUNanosPerOp, quiet.CPUNanosPerOp)
}
