package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/summary"
)

// checkComplete holds a records-bound trial of a non-sarama client to complete
// delivery and the accounting every client shares: each record sent was
// delivered once, each measured one has its end-to-end and ack latency, and
// sarama's warning is absent.
func checkComplete(t *testing.T, tr trial.Trial, r *summary.Result) {
	t.Helper()
	want := tr.Records + tr.Warmup.Records
	if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 || r.Sent != want || r.Delivered != want {
		t.Fatalf("sent %d delivered %d (want %d), lost %d, duplicated %d, errors %d; warnings %v", r.Sent, r.Delivered, want, r.Lost, r.Duplicated, r.Errors, r.Warnings)
	}
	if r.Records != tr.Records || r.EndToEnd.Count != tr.Records || r.Ack.Count != tr.Records {
		t.Fatalf("measured %d acked, %d e2e, %d ack latencies; want %d", r.Records, r.EndToEnd.Count, r.Ack.Count, tr.Records)
	}
	for _, w := range r.Warnings {
		if w == summary.SaramaInFlightWarning {
			t.Errorf("a %s trial carries sarama's warning", tr.Settings.Client)
		}
	}
}

// TestClientSecurity runs franz-go and librdkafka over TLS and SASL/PLAIN, and a
// wrong password fails clearly, in each client's own words.
func TestClientSecurity(t *testing.T) {
	kafkatest.Brokers(t)
	for _, c := range []struct {
		client   trial.Client
		wrongPwd string // what the error for a wrong password says
	}{{trial.ClientFranz, "SASL"}, {trial.ClientRdkafka, "AUTH"}} {
		t.Run(string(c.client), func(t *testing.T) {
			s := spec("msgpack")
			s.Client = c.client
			trials, err := plan.Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			run := func(brokers []string, sec kafkaconn.Security) (*report.TrialResult, error) {
				return runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Security: sec,
					Experiment: "it-" + string(c.client) + "-sec", TrialTimeout: time.Minute})
			}
			for name, b := range map[string]struct {
				brokers []string
				sec     kafkaconn.Security
			}{
				"tls":        {kafkatest.TLSBrokers(t), kafkaconn.Security{TLS: true, CAPEM: kafkatest.TLSCA(t)}},
				"sasl-plain": {kafkatest.SASLBrokers(t), kafkaconn.Security{SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: kafkatest.SASLPassword}},
			} {
				t.Run(name, func(t *testing.T) {
					res, err := run(b.brokers, b.sec)
					if err != nil {
						t.Fatal(err)
					}
					if r := res.Result; r.Lost != 0 || r.Records != trials[0].Records || r.ClientSettings["client"] != string(c.client) {
						t.Fatalf("records %d lost %d client %v", r.Records, r.Lost, r.ClientSettings)
					}
				})
			}
			_, err = run(kafkatest.SASLBrokers(t), kafkaconn.Security{SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: "wrong"})
			if err == nil || !strings.Contains(strings.ToUpper(err.Error()), c.wrongPwd) {
				t.Fatalf("wrong password: %v", err)
			}
			t.Logf("wrong password: %v", err)
		})
	}
}
