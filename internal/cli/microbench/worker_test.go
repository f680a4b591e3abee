package microbench

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/testing/jvmtest"
)

// TestRuntimes: a trial of the Java client is measured in the JVM worker, after its
// JIT warm-up, a JVM-only codec too; a trial of Java producers and Go consumers
// encodes in the JVM and decodes in Go; both runtimes' protobuf encodes the pool to
// the same size (the wire table's bytes). Cancelling stops the worker within
// seconds.
func TestRuntimes(t *testing.T) {
	workers := map[trial.Runtime][]string{trial.RuntimeJVM: jvmtest.Worker(t)}
	base := trial.Trial{Name: "t", Schema: "business-record", SizeBytes: 1176, PoolSize: 16, Seed: 7, Partitions: 3}
	kryo, mixed, goOnly := base, base, base
	kryo.Codec, kryo.Settings.Client = trial.CodecKryo, trial.ClientJava
	mixed.Codec, mixed.Settings.Client, mixed.Settings.ConsumerClient = trial.CodecProtobuf, trial.ClientJava, trial.ClientFranz
	goOnly.Codec = trial.CodecProtobuf
	const bench = 50 * time.Millisecond
	res, err := Run(context.Background(), Cases([]trial.Trial{kryo, mixed, goOnly}), bench, workers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(res), res)
	}
	k, m, g := res[0], res[1], res[2]
	if k.Runtime != "jvm" || m.Runtime != "jvm→go" || g.Runtime != "go" {
		t.Fatalf("runtimes %q, %q, %q", k.Runtime, m.Runtime, g.Runtime)
	}
	for _, op := range []Op{k.Marshal, k.Unmarshal, m.Marshal} {
		// The warm-up's promise: the bench time and 20,000 calls, unless those take
		// ten bench times (a loaded machine: make test once saw 66 µs a call).
		warmed := op.WarmupNanos >= bench.Nanoseconds() && (op.WarmupOps >= 20_000 || op.WarmupNanos >= 10*bench.Nanoseconds())
		if !warmed || op.Ops <= 0 || op.NsPerOp <= 0 || op.CPUNsPerOp <= 0 || op.BytesPerOp <= 0 {
			t.Fatalf("a JVM operation %+v: want its warm-up, calls, time, CPU and allocated bytes", op)
		}
	}
	if m.Unmarshal.WarmupOps != 0 || m.Unmarshal.AllocsPerOp <= 0 {
		t.Fatalf("jvm→go: Unmarshal %+v, want Go's", m.Unmarshal)
	}
	if k.Records != 16 || k.EncodedBytes <= 0 || m.EncodedBytes != g.EncodedBytes {
		t.Fatalf("records %d, kryo %g B, protobuf %g B in the JVM and %g B in Go", k.Records, k.EncodedBytes, m.EncodedBytes, g.EncodedBytes)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)
	began := time.Now()
	if _, err := Run(ctx, Cases([]trial.Trial{kryo}), 10*time.Second, workers, nil); err == nil {
		t.Fatal("cancelled: no error")
	}
	if d := time.Since(began); d > 2*time.Second+runner.ProcessStopGrace+time.Second {
		t.Fatalf("cancelled after 2 s, returned after %s", d)
	}
}
