package consumer

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A tail scan reads backwards from the end, tailFirst records first and four
// times as many each fetch after, up to tailMost: mid-trial the newest record is
// usually a producer's data record, which ends the scan. tailMaxBytes bounds one
// fetch's answer.
const (
	tailFirst    = 8
	tailMost     = 1024
	tailMaxBytes = 8 << 20
)

// shareComplete says whether a share group has finished the trial: each
// partition's last records of this run are every producer's end record, and no
// partition has records left to acknowledge (its lag is 0: each accepted, or
// archived past its delivery limit).
// A share group commits no offsets and its members share partitions, so no member
// can tell from what it received alone.
//
// The lag is the broker's persisted count, which can end too high: Kafka 4.3.1's
// share coordinator keeps the last state write it receives, and two writes of a
// partition sent a moment apart may arrive in the wrong order, leaving the count
// of finished records short (by one in the run that showed it) with no later
// write to mend it (fixed upstream by apache/kafka#23112). So once every producer
// has ended and no transaction is open, offsets that stay the same for longer
// than the record lock duration plus settleMargin also end the trial: by then a
// record still acquired would have been released by its lock's expiry and taken
// by another member, whose accepting or archiving it moves them. Whatever was
// truly not delivered shows in the result as lost. Kafka 4.4 carries the fix and
// its lag reaches 0 (TestShareGroupRedeliveries asserts it there); the rule stays
// for 4.3, the previous line users still run, and the lag it ended with is the
// result's share.settledLag.
func (c *consumer) shareComplete(ctx context.Context, m *shareMember, client sarama.Client) (bool, error) {
	t := c.cfg.Trial
	now := time.Now()
	// The end offsets first: a lag of 0 read after them covers every record
	// below them.
	ends, err := endOffsets(ctx, client, c.cfg.Topic, t.Partitions)
	if err != nil {
		// A look that failed is time the offsets were not seen: the quiet time
		// starts again.
		m.settle.reset()
		return false, err
	}
	offs, err := c.shareOffsets(ctx, m.cl)
	if err != nil {
		m.settle.reset()
		return false, err
	}
	behind := int64(0)
	for p := range t.Partitions {
		// Lag is the partition's records neither acknowledged nor archived; the
		// start offset alone is no test, as the broker persists it with the last
		// acknowledged batch's first offset.
		o, ok := offs[p]
		if !ok {
			m.settle.reset()
			c.cfg.Log.Debug("share group's lag unknown", "consumer", c.cfg.Name, "partition", p)
			return false, nil
		}
		behind += o.lag
	}
	// Mid-trial the lag is above 0 and the offsets keep moving: the tails are
	// read only once the lag is 0 or the offsets have settled.
	settled := false
	if behind > 0 {
		if settled = m.settle.settled(now, c.cfg.Control.pauseEnd(), offs); !settled {
			c.cfg.Log.Debug("share group behind", "consumer", c.cfg.Name, "lag", behind)
			return false, nil
		}
	}
	for p := range t.Partitions {
		if c.tails[p] {
			continue
		}
		ended, err := c.tailEnded(client, p, ends[p])
		if err != nil || !ended {
			c.cfg.Log.Debug("share partition's tail not ended", "consumer", c.cfg.Name, "partition", p, "err", err)
			return false, err
		}
		c.tails[p] = true
	}
	if !settled {
		return true, nil
	}
	// A transaction left open (a producer that failed before committing its end
	// record) holds a read_committed group's records until its timeout, longer
	// than the quiet time.
	open, err := c.openTransactions(ctx, m.cl, ends)
	if err != nil || open {
		c.cfg.Log.Debug("share group settled with a transaction open", "consumer", c.cfg.Name, "lag", behind, "err", err)
		return false, err
	}
	m.mu.Lock()
	m.deliv.SettledLag = behind
	m.mu.Unlock()
	c.cfg.Log.Warn("the share group's lag stayed the same after every producer ended, for longer than the record lock duration: counting the trial complete (a broker's stale persisted count, or records never delivered, which the result counts as lost)",
		"consumer", c.cfg.Name, "lag", behind, "offsets", fmt.Sprint(offs), "quiet", m.settle.quiet)
	return true, nil
}

