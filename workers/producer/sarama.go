package producer

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/summary"
)

// saramaClient is IBM/sarama's async producer.
type saramaClient struct {
	r        *run
	client   sarama.Client
	producer sarama.AsyncProducer
	conf     *sarama.Config
	internal *clientstats.Sarama
}

func newSarama(ctx context.Context, r *run, clientID string, maxValue, topicMax int) (*saramaClient, error) {
	t := r.cfg.Trial
	scfg, err := SaramaConfig(t.Settings, clientID, maxValue, topicMax)
	if err != nil {
		return nil, err
	}
	if err := r.cfg.Security.Apply(scfg); err != nil {
		return nil, err
	}
	internal := clientstats.NewSarama(scfg)
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.WatchClient(internal.Snapshot)
	}
	client, err := kafkaconn.NewClient(ctx, r.cfg.Brokers, scfg)
	if err != nil {
		return nil, err
	}
	producer, err := sarama.NewAsyncProducerFromClient(client)
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("create producer: %w", err)
	}
	return &saramaClient{r: r, client: client, producer: producer, conf: scfg, internal: internal}, nil
}

func (c *saramaClient) stats() *summary.ClientStats { return c.internal.Stats() }

func (c *saramaClient) send(ctx context.Context, m *message) bool {
	pm := m.saramaForm(c.r.cfg.Topic)
	select {
	case c.producer.Input() <- pm:
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *saramaClient) acks(stop <-chan struct{}) {
	succ, errs := c.producer.Successes(), c.producer.Errors()
	for succ != nil || errs != nil {
		select {
		case pm, ok := <-succ:
			if !ok {
				succ = nil
				continue
			}
			c.r.acknowledge(pm.Metadata.(*message), nil, time.Now())
		case pe, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			c.r.acknowledge(pe.Msg.Metadata.(*message), pe.Err, time.Now())
		case <-stop:
			return
		}
	}
}

// copiesValue: sarama encodes the value when it builds the request.
func (c *saramaClient) copiesValue() bool { return false }

func (c *saramaClient) close() { c.producer.AsyncClose() }

func (c *saramaClient) release() {
	_ = c.client.Close()
	c.internal.Close()
}

func (c *saramaClient) settings() map[string]string {
	p := c.conf.Producer
	return map[string]string{
		"client":                     "sarama",
		"Net.MaxOpenRequests":        strconv.Itoa(c.conf.Net.MaxOpenRequests),
		"inFlightPerPartition":       "1",
		"ChannelBufferSize":          strconv.Itoa(c.conf.ChannelBufferSize),
		"Producer.MaxMessageBytes":   strconv.Itoa(p.MaxMessageBytes),
		"Producer.Flush.Bytes":       strconv.Itoa(p.Flush.Bytes),
		"Producer.Flush.Frequency":   p.Flush.Frequency.String(),
		"Producer.Flush.MaxMessages": strconv.Itoa(p.Flush.MaxMessages),
	}
}

// topicMaxMessageBytes reads a topic's max.message.bytes (0 when the broker does
// not say).
func topicMaxMessageBytes(ctx context.Context, brokers []string, sec kafkaconn.Security, topic string) (int, error) {
	c := kafkaconn.Base("serdebench-topic-config")
	if err := sec.Apply(c); err != nil {
		return 0, err
	}
	return kafkaconn.Bounded(ctx, func() (int, error) {
		ad, err := sarama.NewClusterAdmin(brokers, c)
		if err != nil {
			return 0, fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
		}
		defer func() { _ = ad.Close() }()
		cfg, err := kafkaconn.TopicConfig(ad, topic, "max.message.bytes")
		if err != nil {
			return 0, err
		}
		v, _ := strconv.Atoi(cfg["max.message.bytes"])
		return v, nil
	})
}
