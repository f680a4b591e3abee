package runner_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestSmallRecordsCompactHeaders: the producer thesis's 10 B records (the bytes
// schema, raw) with the compact header set, swept over matrix.records, with both
// clients and two producers. Every record arrives once with its decoded send time
// and sequence, the end records still close the trial (consumed records plus end
// records are the broker's end offsets), the value is exactly 10 B and the result
// says what the headers cost: 16-20 B compact (a second producer adds its index),
// 56 B full.
func TestSmallRecordsCompactHeaders(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	records := int64(1000)
	s := v1alpha1.ExperimentSpec{
		Codecs:    []trial.Codec{trial.CodecRaw},
		Payload:   v1alpha1.PayloadSpec{Schema: trial.BytesSchema, SizesBytes: []int32{10}, Headers: trial.HeadersCompact},
		Records:   &records,
		Warmup:    trial.Warmup{Records: 100},
		Producers: 2,
		Consumers: 2,
		PoolSize:  16,
		Matrix:    &v1alpha1.Matrix{Records: []int64{1000, 3000}, Client: []trial.Client{trial.ClientSarama, trial.ClientFranz}},
	}
	compact, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Payload.Headers, s.Matrix = trial.HeadersFull, nil
	full, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range append(compact, full...) {
		t.Run(tr.Name+"-"+string(tr.Headers)+"-"+string(tr.Settings.Client), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-shapes", KeepTopics: true, TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := runner.DeleteTopic(brokers, res.Topic); err != nil {
					t.Error(err)
				}
			}()
			r := res.Result
			if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 {
				t.Fatalf("lost %d, duplicated %d, errors %d; warnings %v", r.Lost, r.Duplicated, r.Errors, r.Warnings)
			}
			if want := 2 * tr.Records; r.Records != want || r.EndToEnd.Count != want {
				t.Fatalf("measured %d acked, %d end-to-end; want %d (matrix.records %d per producer)", r.Records, r.EndToEnd.Count, want, tr.Settings.Records)
			}
			// A misread send time would put latency far outside a local trial's.
			if r.EndToEnd.P50 <= 0 || r.EndToEnd.Max > (2*time.Minute).Microseconds() {
				t.Fatalf("end-to-end p50 %d µs, max %d µs: send times misread", r.EndToEnd.P50, r.EndToEnd.Max)
			}
			if r.SerializedBytesPerRecord != 10 {
				t.Fatalf("values of %.2f B, want 10", r.SerializedBytesPerRecord)
			}
			lo, hi := 56.0, 56.0
			if tr.Headers == trial.HeadersCompact {
				lo, hi = 16, 20
			}
			if r.HeaderBytesPerRecord < lo || r.HeaderBytesPerRecord > hi {
				t.Fatalf("%s headers: %.2f B per record, want %.0f-%.0f", tr.Headers, r.HeaderBytesPerRecord, lo, hi)
			}
			checkEndOffsets(t, brokers, res)
			t.Logf("%s: %.1f B of headers per 10 B record, %.0f rec/s, e2e p50 %d µs", tr.Headers, r.HeaderBytesPerRecord, r.RecordsPerSecond, r.EndToEnd.P50)
		})
	}
}

// TestCommitEachRecord: consumers that commit every record (the 2024 thesis's
// "one by one" consumer) wait for one commit per record they process, with every
// client, and still deliver everything once; consumers committing on an interval
// wait for none.
func TestCommitEachRecord(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("json")
	records := int64(1000)
	s.Records = &records
	s.Warmup.Records = 100
	// sarama's commit waits for the fetch in flight on its connection
	// (SaramaCommitWarning): at the default 500 ms this test would take minutes.
	s.Consumer.FetchMaxWaitMs = ptr(int32(10))
	s.Matrix = &v1alpha1.Matrix{Client: trial.RuntimeGo.Clients()}
	for _, commit := range []trial.Commit{trial.CommitEachRecord, trial.CommitInterval} {
		s.Consumer.Commit = commit
		trials, err := plan.Expand(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trials {
			t.Run(string(commit)+"-"+string(tr.Settings.Client), func(t *testing.T) {
				res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-commit", TrialTimeout: 2 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				r := res.Result
				if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 {
					t.Fatalf("lost %d, duplicated %d, errors %d; warnings %v", r.Lost, r.Duplicated, r.Errors, r.Warnings)
				}
				if want := tr.Records + tr.Warmup.Records; r.Delivered != want {
					t.Fatalf("delivered %d, want %d", r.Delivered, want)
				}
				switch {
				case commit == trial.CommitEachRecord && r.Commits < r.Delivered:
					t.Fatalf("%d commits waited for, fewer than the %d records delivered", r.Commits, r.Delivered)
				case commit == trial.CommitInterval && r.Commits != 0:
					t.Fatalf("interval commits: the consumers waited for %d commits", r.Commits)
				}
				warned := slices.Contains(r.Warnings, summary.SaramaCommitWarning)
				if want := commit == trial.CommitEachRecord && tr.Settings.Client == trial.ClientSarama; warned != want {
					t.Fatalf("sarama's commit warning %v, want %v: %v", warned, want, r.Warnings)
				}
				t.Logf("commit %s: %d commits for %d records, consumer %.0f rec/s, e2e p50 %d µs", commit, r.Commits, r.Delivered, r.ConsumerRecordsPerSecond, r.EndToEnd.P50)
			})
		}
	}
}