// openTransactions says whether a partition's last stable offset is below its
// end offset (ends, read earlier): a transaction is open on it.
func (c *consumer) openTransactions(ctx context.Context, cl *kgo.Client, ends map[int32]int64) (bool, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID, req.IsolationLevel = -1, 1 // read committed: the last stable offset
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = c.cfg.Topic
	for p := range c.cfg.Trial.Partitions {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return false, fmt.Errorf("list last stable offsets of %s: %w", c.cfg.Topic, err)
	}
	stable := map[int32]int64{}
	for _, tp := range resp.Topics {
		for _, pp := range tp.Partitions {
			if err := kerr.ErrorForCode(pp.ErrorCode); err != nil {
				return false, fmt.Errorf("last stable offset of %s/%d: %w", c.cfg.Topic, pp.Partition, err)
			}
			stable[pp.Partition] = pp.Offset
		}
	}
	for p := range c.cfg.Trial.Partitions {
		if lso, ok := stable[p]; !ok || lso < ends[p] {
			return true, nil
		}
	}
	return false, nil
}

// shareOffset is one partition's persisted share-group state, as
// DescribeShareGroupOffsets reports it.
type shareOffset struct{ start, lag int64 }

// shareOffsets reads each partition's start offset and lag (KIP-1226, Kafka
// 4.2+); a partition the broker answers with an error is left out.
func (c *consumer) shareOffsets(ctx context.Context, cl *kgo.Client) (map[int32]shareOffset, error) {
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	g := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
	g.GroupID = c.cfg.Group
	rt := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
	rt.Topic = c.cfg.Topic
	for p := range c.cfg.Trial.Partitions {
		rt.Partitions = append(rt.Partitions, p)
	}
	g.Topics = append(g.Topics, rt)
	req.Groups = append(req.Groups, g)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("describe share group %s offsets: %w", c.cfg.Group, err)
	}
	if resp.Version < 1 {
		return nil, fmt.Errorf("describe share group %s offsets: the broker answered v%d, without lag: share groups need Kafka 4.2+", c.cfg.Group, resp.Version)
	}
	offs := map[int32]shareOffset{}
	for _, rg := range resp.Groups {
		if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
			return nil, fmt.Errorf("describe share group %s offsets: %w", c.cfg.Group, err)
		}
		for _, tp := range rg.Topics {
			for _, pp := range tp.Partitions {
				if kerr.ErrorForCode(pp.ErrorCode) == nil {
					offs[pp.Partition] = shareOffset{start: pp.StartOffset, lag: pp.Lag}
				}
			}
		}
	}
	return offs, nil
}

// settleMargin is added to the record lock duration before offsets that stopped
// moving count as settled: the broker's lock timer, and another member's fetch,
// processing and acknowledgement of the released record. Looks further apart
// than it start the quiet time again.
const settleMargin = 10 * time.Second

// lagWatch tells when a share group's offsets have stopped moving.
type lagWatch struct {
	// quiet is how long they must stay the same.
	quiet time.Duration
	last  map[int32]shareOffset
	// since is when they were first seen as last; looked the latest look.
	since, looked time.Time
}

// settled records the offsets seen at now and says whether they have stayed
// the same for quiet, across looks at most settleMargin apart, counted from no
// earlier than from (the end of this member's own pause: records it held
// meanwhile were acquired by it alone).
func (w *lagWatch) settled(now, from time.Time, seen map[int32]shareOffset) bool {
	gap := !w.looked.IsZero() && now.Sub(w.looked) > settleMargin
	w.looked = now
	if w.last == nil || gap || !maps.Equal(seen, w.last) {
		w.last, w.since = seen, now
		return false
	}
	if from.After(w.since) {
		w.since = from
	}
	return now.Sub(w.since) >= w.quiet
}

