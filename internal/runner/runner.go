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

	"github.com/serdebench/serdebench/internal/kafkaconn"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/summary"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/producer"
)

// Options configure a local run.
type Options struct {
	Brokers []string
	// Security is TLS and SASL for the brokers.
	Security   kafkaconn.Security
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
	if err := CreateTopicWith(o.Brokers, o.Security, topic, t); err != nil {
		return nil, err
	}
	defer func() {
		if o.KeepTopic {
			return
		}
		if err := (&topics.Admin{Brokers: o.Brokers, Security: o.Security}).Delete(context.Background(), topic); err != nil {
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
			s, err := consumer.Run(consumerCtx, consumer.Config{Brokers: o.Brokers, Security: o.Security, Topic: topic, Group: group,
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
			s, err := producer.Run(ctx, producer.Config{Brokers: o.Brokers, Security: o.Security, Topic: topic, Experiment: o.Experiment,
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

// CreateTopic creates the trial's topic on a plaintext cluster and waits until it is
// usable.
func CreateTopic(brokers []string, topic string, t plan.Trial) error {
	return CreateTopicWith(brokers, kafkaconn.Security{}, topic, t)
}

// CreateTopicWith creates the trial's topic and waits (up to 30 s) until the
// cluster reports it with all its partitions.
func CreateTopicWith(brokers []string, sec kafkaconn.Security, topic string, t plan.Trial) error {
	admin := &topics.Admin{Brokers: brokers, Security: sec}
	spec := topics.Spec{Name: topic, Partitions: t.Partitions, Replicas: t.Replicas, Config: t.TopicConfig}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ready, err := admin.Ensure(context.Background(), spec)
		if err != nil {
			return err
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topic %s not ready after 30s", topic)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// DeleteTopic deletes a trial's topic on a plaintext cluster.
func DeleteTopic(brokers []string, topic string) error {
	return (&topics.Admin{Brokers: brokers}).Delete(context.Background(), topic)
}
