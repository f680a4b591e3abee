// Package microbench runs an experiment's codecs, payloads and payload compressors in
// process, without Kafka (serdebench microbench): time, allocated bytes and
// allocations per Marshal, Unmarshal, compress and decompress, and encoded sizes, on
// the same record pools the workers send. A trial of another runtime's client is
// measured in that runtime's worker (worker-jvm microbench), its encoding in the
// producers' runtime and its decoding in the consumers'. Beside end-to-end results it
// ranks the codecs both ways, to show where the synthetic and the Kafka ranking
// differ.
package microbench

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/compress"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/usage"
)

// Op is one operation's cost per record.
type Op struct {
	NsPerOp     float64 `json:"nsPerOp"`
	BytesPerOp  int64   `json:"bytesPerOp"`
	AllocsPerOp int64   `json:"allocsPerOp"`
	// CPUNsPerOp is the process's CPU time (user + system) per operation: above
	// NsPerOp when the garbage collector works on other cores meanwhile.
	CPUNsPerOp float64 `json:"cpuNsPerOp,omitempty"`
	// PeakHeapGrowthBytes is how far the Go heap rose above its level after a
	// collection while the operation ran (sampled every 100 ms): what the codec's
	// allocations, garbage not yet collected included, add to a process's peak
	// on top of the records it works on.
	PeakHeapGrowthBytes int64 `json:"peakHeapGrowthBytes,omitempty"`
	// Ops is how many operations were timed; WarmupOps how many ran untimed
	// before them (a JVM's JIT warm-up; 0 in Go, where testing.Benchmark's
	// probing runs are its warm-up).
	Ops       int64 `json:"ops"`
	WarmupOps int64 `json:"warmupOps,omitempty"`
	// WarmupNanos is how long the warm-up ran: at least the bench time, and
	// WarmupOps reaches the JVM's 20,000 calls unless that took ten bench times.
	WarmupNanos int64 `json:"warmupNanos,omitempty"`
}

// Extra metrics the benchmark loop reports (testing.BenchmarkResult.Extra).
const (
	cpuMetric  = "cpu-ns/op"
	heapMetric = "peak-heap-growth-B"
)

// Result is one codec, payload and payload compressor measured in process.
type Result struct {
	Codec string `json:"codec"`
	// Runtime is where it ran (trial.Settings.Runtimes): "go", "jvm", or the
	// producers' then the consumers' ("jvm→go": Marshal in the JVM, Unmarshal in Go).
	Runtime            string `json:"runtime"`
	Schema             string `json:"schema"`
	SizeBytes          int32  `json:"sizeBytes"`
	PayloadCompression string `json:"payloadCompression"`
	// EncodedBytes is the mean encoded size, CompressedBytes the mean size after
	// payload compression (0 without it).
	EncodedBytes    float64 `json:"encodedBytes"`
	CompressedBytes float64 `json:"compressedBytes,omitempty"`
	Marshal         Op      `json:"marshal"`
	Unmarshal       Op      `json:"unmarshal"`
	Compress        *Op     `json:"compress,omitempty"`
	Decompress      *Op     `json:"decompress,omitempty"`
	// Records is how many distinct records the pool held.
	Records int `json:"records"`
	// RunsNs is each run's cost of one record (SER+DESER, and COMP+DECOMP), when
	// the case ran more than once (serdebench microbench --runs); the times above
	// are then their medians over the runs (Merge).
	RunsNs []float64 `json:"runsNs,omitempty"`
}

// Key identifies what a microbenchmark and an end-to-end trial share.
func (r Result) Key() string {
	return Key(r.Codec, r.Runtime, r.Schema, r.SizeBytes, r.PayloadCompression)
}

// Key joins a codec, its runtimes, a payload schema and size, and a payload
// compressor.
func Key(codec, runtime, schema string, size int32, comp string) string {
	if comp == "" {
		comp = compress.None
	}
	if runtime == "" {
		runtime = string(trial.RuntimeGo) // results from before runtimes were named
	}
	return fmt.Sprintf("%s|%s|%s|%d|%s", codec, runtime, schema, size, comp)
}