// reset forgets the offsets seen: a look that failed.
func (w *lagWatch) reset() { w.last, w.looked = nil, time.Time{} }

// tailEnded scans partition p backwards from end, a chunk at a time, for this
// run's records: true once every producer's end record is found before any of
// its other records (each producer's end record is its last), false at the first
// producer record found first (that producer has not finished).
func (c *consumer) tailEnded(client sarama.Client, p int32, end int64) (bool, error) {
	producers := int(c.cfg.Trial.Producers)
	ended := map[uint32]bool{}
	leader, err := client.Leader(c.cfg.Topic, p)
	if err != nil {
		return false, fmt.Errorf("leader of %s/%d: %w", c.cfg.Topic, p, err)
	}
	chunk := int64(tailFirst)
	for hi := end; hi > 0; hi, chunk = max(hi-chunk, 0), min(chunk*4, tailMost) {
		lo := max(hi-chunk, 0)
		mine, err := c.readRange(leader, p, lo, hi)
		if err != nil {
			return false, err
		}
		for i := len(mine) - 1; i >= 0; i-- {
			f := mine[i]
			if f.end {
				ended[f.producer] = true
				if len(ended) == producers {
					return true, nil
				}
			} else if !ended[f.producer] {
				return false, nil
			}
		}
	}
	return false, nil
}

// readRange reads this run's records of partition p at offsets [lo, hi), oldest
// first: as many fetches as it takes, since one answer stops at tailMaxBytes
// (at least one batch).
func (c *consumer) readRange(leader *sarama.Broker, p int32, lo, hi int64) ([]fields, error) {
	var mine []fields
	for next := lo; next < hi; {
		// Epoch -1: a plain fetch, outside any fetch session (KIP-227), as sarama's
		// own consumer sends it; epoch 0 would open a session, filling the broker's
		// session cache check by check. Read uncommitted: an end record goes out in
		// a transaction of its own (producer's sendMarkers) after its producer's
		// data committed, so finding it, whatever its transaction's outcome,
		// shows that producer's data is all below it.
		req := &sarama.FetchRequest{Version: 11, MaxWaitTime: 0, MinBytes: 1, MaxBytes: tailMaxBytes, SessionEpoch: -1}
		req.AddBlock(c.cfg.Topic, p, next, tailMaxBytes, -1)
		resp, err := leader.Fetch(req)
		if err != nil {
			return nil, fmt.Errorf("fetch the tail of %s/%d: %w", c.cfg.Topic, p, err)
		}
		blk := resp.GetBlock(c.cfg.Topic, p)
		if blk == nil {
			return nil, fmt.Errorf("fetch the tail of %s/%d: no answer for the partition", c.cfg.Topic, p)
		}
		if blk.Err != sarama.ErrNoError {
			return nil, fmt.Errorf("fetch the tail of %s/%d: %w", c.cfg.Topic, p, blk.Err)
		}
		from := next
		for _, set := range blk.RecordsSet {
			b := set.RecordBatch
			if b == nil {
				continue
			}
			// Past the batch, control batches included: the next fetch starts there.
			next = max(next, b.FirstOffset+int64(b.LastOffsetDelta)+1)
			if b.Control {
				continue
			}
			for _, r := range b.Records {
				off := b.FirstOffset + r.OffsetDelta
				if off < from || off >= hi {
					continue
				}
				var f fields
				for _, h := range r.Headers {
					f.set(keyIndexBytes(h.Key), h.Value)
				}
				if c.ours(&f) {
					mine = append(mine, f)
				}
			}
		}
		if next == from {
			return nil, fmt.Errorf("fetch the tail of %s/%d: nothing at offset %d below %d", c.cfg.Topic, p, from, hi)
		}
	}
	return mine, nil
}
