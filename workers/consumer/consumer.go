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

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/compress"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/registry"
	"github.com/serdebench/serdebench/workers/summary"
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
	// SchemaRegistry is the schema registry's URL, for the registry codecs.
	SchemaRegistry string
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
	// Control, if set, pauses the consumer or makes it leave mid-trial (a fault
	// scenario's consumer group event).
	Control *Control
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
	// comp decompresses values into decompressed (payload.compression; nil: none).
	comp         compress.Compressor
	decompressed []byte
	seen         []summary.SeqSet // by producer
	// markers is a bitmask of producers whose end record was processed; it travels in
	// the committed offset's metadata so a later owner of the partition continues it.
	markers uint64
	meta    string
	sum     summary.Summary
	e2e     *summary.Histogram
	deser   *summary.Histogram
	decomp  *summary.Histogram
	// framed is codec as a registry codec (nil otherwise); lookupNanos is the
	// measured records' time reading its header (outside sum.CodecNanos).
	framed      *codec.Framed
	lookupNanos int64
	// seg is the partition's current segment of consumption, segs the earlier
	// ones (segment.go).
	seg  *summary.Segment
	segs []summary.Segment
}

type consumer struct {
	cfg Config
	typ payload.Type
	// reg is the registry client the partitions' codecs share (registry codecs).
	reg   *registry.Client
	admin sarama.ClusterAdmin
	mu    sync.Mutex
	parts map[int32]*partition
	// fetches is the interval between fetch responses with records, once measuring
	// (guarded by mu); measuring is set by the first measured record.
	fetches   *summary.Histogram
	measuring atomic.Bool
	// commits counts the offset commits the consumer waited for, one per record
	// in commit mode eachRecord.
	commits atomic.Int64
	// series is the consumer's per-interval measurements, across its partitions.
	seriesMu sync.Mutex
	series   *summary.Series
	// steps are a rate search's received records per step (guarded by seriesMu).
	steps summary.Steps
	// start is, on an existing topic, each partition's end offset before the group
	// formed: nothing of this run can precede it (producers wait for the group).
	start map[int32]int64
	// share says the consumer is a share group's member.
	share bool
	// tails are the partitions whose last records were found to be every
	// producer's end record (share groups: shareComplete).
	tails map[int32]bool
}

// newMemberFunc makes a client's group member.
type newMemberFunc func(ctx context.Context, c *consumer, clientID string) (member, error)

// members is every client's consumer, one file each (sarama.go, franz.go,
// rdkafka.go): a client missing here is refused, never measured as another.
var members = map[trial.Client]newMemberFunc{
	trial.ClientSarama: func(ctx context.Context, c *consumer, id string) (member, error) { return newSaramaMember(ctx, c, id) },
	trial.ClientFranz:  func(ctx context.Context, c *consumer, id string) (member, error) { return newFranzMember(ctx, c, id) },
	trial.ClientRdkafka: func(_ context.Context, c *consumer, id string) (member, error) {
		return newRdkafkaMember(c, id)
	},
}

// memberFor is the trial's consumer: its consumers' client's group member, or a
// share group's.
func memberFor(t trial.Trial) (newMemberFunc, error) {
	c := t.Settings.ClientOf(trial.SideConsumers)
	if t.Consumer.GroupType == trial.GroupTypeShare {
		if c.OrDefault() != trial.ClientFranz {
			return nil, fmt.Errorf("client %q: only franz-go has share groups", c)
		}
		return func(ctx context.Context, c *consumer, id string) (member, error) { return newShareMember(ctx, c, id) }, nil
	}
	f, ok := members[c.OrDefault()]
	if !ok {
		return nil, fmt.Errorf("client %q: this worker has no such client (it has %v)", c, trial.RuntimeGo.Clients())
	}
	return f, nil
}

