// Package consumer is serdebench's consumer worker: one member of the trial's
// consumer group. It measures end-to-end latency from each record's intended send
// time, deserialization time, and which records arrived (for loss and duplicates).
package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/trial"
	"github.com/serdebench/serdebench/workers/wire"
)

// Config is what one consumer worker needs.
type Config struct {
	Brokers []string
	// Security is TLS and SASL for the brokers.
	Security   kafkaconn.Security
	Topic      string
	Group      string
	Experiment string
	Trial      trial.Trial
	// Name identifies the consumer within the trial.
	Name string
	// Run is the trial attempt's identifier (wire.RunID of Group): records of other
	// runs on the topic are skipped.
	Run uint64
	// Metrics, if set, receives live series.
	Metrics *metrics.Worker
	// Progress, if set, is incremented per measured record.
	Progress *atomic.Int64
	// CheckInterval is how often the consumer checks whether the trial is complete.
	CheckInterval time.Duration
	// DrainTimeout bounds how long the consumer takes to leave its group once ctx
	// has ended (default DefaultDrainTimeout).
	DrainTimeout time.Duration
	Log          *slog.Logger
}

// DefaultDrainTimeout is how long a stopped consumer may take to leave its group.
const DefaultDrainTimeout = 5 * time.Second

// partition is one partition's state in this consumer. One claim goroutine at a time
// records into it; mu lets the summary read it even while a claim that did not stop
// in time is still running.
type partition struct {
	mu      sync.Mutex
	codec   codec.Codec
	scratch any
	seen    []summary.SeqSet // by producer
	// markers is a bitmask of producers whose end record was processed; it travels in
	// the committed offset's metadata so a later owner of the partition continues it.
	markers uint64
	meta    string
	sum     summary.Summary
	e2e     *summary.Histogram
	deser   *summary.Histogram
}

type consumer struct {
	cfg   Config
	typ   payload.Type
	admin sarama.ClusterAdmin
	mu    sync.Mutex
	parts map[int32]*partition
	// start is, on an existing topic, each partition's end offset before the group
	// formed: nothing of this run can precede it (producers wait for the group).
	start map[int32]int64
}

