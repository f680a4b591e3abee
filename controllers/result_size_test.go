package controllers

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestResultSizeAtMatrixCap: a result for the largest matrix the API admits (256
// trials, 128 with faults, transactions or repetitions, 64 with repetitions and one of the others), every number at its
// widest (client internals, resource usage, registry cost, transactions and
// stalls included), stays
// under the 1.1 MB target, with intervals at their per-trial budget and either a rate search or (they do not combine) a fault with its status
// and phases per trial.
func TestResultSizeAtMatrixCap(t *testing.T) {
	records := int64(1 << 40)
	day := int32(86400)
	for name, spec := range map[string]serdebenchv1.ExperimentSpec{
		"search": {Codecs: []trial.Codec{"json", "avro", "protobuf", "msgpack"},
			Payload: serdebenchv1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176, 4696, 9312, 100000}},
			Records: &records,
			Matrix:  &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 2, 5, 10, 20, 50, 100}, Acks: []trial.Acks{"1", "all"}}},
		"transactions": {Codecs: []trial.Codec{"json", "avro", "protobuf", "msgpack"},
			Payload: serdebenchv1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176, 4696, 9312, 100000}},
			Records: &records, Client: trial.ClientFranz, Producer: serdebenchv1.ProducerSettings{Acks: trial.AcksAll},
			Matrix: &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 5, 20}, Transactions: []trial.Transactions{{RecordsPerTransaction: 100}, {TransactionMillis: 100}}}},
		"faults": {Codecs: []trial.Codec{"json", "avro", "protobuf", "msgpack"},
			Payload:         serdebenchv1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176, 4696, 9312, 100000}},
			DurationSeconds: &day, IntervalSeconds: 1,
			Matrix: &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 5, 20}},
			Faults: &serdebenchv1.Faults{Baseline: ptr.To(false), Scenarios: []trial.Fault{
				{Name: strings.Repeat("a", 20), StartSeconds: 2, DurationSeconds: 86000, Network: &trial.NetworkFault{LossPercent: "25"}},
				{Name: strings.Repeat("b", 20), StartSeconds: 2, DurationSeconds: 86000, Network: &trial.NetworkFault{LossPercent: "25"}}}}},
	} {
		specs := map[string]serdebenchv1.ExperimentSpec{name: spec}
		// With repetitions the cap halves (64 runs with faults and repetitions) and
		// the result adds each repeated trial's statistics.
		repeated := spec
		repeated.Repetitions = 2
		switch name {
		case "transactions":
			repeated.Matrix = &serdebenchv1.Matrix{LingerMs: []int32{0}, Transactions: []trial.Transactions{{RecordsPerTransaction: 100}, {TransactionMillis: 100}}}
		case "search":
			repeated.Matrix = &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 2, 5}}
		case "faults":
			repeated.Matrix = &serdebenchv1.Matrix{LingerMs: []int32{0}}
		}
		specs[name+"-repeated"] = repeated
		for name, spec := range specs {
			t.Run(name, func(t *testing.T) {
				b := resultAtCap(t, spec)
				// The target with every field at its widest, which no real result is
				// (a real result at the cap is about half of this).
				if len(b) > resultTargetBytes {
					t.Fatalf("result is %d bytes: above the %d B target", len(b), resultTargetBytes)
				}
			})
		}
	}
}

// resultTargetBytes is the largest a result may be: 30 % below etcd's default
// request limit (1.5 MiB), so an update with managed fields still fits.
const resultTargetBytes = 1_100_000

