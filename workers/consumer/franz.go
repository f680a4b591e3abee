package consumer

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/clientstats"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/kafkaconn/franz"
	"github.com/serdebench/serdebench/workers/summary"
)

// franzCommitInterval is how often a franz-go member commits. franz-go sends
// commits on a connection of their own, so unlike sarama's they cost the fetch loop
// nothing.
const franzCommitInterval = 200 * time.Millisecond

// franzMember is the consumer as a franz-go group member. It commits itself, with
// each partition's marker mask as the offset's metadata (kgo's own commits carry
// the member ID there), and blocks rebalances while it processes a poll so that a
// revoke commits exactly what was processed.
type franzMember struct {
	c     *consumer
	cl    *kgo.Client
	hooks *clientstats.Franz

	mu  sync.Mutex // guards pos and topicID
	pos map[int32]position
	// topicID is the topic's ID from fetch responses: OffsetCommit v10+ (Kafka 4)
	// names topics by ID only.
	topicID [16]byte
	// commitMu serializes commits (the periodic ones and the revoke's);
	// lastSent says whether the last one sent a request (guarded by it).
	commitMu sync.Mutex
	lastSent atomic.Bool
}

// position is what to commit for a partition: the next offset to read and the
// marker mask; dirty until committed.
type position struct {
	offset int64
	epoch  int32
	meta   string
	dirty  bool
}

// FranzOptions maps a trial's consumer settings onto franz-go.
func FranzOptions(s trial.ConsumerSettings) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.FetchMinBytes(s.FetchMinBytes),
		kgo.FetchMaxWait(time.Duration(s.FetchMaxWaitMs) * time.Millisecond),
		kgo.FetchMaxPartitionBytes(s.MaxPartitionFetchBytes),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// As for sarama: members learn of a rebalance within half a second.
		kgo.HeartbeatInterval(500 * time.Millisecond),
		// Eager range assignment, sarama's default: franz-go's cooperative-sticky
		// default rebalances in two rounds, and the group can look Stable between
		// them, when producers start.
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.FetchIsolationLevel(franzIsolation[s.Isolation.OrDefault()]),
	}
	if s.GroupProtocol.OrDefault() == trial.GroupProtocolConsumer {
		// KIP-848: the broker assigns, with its range assignor (the balancer's
		// name); heartbeats follow the group's interval, not the client's.
		opts = append(opts, kgo.ServerSideBalancer())
	}
	return opts
}

// franzIsolation are franz-go's isolation levels.
var franzIsolation = map[trial.Isolation]kgo.IsolationLevel{
	trial.IsolationReadUncommitted: kgo.ReadUncommitted(), trial.IsolationReadCommitted: kgo.ReadCommitted(),
}

func newFranzMember(ctx context.Context, c *consumer, clientID string) (*franzMember, error) {
	s := c.cfg.Trial.Consumer
	conn, err := franz.Opts(c.cfg.Security, c.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})
	if err != nil {
		return nil, err
	}
	m := &franzMember{c: c, pos: map[int32]position{}}
	if c.cfg.Trial.Consumer.Commit != trial.CommitEachRecord {
		// A poll of one record is not a fetch response: no fetch intervals then.
		c.fetches = summary.NewLatency()
	}
	opts := append(conn, FranzOptions(s)...) //nolint:gocritic // conn is ours to extend
	opts = append(opts,
		kgo.ConsumerGroup(c.cfg.Group), kgo.ConsumeTopics(c.cfg.Topic),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.AdjustFetchOffsetsFn(m.adjust),
		kgo.OnPartitionsRevoked(m.revoked),
		kgo.OnPartitionsLost(m.lost),
	)
	m.hooks = clientstats.NewFranz()
	if c.cfg.Metrics != nil {
		c.cfg.Metrics.WatchClient(m.hooks.Snapshot)
	}
	m.cl, err = franz.New(ctx, c.cfg.Brokers, append(opts, kgo.WithHooks(m.hooks), franz.Logger(c.cfg.Log))...)
	if err != nil {
		return nil, err
	}
	m.hooks.Watch(m.cl)
	return m, nil
}

func (m *franzMember) stats() *summary.ClientStats { return m.hooks.Stats() }

// adjust runs when partitions are assigned, before fetching starts: it continues
// each partition's marker mask from the group's commit, and on an existing topic
// starts a partition nobody committed at its end offset from before the group
// formed (as sarama's Setup does).
func (m *franzMember) adjust(_ context.Context, offsets map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	c := m.c
	for p := range offsets[c.cfg.Topic] {
		committed, mask, err := c.committed(p)
		if err != nil {
			return nil, err
		}
		st, err := c.partition(p)
		if err != nil {
			return nil, err
		}
		st.continueMarkers(mask)
		if start, ok := c.startAt(p, committed); ok {
			offsets[c.cfg.Topic][p] = kgo.NewOffset().At(start).WithEpoch(-1)
		}
	}
	return offsets, nil
}

// revoked commits what was processed before the partitions go to another member.
func (m *franzMember) revoked(ctx context.Context, _ *kgo.Client, revoked map[string][]int32) {
	if err := m.commit(ctx); err != nil {
		m.c.cfg.Log.Warn("commit on revoke", "consumer", m.c.cfg.Name, "err", err)
	}
	m.forget(revoked[m.c.cfg.Topic])
}

// lost forgets partitions whose ownership ended without a revoke (the session
// expired): their commits would be refused.
func (m *franzMember) lost(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	m.forget(lost[m.c.cfg.Topic])
}

func (m *franzMember) forget(parts []int32) {
	m.c.endSegments(parts)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range parts {
		delete(m.pos, p)
	}
}

