package controllers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestResultSizeAtMatrixCap: a result for the largest matrix the API admits (256
// trials), every number at its widest, stays well under etcd's 1.5 MiB object limit
// and the 1 MiB target, with a rate search and intervals at their per-trial budget.
func TestResultSizeAtMatrixCap(t *testing.T) {
	records := int64(1 << 40)
	spec := serdebenchv1.ExperimentSpec{
		Codecs:  []trial.Codec{"json", "avro", "protobuf", "msgpack"},
		Payload: serdebenchv1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176, 4696, 9312, 100000}},
		Records: &records,
		Matrix:  &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 2, 5, 10, 20, 50, 100}, Acks: []trial.Acks{"1", "all"}},
	}
	trials, err := plan.Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != trial.MaxTrials {
		t.Fatalf("%d trials", len(trials))
	}
	wide := summary.Percentiles{Count: 1 << 40, P50: 3_600_000_000, P75: 3_600_000_000, P90: 3_600_000_000, P95: 3_600_000_000,
		P99: 3_600_000_000, P999: 3_600_000_000, P9999: 3_600_000_000, Max: 3_600_000_000}
	res := serdebenchv1.SerializationResult{Experiment: serdebenchv1.ExperimentSnapshot{Name: strings.Repeat("x", 253), Spec: serdebenchv1.SerializationExperimentSpec{ExperimentSpec: spec}}}
	for _, tr := range trials {
		m := &summary.Result{Producers: 64, Consumers: 64, WindowSeconds: 86400, Records: 1 << 40, RecordsPerSecond: 1e7,
			SerializedMBPerSecond: 1e4, SerializedBytesPerRecord: 1 << 20, SerializeMicrosPerRecord: 1e6, DeserializeMicrosPerRecord: 1e6,
			EndToEnd: wide, Ack: wide, SendDelay: wide, Sent: 1 << 40, Delivered: 1 << 40, Lost: 1 << 40, Duplicated: 1 << 40,
			Warnings: []string{"prometheus cross-check skipped: query sum(max_over_time(serdebench_records_total{...}[86400s])): connection refused"}}
		n := build.SeriesPerTrial(len(trials))
		r := build.TrialResult(tr, m, n)
		r.Search = &serdebenchv1.SearchResult{MaxSustainedRecordsPerSecond: 640_000_000, Stopped: strings.Repeat("s", 120)}
		for k := range n {
			r.Search.Steps = append(r.Search.Steps, serdebenchv1.SearchStep{Index: int32(k), TargetRecordsPerSecond: 640_000_000,
				Records: 1 << 40, Received: 1 << 40, AckP99Micros: 3_600_000_000, EndToEndP99Micros: 3_600_000_000,
				Reason: "end-to-end p99 3600000000 µs above 600000000 µs"})
		}
		for range n {
			r.Intervals = append(r.Intervals, serdebenchv1.Interval{StartTime: metav1.NewTime(time.Date(2026, 11, 22, 23, 59, 50, 0, time.UTC)),
				WindowMillis: 3_600_000, Records: 1 << 40, RecordsPerSecond: 10_000_000, OfferedRecordsPerSecond: 10_000_000,
				ConsumedRecordsPerSecond: 10_000_000, AckP50Micros: 3_600_000_000,
				AckP99Micros: 3_600_000_000, EndToEndP50Micros: 3_600_000_000, EndToEndP99Micros: 3_600_000_000, BacklogRecords: 1 << 40})
		}
		diff := int64(-1 << 40)
		r.PrometheusRecordsDifference = &diff
		r.ThroughputSeries = &serdebenchv1.ThroughputSeries{StepSeconds: 1440}
		for range maxSeriesPoints {
			r.ThroughputSeries.RecordsPerSecond = append(r.ThroughputSeries.RecordsPerSecond, 10_000_000)
		}
		res.Trials = append(res.Trials, r)
	}
	res.Summary = build.Summary(res.Trials)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result at the matrix cap: %d trials, %d bytes (%d per trial)", len(res.Trials), len(b), len(b)/len(res.Trials))
	// 7/8 of the target: every field here is at its widest, which no real result is.
	if len(b) > 896<<10 {
		t.Fatalf("result is %d bytes: too close to the 1 MiB target", len(b))
	}
}