// Run consumes until every producer's end record has been processed on every
// partition and the group has committed up to the end of the topic, then returns the
// consumer's summary. Cancelling ctx stops early with what was received so far, in a
// summary marked interrupted; leaving the group then takes at most DrainTimeout.
// Errors while consuming (a broker restarting) are retried until ctx ends.
func Run(ctx context.Context, cfg Config) (*summary.Summary, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = 200 * time.Millisecond
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	t := cfg.Trial
	schema, err := payload.Lookup(t.Schema)
	if err != nil {
		return nil, err
	}
	c := &consumer{cfg: cfg, typ: schema.TypeFor(int(t.SizeBytes)), parts: map[int32]*partition{}}
	if _, err := codec.New(string(t.Codec), c.typ); err != nil {
		return nil, err
	}
	scfg := kafkaconn.Base("serdebench-" + t.Name + "-" + cfg.Name)
	scfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	// Commits share the fetch connection (sarama's group client talks to the
	// coordinator over the leader's connection, one request per round trip), so each
	// commit delays a fetch by one round trip: at 50 ms RTT, commits every 100 ms
	// added ~25 ms to end-to-end p50 (docs/measurement.md, "Calibration"). Once a
	// second only delays the end of a trial by up to a second.
	scfg.Consumer.Offsets.AutoCommit.Interval = time.Second
	scfg.Consumer.Return.Errors = true
	// Members learn of a rebalance at their next heartbeat: sarama's 3 s default
	// would make every trial wait that long for its group to settle when the second
	// consumer joins. (The session timeout stays 10 s.)
	scfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	if err := cfg.Security.Apply(scfg); err != nil {
		return nil, err
	}
	// Two clients, two connections: sarama holds a connection for a request's whole
	// round trip (Broker.sendAndReceive), so completion checks on the fetch
	// connection would each delay the next fetch by one round trip.
	checks, err := kafkaconn.NewClient(ctx, cfg.Brokers, scfg)
	if err != nil {
		return nil, err
	}
	// The admin owns its client: closing it closes both.
	c.admin, err = sarama.NewClusterAdminFromClient(checks)
	if err != nil {
		_ = checks.Close()
		return nil, fmt.Errorf("create admin client: %w", err)
	}
	if t.ExistingTopic != "" {
		if c.start, err = endOffsets(ctx, checks, cfg.Topic, t.Partitions); err != nil {
			_ = c.admin.Close()
			return nil, err
		}
	}
	client, err := kafkaconn.NewClient(ctx, cfg.Brokers, scfg)
	if err != nil {
		_ = c.admin.Close()
		return nil, err
	}
	group, err := sarama.NewConsumerGroupFromClient(cfg.Group, client)
	if err != nil {
		_ = client.Close()
		_ = c.admin.Close()
		return nil, fmt.Errorf("join consumer group %s: %w", cfg.Group, err)
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	complete := make(chan struct{})
	go c.watchCompletion(runCtx, checks, complete, stop)
	go func() {
		for err := range group.Errors() {
			cfg.Log.Warn("consumer group error", "consumer", cfg.Name, "err", err)
		}
	}()
	consumed := make(chan error, 1)
	go func() {
		err := c.consume(runCtx, group)
		if cerr := group.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("leave consumer group: %w", cerr)
		}
		// NewConsumerGroupFromClient leaves its client open.
		_ = client.Close()
		_ = c.admin.Close()
		consumed <- err
	}()
	// runCtx ends on completion or when the caller stops us; either way leaving the
	// group gets DrainTimeout.
	drain, stopDrain := kafkaconn.AfterDone(runCtx, cfg.DrainTimeout)
	defer stopDrain()
	var consumeErr error
	select {
	case consumeErr = <-consumed:
	case <-drain.Done():
		consumeErr = fmt.Errorf("consumer did not leave group %s within %s of stopping", cfg.Group, cfg.DrainTimeout)
	}
	sum := c.summary()
	select {
	case <-complete:
		// The trial is whole: a slow or failed leave does not change what was measured.
		if consumeErr != nil {
			cfg.Log.Warn("leaving the consumer group after a complete trial", "consumer", cfg.Name, "err", consumeErr)
			consumeErr = nil
		}
	default:
		sum.Interrupted = true
		if consumeErr != nil && sum.FirstError == "" {
			sum.FirstError = consumeErr.Error()
		}
	}
	if cfg.Metrics != nil {
		cfg.Metrics.Done.Set(1)
	}
	return sum, consumeErr
}

