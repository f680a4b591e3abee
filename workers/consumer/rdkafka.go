//go:build cgo

package consumer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/kafkaconn/rdkafka"
	"github.com/serdebench/serdebench/workers/summary"
)

// rdkafkaCommitInterval is how often a librdkafka member commits in the
// background (commit interval), as franz-go's.
const rdkafkaCommitInterval = 200 * time.Millisecond

// RdkafkaConfig maps a trial's consumer settings onto librdkafka.
func RdkafkaConfig(s trial.ConsumerSettings) kafka.ConfigMap {
	cm := kafka.ConfigMap{
		"fetch.min.bytes":           int(s.FetchMinBytes),
		"fetch.wait.max.ms":         int(s.FetchMaxWaitMs),
		"max.partition.fetch.bytes": int(s.MaxPartitionFetchBytes),
		"auto.offset.reset":         "earliest",
		// The member commits itself, each partition's marker mask as metadata.
		"enable.auto.commit":       false,
		"enable.auto.offset.store": false,
		// As for the others: eager range assignment, rebalances noticed within
		// half a second.
		"partition.assignment.strategy":   "range",
		"heartbeat.interval.ms":           500,
		"go.application.rebalance.enable": true,
		"statistics.interval.ms":          int(clientstats.RdkafkaStatsInterval.Milliseconds()),
		// Always set: librdkafka's own default is read_committed, Java's
		// read_uncommitted.
		"isolation.level": isolationConfig[s.Isolation.OrDefault()],
	}
	if s.GroupProtocol.OrDefault() == trial.GroupProtocolConsumer {
		// KIP-848: the broker assigns (its range assignor) and sets the heartbeat
		// interval; librdkafka refuses the classic protocol's settings with it.
		cm["group.protocol"] = "consumer"
		cm["group.remote.assignor"] = "range"
		delete(cm, "partition.assignment.strategy")
		delete(cm, "heartbeat.interval.ms")
	}
	return cm
}

// rdkafkaMember is the consumer as a librdkafka group member. Its rebalance
// callback runs inside Poll, on the consume loop's goroutine: it continues each
// assigned partition's marker mask and commits what was processed before a
// revoke.
type rdkafkaMember struct {
	c        *consumer
	kc       *kafka.Consumer
	internal *clientstats.Rdkafka

	mu       sync.Mutex // guards pos
	pos      map[int32]position
	commitMu sync.Mutex
	// failed is the rebalance callback's error (confluent-kafka-go ignores
	// what the callback returns), for consume to return.
	failed error
}

func newRdkafkaMember(c *consumer, clientID string) (member, error) {
	s := c.cfg.Trial.Consumer
	cm := rdkafka.Config(c.cfg.Security, c.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})
	for k, v := range RdkafkaConfig(s) {
		cm[k] = v
	}
	cm["group.id"] = c.cfg.Group
	if f := c.cfg.Trial.Fault; f != nil && f.Consumers != nil && f.Consumers.Action == trial.ConsumerPause {
		// A paused member does not poll: librdkafka would leave the group after
		// max.poll.interval.ms (300 s), and a pause is no rebalance.
		cm["max.poll.interval.ms"] = max(300000, int(f.DurationSeconds+60)*1000)
	}
	kc, err := kafka.NewConsumer(&cm)
	if err != nil {
		return nil, fmt.Errorf("create librdkafka consumer: %w", err)
	}
	if err := rdkafka.Reachable(kc, c.cfg.Brokers, int(kafkaconn.DialTimeout.Milliseconds())*3); err != nil {
		_ = kc.Close()
		return nil, err
	}
	m := &rdkafkaMember{c: c, kc: kc, internal: clientstats.NewRdkafka(), pos: map[int32]position{}}
	if c.cfg.Metrics != nil {
		c.cfg.Metrics.WatchClient(m.internal.Snapshot)
	}
	if err := kc.Subscribe(c.cfg.Topic, m.rebalance); err != nil {
		_ = kc.Close()
		return nil, fmt.Errorf("subscribe to %s: %w", c.cfg.Topic, err)
	}
	return m, nil
}

func (m *rdkafkaMember) stats() *summary.ClientStats { return m.internal.Stats() }

// rebalance assigns partitions from the group's commit (continuing their marker
// masks; on an existing topic a partition nobody committed starts at its end
// offset from before the group formed), and commits before a revoke.
func (m *rdkafkaMember) rebalance(kc *kafka.Consumer, ev kafka.Event) error {
	c := m.c
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		parts := make([]kafka.TopicPartition, 0, len(e.Partitions))
		for _, tp := range e.Partitions {
			committed, mask, err := c.committed(tp.Partition)
			if err != nil {
				m.failed = err
				return err
			}
			st, err := c.partition(tp.Partition)
			if err != nil {
				m.failed = err
				return err
			}
			st.continueMarkers(mask)
			if start, ok := c.startAt(tp.Partition, committed); ok {
				tp.Offset = kafka.Offset(start)
			}
			parts = append(parts, tp)
		}
		if kc.GetRebalanceProtocol() == "COOPERATIVE" {
			// The consumer protocol's assignments are increments.
			return kc.IncrementalAssign(parts)
		}
		return kc.Assign(parts)
	case kafka.RevokedPartitions:
		// A lost assignment (the session expired) cannot commit: the group moved on.
		if !kc.AssignmentLost() {
			if err := m.commit(); err != nil {
				c.cfg.Log.Warn("commit on revoke", "consumer", c.cfg.Name, "err", err)
			}
		}
		m.mu.Lock()
		revoked := make([]int32, 0, len(e.Partitions))
		for _, tp := range e.Partitions {
			delete(m.pos, tp.Partition)
			revoked = append(revoked, tp.Partition)
		}
		m.mu.Unlock()
		c.endSegments(revoked)
		if kc.GetRebalanceProtocol() == "COOPERATIVE" {
			return kc.IncrementalUnassign(e.Partitions)
		}
		return kc.Unassign()
	}
	return nil
}

