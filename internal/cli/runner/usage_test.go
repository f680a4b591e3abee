package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/microbench"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestCPUPerRecord runs two codecs far apart in cost (json and protobuf at 4,096
// B) over the real broker: each trial's CPU per record is positive, the broker's
// (the local broker's process, found by its port) too, peak memory is plausible,
// and the CPU per record is ordered as the microbenchmark's (de)serialization
// cost predicts — the codec's cost shows in the cores a worker pays.
func TestCPUPerRecord(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("json", "protobuf")
	s.Payload.SizesBytes = []int32{4096}
	records := int64(20000)
	s.Records, s.Consumers = &records, 1
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	bench, err := microbench.Run(context.Background(), microbench.Cases(trials), 200*time.Millisecond, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cost := map[trial.Codec]float64{}
	for _, b := range bench {
		cost[trial.Codec(b.Codec)] = (b.Marshal.NsPerOp + b.Unmarshal.NsPerOp) / 1e3
	}
	results, err := runner.Run(context.Background(), trials, runner.Options{Brokers: brokers, Experiment: "it-cpu", TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cpu := map[trial.Codec]float64{}
	for _, r := range results {
		u := r.Result.Usage
		if u == nil || u.Scope != summary.ScopeProcess || u.Process == nil {
			t.Fatalf("%s: usage %+v", r.Trial.Name, u)
		}
		t.Logf("%s: workers %.1f µs CPU/record (%.0f records/CPU-s), broker %.1f µs/record, peak RSS %.0f MB, heap %.0f MB; microbenchmark %.1f µs (de)serialization",
			r.Trial.Codec, u.WorkerCPUMicrosPerRecord, u.RecordsPerCPUSecond, u.BrokerCPUMicrosPerRecord, float64(u.Process.PeakRSSBytes)/1e6,
			float64(u.Process.PeakHeapBytes)/1e6, cost[r.Trial.Codec])
		if u.WorkerCPUMicrosPerRecord <= 0 || u.RecordsPerCPUSecond <= 0 || u.Process.PeakRSSBytes < 10<<20 || u.Process.PeakHeapBytes <= 0 {
			t.Errorf("%s: implausible usage %+v %+v", r.Trial.Codec, u, u.Process)
		}
		if u.Broker == nil || u.BrokerCPUMicrosPerRecord <= 0 {
			t.Errorf("%s: the local broker's CPU was not read: %+v", r.Trial.Codec, u.Broker)
		}
		// The workers' CPU holds at least the codec's cost per record.
		if u.WorkerCPUMicrosPerRecord < 0.8*cost[r.Trial.Codec] {
			t.Errorf("%s: %.1f µs CPU per record, less than the (de)serialization alone (%.1f µs)", r.Trial.Codec, u.WorkerCPUMicrosPerRecord, cost[r.Trial.Codec])
		}
		cpu[r.Trial.Codec] = u.WorkerCPUMicrosPerRecord
	}
	if cost["json"] < 3*cost["protobuf"] {
		t.Fatalf("the codecs are not far apart in the microbenchmark: %v", cost)
	}
	if cpu["json"] <= cpu["protobuf"] {
		t.Errorf("json costs %.1f µs of CPU per record, protobuf %.1f: not ordered as the microbenchmark says (%v)", cpu["json"], cpu["protobuf"], cost)
	}
}