func (m *franzMember) consume(ctx context.Context) error {
	c := m.c
	// eachRecord polls one record and commits it before the next; otherwise a
	// poll takes all that was fetched and commits run in the background.
	each := c.cfg.Trial.Consumer.Commit == trial.CommitEachRecord
	if !each {
		go m.commitLoop(ctx)
	}
	mt := c.cfg.Metrics
	var last time.Time
	for ctx.Err() == nil {
		var fetches kgo.Fetches
		if each {
			fetches = m.cl.PollRecords(ctx, 1)
		} else {
			fetches = m.cl.PollFetches(ctx)
		}
		if fetches.IsClientClosed() {
			return nil
		}
		if fetches.NumRecords() > 0 && !c.cfg.Control.hold(ctx) {
			return nil
		}
		if fetches.NumRecords() > 0 && !each {
			c.fetched(&last)
		}
		c.warnFetchErrors(ctx, fetches)
		var perr error
		fetches.EachTopic(func(ft kgo.FetchTopic) {
			if ft.TopicID != ([16]byte{}) {
				m.mu.Lock()
				m.topicID = ft.TopicID
				m.mu.Unlock()
			}
		})
		fetches.EachPartition(func(ftp kgo.FetchTopicPartition) {
			if len(ftp.Records) == 0 || perr != nil {
				return
			}
			st, err := c.partition(ftp.Partition)
			if err != nil {
				perr = err
				return
			}
			st.mu.Lock()
			for _, rec := range ftp.Records {
				now := time.Now()
				var f fields
				for _, h := range rec.Headers {
					f.set(keyIndex(h.Key), h.Value)
				}
				c.record(st, now, &f, rec.Partition, rec.Offset, rec.Value, mt)
			}
			meta := st.meta
			st.mu.Unlock()
			last := ftp.Records[len(ftp.Records)-1]
			m.mu.Lock()
			m.pos[ftp.Partition] = position{offset: last.Offset + 1, epoch: last.LeaderEpoch, meta: meta, dirty: true}
			m.mu.Unlock()
		})
		if each && perr == nil && fetches.NumRecords() > 0 {
			// Within the poll's generation: the rebalance waits for the commit.
			if err := m.commit(ctx); err != nil {
				if ctx.Err() == nil {
					c.cfg.Log.Debug("commit", "consumer", c.cfg.Name, "err", err)
				}
			} else if m.lastSent.Load() {
				c.commits.Add(1)
			}
		}
		m.cl.AllowRebalance()
		if perr != nil {
			return perr
		}
	}
	return nil
}

func (m *franzMember) commitLoop(ctx context.Context) {
	tick := time.NewTicker(franzCommitInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := m.commit(ctx); err != nil && ctx.Err() == nil {
			m.c.cfg.Log.Debug("commit", "consumer", m.c.cfg.Name, "err", err)
		}
	}
}

// commit commits every partition's position that changed since its last commit,
// with its marker mask as metadata, in the member's current generation.
func (m *franzMember) commit(ctx context.Context) error {
	m.commitMu.Lock()
	defer m.commitMu.Unlock()
	member, gen := m.cl.GroupMetadata()
	if gen < 0 {
		m.lastSent.Store(false)
		return nil
	}
	m.mu.Lock()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation, req.MemberID = m.c.cfg.Group, gen, member
	rt := kmsg.NewOffsetCommitRequestTopic()
	// Commits follow fetches, which bring the topic ID from any broker that
	// speaks OffsetCommit v10; an older one is sent v9 and the name.
	rt.Topic, rt.TopicID = m.c.cfg.Topic, m.topicID
	sent := map[int32]position{}
	for p, ps := range m.pos {
		if !ps.dirty {
			continue
		}
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = p, ps.offset, ps.epoch
		meta := ps.meta
		rp.Metadata = &meta
		rt.Partitions = append(rt.Partitions, rp)
		sent[p] = ps
	}
	m.mu.Unlock()
	m.lastSent.Store(len(sent) > 0)
	if len(sent) == 0 {
		return nil
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, m.cl)
	if err != nil {
		return fmt.Errorf("commit offsets of group %s: %w", m.c.cfg.Group, err)
	}
	var first error
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				if first == nil {
					first = fmt.Errorf("commit %s/%d: %w", m.c.cfg.Topic, p.Partition, err)
				}
				continue
			}
			// Clean unless a newer position arrived meanwhile.
			if cur, ok := m.pos[p.Partition]; ok && cur.offset == sent[p.Partition].offset {
				cur.dirty = false
				m.pos[p.Partition] = cur
			}
		}
	}
	return first
}

func (m *franzMember) leave() error {
	// Leaving revokes every partition, whose callback commits; the rebalance must
	// be allowed for that (BlockRebalanceOnPoll).
	m.cl.CloseAllowingRebalance()
	m.hooks.Close()
	return nil
}

// fetched records the interval since the last poll with records (last), once
// measuring: with one source per broker, a franz-go poll with records is a
// fetch response.
func (c *consumer) fetched(last *time.Time) {
	now := time.Now()
	if !last.IsZero() && c.measuring.Load() {
		c.mu.Lock()
		c.fetches.Record(now.Sub(*last).Microseconds())
		c.mu.Unlock()
	}
	*last = now
}

// warnFetchErrors logs a franz-go poll's fetch errors, which the client
// retries, unless the consumer is stopping.
func (c *consumer) warnFetchErrors(ctx context.Context, fetches kgo.Fetches) {
	fetches.EachError(func(topic string, p int32, err error) {
		if ctx.Err() == nil {
			c.cfg.Log.Warn("fetch failed; retrying", "consumer", c.cfg.Name, "topic", topic, "partition", p, "err", err)
		}
	})
}
