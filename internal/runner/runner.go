// Package runner runs an experiment's trials one at a time against a Kafka cluster
// without Kubernetes: for each trial it creates a fresh topic through the Admin API,
// starts the consumers, waits for their group to settle, runs the producers, merges
// every worker's summary and deletes the topic.
package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/summary"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/producer"
)

// Options configure a local run.
type Options struct {
	Brokers    []string
	Experiment string
	// Progress, if set, counts measured records acknowledged across trials.
	Progress *atomic.Int64
	// OnTrial, if set, is called before each trial starts.
	OnTrial func(t plan.Trial)
	// KeepTopic leaves each trial's topic in place (tests inspect it).
	KeepTopic bool
	// TrialTimeout bounds one trial; 0 means 30 minutes.
	TrialTimeout time.Duration
	Log          *slog.Logger
}

// TrialResult is one trial's outcome.
type TrialResult struct {
	Trial     plan.Trial         `json:"trial"`
	Topic     string             `json:"topic"`
	Result    *summary.Result    `json:"result"`
	Summaries []*summary.Summary `json:"summaries,omitempty"`
}

// Run runs the trials in order and returns their results. It stops at the first
// trial that fails and returns the results so far with the error.
func Run(ctx context.Context, trials []plan.Trial, o Options) ([]TrialResult, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	var out []TrialResult
	for _, t := range trials {
		if o.OnTrial != nil {
			o.OnTrial(t)
		}
		res, err := RunTrial(ctx, t, o)
		if err != nil {
			return out, fmt.Errorf("trial %s: %w", t.Name, err)
		}
		out = append(out, *res)
	}
	return out, nil
}

// TopicName is the trial's topic: unique per run so retries never read old records.
func TopicName(experiment string, t plan.Trial, runID string) string {
	return fmt.Sprintf("serdebench.%s.%s.%s", experiment, t.Name, runID)
}

// RunTrial runs one trial end to end.
func RunTrial(ctx context.Context, t plan.Trial, o Options) (*TrialResult, error) {
	timeout := o.TrialTimeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	runID := strconv.FormatInt(time.Now().UnixNano(), 36)
	topic := TopicName(o.Experiment, t, runID)
	group := topic + ".consumers"
	if err := CreateTopic(o.Brokers, topic, t); err != nil {
		return nil, err
	}
	defer func() {
		if o.KeepTopic {
			return
		}
		if err := DeleteTopic(o.Brokers, topic); err != nil {
			o.Log.Warn("delete topic", "topic", topic, "err", err)
		}
	}()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var sums []*summary.Summary
	var errs []error
	collect := func(s *summary.Summary, err error) {
		mu.Lock()
		defer mu.Unlock()
		if s != nil {
			sums = append(sums, s)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	consumerCtx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	for i := range int(t.Consumers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := consumer.Run(consumerCtx, consumer.Config{Brokers: o.Brokers, Topic: topic, Group: group,
				Experiment: o.Experiment, Trial: t, Name: "c" + strconv.Itoa(i), Log: o.Log})
			if err != nil {
				err = fmt.Errorf("consumer c%d: %w", i, err)
			}
			collect(s, err)
		}()
	}
	var pwg sync.WaitGroup
	for i := range int(t.Producers) {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			s, err := producer.Run(ctx, producer.Config{Brokers: o.Brokers, Topic: topic, Experiment: o.Experiment,
				Trial: t, ID: i, WaitGroup: group, WaitTimeout: time.Minute, Progress: o.Progress, Log: o.Log})
			if err != nil {
				err = fmt.Errorf("producer %d: %w", i, err)
				// Without a producer the consumers would wait for its end records.
				stopConsumers()
			}
			collect(s, err)
		}()
	}
	pwg.Wait()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("trial timed out after %s", timeout)
	}
	res, err := summary.Merge(sums)
	if err != nil {
		return nil, err
	}
	return &TrialResult{Trial: t, Topic: topic, Result: res, Summaries: sums}, nil
}

// CreateTopic creates the trial's topic and waits until it is usable.
func CreateTopic(brokers []string, topic string, t plan.Trial) error {
	admin, err := newAdmin(brokers)
	if err != nil {
		return err
	}
	defer func() { _ = admin.Close() }()
	entries := map[string]*string{}
	for k, v := range t.TopicConfig {
		entries[k] = &v
	}
	detail := &sarama.TopicDetail{NumPartitions: t.Partitions, ReplicationFactor: int16(t.Replicas), ConfigEntries: entries}
	if err := admin.CreateTopic(topic, detail, false); err != nil && !errors.Is(err, sarama.ErrTopicAlreadyExists) {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	return nil
}

// DeleteTopic deletes a trial's topic.
func DeleteTopic(brokers []string, topic string) error {
	admin, err := newAdmin(brokers)
	if err != nil {
		return err
	}
	defer func() { _ = admin.Close() }()
	if err := admin.DeleteTopic(topic); err != nil && !errors.Is(err, sarama.ErrUnknownTopicOrPartition) {
		return fmt.Errorf("delete topic %s: %w", topic, err)
	}
	return nil
}

func newAdmin(brokers []string) (sarama.ClusterAdmin, error) {
	c := sarama.NewConfig()
	c.Version = sarama.DefaultVersion
	c.Net.DialTimeout = 5 * time.Second
	c.Metadata.Retry.Max = 2
	c.Metadata.Retry.Backoff = 500 * time.Millisecond
	admin, err := sarama.NewClusterAdmin(brokers, c)
	if err != nil {
		return nil, fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
	}
	return admin, nil
}
