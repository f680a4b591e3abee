package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/kafkaconn"
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
			want := tr.Records + tr.Warmup.Records
			if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 || r.Sent != want || r.Delivered != want {
				t.Fatalf("sent %d delivered %d (want %d), lost %d, duplicated %d, errors %d; warnings %v", r.Sent, r.Delivered, want, r.Lost, r.Duplicated, r.Errors, r.Warnings)
			}
			if r.Records != tr.Records || r.EndToEnd.Count != tr.Records || r.Ack.Count != tr.Records {
				t.Fatalf("measured %d acked, %d e2e, %d ack latencies; want %d", r.Records, r.EndToEnd.Count, r.Ack.Count, tr.Records)
			}
			if r.ClientSettings["client"] != "franz-go" || r.ClientSettings["MaxProduceRequestsInflightPerBroker"] != "5" {
				t.Errorf("client settings %v", r.ClientSettings)
			}
			if r.FetchInterval.Count == 0 {
				t.Error("no fetch interval measured")
			}
			for _, w := range r.Warnings {
				if w == summary.SaramaInFlightWarning {
					t.Error("a franz-go trial carries sarama's warning")
				}
			}
		})
	}
}

// TestFranzGoSecurity runs franz-go over TLS and SASL/PLAIN, and a wrong password
// fails clearly.
func TestFranzGoSecurity(t *testing.T) {
	s := spec("msgpack")
	s.Client = trial.ClientFranz
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	run := func(brokers []string, sec kafkaconn.Security) (*report.TrialResult, error) {
		return runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Security: sec, Experiment: "it-franz-sec", TrialTimeout: time.Minute})
	}
	kafkatest.Brokers(t)
	for name, c := range map[string]struct {
		brokers []string
		sec     kafkaconn.Security
	}{
		"tls":        {kafkatest.TLSBrokers(t), kafkaconn.Security{TLS: true, CAPEM: kafkatest.TLSCA(t)}},
		"sasl-plain": {kafkatest.SASLBrokers(t), kafkaconn.Security{SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: kafkatest.SASLPassword}},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := run(c.brokers, c.sec)
			if err != nil {
				t.Fatal(err)
			}
			if r := res.Result; r.Lost != 0 || r.Records != trials[0].Records || r.ClientSettings["client"] != "franz-go" {
				t.Fatalf("records %d lost %d client %v", r.Records, r.Lost, r.ClientSettings)
			}
		})
	}
	_, err = run(kafkatest.SASLBrokers(t), kafkaconn.Security{SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: "wrong"})
	if err == nil || !strings.Contains(strings.ToUpper(err.Error()), "SASL") {
		t.Fatalf("wrong password: %v", err)
	}
	t.Logf("wrong password: %v", err)
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
