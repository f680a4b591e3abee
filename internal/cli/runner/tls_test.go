package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// TestTLS runs a trial through the broker's TLS listener trusting its CA, and
// checks that an untrusted certificate fails clearly (and is accepted only when
// verification is explicitly skipped).
func TestTLS(t *testing.T) {
	tlsBrokers := kafkatest.TLSBrokers(t)
	ca := kafkatest.TLSCA(t)
	trials, err := plan.Expand(spec("msgpack"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(sec kafkaconn.Security) (*report.TrialResult, error) {
		return runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: tlsBrokers, Security: sec, Experiment: "it-tls", TrialTimeout: time.Minute})
	}
	res, err := run(kafkaconn.Security{TLS: true, CAPEM: ca})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Result; r.Lost != 0 || r.Records != trials[0].Records {
		t.Fatalf("records %d lost %d", r.Records, r.Lost)
	}
	if _, err := run(kafkaconn.Security{TLS: true}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted CA: %v", err)
	}
	if _, err := run(kafkaconn.Security{TLS: true, InsecureSkipVerify: true}); err != nil {
		t.Fatalf("insecureSkipVerify: %v", err)
	}
}
