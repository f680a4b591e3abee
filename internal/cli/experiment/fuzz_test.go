package experiment

import (
	"encoding/json"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/plan"
)

// FuzzAdmitAndPlan builds experiments from fuzzed matrix shapes and settings: Parse
// (the admission the API server would do) must never panic, and every experiment it
// accepts must plan — the CEL rules cover what the planner checks — into at most
// 256 trials. The checked-in corpus is testdata/fuzz/FuzzAdmitAndPlan.
func FuzzAdmitAndPlan(f *testing.F) {
	f.Add(uint8(1), uint8(1), []byte{}, false, uint8(5), int64(1000), false)
	f.Add(uint8(5), uint8(8), []byte{16, 2, 0, 0, 0, 0, 0}, false, uint8(1), int64(1), false)
	f.Add(uint8(2), uint8(3), []byte{0, 0, 2, 0, 2, 0, 0}, true, uint8(1), int64(10), true)
	f.Fuzz(func(t *testing.T, codecs, sizes uint8, dims []byte, idempotent bool, inflight uint8, records int64, duration bool) {
		all := []trial.Codec{"json", "avro", "protobuf", "msgpack", "raw"}
		spec := map[string]any{
			"kafka":    map[string]any{"bootstrapServers": "kafka:9092"},
			"payload":  map[string]any{"schema": "simple", "sizesBytes": series(int(sizes)%10, 64, 100)},
			"producer": map[string]any{"idempotent": idempotent, "acks": "all", "maxInFlight": int(inflight) % 70},
		}
		var cs []trial.Codec
		for i := range int(codecs) % 7 {
			cs = append(cs, all[i%len(all)]) // past 5, duplicates: must be rejected
		}
		spec["codecs"] = cs
		if duration {
			spec["durationSeconds"] = records % 100000
		} else {
			spec["records"] = records
		}
		matrix := map[string]any{}
		names := []string{"batchSizeBytes", "lingerMs", "acks", "compression", "maxInFlight", "mode", "recordsPerSecond", "payloadCompression"}
		for i, n := range dims {
			if i >= len(names) {
				break
			}
			k := int(n) % 20
			switch names[i] {
			case "acks":
				matrix["acks"] = cycle([]string{"0", "1", "all"}, k)
			case "compression":
				matrix["compression"] = cycle([]string{"none", "gzip", "snappy", "lz4", "zstd"}, k)
			case "mode":
				matrix["mode"] = cycle([]string{"batch", "single"}, k)
			case "payloadCompression":
				matrix["payloadCompression"] = cycle([]string{"none", "deflate", "zstd", "lz4", "snappy", "xz"}, k)
			case "maxInFlight":
				matrix["maxInFlight"] = series(k, 1, 1)
			default:
				matrix[names[i]] = series(k, 0, 7)
			}
		}
		if len(matrix) > 0 {
			spec["matrix"] = matrix
		}
		doc, err := json.Marshal(map[string]any{"apiVersion": "serdebench.io/v1alpha1", "kind": "SerializationExperiment",
			"metadata": map[string]any{"name": "fuzz"}, "spec": spec})
		if err != nil {
			t.Fatal(err)
		}
		x, err := Parse(doc)
		if err != nil {
			return // rejected, as the API server would
		}
		trials, err := plan.Expand(x.Spec.ExperimentSpec)
		if err != nil {
			t.Fatalf("admitted but the planner refuses it: %v\n%s", err, doc)
		}
		if len(trials) == 0 || len(trials) > x.Spec.MaxTrials() {
			t.Fatalf("admitted spec plans into %d trials\n%s", len(trials), doc)
		}
	})
}

// series is n distinct integers from start by step.
func series(n, start, step int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out
}

// cycle is n values taken round-robin from vals (duplicates past len(vals)).
func cycle(vals []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vals[i%len(vals)]
	}
	return out
}