// consume runs group sessions until ctx ends. A session that fails (the broker
// restarting, a coordinator moving) is retried after a pause: the trial timeout, not
// one error, decides when the cluster has been gone too long.
func (c *consumer) consume(ctx context.Context, group sarama.ConsumerGroup) error {
	for ctx.Err() == nil {
		err := group.Consume(ctx, []string{c.cfg.Topic}, c)
		switch {
		case err == nil:
		case errors.Is(err, sarama.ErrClosedConsumerGroup) || ctx.Err() != nil:
			return nil
		default:
			c.cfg.Log.Warn("consume failed; retrying", "consumer", c.cfg.Name, "topic", c.cfg.Topic, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return nil
}

// watchCompletion closes complete (and so ends Consume) once every partition's
// committed offset is its end offset and its committed metadata shows the end
// records of all producers.
func (c *consumer) watchCompletion(ctx context.Context, client sarama.Client, complete chan struct{}, stop func()) {
	tick := time.NewTicker(c.cfg.CheckInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		done, err := c.trialComplete(client)
		if err != nil {
			c.cfg.Log.Debug("completion check", "err", err)
			continue
		}
		if done {
			close(complete)
			stop()
			return
		}
	}
}

func (c *consumer) trialComplete(client sarama.Client) (bool, error) {
	n := int(c.cfg.Trial.Partitions)
	parts := make([]int32, n)
	for i := range parts {
		parts[i] = int32(i)
	}
	resp, err := c.admin.ListConsumerGroupOffsets(c.cfg.Group, map[string][]int32{c.cfg.Topic: parts})
	if err != nil {
		return false, err
	}
	for _, p := range parts {
		blk := resp.GetBlock(c.cfg.Topic, p)
		if blk == nil || blk.Offset < 0 || bits.OnesCount64(parseMarkers(blk.Metadata)) < int(c.cfg.Trial.Producers) {
			return false, nil
		}
		// The mask is committed with the end record's offset, so everything of this
		// run before it was processed. On a fresh topic the end offset must be
		// reached too; on a shared one other traffic may keep moving it.
		if c.cfg.Trial.ExistingTopic != "" {
			continue
		}
		end, err := client.GetOffset(c.cfg.Topic, p, sarama.OffsetNewest)
		if err != nil {
			return false, err
		}
		if blk.Offset < end {
			return false, nil
		}
	}
	return true, nil
}

var _ sarama.ConsumerGroupHandler = (*consumer)(nil)

func parseMarkers(meta string) uint64 {
	if len(meta) < 2 || meta[:2] != "m=" {
		return 0
	}
	v, err := strconv.ParseUint(meta[2:], 16, 64)
	if err != nil {
		return 0
	}
	return v
}

// Setup is called at the start of each group session. On an existing topic a
// partition nobody in the group has committed starts at its end offset from before
// the group formed (MarkOffset only moves forward: a commit is never undone).
func (c *consumer) Setup(sess sarama.ConsumerGroupSession) error {
	for _, p := range sess.Claims()[c.cfg.Topic] {
		if off, ok := c.start[p]; ok {
			sess.MarkOffset(c.cfg.Topic, p, off, "")
		}
	}
	return nil
}

// endOffsets reads every partition's end offset.
func endOffsets(ctx context.Context, client sarama.Client, topic string, partitions int32) (map[int32]int64, error) {
	out := make(map[int32]int64, partitions)
	for p := range partitions {
		off, err := kafkaconn.Bounded(ctx, func() (int64, error) { return client.GetOffset(topic, p, sarama.OffsetNewest) })
		if err != nil {
			return nil, fmt.Errorf("end offset of %s/%d: %w", topic, p, err)
		}
		out[p] = off
	}
	return out, nil
}

// Cleanup is called at the end of each group session.
func (c *consumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (c *consumer) partition(p int32) (*partition, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.parts[p]; ok {
		return st, nil
	}
	cd, err := codec.New(string(c.cfg.Trial.Codec), c.typ)
	if err != nil {
		return nil, err
	}
	st := &partition{codec: cd, scratch: cd.NewNative()}
	st.e2e = st.sum.Histogram(summary.EndToEndMicros, summary.NewLatency)
	st.deser = st.sum.Histogram(summary.DeserializeNanos, summary.NewDuration)
	c.parts[p] = st
	return st, nil
}

// ConsumeClaim processes one partition's records for one session.
func (c *consumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	st, err := c.partition(claim.Partition())
	if err != nil {
		return err
	}
	// Continue the marker mask from what the group committed for this partition
	// (asked outside the lock: the summary may need it while this call waits).
	var committed uint64
	if resp, err := c.admin.ListConsumerGroupOffsets(c.cfg.Group, map[string][]int32{c.cfg.Topic: {claim.Partition()}}); err == nil {
		if blk := resp.GetBlock(c.cfg.Topic, claim.Partition()); blk != nil && blk.Offset >= 0 {
			committed = parseMarkers(blk.Metadata)
		}
	}
	st.mu.Lock()
	st.markers |= committed
	st.meta = "m=" + strconv.FormatUint(st.markers, 16)
	st.mu.Unlock()
	mt := c.cfg.Metrics
	for {
		select {
		case <-sess.Context().Done():
			return nil
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			st.mu.Lock()
			c.record(st, msg, mt)
			meta := st.meta
			st.mu.Unlock()
			sess.MarkMessage(msg, meta)
		}
	}
}

func (c *consumer) record(st *partition, msg *sarama.ConsumerMessage, mt *metrics.Worker) {
	now := time.Now()
	var producer uint32
	var seq, intended, run uint64
	var warmup, end bool
	for _, h := range msg.Headers {
		switch string(h.Key) {
		case wire.Run:
			run, _ = wire.Uint64(h.Value)
		case wire.Producer:
			producer, _ = wire.Uint32(h.Value)
		case wire.Seq:
			seq, _ = wire.Uint64(h.Value)
		case wire.Intended:
			intended, _ = wire.Uint64(h.Value)
		case wire.Warmup:
			warmup = true
		case wire.End:
			end = true
		}
	}
	if run != c.cfg.Run {
		st.sum.Foreign++ // another run's record, or other traffic on a shared topic
		return
	}
	if end {
		st.markers |= 1 << (producer & 63)
		st.meta = "m=" + strconv.FormatUint(st.markers, 16)
		return
	}
	for int(producer) >= len(st.seen) {
		st.seen = append(st.seen, summary.SeqSet{})
	}
	st.seen[producer].Add(int64(seq))

	t0 := time.Now()
	out, err := st.codec.Unmarshal(msg.Value, st.scratch)
	deser := time.Since(t0).Nanoseconds()
	if err != nil {
		st.sum.Errors++
		if st.sum.FirstError == "" {
			st.sum.FirstError = fmt.Sprintf("partition %d offset %d: %v", msg.Partition, msg.Offset, err)
		}
		if mt != nil {
			mt.Errors.Inc()
		}
		return
	}
	st.scratch = out
	if warmup {
		st.sum.WarmupRecords++
		if mt != nil {
			mt.WarmupRecords.Inc()
		}
		return
	}
	lat := (now.UnixNano() - int64(intended)) / 1e3
	st.e2e.Record(lat)
	st.deser.Record(deser)
	st.sum.Records++
	st.sum.SerializedBytes += int64(len(msg.Value))
	st.sum.CodecNanos += deser
	if st.sum.WindowStart.IsZero() {
		st.sum.WindowStart = now
	}
	st.sum.WindowEnd = now
	if mt != nil {
		mt.Records.Inc()
		mt.SerializedBytes.Add(float64(len(msg.Value)))
		mt.CodecSeconds.Add(float64(deser) / 1e9)
		mt.Latency.Observe(float64(lat) / 1e6)
	}
	if c.cfg.Progress != nil {
		c.cfg.Progress.Add(1)
	}
}

// summary merges the partitions' states into the consumer's report.
func (c *consumer) summary() *summary.Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.cfg.Trial
	out := &summary.Summary{Role: summary.RoleConsumer, Worker: c.cfg.Name, Experiment: c.cfg.Experiment, Trial: t.Name,
		Codec: string(t.Codec), Schema: t.Schema, SizeBytes: int(t.SizeBytes)}
	out.Histogram(summary.EndToEndMicros, summary.NewLatency)
	out.Histogram(summary.DeserializeNanos, summary.NewDuration)
	for p, st := range c.parts {
		st.mu.Lock()
		for name, h := range st.sum.Histograms {
			out.Histograms[name].Merge(h)
		}
		out.Records += st.sum.Records
		out.WarmupRecords += st.sum.WarmupRecords
		out.SerializedBytes += st.sum.SerializedBytes
		out.CodecNanos += st.sum.CodecNanos
		out.Errors += st.sum.Errors
		out.Foreign += st.sum.Foreign
		if out.FirstError == "" {
			out.FirstError = st.sum.FirstError
		}
		if !st.sum.WindowStart.IsZero() && (out.WindowStart.IsZero() || st.sum.WindowStart.Before(out.WindowStart)) {
			out.WindowStart = st.sum.WindowStart
		}
		if st.sum.WindowEnd.After(out.WindowEnd) {
			out.WindowEnd = st.sum.WindowEnd
		}
		for producer := range st.seen {
			set := &st.seen[producer]
			if set.Total() == 0 {
				continue
			}
			out.Received = append(out.Received, summary.Delivery{Producer: producer, Partition: int(p), Total: set.Total(), Intervals: set.Intervals()})
		}
		st.mu.Unlock()
	}
	return out
}
