package consumer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
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

// shareMember is the consumer as a member of a share group (KIP-932), with
// franz-go, the one client that has them. The broker hands it records of any
// partition, each acquired until it is acknowledged: accepted once processed, or
// released (Config.Trial.Consumer.Share.ReleaseOneIn) to be delivered again.
type shareMember struct {
	c     *consumer
	cl    *kgo.Client
	hooks *clientstats.Franz
	set   trial.ShareSettings
	// settle watches the group's offsets (shareComplete; the completion check's
	// goroutine alone uses it).
	settle lagWatch

	mu    sync.Mutex // guards the fields below
	deliv summary.ShareStats
	// ack is the explicit acknowledgements' times (summary.ShareAckMicros).
	ack *summary.Histogram
}

// shareGroupConfigs are the group configs the consumers set before they join:
// read from the topic's start (records produced before a share-partition is
// initialized would otherwise be skipped), the delivery-count limit, and the
// isolation level, which a share group takes from its config, not its members.
func shareGroupConfigs(t trial.Trial) map[string]string {
	return map[string]string{
		"share.auto.offset.reset": "earliest",
		deliveryCountConfig:       strconv.Itoa(int(t.Consumer.Share.DeliveryCountLimit)),
		"share.isolation.level":   isolationConfig[t.Consumer.Isolation.OrDefault()],
	}
}

// deliveryCountConfig is the group config of the delivery-count limit (Kafka
// 4.3+, KIP-1240), and defaultDeliveryCountLimit Kafka's default for it.
const (
	deliveryCountConfig       = "share.delivery.count.limit"
	defaultDeliveryCountLimit = 5
)

func newShareMember(ctx context.Context, c *consumer, clientID string) (*shareMember, error) {
	t := c.cfg.Trial
	if t.Consumer.Share == nil {
		return nil, fmt.Errorf("trial %s: a share group without share settings", t.Name)
	}
	s := t.Consumer
	conn, err := franz.Opts(c.cfg.Security, c.cfg.Brokers, clientID,
		kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})
	if err != nil {
		return nil, fmt.Errorf("share member %s: %w", c.cfg.Name, err)
	}
	m := &shareMember{c: c, set: *s.Share, ack: summary.NewLatency()}
	m.deliv.Acknowledgement = string(s.Share.Acknowledgement)
	c.fetches = summary.NewLatency()
	opts := append(conn, //nolint:gocritic // conn is ours to extend
		kgo.FetchMinBytes(s.FetchMinBytes),
		kgo.FetchMaxWait(time.Duration(s.FetchMaxWaitMs)*time.Millisecond),
		kgo.FetchMaxPartitionBytes(s.MaxPartitionFetchBytes),
		kgo.ShareGroup(c.cfg.Group), kgo.ConsumeTopics(c.cfg.Topic),
		kgo.ShareAckCallback(m.answered),
	)
	m.hooks = clientstats.NewFranz()
	if c.cfg.Metrics != nil {
		c.cfg.Metrics.WatchClient(m.hooks.Snapshot)
	}
	admin, err := franz.New(ctx, c.cfg.Brokers, conn...)
	if err != nil {
		return nil, fmt.Errorf("share member %s: admin client: %w", c.cfg.Name, err)
	}
	configs := shareGroupConfigs(t)
	err = setGroupConfigs(ctx, admin, c.cfg.Group, configs)
	if err != nil && errors.Is(err, kerr.InvalidConfig) && s.Share.DeliveryCountLimit == defaultDeliveryCountLimit {
		// Kafka 4.2 has share groups but no per-group delivery-count limit
		// (KIP-1240, 4.3): its broker-wide group.share.delivery.count.limit
		// applies, whose default the trial asked for.
		c.cfg.Log.Warn("the broker has no per-group share.delivery.count.limit (Kafka 4.2); its group.share.delivery.count.limit applies",
			"consumer", c.cfg.Name, "err", err)
		delete(configs, deliveryCountConfig)
		err = setGroupConfigs(ctx, admin, c.cfg.Group, configs)
	}
	if err == nil {
		lock, lerr := recordLockDuration(ctx, admin, c.cfg.Group)
		if lerr != nil {
			// Only the completion check needs it, and only when the broker's lag
			// stays above 0 (shareComplete): the longest lock Kafka allows by
			// default is a safe stand-in.
			c.cfg.Log.Warn("the share group's record lock duration is unknown: taking Kafka's longest default", "consumer", c.cfg.Name, "err", lerr, "lock", maxLockDuration)
			lock = maxLockDuration
		}
		m.settle = lagWatch{quiet: lock + settleMargin}
	}
	admin.Close()
	if err != nil {
		return nil, err
	}
	m.cl, err = franz.New(ctx, c.cfg.Brokers, append(opts, kgo.WithHooks(m.hooks), franz.Logger(c.cfg.Log))...)
	if err != nil {
		return nil, fmt.Errorf("share member %s: %w", c.cfg.Name, err)
	}
	m.hooks.Watch(m.cl)
	return m, nil
}