// Cases are the distinct codec, runtime, payload and compressor combinations of
// trials (producer settings do not matter in process), in plan order.
func Cases(trials []trial.Trial) []trial.Trial {
	seen := map[string]bool{}
	var out []trial.Trial
	for _, t := range trials {
		k := Key(string(t.Codec), t.Settings.Runtimes(), t.PayloadSchema(), t.SizeBytes, string(t.Settings.PayloadCompression))
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

var initOnce sync.Once

// Run measures each case for about benchTime per operation, a case of another
// runtime in its worker, started by workers' launcher for it (runner.Launcher).
// Cancelling ctx stops between measurements, and a worker at once.
func Run(ctx context.Context, cases []trial.Trial, benchTime time.Duration, workers map[trial.Runtime][]string, progress func(trial.Trial)) ([]Result, error) {
	initOnce.Do(testing.Init) // testing.Benchmark reads the test flags
	if err := flag.Set("test.benchtime", benchTime.String()); err != nil {
		return nil, fmt.Errorf("benchtime: %w", err)
	}
	var out []Result
	for _, t := range cases {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("interrupted: %w", err)
		}
		if progress != nil {
			progress(t)
		}
		r, err := measureIn(ctx, t, benchTime, workers)
		if err != nil {
			return out, fmt.Errorf("%s: %w", t.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// measureIn measures t's encoding in its producers' runtime and its decoding in its
// consumers'.
func measureIn(ctx context.Context, t trial.Trial, benchTime time.Duration, workers map[trial.Runtime][]string) (Result, error) {
	if err := t.RuntimeUnsupported(); err != nil {
		return Result{}, err
	}
	p, c := t.Settings.ClientOf(trial.SideProducers).Runtime(), t.Settings.ClientOf(trial.SideConsumers).Runtime()
	in := map[trial.Runtime]Result{}
	for _, rt := range []trial.Runtime{p, c} {
		if _, done := in[rt]; done {
			continue
		}
		var r Result
		var err error
		if rt == trial.RuntimeGo {
			r, err = measure(ctx, t)
		} else {
			r, err = measureWorker(ctx, t, rt, benchTime, workers)
		}
		if err != nil {
			return Result{}, err
		}
		in[rt] = r
	}
	r := in[p]
	r.Unmarshal = in[c].Unmarshal
	r.Runtime = t.Settings.Runtimes()
	return r, nil
}

func measure(ctx context.Context, t trial.Trial) (Result, error) {
	schema, err := payload.Open(t.Schema, t.Source)
	if err != nil {
		return Result{}, err
	}
	typ := schema.TypeFor(int(t.SizeBytes))
	c, err := codec.New(string(t.Codec), typ)
	if err != nil {
		return Result{}, err
	}
	comp, err := compress.New(string(t.Settings.PayloadCompression))
	if err != nil {
		return Result{}, err
	}
	// The pool the first producer would send.
	pool, err := schema.Pool(uint64(t.Seed), int(t.SizeBytes), int(t.PoolSize))
	if err != nil {
		return Result{}, err
	}
	natives := make([]any, len(pool))
	encoded := make([][]byte, len(pool))
	var compressed [][]byte
	res := Result{Codec: string(t.Codec), Schema: t.PayloadSchema(), SizeBytes: t.SizeBytes, PayloadCompression: string(t.Settings.PayloadCompression), Records: len(pool)}
	if res.PayloadCompression == "" {
		res.PayloadCompression = compress.None
	}
	var encTotal, compTotal int
	for i, rec := range pool {
		if natives[i], err = c.Native(rec); err != nil {
			return Result{}, fmt.Errorf("record %d: %w", i, err)
		}
		if encoded[i], err = c.Marshal(nil, natives[i]); err != nil {
			return Result{}, fmt.Errorf("record %d: %w", i, err)
		}
		encTotal += len(encoded[i])
		if comp != nil {
			z, err := comp.Compress(nil, encoded[i])
			if err != nil {
				return Result{}, fmt.Errorf("record %d: %w", i, err)
			}
			compressed = append(compressed, z)
			compTotal += len(z)
		}
	}
	res.EncodedBytes = float64(encTotal) / float64(len(pool))
	var failed error
	loop := func(body func(i int) error) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			s := usage.Start(usage.Self())
			from := time.Now()
			i := 0
			for b.Loop() {
				if err := body(i % len(pool)); err != nil && failed == nil {
					failed = err
				}
				i++
			}
			to := time.Now()
			if s.Stop() == nil && i > 0 {
				if w, ok := s.Window(from, to); ok {
					b.ReportMetric(w.CPUSeconds*1e9/float64(i), cpuMetric)
					b.ReportMetric(float64(max(0, w.PeakHeapBytes-s.First().HeapBytes)), heapMetric)
				}
			}
		}
	}
	buf := make([]byte, 0, 2*int(res.EncodedBytes)+64)
	res.Marshal = op(testing.Benchmark(loop(func(i int) error {
		out, err := c.Marshal(buf, natives[i])
		buf = out[:0]
		return err
	})))
	into := c.NewNative()
	res.Unmarshal = op(testing.Benchmark(loop(func(i int) error {
		out, err := c.Unmarshal(encoded[i], into)
		into = out
		return err
	})))
	if comp != nil && ctx.Err() == nil {
		res.CompressedBytes = float64(compTotal) / float64(len(pool))
		zbuf := make([]byte, 0, 2*int(res.EncodedBytes)+64)
		cop := op(testing.Benchmark(loop(func(i int) error {
			out, err := comp.Compress(zbuf, encoded[i])
			zbuf = out[:0]
			return err
		})))
		dop := op(testing.Benchmark(loop(func(i int) error {
			out, err := comp.Decompress(buf, compressed[i])
			buf = out[:0]
			return err
		})))
		res.Compress, res.Decompress = &cop, &dop
	}
	return res, failed
}

func op(r testing.BenchmarkResult) Op {
	if r.N == 0 {
		return Op{}
	}
	return Op{NsPerOp: float64(r.T.Nanoseconds()) / float64(r.N), BytesPerOp: r.AllocedBytesPerOp(), AllocsPerOp: r.AllocsPerOp(),
		CPUNsPerOp: r.Extra[cpuMetric], PeakHeapGrowthBytes: int64(r.Extra[heapMetric]), Ops: int64(r.N)}
}
