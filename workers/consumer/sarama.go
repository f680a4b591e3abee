package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/summary"
)

// saramaMember is the consumer as a member of a sarama ConsumerGroup.
type saramaMember struct {
	c        *consumer
	client   sarama.Client
	group    sarama.ConsumerGroup
	internal *clientstats.Sarama
	// one lets one record at a time through, across partitions, in eachRecord
	// mode: a Java consumer's poll returns one record to one thread.
	one sync.Mutex
}

// saramaIsolation are sarama's isolation levels.
var saramaIsolation = map[trial.Isolation]sarama.IsolationLevel{
	trial.IsolationReadUncommitted: sarama.ReadUncommitted, trial.IsolationReadCommitted: sarama.ReadCommitted,
}

// SaramaConfig maps a trial's consumer settings onto sarama
// (docs/producer-settings.md, "Consumer settings").
func SaramaConfig(clientID string, s trial.ConsumerSettings) *sarama.Config {
	scfg := kafkaconn.Base(clientID)
	scfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	// Commits share the fetch connection (sarama's group client talks to the
	// coordinator over the leader's connection, one request per round trip), so each
	// commit delays a fetch by one round trip: at 50 ms RTT, commits every 100 ms
	// added ~25 ms to end-to-end p50 (docs/measurement.md, "Calibration"). Once a
	// second only delays the end of a trial by up to a second.
	scfg.Consumer.Offsets.AutoCommit.Interval = time.Second
	// eachRecord commits every record itself (ConsumeClaim).
	scfg.Consumer.Offsets.AutoCommit.Enable = s.Commit != trial.CommitEachRecord
	scfg.Consumer.Return.Errors = true
	// Members learn of a rebalance at their next heartbeat: sarama's 3 s default
	// would make every trial wait that long for its group to settle when the second
	// consumer joins. (The session timeout stays 10 s.)
	scfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	// A member whose SyncGroup meets the next rebalance (consumers that start
	// together join one after another) rejoins after this backoff: sarama's 2 s
	// default held nearly half of the trials with two consumers 2 s at their start,
	// and would add 2 s to any rebalance in a trial that met another. The Java
	// client, librdkafka and franz-go rejoin at once on that error; 100 ms is
	// Java's retry.backoff.ms for its other retriable ones. Each backoff uses a
	// retry: 20 give at least 2 s of backoff (each retry also looks the
	// coordinator up again) before Consume fails and consume retries it.
	scfg.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	scfg.Consumer.Group.Rebalance.Retry.Max = 20
	scfg.Consumer.Fetch.Min = s.FetchMinBytes
	scfg.Consumer.MaxWaitTime = time.Duration(s.FetchMaxWaitMs) * time.Millisecond
	scfg.Consumer.Fetch.Default = s.MaxPartitionFetchBytes
	scfg.Consumer.IsolationLevel = saramaIsolation[s.Isolation.OrDefault()]
	kafkaconn.ApplyBuffers(scfg, kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})
	return scfg
}

func newSaramaMember(ctx context.Context, c *consumer, clientID string) (*saramaMember, error) {
	scfg := SaramaConfig(clientID, c.cfg.Trial.Consumer)
	if err := c.cfg.Security.Apply(scfg); err != nil {
		return nil, err
	}
	internal := clientstats.NewSarama(scfg)
	if c.cfg.Metrics != nil {
		c.cfg.Metrics.WatchClient(internal.Snapshot)
	}
	client, err := kafkaconn.NewClient(ctx, c.cfg.Brokers, scfg)
	if err != nil {
		return nil, err
	}
	group, err := sarama.NewConsumerGroupFromClient(c.cfg.Group, client)
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("join consumer group %s: %w", c.cfg.Group, err)
	}
	go func() {
		for err := range group.Errors() {
			c.cfg.Log.Warn("consumer group error", "consumer", c.cfg.Name, "err", err)
		}
	}()
	return &saramaMember{c: c, client: client, group: group, internal: internal}, nil
}

func (m *saramaMember) stats() *summary.ClientStats { return m.internal.Stats() }

func (m *saramaMember) consume(ctx context.Context) error {
	for ctx.Err() == nil {
		err := m.group.Consume(ctx, []string{m.c.cfg.Topic}, m)
		switch {
		case err == nil:
		case errors.Is(err, sarama.ErrClosedConsumerGroup) || ctx.Err() != nil:
			return nil
		default:
			m.c.cfg.Log.Warn("consume failed; retrying", "consumer", m.c.cfg.Name, "topic", m.c.cfg.Topic, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return nil
}

func (m *saramaMember) leave() error {
	err := m.group.Close()
	// NewConsumerGroupFromClient leaves its client open.
	_ = m.client.Close()
	m.internal.Close()
	return err
}

var _ sarama.ConsumerGroupHandler = (*saramaMember)(nil)

// Setup is called at the start of each group session. On an existing topic a
// partition nobody in the group has committed starts at its end offset from before
// the group formed (consumer.startAt).
func (m *saramaMember) Setup(sess sarama.ConsumerGroupSession) error {
	if len(m.c.start) == 0 {
		return nil // the trial's own topic: nothing before the run to skip
	}
	for _, p := range sess.Claims()[m.c.cfg.Topic] {
		committed, _, err := m.c.committed(p)
		if err != nil {
			return fmt.Errorf("session setup: %w", err)
		}
		if off, ok := m.c.startAt(p, committed); ok {
			sess.MarkOffset(m.c.cfg.Topic, p, off, "")
		}
	}
	return nil
}

// Cleanup is called at the end of each group session.
func (m *saramaMember) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim processes one partition's records for one session.
func (m *saramaMember) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	c := m.c
	st, err := c.partition(claim.Partition())
	if err != nil {
		return err
	}
	// The claim ends with the session: the partition may go elsewhere.
	defer c.endSegments([]int32{claim.Partition()})
	// Continue the marker mask from what the group committed for this partition
	// (asked outside the lock: the summary may need it while this call waits).
	if _, mask, err := c.committed(claim.Partition()); err == nil {
		st.continueMarkers(mask)
	}
	mt := c.cfg.Metrics
	each := c.cfg.Trial.Consumer.Commit == trial.CommitEachRecord
	for {
		select {
		case <-sess.Context().Done():
			return nil
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			if !c.cfg.Control.hold(sess.Context()) {
				return nil
			}
			if each {
				// Received once it is this record's turn: a poll returns it only
				// after the previous record's commit, as franz-go's PollRecords does.
				m.one.Lock()
			}
			now := time.Now()
			var f fields
			for _, h := range msg.Headers {
				f.set(keyIndexBytes(h.Key), h.Value)
			}
			st.mu.Lock()
			c.record(st, now, &f, msg.Partition, msg.Offset, msg.Value, mt)
			meta := st.meta
			st.mu.Unlock()
			sess.MarkMessage(msg, meta)
			if each {
				// Synchronous: sarama sends the marked offsets and waits for the
				// answer. It reports a failure only on the group's error channel
				// (logged, and counted there), so this counts commits sent.
				sess.Commit()
				c.commits.Add(1)
				m.one.Unlock()
			}
		}
	}
}
