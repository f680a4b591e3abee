package runner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestExistingTopic runs two experiments, one after the other, on one existing
// topic (spec topic.name) while unrelated traffic keeps flowing into it: every
// trial counts exactly its own records (the earlier trials' and the other
// traffic's are skipped), finishes although the topic's end keeps moving, and the
// topic is left in place. The first experiment uses sarama, the second franz-go.
func TestExistingTopic(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	topic := fmt.Sprintf("it-existing-%d", time.Now().UnixNano())
	// A small record-batch limit of its own: batches must stay under it.
	if err := runner.CreateTopic(brokers, topic, trial.Trial{Partitions: 3, Replicas: 1, TopicConfig: map[string]string{"max.message.bytes": "65536"}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = runner.DeleteTopic(brokers, topic) }()

	// Other traffic: headerless records, before and during the runs.
	cfg := sarama.NewConfig()
	cfg.Producer.Return.Successes = true
	other, err := sarama.NewSyncProducer(brokers, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sentOther int
	// The other traffic stops before its producer closes, on every way out (a
	// failed check included: sending on a closed producer panics and hides it).
	stopOther := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopOther()
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if _, _, err := other.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("not serdebench")}); err == nil {
				sentOther++
			}
		}
	})

	records := int64(2000)
	s := spec("protobuf", "json")
	s.Records = &records
	s.Topic = v1alpha1.TopicSpec{Name: topic}
	s.Producer.BatchSizeBytes = ptr(int32(1 << 20)) // above the topic's limit
	s.Producer.LingerMs = ptr(int32(50))
	// Once with each client: the second run's topic holds the first run's records.
	for run, client := range []trial.Client{trial.ClientSarama, trial.ClientFranz} {
		s.Client = client
		trials, err := plan.Expand(s)
		if err != nil {
			t.Fatal(err)
		}
		results, err := runner.Run(context.Background(), trials, runner.Options{Brokers: brokers, Experiment: "it-existing", TrialTimeout: time.Minute})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for _, res := range results {
			r := res.Result
			want := records + s.Warmup.Records
			if res.Topic != topic || r.Sent != want || r.Delivered != want || r.Lost != 0 || r.Duplicated != 0 || r.UnacknowledgedDelivered != 0 {
				t.Errorf("run %d %s on %s: sent %d delivered %d lost %d dup %d; want %d", run, res.Trial.Name, res.Topic, r.Sent, r.Delivered, r.Lost, r.Duplicated, want)
			}
			if w := otherWarnings(r.Warnings); len(w) > 0 || r.Failed != 0 {
				t.Errorf("run %d %s: failed %d, warnings %v", run, res.Trial.Name, r.Failed, r.Warnings)
			}
			var skipped int64
			for _, sum := range res.Summaries {
				skipped += sum.Foreign
			}
			if skipped == 0 {
				t.Errorf("run %d %s: no foreign record skipped, though other traffic flowed", run, res.Trial.Name)
			}
		}
	}
	// A consumer that joins mid-window reads the trial's start with the others
	// (consumer.NewStandby): the partitions it takes over resume where their
	// last owner committed, not at the topic's end when it joined. The consumers
	// fetch every 2 s (a fetch waits for more than ever comes), so the last
	// owner is behind the end when the joiner arrives.
	s.Client, s.Codecs, s.Records, s.DurationSeconds = trial.ClientFranz, []trial.Codec{trial.CodecProtobuf}, nil, ptr(int32(6))
	s.Consumer.FetchMinBytes, s.Consumer.FetchMaxWaitMs = ptr(int32(64<<20)), ptr(int32(2000))
	s.Warmup, s.Rate = trial.Warmup{DurationSeconds: 1}, v1alpha1.Rate{RecordsPerSecond: 1500}
	s.Faults = &v1alpha1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "join", StartSeconds: 2,
		Consumers: &trial.ConsumerFault{Action: trial.ConsumerJoin}}}}
	joins, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runner.RunTrial(context.Background(), joins[0], runner.Options{Brokers: brokers, Experiment: "it-existing", TrialTimeout: time.Minute, Faults: &runner.Faults{}})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	r := out.Result
	var joiner *summary.Summary
	for _, sum := range out.Summaries {
		if sum.Role == protocol.RoleConsumer && sum.Worker == protocol.ConsumerName(2) {
			joiner = sum
		}
	}
	if out.Fault == nil || out.Fault.Applied.IsZero() || joiner == nil || joiner.Records == 0 || joiner.WindowStart.Before(out.Fault.Applied) {
		t.Fatalf("join: fault %+v, joiner %+v: want the standby to receive records only after the join", out.Fault, joiner)
	}
	if r.Sent == 0 || r.Delivered != r.Sent || r.Lost != 0 || r.Failed != 0 {
		t.Errorf("join on %s: sent %d delivered %d lost %d failed %d: the joiner skipped the backlog it took over", topic, r.Sent, r.Delivered, r.Lost, r.Failed)
	}
	t.Logf("join: sent %d, delivered %d; the joiner received %d from %s (joined %s)", r.Sent, r.Delivered, joiner.Records,
		joiner.WindowStart.Format(time.StampMilli), out.Fault.Applied.Format(time.StampMilli))

	stopOther()
	if !kafkatest.Topics(t, brokers)[topic] || sentOther == 0 {
		t.Fatalf("existing topic gone (%v) or no other traffic (%d)", !kafkatest.Topics(t, brokers)[topic], sentOther)
	}
	// The trials' consumer groups are gone from the shared topic's cluster.
	groups := kafkatest.Groups(t, brokers)
	for g := range groups {
		if strings.HasPrefix(g, "sx.it-existing.") {
			t.Errorf("consumer group %s left behind", g)
		}
	}

	// A partition count that does not match, and a topic that does not exist, are
	// clear errors before anything runs.
	s.Topic.Partitions = 6
	mismatch, _ := plan.Expand(s)
	if _, err := runner.RunTrial(context.Background(), mismatch[0], runner.Options{Brokers: brokers, Experiment: "it-existing"}); err == nil ||
		!strings.Contains(err.Error(), "has 3 partitions; set topic.partitions: 3") {
		t.Fatalf("partition mismatch: %v", err)
	}
	s.Topic = v1alpha1.TopicSpec{Name: topic + "-missing"}
	missing, _ := plan.Expand(s)
	if _, err := runner.RunTrial(context.Background(), missing[0], runner.Options{Brokers: brokers, Experiment: "it-existing"}); err == nil ||
		!strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing topic: %v", err)
	}
}