func (m *rdkafkaMember) consume(ctx context.Context) error {
	c := m.c
	each := c.cfg.Trial.Consumer.Commit == trial.CommitEachRecord
	var loop sync.WaitGroup
	if !each {
		loop.Go(func() { m.commitLoop(ctx) })
	}
	// No commit of the loop's runs once consume has returned (leave closes the
	// consumer).
	defer loop.Wait()
	mt := c.cfg.Metrics
	for ctx.Err() == nil && m.failed == nil {
		switch e := m.kc.Poll(100).(type) {
		case *kafka.Message:
			tp := e.TopicPartition
			if tp.Error != nil {
				c.cfg.Log.Warn("fetch failed; retrying", "consumer", c.cfg.Name, "partition", tp.Partition, "err", tp.Error)
				continue
			}
			if !c.cfg.Control.hold(ctx) {
				return nil
			}
			st, err := c.partition(tp.Partition)
			if err != nil {
				return err
			}
			now := time.Now()
			var f fields
			for _, h := range e.Headers {
				f.set(keyIndex(h.Key), h.Value)
			}
			st.mu.Lock()
			c.record(st, now, &f, tp.Partition, int64(tp.Offset), e.Value, mt)
			meta := st.meta
			st.mu.Unlock()
			epoch := int32(-1)
			if e.LeaderEpoch != nil {
				epoch = *e.LeaderEpoch
			}
			m.mu.Lock()
			m.pos[tp.Partition] = position{offset: int64(tp.Offset) + 1, epoch: epoch, meta: meta, dirty: true}
			m.mu.Unlock()
			if each {
				if err := m.commit(); err != nil {
					if ctx.Err() == nil {
						c.cfg.Log.Debug("commit", "consumer", c.cfg.Name, "err", err)
					}
				} else {
					c.commits.Add(1)
				}
			}
		case *kafka.Stats:
			m.internal.Update(e.String())
		case kafka.Error:
			if ctx.Err() == nil {
				c.cfg.Log.Debug("librdkafka", "consumer", c.cfg.Name, "err", e)
			}
		}
	}
	if m.failed != nil {
		return m.failed
	}
	m.lastStats()
	return nil
}

// lastStats polls for one more statistics emission (their counters are as of
// the emission: the last fetches would be missing), for at most three periods.
// A record it brings is not processed (nor committed: nothing is lost; the
// trial is complete, or interrupted).
func (m *rdkafkaMember) lastStats() {
	deadline := time.Now().Add(3 * clientstats.RdkafkaStatsInterval)
	for time.Now().Before(deadline) {
		if e, ok := m.kc.Poll(50).(*kafka.Stats); ok {
			m.internal.Update(e.String())
			return
		}
	}
}

func (m *rdkafkaMember) commitLoop(ctx context.Context) {
	tick := time.NewTicker(rdkafkaCommitInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := m.commit(); err != nil && ctx.Err() == nil {
			m.c.cfg.Log.Debug("commit", "consumer", m.c.cfg.Name, "err", err)
		}
	}
}

// commit commits every partition's position that changed since its last commit,
// with its marker mask as metadata (librdkafka's synchronous commit).
func (m *rdkafkaMember) commit() error {
	m.commitMu.Lock()
	defer m.commitMu.Unlock()
	topic := m.c.cfg.Topic
	m.mu.Lock()
	var parts []kafka.TopicPartition
	for p, ps := range m.pos {
		if !ps.dirty {
			continue
		}
		meta, epoch := ps.meta, ps.epoch
		parts = append(parts, kafka.TopicPartition{Topic: &topic, Partition: p, Offset: kafka.Offset(ps.offset), Metadata: &meta, LeaderEpoch: &epoch})
	}
	m.mu.Unlock()
	if len(parts) == 0 {
		return nil
	}
	done, err := m.kc.CommitOffsets(parts)
	if err != nil {
		return fmt.Errorf("commit offsets of group %s: %w", m.c.cfg.Group, err)
	}
	var first error
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, tp := range done {
		if tp.Error != nil {
			if first == nil {
				first = fmt.Errorf("commit %s/%d: %w", topic, tp.Partition, tp.Error)
			}
			continue
		}
		// Clean unless a newer position arrived meanwhile.
		if cur, ok := m.pos[tp.Partition]; ok && cur.offset == int64(tp.Offset) {
			cur.dirty = false
			m.pos[tp.Partition] = cur
		}
	}
	return first
}

func (m *rdkafkaMember) leave() error {
	// Commit what was processed, then leave (Close revokes through the rebalance
	// callback, which commits again if anything arrived meanwhile).
	if err := m.commit(); err != nil {
		m.c.cfg.Log.Debug("commit before leaving", "consumer", m.c.cfg.Name, "err", err)
	}
	m.internal.Close()
	return m.kc.Close()
}
