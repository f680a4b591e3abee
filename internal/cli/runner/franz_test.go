package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestFranzGoClient runs trials with client franz-go through the real broker in
// each acks level and mode, with set socket buffers: complete delivery, the same
// accounting and histograms as sarama, franz-go's own settings recorded, and the
// consumer's fetch intervals measured.
func TestFranzGoClient(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	s.Client = trial.ClientFranz
	s.Producer.SendBufferBytes, s.Consumer.ReceiveBufferBytes = ptr(int32(262144)), ptr(int32(262144))
	s.Matrix = &v1alpha1.Matrix{Acks: []trial.Acks{trial.AcksNone, trial.AcksLeader, trial.AcksAll},
		Mode: []trial.Mode{trial.ModeBatch, trial.ModeSingle}}
	records := int64(1001)
	s.Records = &records
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		t.Run(tr.Settings.Describe(), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-franz", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			checkComplete(t, tr, r)
			if r.ClientSettings["client"] != "franz-go" || r.ClientSettings["MaxProduceRequestsInflightPerBroker"] != "5" {
				t.Errorf("client settings %v", r.ClientSettings)
			}
			if r.FetchInterval.Count == 0 {
				t.Error("no fetch interval measured")
			}
		})
	}
}

// otherWarnings are the warnings besides sarama's standing one about its in-flight
// limit and a short test trial's WindowTooShort.
func otherWarnings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if w != summary.SaramaInFlightWarning && !strings.HasPrefix(w, "WindowTooShort:") {
			out = append(out, w)
		}
	}
	return out
}