// resultAtCap is the JSON of a result of spec's trials (the cap), every number at
// its widest.
func resultAtCap(t *testing.T, spec serdebenchv1.ExperimentSpec) []byte {
	t.Helper()
	trials, err := plan.Expand(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != spec.MaxTrials() {
		t.Fatalf("%d trials, want the cap %d", len(trials), spec.MaxTrials())
	}
	wide := summary.Percentiles{Count: 1 << 40, P50: 3_600_000_000, P75: 3_600_000_000, P90: 3_600_000_000, P95: 3_600_000_000,
		P99: 3_600_000_000, P999: 3_600_000_000, P9999: 3_600_000_000, Max: 3_600_000_000}
	at := metav1.NewTime(time.Date(2026, 11, 22, 23, 59, 50, 0, time.UTC))
	res := serdebenchv1.SerializationResult{Experiment: serdebenchv1.ExperimentSnapshot{Name: strings.Repeat("x", 253), Spec: serdebenchv1.SerializationExperimentSpec{ExperimentSpec: spec, TimeoutSeconds: 172800}}}
	for _, tr := range trials {
		m := &summary.Result{Producers: 64, Consumers: 64, WindowSeconds: 86400, Records: 1 << 40, RecordsPerSecond: 1e7,
			SerializedMBPerSecond: 1e4, SerializedBytesPerRecord: 1 << 20, SerializeMicrosPerRecord: 1e6, DeserializeMicrosPerRecord: 1e6,
			EndToEnd: wide, Ack: wide, SendDelay: wide, Sent: 1 << 40, Delivered: 1 << 40, Lost: 1 << 40, Duplicated: 1 << 40,
			Warnings: []string{"prometheus cross-check skipped: query sum(max_over_time(serdebench_records_total{...}[86400s])): connection refused"},
			Client: &summary.ClientInternals{BatchSizeAvgBytes: 1e12, BatchRecordsAvg: 1e12, RecordsPerRequestAvg: 1e12, ProduceRequests: 1 << 40,
				CompressionRateAvg: 0.123456, RequestLatencyAvgMicros: 3.6e9, RequestLatencyMaxMicros: 3_600_000_000, RecordQueueTimeAvgMicros: 3.6e9,
				RequestsInFlightAvg: 1e6, RequestsInFlightMax: 1 << 20, BufferedBytesMax: 1 << 40, BufferedRecordsMax: 1 << 40,
				FetchRequestRate: 1e9, FetchSizeAvgBytes: 1e12, RecordsPerFetchAvg: 1e12},
			Usage: &summary.Usage{Scope: summary.ScopeWorkers, WorkerCPUMicrosPerRecord: 1e9, ProducerCPUMicrosPerRecord: 1e9, ConsumerCPUMicrosPerRecord: 1e9,
				BrokerCPUMicrosPerRecord: 1e9, RecordsPerCPUSecond: 1e12},
			Registry: &summary.RegistryCost{Requests: 1 << 20, RequestMillis: 3.6e6, SerializeLookupNanosPerRecord: 1e9, DeserializeLookupNanosPerRecord: 1e9}}
		// Transactions and stalls: a transactional producer whose consumers
		// stalled. Both count against the cap as faults do (a transactional
		// spec's: MaxTrials; stalls come with consumer faults), so they are in
		// the faulted and transactional cases.
		if tr.Fault != nil || tr.Settings.Transactions.Enabled() {
			m.Transactions = &summary.Transactions{Committed: 1 << 40, Aborted: 1 << 40, PerSecond: 1e6, RecordsPerTransaction: 1e6,
				AbortedRecords: 1 << 40, AbortedDelivered: 1 << 40, InDoubt: 1 << 40, InDoubtRecords: 1 << 40, InDoubtDelivered: 1 << 40, Commit: wide}
			m.Stalls = &summary.Stalls{SlackMicros: 3_600_000_000, Count: 1 << 20, Partitions: 1 << 20, MaxMicros: 3_600_000_000, TotalMicros: 1 << 50,
				Delayed: 1 << 40, DelayedMaxMicros: 3_600_000_000}
			for range summary.MaxStallEvents {
				m.Stalls.Events = append(m.Stalls.Events, summary.Stall{Partition: 1 << 20, Start: time.Date(2026, 11, 22, 23, 59, 50, 123456789, time.UTC),
					Micros: 3_600_000_000, Moved: true, Delayed: 1 << 40, DelayedMaxMicros: 3_600_000_000, DelayedMeanMicros: 3.6e9})
			}
		}
		if tr.Fault != nil {
			lat := trial.PhaseLatencyMicros{P50: wide.P50, P99: wide.P99, Max: wide.Max}
			phase := &trial.Phase{StartMillis: 86_400_000, EndMillis: 86_400_000, WindowMillis: 86_400_000, Records: 1 << 40, RecordsPerSecond: 1e7, OfferedRecordsPerSecond: 1e7,
				AckMicros: lat, EndToEndMicros: lat, FailedRecords: 1 << 40, LostRecords: 1 << 40, DuplicatedRecords: 1 << 40}
			ms := int64(86_400_000)
			m.Phases = &trial.Phases{ResolutionSeconds: 2, FaultStartMillis: ms, FaultEndMillis: &ms, Before: phase, During: phase, After: phase,
				FirstErrorMillis: &ms, RecoveryMillis: &ms, RecoveryFrom: trial.RecoveryFromEnd, Band: trial.Recovery{ThroughputPercent: 100, LatencyPercent: 1000, Intervals: 60}}
		}
		n := build.SeriesPerTrial(len(trials))
		r := build.TrialResult(tr, m, n)
		if tr.Fault == nil {
			r.Search = &serdebenchv1.SearchResult{MaxSustainedRecordsPerSecond: 640_000_000, Stopped: strings.Repeat("s", 120)}
			for k := range n {
				r.Search.Steps = append(r.Search.Steps, serdebenchv1.SearchStep{Index: int32(k), TargetRecordsPerSecond: 640_000_000,
					Records: 1 << 40, Received: 1 << 40, AckP99Micros: 3_600_000_000, EndToEndP99Micros: 3_600_000_000,
					Reason: "end-to-end p99 3600000000 µs above 600000000 µs"})
			}
		} else {
			// Chaos Mesh's records: a few objects; targets are capped (maxFaultTargets).
			r.Fault = &serdebenchv1.FaultStatus{Name: tr.Fault.Name, DueTime: &at, CreateTime: &at, InjectedTime: &at, RecoveredTime: &at, Phase: serdebenchv1.FaultRemoved,
				Objects: []string{"NetworkChaos/" + strings.Repeat("n", 63), "NetworkChaos/" + strings.Repeat("m", 63)}}
			for range maxFaultTargets {
				r.Fault.Targets = append(r.Fault.Targets, strings.Repeat("p", 63)+"/"+strings.Repeat("q", 63))
			}
		}
		for range n {
			r.Intervals = append(r.Intervals, serdebenchv1.Interval{StartTime: at,
				WindowMillis: 3_600_000, Records: 1 << 40, RecordsPerSecond: 10_000_000, OfferedRecordsPerSecond: 10_000_000,
				ConsumedRecordsPerSecond: 10_000_000, AckP50Micros: 3_600_000_000,
				AckP99Micros: 3_600_000_000, EndToEndP50Micros: 3_600_000_000, EndToEndP99Micros: 3_600_000_000, BacklogRecords: 1 << 40})
		}
		diff := int64(-1 << 40)
		r.PrometheusRecordsDifference = &diff
		r.ThroughputSeries = &serdebenchv1.ThroughputSeries{StepSeconds: 1440}
		for range min(maxSeriesPoints, n) {
			r.ThroughputSeries.RecordsPerSecond = append(r.ThroughputSeries.RecordsPerSecond, 10_000_000)
		}
		r.HeaderBytesPerRecord, r.Commits = 1<<20, 1<<40
		r.Sync = &serdebenchv1.TrialSync{StartAt: ptr.To(metav1.NewMicroTime(at.Time)), StartSpreadMicros: 3_600_000_000,
			ProducerRatesSumPerSecond: 640_000_000, ClockUncertaintyMicros: 3_600_000_000}
		res.Trials = append(res.Trials, r)
	}
	// Every node's clock, its name at the longest.
	var clocks serdebenchv1.TrialStart
	for i := range maxClockNodes {
		clocks.Nodes = append(clocks.Nodes, serdebenchv1.NodeClock{Node: fmt.Sprintf("%0253d", i), OffsetMicros: -3_600_000_000, UncertaintyMicros: 3_600_000_000,
			EndOffsetMicros: ptr.To(int64(-3_600_000_000)), EndUncertaintyMicros: ptr.To(int64(3_600_000_000))})
	}
	res.Environment.Clocks = mergeClocks(nil, &clocks)
	// The broker pods read, their names at the longest.
	bc := &serdebenchv1.BrokerCPU{Namespace: strings.Repeat("n", 63), ResolutionSeconds: 1 << 30}
	for i := range maxBrokerPodsListed {
		bc.Pods = append(bc.Pods, fmt.Sprintf("%0253d", i))
	}
	res.Environment.BrokerCPU = mergeBrokerCPU(nil, bc)
	res.Summary = build.Summary(res.Trials)
	rows := report.ResultRows(&res)
	res.Statistics = report.Statistics(rows)
	// Every repeated trial's merged percentiles, at their widest.
	for i := range res.Statistics {
		w := report.LatencyMicros(wide)
		res.Statistics[i].Merged = &serdebenchv1.MergedLatency{Runs: 20, ResolutionPermille: 10, EndToEndMicros: w, AckMicros: w}
	}
	res.Stopping = &serdebenchv1.Stopping{Repetitions: 20, Met: true,
		Widest: strings.Repeat("t", 63) + " resources.workerCPUNanosPerRecord: no 98 % interval yet (it needs 7 repetitions and a median other than 0)"}
	// The recommendation and sensitivity blocks as collect writes them, names at
	// their longest.
	rec, recErr := recommend.Recommend(rows, spec.Objective)
	res.Recommendation = recommend.Block(rec, recErr, recommend.TrialSeconds(spec))
	if len(res.Recommendation.Choices) == 0 || slices.ContainsFunc(res.Recommendation.Choices, func(c serdebenchv1.RecommendedChoice) bool {
		return c.Best == "" || len(c.Others) > recommend.BlockOthers
	}) {
		t.Fatalf("recommendation %+v", res.Recommendation)
	}
	res.Sensitivity = report.PlanOf(rows).Sensitivity()
	if spec.Repetitions > 1 && len(res.Statistics) != len(res.Trials)/int(spec.Repetitions) {
		t.Fatalf("%d statistics for %d trials of %d repetitions", len(res.Statistics), len(res.Trials), spec.Repetitions)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result at the matrix cap: %d trials, %d bytes (%d per trial)", len(res.Trials), len(b), len(b)/len(res.Trials))
	return b
}