// Run consumes until every producer's end record has been processed on every
// partition and the group has committed up to the end of the topic, then returns the
// consumer's summary. Cancelling ctx stops early with what was received so far, in a
// summary marked interrupted; leaving the group then takes at most DrainTimeout.
// Errors while consuming (a broker restarting) are retried until ctx ends. A
// standby (NewStandby) joins its group when told to; abandoned before that, it
// returns no summary and no error.
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
	schema, err := payload.Open(t.Schema, t.Source)
	if err != nil {
		return nil, err
	}
	c := &consumer{cfg: cfg, typ: schema.TypeFor(int(t.SizeBytes)), parts: map[int32]*partition{},
		share: t.Consumer.GroupType == trial.GroupTypeShare, tails: map[int32]bool{},
		series: summary.NewSeries(int64(t.IntervalSecondsOrDefault()))}
	// One registry client for the consumer, which its partitions' codecs share
	// as one Confluent deserializer's would.
	if c.reg, err = registry.Open(ctx, cfg.SchemaRegistry); err != nil {
		return nil, err
	}
	if _, err := c.newCodec(); err != nil {
		return nil, err
	}
	if _, err := compress.New(string(t.Settings.PayloadCompression)); err != nil {
		return nil, err
	}
	clientID := "serdebench-" + t.Name + "-" + cfg.Name
	// Completion checks run on a client and connection of their own: sarama holds a
	// connection for a request's whole round trip (Broker.sendAndReceive), so checks
	// on the fetch connection would each delay the next fetch by one round trip.
	ccfg := kafkaconn.Base(clientID + "-checks")
	if err := cfg.Security.Apply(ccfg); err != nil {
		return nil, err
	}
	checks, err := kafkaconn.NewClient(ctx, cfg.Brokers, ccfg)
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
	if cfg.Control.standby() {
		cfg.Log.Info("standby: waiting to join the group", "consumer", cfg.Name)
	}
	if err := cfg.Control.awaitJoin(ctx); err != nil {
		_ = c.admin.Close()
		if errors.Is(err, errAbandoned) {
			return nil, nil
		}
		return nil, err
	}
	newMember, err := memberFor(t)
	if err != nil {
		_ = c.admin.Close()
		return nil, err
	}
	m, err := newMember(ctx, c, clientID)
	if err != nil {
		_ = c.admin.Close()
		return nil, err
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	complete := make(chan struct{})
	check := func() (bool, error) { return c.trialComplete(checks) }
	if sm, ok := m.(*shareMember); ok {
		check = func() (bool, error) { return c.shareComplete(runCtx, sm, checks) }
	}
	go c.watchCompletion(runCtx, check, complete, stop)
	// left says the consumer stopped because it was told to leave (and not
	// for another reason first).
	var left atomic.Bool
	go func() {
		select {
		case <-cfg.Control.leaving():
			if runCtx.Err() == nil {
				left.Store(true)
				cfg.Log.Info("leaving the consumer group before the trial is complete (fault)", "consumer", cfg.Name)
				stop()
			}
		case <-runCtx.Done():
		}
	}()
	type outcome struct {
		err   error
		stats *summary.ClientStats
	}
	consumed := make(chan outcome, 1)
	go func() {
		err := m.consume(runCtx)
		// Before leaving: the client's counts are complete once it stops consuming.
		stats := m.stats()
		if lerr := m.leave(); lerr != nil && err == nil {
			err = fmt.Errorf("leave consumer group: %w", lerr)
		}
		_ = c.admin.Close()
		consumed <- outcome{err, stats}
	}()
	// runCtx ends on completion or when the caller stops us; either way leaving the
	// group gets DrainTimeout.
	drain, stopDrain := kafkaconn.AfterDone(runCtx, cfg.DrainTimeout)
	defer stopDrain()
	var consumeErr error
	var stats *summary.ClientStats
	select {
	case o := <-consumed:
		consumeErr, stats = o.err, o.stats
	case <-drain.Done():
		consumeErr = fmt.Errorf("consumer did not leave group %s within %s of stopping", cfg.Group, cfg.DrainTimeout)
	}
	sum := c.summary()
	sum.Client = stats
	if sm, ok := m.(*shareMember); ok {
		var ack *summary.Histogram
		sum.Share, ack = sm.shareStats()
		sum.Histogram(summary.ShareAckMicros, summary.NewLatency).Merge(ack)
	}
	select {
	case <-complete:
		// The trial is whole: a slow or failed leave does not change what was measured.
		if consumeErr != nil {
			cfg.Log.Warn("leaving the consumer group after a complete trial", "consumer", cfg.Name, "err", consumeErr)
			consumeErr = nil
		}
	case <-whenLeft(ctx, &left):
		// Left on purpose, while the trial went on: what it received counts.
		sum.Left = true
		if consumeErr != nil {
			cfg.Log.Warn("leaving the consumer group (fault)", "consumer", cfg.Name, "err", consumeErr)
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

// member is one client library's membership in the trial's consumer group: its
// fetch loop, offset commits and rebalances.
type member interface {
	// consume fetches and records until ctx ends, retrying failed sessions (the
	// broker restarting, a coordinator moving): the trial timeout, not one error,
	// decides when the cluster has been gone too long.
	consume(ctx context.Context) error
	// leave leaves the group and closes the member's connections.
	leave() error
	// stats are the client's own statistics so far (summary.ClientStats).
	stats() *summary.ClientStats
}

// watchCompletion closes complete (and so ends Consume) once check says the trial
// is complete: for a consumer group (trialComplete) once every partition's
// committed offset is its end offset and its committed metadata shows the end
// records of all producers.
func (c *consumer) watchCompletion(ctx context.Context, check func() (bool, error), complete chan struct{}, stop func()) {
	tick := time.NewTicker(c.cfg.CheckInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		done, err := check()
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
		// A transactional producer's end record is followed by its transaction's
		// commit marker, a control record no consumer is handed: at most one per
		// producer follows the last end record.
		if c.cfg.Trial.Settings.Transactions.Enabled() {
			end -= int64(c.cfg.Trial.Producers)
		}
		if blk.Offset < end {
			return false, nil
		}
	}
	return true, nil
}

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

func (c *consumer) partition(p int32) (*partition, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.parts[p]; ok {
		return st, nil
	}
	cd, err := c.newCodec()
	if err != nil {
		return nil, err
	}
	comp, err := compress.New(string(c.cfg.Trial.Settings.PayloadCompression))
	if err != nil {
		return nil, err
	}
	st := &partition{codec: cd, scratch: cd.NewNative(), comp: comp}
	st.framed, _ = cd.(*codec.Framed)
	st.e2e = st.sum.Histogram(summary.EndToEndMicros, summary.NewLatency)
	st.deser = st.sum.Histogram(summary.DeserializeNanos, summary.NewDuration)
	if comp != nil {
		st.decomp = st.sum.Histogram(summary.DecompressNanos, summary.NewDuration)
	}
	c.parts[p] = st
	return st, nil
}

// fields are a record's serdebench headers (workers/wire).
type fields struct {
	producer           uint32
	seq, intended, run uint64
	warmup, end        bool
	// step is the rate-search step, if hasStep.
	step    uint32
	hasStep bool
	// run32 says run holds only the run's low 32 bits (the compact header).
	run32 bool
}

// Header indexes, from the key.
const (
	hOther = iota
	hRun
	hProducer
	hSeq
	hIntended
	hWarmup
	hEnd
	hStep
	hCompact
)

func keyIndex(k string) int {
	switch k {
	case wire.Run:
		return hRun
	case wire.Producer:
		return hProducer
	case wire.Seq:
		return hSeq
	case wire.Intended:
		return hIntended
	case wire.Warmup:
		return hWarmup
	case wire.End:
		return hEnd
	case wire.Step:
		return hStep
	case wire.Compact:
		return hCompact
	}
	return hOther
}

// keyIndexBytes is keyIndex for sarama's []byte keys. The converted key does not
// escape and is short, so the conversion uses a stack buffer: no allocation
// (TestKeyIndexAllocatesNothing).
func keyIndexBytes(k []byte) int { return keyIndex(string(k)) }

func (f *fields) set(i int, v []byte) {
	switch i {
	case hRun:
		f.run, _ = wire.Uint64(v)
	case hProducer:
		f.producer, _ = wire.Uint32(v)
	case hSeq:
		f.seq, _ = wire.Uint64(v)
	case hIntended:
		f.intended, _ = wire.Uint64(v)
	case hWarmup:
		f.warmup = true
	case hEnd:
		f.end = true
	case hStep:
		f.step, f.hasStep = wire.Uint32(v)
	case hCompact:
		// A malformed value leaves the fields zero: run 0 makes it another run's.
		if c, ok := wire.ParseCompact(v); ok {
			f.run, f.run32, f.producer, f.seq, f.intended = uint64(c.Run), true, c.Producer, c.Seq, uint64(c.Intended)
			f.warmup, f.end = c.Flags&wire.FlagWarmup != 0, c.Flags&wire.FlagEnd != 0
			f.step, f.hasStep = c.Step, c.Flags&wire.FlagStep != 0
		}
	}
}

// isolationConfig are the isolation levels as Kafka's configs name them
// (librdkafka's isolation.level, a share group's share.isolation.level).
var isolationConfig = map[trial.Isolation]string{
	trial.IsolationReadUncommitted: "read_uncommitted", trial.IsolationReadCommitted: "read_committed",
}

// ours says whether a record with headers f is of this run (the compact header
// holds only the run's low 32 bits).
func (c *consumer) ours(f *fields) bool {
	want := c.cfg.Run
	if f.run32 {
		want = uint64(uint32(want))
	}
	return f.run == want
}

// record processes one received record: now is when it was received, f its
// headers.
func (c *consumer) record(st *partition, now time.Time, f *fields, partition int32, offset int64, value []byte, mt *metrics.Worker) {
	producer, seq, intended, warmup, end := f.producer, f.seq, f.intended, f.warmup, f.end
	if !c.ours(f) {
		st.sum.Foreign++ // another run's record, or other traffic on a shared topic
		return
	}
	if end {
		st.markers |= 1 << (producer & 63)
		st.meta = "m=" + strconv.FormatUint(st.markers, 16)
		return
	}
	if !c.share {
		// A share group's members share partitions: no one member's gaps are
		// the partition's.
		st.track(partition, now, int64(intended))
	}
	for int(producer) >= len(st.seen) {
		st.seen = append(st.seen, summary.SeqSet{})
	}
	first := st.seen[producer].Add(int64(seq))
	if first {
		// Backlog counts each record once, when it first arrives.
		c.seriesMu.Lock()
		c.series.Done(now, !warmup)
		c.seriesMu.Unlock()
	}

	encoded, decomp, err := value, int64(0), error(nil)
	if st.comp != nil {
		t0 := time.Now()
		encoded, err = st.comp.Decompress(st.decompressed, value)
		decomp = time.Since(t0).Nanoseconds()
		if err == nil {
			st.decompressed = encoded
		}
	}
	var out any
	var deser, lookup int64
	if err == nil {
		out, deser, lookup, err = st.unmarshal(encoded)
	}
	if err != nil {
		st.sum.Errors++
		if st.sum.FirstError == "" {
			st.sum.FirstError = fmt.Sprintf("partition %d offset %d: %v", partition, offset, err)
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
	c.seriesMu.Lock()
	c.series.Measured(time.Unix(0, int64(intended)), lat)
	if !first {
		c.series.Duplicate(time.Unix(0, int64(intended)))
	}
	if f.hasStep && first {
		// A step's verdict compares records acknowledged with records received:
		// each once, so a duplicate cannot stand in for a missing record.
		c.steps.At(int(f.step)).Add(lat)
	}
	c.seriesMu.Unlock()
	c.measuring.Store(true)
	st.deser.Record(deser)
	st.sum.Records++
	st.sum.SerializedBytes += int64(len(encoded))
	st.sum.CodecNanos += deser
	st.lookupNanos += lookup
	if st.decomp != nil {
		st.decomp.Record(decomp)
		st.sum.CompressedBytes += int64(len(value))
		st.sum.CompressNanos += decomp
	}
	if st.sum.WindowStart.IsZero() {
		st.sum.WindowStart = now
	}
	st.sum.WindowEnd = now
	if mt != nil {
		mt.Records.Inc()
		mt.SerializedBytes.Add(float64(len(encoded)))
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
	if p := t.Settings.PayloadCompression; p != "" && p != compress.None {
		out.Histogram(summary.DecompressNanos, summary.NewDuration)
	}
	out.Commits = c.commits.Load()
	out.ReadCommitted = t.Consumer.Isolation == trial.IsolationReadCommitted
	if c.reg != nil && t.Codec.UsesRegistry() {
		n, d := c.reg.Requests()
		out.Registry = &summary.RegistryStats{Requests: n, RequestNanos: d.Nanoseconds()}
	}
	if c.fetches != nil {
		out.Histogram(summary.FetchIntervalMicros, summary.NewLatency).Merge(c.fetches)
	}
	c.seriesMu.Lock()
	out.Series, out.Steps = c.series.Clone(), c.steps.Clone()
	c.seriesMu.Unlock()
	for p, st := range c.parts {
		st.mu.Lock()
		for name, h := range st.sum.Histograms {
			out.Histograms[name].Merge(h)
		}
		out.Records += st.sum.Records
		out.WarmupRecords += st.sum.WarmupRecords
		out.SerializedBytes += st.sum.SerializedBytes
		out.CodecNanos += st.sum.CodecNanos
		if out.Registry != nil {
			out.Registry.LookupNanos += st.lookupNanos
		}
		out.CompressedBytes += st.sum.CompressedBytes
		out.CompressNanos += st.sum.CompressNanos
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
		out.Segments = append(out.Segments, st.segments()...)
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

// committed is the group's committed offset (-1: none) and marker mask for a
// partition, read on the checks connection.
func (c *consumer) committed(p int32) (int64, uint64, error) {
	resp, err := c.admin.ListConsumerGroupOffsets(c.cfg.Group, map[string][]int32{c.cfg.Topic: {p}})
	if err != nil {
		return -1, 0, fmt.Errorf("committed offset of %s/%d: %w", c.cfg.Topic, p, err)
	}
	blk := resp.GetBlock(c.cfg.Topic, p)
	if blk == nil || blk.Offset < 0 {
		return -1, 0, nil
	}
	return blk.Offset, parseMarkers(blk.Metadata), nil
}

// startAt is where partition p starts when assigned, given its commit in the
// run's group (-1: none): on an existing topic, a partition nobody committed
// starts at the trial's start; false otherwise (it resumes at its commit). The
// group is this run's, so a commit is never before the start, whenever the
// member read it (a joiner mid-window).
func (c *consumer) startAt(p int32, committed int64) (int64, bool) {
	start, ok := c.start[p]
	return start, ok && committed < 0
}

// continueMarkers adds a committed marker mask to the partition's.
func (st *partition) continueMarkers(mask uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.markers |= mask
	st.meta = "m=" + strconv.FormatUint(st.markers, 16)
}

// whenLeft is closed when the consumer left on purpose (Control.Leave, before
// anything else stopped it) and was not stopped from outside (ctx).
func whenLeft(ctx context.Context, left *atomic.Bool) <-chan struct{} {
	if !left.Load() || ctx.Err() != nil {
		return nil
	}
	done := make(chan struct{})
	close(done)
	return done
}