// lockConfig is the group config of how long a delivered record stays acquired
// by its member before the broker delivers it again.
const lockConfig = "share.record.lock.duration.ms"

// recordLockDuration reads the group's effective record lock duration
// (DescribeConfigs on its GROUP resource: the group's own value, else the
// broker's group.share.record.lock.duration.ms; maxLockDuration if the broker
// reports neither).
func recordLockDuration(ctx context.Context, cl *kgo.Client, group string) (time.Duration, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	res.ConfigNames = []string{lockConfig}
	req.Resources = append(req.Resources, res)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, cl)
	if err != nil {
		return 0, fmt.Errorf("describe configs of share group %s: %w", group, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return 0, fmt.Errorf("describe configs of share group %s: %w", group, err)
		}
		for _, cfg := range r.Configs {
			if cfg.Name != lockConfig || cfg.Value == nil {
				continue
			}
			ms, err := strconv.ParseInt(*cfg.Value, 10, 64)
			if err != nil || ms <= 0 {
				return 0, fmt.Errorf("share group %s: %s is %q, not a positive number of milliseconds", group, lockConfig, *cfg.Value)
			}
			return time.Duration(ms) * time.Millisecond, nil
		}
	}
	// Not reported: the longest lock a broker allows by default
	// (group.share.max.record.lock.duration.ms).
	return maxLockDuration, nil
}

// maxLockDuration is Kafka's default group.share.max.record.lock.duration.ms.
const maxLockDuration = 60 * time.Second

// setGroupConfigs sets a group's configs (IncrementalAlterConfigs on a GROUP
// resource, Kafka 4.0+). Every consumer sets the same values: whichever is first,
// the group has them before it has members.
func setGroupConfigs(ctx context.Context, cl *kgo.Client, group string, configs map[string]string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	for k, v := range configs {
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Value = k, kmsg.StringPtr(v)
		cfg.Op = kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, cfg)
	}
	req.Resources = append(req.Resources, res)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, cl)
	if err != nil {
		return fmt.Errorf("set configs of share group %s: %w", group, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return fmt.Errorf("set configs %v of share group %s: %w%s (share groups need Kafka 4.2+ with share.version 1, a per-group %s Kafka 4.3+)",
				configs, group, err, msg, deliveryCountConfig)
		}
	}
	return nil
}

func (m *shareMember) stats() *summary.ClientStats { return m.hooks.Stats() }

// answered is franz-go's callback with the broker's answers to acknowledgements.
func (m *shareMember) answered(_ *kgo.Client, results kgo.ShareAckResults) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range results {
		if r.Err != nil {
			m.deliv.AckErrors++
			if m.deliv.FirstAckError == "" {
				m.deliv.FirstAckError = fmt.Sprintf("partition %d: %v", r.Partition, r.Err)
			}
		}
	}
}

