package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestRdkafkaClient runs trials with client librdkafka through the real broker in
// each acks level, mode and commit mode: complete delivery, the same accounting
// and histograms as the other clients, librdkafka's own settings recorded, and
// its statistics as client internals (records per request × requests = records).
func TestRdkafkaClient(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	s.Client = trial.ClientRdkafka
	s.Producer.SendBufferBytes, s.Consumer.ReceiveBufferBytes = ptr(int32(262144)), ptr(int32(262144))
	s.Matrix = &v1alpha1.Matrix{Acks: []trial.Acks{trial.AcksNone, trial.AcksLeader, trial.AcksAll},
		Mode: []trial.Mode{trial.ModeBatch, trial.ModeSingle}}
	records := int64(1001)
	s.Records = &records
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	each := trials[0]
	each.Consumer.Commit = trial.CommitEachRecord
	each.Name += "-each"
	for _, tr := range append(trials, each) {
		t.Run(tr.Name+" "+tr.Settings.Describe(), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-rdkafka", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			checkComplete(t, tr, r)
			want := tr.Records + tr.Warmup.Records
			if r.ClientSettings["client"] != "librdkafka" || r.ClientSettings["librdkafka"] == "" {
				t.Errorf("client settings %v", r.ClientSettings)
			}
			if tr.Consumer.Commit == trial.CommitEachRecord && r.Commits != want+int64(tr.Partitions) {
				t.Errorf("commit eachRecord: %d commits for %d records and %d end records", r.Commits, want, tr.Partitions)
			}
			ci := r.Client
			if ci == nil || ci.ProduceRequests <= 0 || ci.BatchRecordsAvg <= 0 || ci.FetchRequestRate <= 0 {
				t.Fatalf("client internals %+v", ci)
			}
			// Every data record and end marker went in some batch of some request.
			sent := float64(want + int64(tr.Partitions))
			if got := ci.RecordsPerRequestAvg * float64(ci.ProduceRequests); got < 0.99*sent || got > 1.01*sent {
				t.Errorf("records per request %.2f × %d requests = %.0f, want the %.0f records sent", ci.RecordsPerRequestAvg, ci.ProduceRequests, got, sent)
			}
		})
	}
}
