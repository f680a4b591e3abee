// Package probe measures a worker's machine without Kafka: a fixed serialization
// loop on one thread, a small write and fsync on the node's disk, and TCP
// connections to a broker's address. A nightly compares it between runs: when
// every trial moved and the probe did not, the cause is what the trials share
// beside the machine (a broker or client upgrade), not a slower node.
package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// Repetitions of each part. The CPU part is the median of its blocks: a block is
// long (about 25 ms here), spanning several of the schedulers' time slices, so a
// machine whose cores are shared with other work shows in it as it shows in a
// trial, not only a slower core. More blocks in a row do not steady it: the
// core's own speed wanders over seconds (on the VM serdebench is built on,
// between about 8 and 16 µs/op idle; docs/schedules.md), so a producer reads it
// twice, before and after its window (Recheck). A block is cpuBlockOps
// operations (race.go, norace.go). Fsync and connect are the
// minimum of their repetitions: their noise only adds (a neighbour's write, a
// late wake-up), and the minimum of 15 moved a third as much between readings as
// the median of 7 or 5 did.
const (
	cpuBlocks    = 3
	fsyncs       = 15
	connects     = 15
	connectLimit = time.Second
)

// Measure runs the probe: the CPU loop, then the fsyncs in dir, then the
// connections to addr (host:port). A part that cannot run (dir not writable, addr
// refusing) is 0 in the result, and the error says why; the others still count.
// It takes about 75 ms of CPU and a few dozen disk and network round trips.
func Measure(ctx context.Context, dir, addr string) (summary.Probe, error) {
	var p summary.Probe
	var errs []error
	cpu, err := CPU()
	if err != nil {
		errs = append(errs, err)
	}
	p.CPUNanosPerOp = cpu
	if p.FsyncMicros, err = Fsync(dir); err != nil {
		errs = append(errs, err)
	}
	if p.ConnectMicros, err = Connect(ctx, addr); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return p, fmt.Errorf("probe: %w", errors.Join(errs...))
	}
	return p, nil
}

// Recheck reads the CPU part again, after the producer's window, and makes it the
// geometric mean of both readings: one reading is one moment of a core whose
// speed wanders, two a window apart halve its variance. The trial's consumers may
// still be draining then, and a loop that shares its core with them would make a
// slower consumer look like a slower machine: a second reading counts only when
// its thread had the core to itself (its CPU time at least quietShare of its
// wall time), tried up to quietTries times quietWait apart. p is kept as it is
// when it has no first reading, or no quiet second one; counted says whether the
// second reading counted.
func Recheck(ctx context.Context, p *summary.Probe) (counted bool, err error) {
	if p == nil || p.CPUNanosPerOp <= 0 {
		return false, nil
	}
	for try := range quietTries {
		if try > 0 {
			select {
			case <-ctx.Done():
				return false, nil
			case <-time.After(quietWait):
			}
		}
		after, share, err := cpuOwned()
		if err != nil {
			return false, err
		}
		if share >= quietShare {
			p.CPUNanosPerOp = int64(math.Round(math.Sqrt(float64(p.CPUNanosPerOp) * float64(after))))
			return true, nil
		}
	}
	return false, nil
}

// A second CPU reading counts when its thread ran for quietShare of its wall time
// (on an idle machine here 0.98–0.99); it is tried quietTries times, quietWait
// apart (under a second of waiting in all).
const (
	quietShare = 0.9
	quietTries = 4
	quietWait  = 250 * time.Millisecond
)

// cpuOwned is CPU's reading on a locked OS thread, with the share of its wall
// time the thread was on a CPU (0 where the thread's CPU time cannot be read).
func cpuOwned() (nanosPerOp int64, share float64, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, wall0 := threadCPU(), time.Now()
	v, err := CPU()
	if err != nil {
		return 0, 0, err
	}
	wall := time.Since(wall0)
	if cpu := threadCPU(); cpu > 0 && wall > 0 {
		share = float64(cpu-cpu0) / float64(wall)
	}
	return v, share, nil
}

// record is the CPU loop's fixed input: the shape of a business record (strings,
// integers, a float, a nested list), whose encoding exercises what a codec does.
type record struct {
	ID       int64    `json:"id"`
	Customer string   `json:"customer"`
	Email    string   `json:"email"`
	Amount   float64  `json:"amount"`
	Currency string   `json:"currency"`
	Tags     []string `json:"tags"`
	Lines    []line   `json:"lines"`
}

type line struct {
	SKU      string  `json:"sku"`
	Quantity int32   `json:"quantity"`
	Price    float64 `json:"price"`
}

var fixed = record{ID: 90210, Customer: "Ada Lovelace", Email: "ada@example.org", Amount: 1234.56, Currency: "EUR",
	Tags:  []string{"priority", "wholesale", "eu-west"},
	Lines: []line{{"SKU-0001", 3, 19.99}, {"SKU-0420", 1, 249.5}, {"SKU-1337", 12, 2.75}, {"SKU-2048", 2, 88}}}

// CPU is the loop's time per operation (encode and decode the fixed record), in
// nanoseconds: the median of its blocks.
func CPU() (int64, error) {
	per := make([]int64, 0, cpuBlocks)
	var out record
	for range cpuBlocks {
		start := time.Now()
		for range cpuBlockOps {
			b, err := json.Marshal(&fixed)
			if err != nil {
				return 0, fmt.Errorf("cpu loop: %w", err)
			}
			if err := json.Unmarshal(b, &out); err != nil {
				return 0, fmt.Errorf("cpu loop: %w", err)
			}
		}
		per = append(per, time.Since(start).Nanoseconds()/cpuBlockOps)
	}
	return median(per), nil
}

// Fsync is a 4 KiB write at the start of a file in dir and its fsync, in
// microseconds: the minimum of its repetitions. The file is removed.
func Fsync(dir string) (int64, error) {
	f, err := os.CreateTemp(dir, "serdebench-probe-*")
	if err != nil {
		return 0, fmt.Errorf("fsync: %w", err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	defer func() { _ = f.Close() }()
	block := make([]byte, 4096)
	per := make([]int64, 0, fsyncs)
	for i := range fsyncs {
		block[0] = byte(i) // a changed page, every time
		start := time.Now()
		if _, err := f.WriteAt(block, 0); err != nil {
			return 0, fmt.Errorf("fsync: write %s: %w", f.Name(), err)
		}
		if err := f.Sync(); err != nil {
			return 0, fmt.Errorf("fsync %s: %w", f.Name(), err)
		}
		per = append(per, time.Since(start).Microseconds())
	}
	return max(slices.Min(per), 1), nil
}

// Connect is a TCP connection's set-up to addr, in microseconds: the minimum of
// its repetitions, each closed at once.
func Connect(ctx context.Context, addr string) (int64, error) {
	d := net.Dialer{Timeout: connectLimit}
	per := make([]int64, 0, connects)
	for range connects {
		start := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return 0, fmt.Errorf("connect: %w", err)
		}
		per = append(per, time.Since(start).Microseconds())
		_ = c.Close()
	}
	return max(slices.Min(per), 1), nil
}

func median(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