func (m *shareMember) consume(ctx context.Context) error {
	c := m.c
	explicit := m.set.Acknowledgement == trial.ShareAckExplicit
	var last time.Time
	for ctx.Err() == nil {
		fetches := m.cl.PollRecords(ctx, -1)
		if fetches.IsClientClosed() {
			return nil
		}
		if fetches.NumRecords() > 0 && !c.cfg.Control.hold(ctx) {
			// Stopped before processing them: released to be delivered again,
			// not accepted when the member leaves.
			m.cl.MarkAcks(kgo.AckRelease)
			return nil
		}
		if fetches.NumRecords() > 0 {
			c.fetched(&last)
		}
		c.warnFetchErrors(ctx, fetches)
		var perr error
		var processed [][]*kgo.Record
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
				m.process(st, rec)
			}
			st.mu.Unlock()
			processed = append(processed, ftp.Records)
		})
		if perr != nil {
			// What was processed is accepted (Ack leaves a record process already
			// acknowledged as it was); the poll's other records go to another
			// member, not accepted when this one leaves.
			for _, recs := range processed {
				for _, rec := range recs {
					rec.Ack(kgo.AckAccept)
				}
			}
			m.cl.MarkAcks(kgo.AckRelease)
			return perr
		}
		if explicit && fetches.NumRecords() > 0 {
			// Each record was acknowledged as it was processed; wait for the
			// broker's answers before polling again (Java's commitSync).
			t0 := time.Now()
			err := m.cl.FlushAcks(ctx)
			if err == nil && c.measuring.Load() {
				m.mu.Lock()
				m.ack.Record(time.Since(t0).Microseconds())
				m.mu.Unlock()
				c.commits.Add(1)
			}
		}
	}
	return nil
}

// process records one delivered record and acknowledges it. Called with st.mu
// held.
func (m *shareMember) process(st *partition, rec *kgo.Record) {
	c := m.c
	now := time.Now()
	var f fields
	for _, h := range rec.Headers {
		f.set(keyIndex(h.Key), h.Value)
	}
	mine := c.ours(&f) && !f.end
	c.record(st, now, &f, rec.Partition, rec.Offset, rec.Value, c.cfg.Metrics)
	status := kgo.AckAccept
	n := rec.DeliveryCount()
	if mine {
		m.mu.Lock()
		m.deliv.Deliveries++
		if n > 1 {
			m.deliv.Redelivered++
		}
		m.deliv.MaxDeliveryCount = max(m.deliv.MaxDeliveryCount, n)
		if k := m.set.ReleaseOneIn; k > 0 && f.seq%uint64(k) == 0 {
			status = kgo.AckRelease
			m.deliv.Released++
			if n >= m.set.DeliveryCountLimit {
				m.deliv.Archived++
			}
		}
		m.mu.Unlock()
	}
	if status != kgo.AckAccept || m.set.Acknowledgement == trial.ShareAckExplicit {
		rec.Ack(status)
	}
}

// shareStats are the member's deliveries so far, and its acknowledgement times.
func (m *shareMember) shareStats() (*summary.ShareStats, *summary.Histogram) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.deliv
	h := summary.NewLatency()
	h.Merge(m.ack)
	return &s, h
}

func (m *shareMember) leave() error {
	// As Java's close in implicit mode: the last poll's records were processed,
	// so they are accepted, not released to be delivered again (franz-go's Close
	// releases what was not acknowledged). Records fetched but not yet polled are
	// released: the broker delivers them to another member.
	ctx, cancel := context.WithTimeout(context.Background(), DefaultDrainTimeout)
	defer cancel()
	m.cl.MarkAcks(kgo.AckAccept)
	err := m.cl.FlushAcks(ctx)
	m.cl.Close()
	m.hooks.Close()
	if err != nil {
		return fmt.Errorf("flush acknowledgements on leaving: %w", err)
	}
	return nil
}
