package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestGroupProtocols runs both consumer group protocols, the classic one and
// KIP-848's consumer protocol, with each Go client that speaks the latter, three
// consumers sharing the topic's three partitions: complete delivery, and the group
// the broker kept is of the protocol the trial asked for (ListGroups v5's type,
// the broker's own word).
func TestGroupProtocols(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	s.Consumers = 3
	s.Matrix = &v1alpha1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientRdkafka}, GroupProtocol: trial.GroupProtocols}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 4 {
		t.Fatalf("%d trials, want 4", len(trials))
	}
	for _, tr := range trials {
		t.Run(tr.Settings.Describe(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := runner.RunTrial(ctx, tr, runner.Options{Brokers: brokers, Experiment: "it-groups", TrialTimeout: 2 * time.Minute, KeepTopics: true})
			if err != nil {
				t.Fatal(err)
			}
			checkComplete(t, tr, res.Result)
			want := string(tr.Settings.GroupProtocol.OrDefault())
			if got := groupType(t, ctx, brokers, res.Topic); got != want {
				t.Errorf("the broker kept the trial's group as a %q group, want %q", got, want)
			}
		})
	}
}

// groupType is the type the broker gives the consumer group of a trial's topic
// (classic or consumer).
func groupType(t *testing.T, ctx context.Context, brokers []string, topic string) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrListGroupsRequest()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("list groups: %v", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("list groups: %v", err)
	}
	var found []kmsg.ListGroupsResponseGroup
	for _, g := range resp.Groups {
		if strings.HasPrefix(g.Group, topic) {
			found = append(found, g)
		}
	}
	if len(found) != 1 {
		t.Fatalf("groups named after topic %s: %+v, want one", topic, found)
	}
	return found[0].GroupType
}
