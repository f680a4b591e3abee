package runner_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// TestSASL runs trials through the broker's SASL listener with PLAIN and with
// SCRAM-SHA-512 (a user created through the Admin API), and checks that a wrong
// password fails clearly.
func TestSASL(t *testing.T) {
	kafkatest.Brokers(t)
	sasl := kafkatest.SASLBrokers(t)
	scramUser := fmt.Sprintf("scram-%d", time.Now().UnixNano())
	salt := make([]byte, 32)
	if _, err := rand.Read(salt); err != nil {
		t.Fatal(err)
	}
	acfg := sarama.NewConfig()
	acfg.Version = sarama.V3_9_0_0
	admin, err := sarama.NewClusterAdmin(kafkatest.Brokers(t), acfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.UpsertUserScramCredentials([]sarama.AlterUserScramCredentialsUpsert{{
		Name: scramUser, Mechanism: sarama.SCRAM_MECHANISM_SHA_512, Iterations: 8192, Password: []byte("scram-pw"), Salt: salt}}); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close()

	trials, err := plan.Expand(spec("protobuf"))
	if err != nil {
		t.Fatal(err)
	}
	for name, sec := range map[string]kafkaconn.Security{
		"plain":         {SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: kafkatest.SASLPassword},
		"scram-sha-512": {SASLMechanism: sarama.SASLTypeSCRAMSHA512, Username: scramUser, Password: "scram-pw"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: sasl, Security: sec, Experiment: "it-sasl", TrialTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if r := res.Result; r.Lost != 0 || r.Records != trials[0].Records {
				t.Fatalf("records %d lost %d", r.Records, r.Lost)
			}
		})
	}
	_, err = runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: sasl, Experiment: "it-sasl", TrialTimeout: time.Minute,
		Security: kafkaconn.Security{SASLMechanism: sarama.SASLTypePlaintext, Username: kafkatest.SASLUser, Password: "wrong"}})
	if err == nil || !strings.Contains(err.Error(), "SASL") {
		t.Fatalf("wrong password: %v", err)
	}
	t.Logf("wrong password: %v", err)
}
