package kafkaconn

import (
	"context"
	"fmt"
	"time"

	"github.com/IBM/sarama"
)

// NewClient connects to the brokers, giving up when ctx ends even if sarama's own
// dial and metadata retries would go on.
func NewClient(ctx context.Context, brokers []string, cfg *sarama.Config) (sarama.Client, error) {
	type result struct {
		c   sarama.Client
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := sarama.NewClient(brokers, cfg)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("connect to Kafka at %v: %w", brokers, r.err)
		}
		return r.c, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				_ = r.c.Close()
			}
		}()
		return nil, fmt.Errorf("connect to Kafka at %v: %w", brokers, ctx.Err())
	}
}

// AfterDone returns a context that ends grace after ctx ends, never before: a
// stopped worker still drains what is in flight, but not for long.
func AfterDone(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return out, func() { stop(); cancel() }
}

// Bounded runs f (sarama calls take no context) and returns early with ctx's cause
// if ctx ends first; f then finishes in the background within sarama's own
// timeouts.
func Bounded[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("kafka: %w", context.Cause(ctx))
	}
}

// TopicConfig reads the named configuration entries of a topic.
func TopicConfig(ad sarama.ClusterAdmin, topic string, names ...string) (map[string]string, error) {
	results, err := ad.DescribeConfigs([]*sarama.ConfigResource{{Type: sarama.TopicResource, Name: topic, ConfigNames: names}}, sarama.DescribeConfigsOptions{})
	if err != nil {
		return nil, fmt.Errorf("describe config of topic %s: %w", topic, err)
	}
	out := map[string]string{}
	for _, r := range results {
		if r.Name != topic {
			continue
		}
		if r.ErrorCode != sarama.ErrNoError {
			return nil, fmt.Errorf("describe config of topic %s: %w: %s", topic, r.ErrorCode, r.ErrorMsg)
		}
		for _, e := range r.Configs {
			out[e.Name] = e.Value
		}
	}
	return out, nil
}
