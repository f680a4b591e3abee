// Package producer is serdebench's producer worker: it builds a pool of records,
// sends them with one codec and one set of producer settings, and measures
// serialization time, acknowledgement latency and send delay from each record's
// intended send time.
package producer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/compress"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/registry"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/wire"
)

// Config is what one producer worker needs.
type Config struct {
	Brokers []string
	// Security is TLS and SASL for the brokers.
	Security   kafkaconn.Security
	Topic      string
	Experiment string
	Trial      trial.Trial
	// ID is the producer's index within the trial (0..Producers-1).
	ID int
	// Run identifies the trial attempt (wire.RunID of its consumer group) in every
	// record's headers.
	Run uint64
	// WaitGroup, if set, is the consumer group whose Trial.Consumers members must be
	// Stable before sending starts, so that no rebalance falls into the measurement.
	WaitGroup   string
	WaitTimeout time.Duration
	// SchemaRegistry is the schema registry's URL, for the registry codecs.
	SchemaRegistry string
	// Metrics, if set, receives live series.
	Metrics *metrics.Worker
	// Progress, if set, is incremented per acknowledged record.
	Progress *atomic.Int64
	// DrainTimeout bounds how long the producer still waits for acknowledgements
	// once ctx has ended (default DefaultDrainTimeout).
	DrainTimeout time.Duration
	Log          *slog.Logger
	// WindowStarted, if set, is called with the measured window's start once it is
	// known (it also goes to Log, for the operator): in an open loop when the
	// schedule begins, in a closed one when the first measured record is due.
	WindowStarted func(time.Time)
	// StartAt, if set, is called once the producer is ready to send (connected,
	// its group stable) and returns the instant its schedule begins, warmup
	// included: the trial's coordinator gives every producer the same one.
	StartAt func(context.Context) (time.Time, error)
}

// DefaultDrainTimeout is how long a stopped worker waits for what is in flight.
const DefaultDrainTimeout = 5 * time.Second

// run holds one producer run's state. Fields after the comment are owned by the
// acknowledgement goroutine until it exits.
type run struct {
	cfg   Config
	codec codec.Codec
	// framed is codec as a registry codec (nil otherwise), reg its client.
	framed *codec.Framed
	reg    *registry.Client
	body   []byte
	// comp compresses each value (payload.compression; nil: none) from encoded, the
	// sender's buffer for the codec's output.
	comp    compress.Compressor
	encoded []byte
	// compact packs each record's headers into one (api/trial HeadersCompact).
	compact bool
	natives []any
	sizes   []int64
	client  client
	// copied is client.copiesValue(); scratch is then every record's value buffer.
	copied  bool
	scratch []byte
	// free holds acknowledged messages for reuse. (sync.Pool would drop them at
	// every GC and reallocate messages and their value buffers mid-run.)
	free chan *message
	// pending counts records handed to the client and not yet acknowledged or
	// failed; idle is signalled when it drops to zero.
	pending atomic.Int64
	idle    chan struct{}
	acked   chan struct{}
	// stopAcks makes the acknowledgement goroutine return without waiting for the
	// client (a drain that ran out of time).
	stopAcks chan struct{}
	// seqs is the next sequence number per partition (the sender's until it returns).
	seqs []uint64
	// parts chooses each record's partition (the sender's).
	parts *partitioner
	// sched is the send schedule and searchStop why a rate search ended early (the
	// sender's until it returns).
	sched      *schedule
	searchStop string
	// searchFailed is 1 + the first rate-search step the acknowledgements showed
	// failed (0: none), for the sender to stop the search.
	searchFailed atomic.Int64
	// failures counts failed sends (end records included), for the sender to
	// abort a transaction one failed in.
	failures atomic.Int64
	// txn is a transactional producer's bookkeeping (nil: not transactional).
	txn *txn

	// owned by the acknowledgement goroutine
	sum        summary.Summary
	ack        *summary.Histogram
	serHist    *summary.Histogram
	compHist   *summary.Histogram
	delay      *summary.Histogram
	ackedSeqs  []summary.SeqSet
	failedSeqs []summary.SeqSet
	winStart   time.Time
	// stepStats are the rate search's measured records per step, slowAcks how
	// many of each step's took longer than the bound.
	stepStats summary.Steps
	slowAcks  map[int]int64
}

// Run sends the trial's records and returns the producer's summary. Cancelling ctx
// stops sending early: what is in flight gets DrainTimeout to be acknowledged, and
// the summary is marked interrupted. Every wait is bounded by ctx and that deadline.
func Run(ctx context.Context, cfg Config) (*summary.Summary, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	t := cfg.Trial
	schema, err := payload.Open(t.Schema, t.Source)
	if err != nil {
		return nil, err
	}
	typ := schema.TypeFor(int(t.SizeBytes))
	// One registry client per producer, as each Confluent serializer has its
	// own: its cache starts empty.
	reg, err := registry.Open(ctx, cfg.SchemaRegistry)
	if err != nil {
		return nil, err
	}
	c, err := codec.NewWith(string(t.Codec), typ, codec.Options{Registry: reg, Topic: cfg.Topic})
	if err != nil {
		return nil, err
	}
	// Build the pool before anything is timed: records, then the codec's native form.
	pool, err := schema.Pool(payload.ProducerSeed(t.Seed, cfg.ID), int(t.SizeBytes), int(t.PoolSize))
	if err != nil {
		return nil, err
	}
	comp, err := compress.New(string(t.Settings.PayloadCompression))
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, codec: c, reg: reg, comp: comp, natives: make([]any, len(pool)), sizes: make([]int64, len(pool)),
		idle: make(chan struct{}, 1), acked: make(chan struct{}, 1), stopAcks: make(chan struct{}),
		seqs: make([]uint64, t.Partitions), ackedSeqs: make([]summary.SeqSet, t.Partitions), failedSeqs: make([]summary.SeqSet, t.Partitions)}
	maxValue := 0
	for i, rec := range pool {
		if r.natives[i], err = c.Native(rec); err != nil {
			return nil, fmt.Errorf("prepare record %d: %w", i, err)
		}
		r.sizes[i] = int64(payload.JSONSize(rec))
		// Untimed: the largest encoded value sizes the client's per-record limit.
		b, err := c.Marshal(nil, r.natives[i])
		if err != nil {
			return nil, fmt.Errorf("serialize record %d: %w", i, err)
		}
		maxValue = max(maxValue, len(b))
		if comp != nil {
			if b, err = comp.Compress(nil, b); err != nil {
				return nil, fmt.Errorf("compress record %d: %w", i, err)
			}
			maxValue = max(maxValue, len(b))
		}
	}
	r.free = make(chan *message, freeListSize)
	r.compact = t.Headers == trial.HeadersCompact
	r.parts = newPartitioner(t.Settings.Partitioner, t.Partitions, t.Settings.BatchSizeBytes, t.Headers, partitionSeed(t, cfg.ID))
	r.slowAcks = map[int]int64{}
	r.sum = summary.Summary{Role: summary.RoleProducer, Worker: strconv.Itoa(cfg.ID), Experiment: cfg.Experiment,
		Trial: t.Name, Codec: string(t.Codec), Schema: t.Schema, SizeBytes: int(t.SizeBytes)}
	if r.framed, _ = c.(*codec.Framed); r.framed != nil {
		r.sum.Registry = &summary.RegistryStats{}
	}
	r.ack = r.sum.Histogram(summary.AckLatencyMicros, summary.NewLatency)
	r.serHist = r.sum.Histogram(summary.SerializeNanos, summary.NewDuration)
	if comp != nil {
		r.compHist = r.sum.Histogram(summary.CompressNanos, summary.NewDuration)
	}
	r.delay = r.sum.Histogram(summary.SendDelayMicros, summary.NewLatency)
	r.sum.Series = summary.NewSeries(int64(t.IntervalSecondsOrDefault()))

	topicMax, _ := strconv.Atoi(t.TopicConfig["max.message.bytes"])
	if t.ExistingTopic != "" {
		// Someone else's topic: its own limit decides how large a batch may be.
		if topicMax, err = topicMaxMessageBytes(ctx, cfg.Brokers, cfg.Security, cfg.Topic); err != nil {
			return nil, err
		}
	}
	// drain ends DrainTimeout after ctx does: a stopped producer still collects what
	// is in flight, but not for long.
	drain, stopDrain := kafkaconn.AfterDone(ctx, cfg.DrainTimeout)
	defer stopDrain()
	clientID := fmt.Sprintf("serdebench-%s-p%d", t.Name, cfg.ID)
	newClient, err := clientFor(t.Settings.Client)
	if err != nil {
		return nil, err
	}
	if r.client, err = newClient(ctx, drain, r, clientID, maxValue, topicMax); err != nil {
		return nil, err
	}
	defer r.client.release()
	r.copied = r.client.copiesValue()
	if tx := t.Settings.Transactions; tx.Enabled() {
		tr, ok := r.client.(transactor)
		if !ok {
			return nil, fmt.Errorf("client %s: this worker has no transactional producer for it", t.Settings.Client.OrDefault())
		}
		r.txn = &txn{tr: tr, every: int64(tx.RecordsPerTransaction), span: time.Duration(tx.TransactionMillis) * time.Millisecond,
			committed: make([]summary.SeqSet, t.Partitions), aborted: make([]summary.SeqSet, t.Partitions), doubtful: make([]summary.SeqSet, t.Partitions),
			commit: r.sum.Histogram(summary.CommitMicros, summary.NewLatency)}
	}
	r.sum.ClientSettings = r.client.settings()
	r.sum.ClientSettings["partitioner"] = r.parts.name()
	// The Go collector's settings shape the worker's CPU, and so its rates
	// (workers/run.GCPercent); the result says which ran.
	maps.Copy(r.sum.ClientSettings, gcSettings())
	if t.Settings.Mode != trial.ModeSingle {
		r.sum.LingerMicros = int64(t.Settings.LingerMs) * 1000
	}
	if cfg.WaitGroup != "" {
		if err := waitForGroup(ctx, cfg.Brokers, cfg.Security, cfg.WaitGroup, t.Consumer, int(t.Consumers), cfg.WaitTimeout); err != nil {
			return nil, err
		}
	}
	if cfg.StartAt != nil {
		at, err := cfg.StartAt(ctx)
		if err != nil {
			return nil, fmt.Errorf("wait for the trial's start: %w", err)
		}
		r.sum.StartAt = at
	}
	ackDone := make(chan struct{})
	go func() {
		defer close(ackDone)
		r.client.acks(r.stopAcks)
	}()

	sendErr := r.send(ctx)
	if r.txn != nil {
		// The last transaction commits before the end records go out.
		if _, _, err := r.endTxn(drain, false); err != nil {
			sendErr = errors.Join(sendErr, err)
		}
	}
	// Every record is acknowledged or failed before the end markers go out, so the
	// markers are the producer's last records on every partition.
	var markerErr error
	if r.waitIdle(drain) && ctx.Err() == nil {
		markerErr = r.sendMarkers(ctx)
	}
	r.client.close()
	select {
	case <-ackDone:
	case <-drain.Done():
		// The client is still retrying: stop reading its channels and report what
		// was acknowledged so far.
		close(r.stopAcks)
		<-ackDone
	}
	if cfg.Metrics != nil {
		cfg.Metrics.Done.Set(1)
	}
	r.sum.Client = r.client.stats()
	if r.sum.Registry != nil {
		n, d := r.reg.Requests()
		r.sum.Registry.Requests, r.sum.Registry.RequestNanos = n, d.Nanoseconds()
	}
	r.finishSummary()
	if ctx.Err() != nil {
		r.sum.Interrupted = true
	}
	return &r.sum, errors.Join(sendErr, markerErr)
}

// stepLatency records a search step's acknowledgement, and flags the step failed
// once more than 1% of its planned records took longer than the bound: its p99 is
// then over the bound whatever the rest do.
func (r *run) stepLatency(m *message, lat int64) {
	st := r.stepStats.At(m.step)
	st.Add(lat)
	if lat > int64(r.cfg.Trial.Search.MaxP99Millis)*1000 {
		r.slowAcks[m.step]++
		planned := m.stepTarget * int64(r.cfg.Trial.Search.StepSeconds)
		if r.slowAcks[m.step]*100 > planned {
			r.searchFailed.CompareAndSwap(0, int64(m.step)+1)
		}
	}
}

// finishSummary moves the sequence sets into the summary (after the acknowledgement
// goroutine has returned).
func (r *run) finishSummary() {
	if r.sched != nil && r.sched.search != nil {
		for k, plan := range r.sched.steps {
			st := r.stepStats.At(k)
			st.TargetPerSecond, st.Complete, st.CutShort = plan.target, plan.complete, plan.cut
		}
		r.sum.Steps = r.stepStats
		r.sum.SearchStop = r.searchStop
	}
	r.sum.Unacknowledged = r.pending.Load()
	acked := r.ackedSeqs
	if t := r.txn; t != nil {
		// A transactional producer's record is delivered once its transaction
		// committed, not when its send was acknowledged.
		acked = t.committed
		stats := t.stats
		r.sum.Transactions = &stats
		for p := range t.aborted {
			if s := &t.aborted[p]; s.Distinct() > 0 {
				r.sum.Aborted = append(r.sum.Aborted, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
			}
			if s := &t.doubtful[p]; s.Distinct() > 0 {
				r.sum.InDoubt = append(r.sum.InDoubt, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
			}
		}
	}
	for p := range acked {
		if s := &acked[p]; s.Distinct() > 0 {
			r.sum.Acked = append(r.sum.Acked, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
		}
		if s := &r.failedSeqs[p]; s.Distinct() > 0 {
			r.sum.Failed = append(r.sum.Failed, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
		}
	}
}

// waitIdle waits until nothing is in flight; false if ctx ended first.
func (r *run) waitIdle(ctx context.Context) bool {
	for r.pending.Load() != 0 {
		select {
		case <-r.idle:
		case <-ctx.Done():
			return r.pending.Load() == 0
		}
	}
	return true
}

// handOver gives a message to the client unless ctx ends first.
func (r *run) handOver(ctx context.Context, m *message) bool {
	r.pending.Add(1)
	if !r.client.send(ctx, m) {
		r.pending.Add(-1)
		return false
	}
	return true
}

// send runs the schedule: record i is due at start + i/rate (open loop) or as soon as
// the previous one is handed over (closed loop, rate 0).
func (r *run) send(ctx context.Context) error {
	t := r.cfg.Trial
	seqs := r.seqs
	rate := t.Settings.RecordsPerSecond
	single := t.Settings.Mode == trial.ModeSingle
	warmupDur := time.Duration(t.Warmup.DurationSeconds) * time.Second
	measureDur := time.Duration(t.DurationSeconds) * time.Second
	pace, err := newPacer()
	if err != nil {
		return err
	}
	defer pace.close()
	start := time.Now()
	if at := r.sum.StartAt; !at.IsZero() {
		// Begin at the coordinator's instant (a wall-clock time), carried onto the
		// monotonic clock the schedule runs on; one that has passed (a slow start
		// message) begins now, and the window's start shows how late.
		if d := time.Until(at); d > 0 {
			start = start.Add(d)
			if ok, err := pace.until(ctx, start); !ok {
				return err
			}
		}
	}
	measureStart := start.Add(warmupDur)
	measuredSent := int64(0)
	sched := newSchedule(rate, t.Search, start)
	r.sched = sched
	announced := false
	if rate > 0 {
		// An open loop's schedule fixes when its window begins: say so now, not with
		// its first measured send, which a stalled warmup (a transaction waiting on
		// its coordinator) can hold back past a fault timed from the window.
		measureStart, _ = sched.at(firstMeasured(sched, t.Warmup.Records, measureStart))
		r.announceWindow(measureStart)
		announced = true
	}
	for i := int64(0); ; i++ {
		if ctx.Err() != nil {
			return nil
		}
		m := r.get()
		intended := time.Now()
		if rate > 0 {
			var more bool
			if intended, more = sched.at(i); !more {
				r.put(m) // the search ran its last step
				return nil
			}
			if ok, err := pace.until(ctx, intended); !ok {
				r.put(m)
				return err
			}
			if sched.behind(intended, time.Now()) {
				r.put(m)
				r.searchStop = fmt.Sprintf("producer %d fell a whole step behind its schedule in step %d (%d records/s)",
					r.cfg.ID, sched.step, sched.steps[sched.step].target)
				return nil
			}
			if k := r.searchFailed.Load(); k > 0 {
				r.put(m)
				r.searchStop = fmt.Sprintf("producer %d saw step %d fail (a send failed, or more than 1%% of its acknowledgements "+
					"took longer than maxP99Millis)", r.cfg.ID, k-1)
				return nil
			}
		}
		warmup := i < t.Warmup.Records || intended.Before(measureStart)
		if !warmup && measuredSent == 0 {
			// A warmup that ended by the clock (the record before this one was warmup
			// only by time) ends at its instant in a closed loop: a send blocked across it
			// (on a full buffer; in mode single, the wait for a warmup record's
			// acknowledgement) is the window's time, as one blocked across the window's end
			// is, and producers started together begin their windows together.
			if rate > 0 || i <= t.Warmup.Records {
				measureStart = intended
			}
			if !announced {
				r.announceWindow(measureStart)
			}
			sched.begin(i, intended, measureDur)
		}
		if !warmup {
			if (t.Records > 0 && measuredSent >= t.Records) || (measureDur > 0 && intended.Sub(measureStart) >= measureDur) {
				r.put(m)
				return nil
			}
			measuredSent++
		}
		if r.txn != nil {
			// A transaction ends before the record it would outgrow; the commit's
			// time is then in this record's send delay and latency, as it is in
			// the sender's.
			if r.txn.due(intended) {
				if _, _, err := r.endTxn(ctx, false); err != nil {
					r.put(m)
					return err
				}
			}
			if err := r.beginTxn(intended); err != nil {
				r.put(m)
				return err
			}
		}
		// In a closed loop the record is due when the producer starts on it.
		actual := intended
		if rate > 0 {
			actual = time.Now()
		}
		idx := i % int64(len(r.natives))
		// The value's buffer: the message's own, which the client reads until the
		// acknowledgement, or, for a client that copies the value as it takes the
		// record, one buffer for every record (still in cache when the next is
		// written).
		out := &m.value.b
		if r.copied {
			out = &r.scratch
		}
		dst := *out
		if r.comp != nil {
			dst = r.encoded
		}
		b, lookup, err := r.marshal(dst, r.natives[idx])
		ser := time.Since(actual).Nanoseconds() - lookup
		if err != nil {
			return fmt.Errorf("serialize record %d: %w", i, err)
		}
		m.lookupNanos = lookup
		m.encodedBytes, m.compNanos = int64(len(b)), 0
		if r.comp != nil {
			r.encoded = b
			t0 := time.Now()
			b, err = r.comp.Compress(*out, b)
			m.compNanos = time.Since(t0).Nanoseconds()
			if err != nil {
				return fmt.Errorf("compress record %d: %w", i, err)
			}
		}
		// The sixth header, warmup mark or search step: key, value and their two
		// length bytes (a byte or two of the compact one's).
		step, sixth := -1, 0
		switch {
		case warmup:
			sixth = len(wire.Warmup) + 1 + 2
		case sched.step >= 0:
			step, sixth = sched.step, len(wire.Step)+4+2
			m.stepTarget = sched.steps[step].target
		}
		if r.compact {
			sixth = 0
		}
		p := r.parts.next(len(b) + sixth)
		*out, m.value.b = b, b
		m.intended, m.actual, m.serNanos, m.payload, m.measured, m.seq, m.err = intended, actual, ser, r.sizes[idx], !warmup, seqs[p], nil
		m.setData(p, uint32(r.cfg.ID), r.cfg.Run, seqs[p], intended, actual, warmup, step, r.compact)
		seqs[p]++
		// Read before the hand-over: the acknowledgement may reuse m at once.
		rec := txnRecord{m.partition, m.seq, m.measured}
		if !r.handOver(ctx, m) {
			return nil
		}
		if r.txn != nil {
			r.added(rec) // only a record the client took is in the transaction
		}
		if single {
			select {
			case <-r.acked:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// freeListSize bounds the reusable messages: enough for every record in flight
// (sarama's channel buffers plus open requests) at the sizes serdebench uses.
const freeListSize = 1 << 16

func (r *run) get() *message {
	select {
	case m := <-r.free:
		return m
	default:
		return new(message)
	}
}

func (r *run) put(m *message) {
	select {
	case r.free <- m:
	default:
	}
}

// announceWindow records the measured window's start and tells the log (the
// operator's source) and WindowStarted.
func (r *run) announceWindow(t time.Time) {
	// Written once by the sender before the first measured record is handed over, so
	// the acknowledgement goroutine reads it after the channel send (happens-before).
	r.winStart = t
	r.cfg.Log.Info(protocol.WindowStarted, "windowStart", t.UTC())
	if r.cfg.WindowStarted != nil {
		r.cfg.WindowStarted(t)
	}
}

// acknowledge records one outcome. Clients call it from one goroutine at a time
// (sarama: the acknowledgement loop; franz-go: its promise goroutine), which owns
// the summary's counters, histograms and sequence sets until the run ends.
func (r *run) acknowledge(m *message, err error, now time.Time) {
	mt := r.cfg.Metrics
	p := m.partition
	switch {
	case m.marker:
		m.err = err
		if err != nil {
			r.failures.Add(1)
		}
	case err != nil:
		r.failures.Add(1)
		r.failedSeqs[p].Add(int64(m.seq))
		if m.measured {
			r.sum.Series.Offered(m.intended)
			r.sum.Series.Seq(m.intended, int(p), int64(m.seq))
			r.sum.Series.Failure(now)
		}
		if m.step >= 0 {
			r.stepStats.At(m.step).Failed++
			r.searchFailed.CompareAndSwap(0, int64(m.step)+1)
		}
		r.sum.Errors++
		if r.sum.FirstError == "" {
			r.sum.FirstError = err.Error()
		}
		if mt != nil {
			mt.Errors.Inc()
		}
	case m.measured:
		r.ackedSeqs[p].Add(int64(m.seq))
		r.sum.Series.Done(now, true)
		r.sum.Records++
		r.sum.SerializedBytes += m.encodedBytes
		r.sum.HeaderBytes += int64(m.headerBytes())
		r.sum.PayloadBytes += m.payload
		r.sum.CodecNanos += m.serNanos
		if r.sum.Registry != nil {
			r.sum.Registry.LookupNanos += m.lookupNanos
		}
		r.serHist.Record(m.serNanos)
		if r.compHist != nil {
			r.sum.CompressedBytes += int64(len(m.value.b))
			r.sum.CompressNanos += m.compNanos
			r.compHist.Record(m.compNanos)
		}
		lat := now.Sub(m.intended).Microseconds()
		r.ack.Record(lat)
		r.sum.Series.Measured(m.intended, lat)
		r.sum.Series.Seq(m.intended, int(p), int64(m.seq))
		if m.step >= 0 {
			r.stepLatency(m, lat)
		}
		r.delay.Record(m.actual.Sub(m.intended).Microseconds())
		if r.sum.WindowStart.IsZero() {
			r.sum.WindowStart = r.winStart
		}
		if now.After(r.sum.WindowEnd) {
			r.sum.WindowEnd = now
		}
		if mt != nil {
			mt.Records.Inc()
			mt.SerializedBytes.Add(float64(m.encodedBytes))
			mt.CodecSeconds.Add(float64(m.serNanos) / 1e9)
			mt.Latency.Observe(float64(lat) / 1e6)
		}
		if r.cfg.Progress != nil {
			r.cfg.Progress.Add(1)
		}
	default:
		r.ackedSeqs[p].Add(int64(m.seq))
		r.sum.Series.Done(now, false)
		r.sum.WarmupRecords++
		if mt != nil {
			mt.WarmupRecords.Inc()
		}
	}
	// A failed message is never reused: sarama still reads it after returning it on
	// Errors (partitionProducer.updateLeaderIfBrokerProducerIsNil backs off on
	// msg.retries after returnError). Failures are rare; allocating anew is cheap.
	// (A marker is not pooled: sendMarkers reads its err.)
	if !m.marker && err == nil {
		r.put(m)
	}
	if r.cfg.Trial.Settings.Mode == trial.ModeSingle {
		select {
		case r.acked <- struct{}{}:
		default:
		}
	}
	if r.pending.Add(-1) == 0 {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
}

// markerPatience bounds how long end records are re-sent after errors: a broker
// that a fault killed is back only once it has restarted (tens of seconds on a
// busy machine), and Java's send waits as long, up to delivery.timeout.ms. The
// pauses between attempts double from markerPause up to markerPauseMax.
const (
	markerPatience = javaDeliveryTimeout
	markerPause    = 200 * time.Millisecond
	markerPauseMax = 2 * time.Second
)

// sendMarkers writes one end record per partition carrying the number of records
// this producer assigned to it, and waits for their acknowledgement, re-sending
// those that failed for up to markerPatience: without them the consumers would
// wait for the trial timeout.
func (r *run) sendMarkers(ctx context.Context) error {
	todo := make([]int, r.cfg.Trial.Partitions)
	for p := range todo {
		todo[p] = p
	}
	var lastErr error
	deadline, pause := time.Now().Add(markerPatience), markerPause
	for attempt := 1; len(todo) > 0; attempt++ {
		if attempt > 1 {
			if time.Now().After(deadline) {
				return fmt.Errorf("end records for partitions %v not delivered within %s (%d attempts): %w", todo, markerPatience, attempt-1, lastErr)
			}
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return nil // interrupted: the summary says so
			}
			pause = min(2*pause, markerPauseMax)
		}
		if r.txn != nil {
			if err := r.beginTxn(time.Now()); err != nil {
				return err
			}
		}
		sent := make([]*message, 0, len(todo))
		for _, p := range todo {
			m := &message{}
			m.setMarker(int32(p), uint32(r.cfg.ID), r.cfg.Run, r.seqs[p], r.compact)
			if !r.handOver(ctx, m) {
				return nil
			}
			sent = append(sent, m)
		}
		if !r.waitIdle(ctx) {
			return nil
		}
		if r.txn != nil {
			out, why, err := r.endTxn(ctx, true)
			if err != nil {
				return err
			}
			if out != committed {
				// Not known committed: sent again (a consumer counts an end
				// record once, however many copies it reads).
				lastErr = fmt.Errorf("their transaction did not commit: %s", why)
				for _, m := range sent {
					if m.err != nil {
						lastErr = fmt.Errorf("%w (partition %d: %w)", lastErr, m.partition, m.err)
						break
					}
				}
				continue
			}
		}
		// waitIdle returned after the acknowledgements were handled (happens-before
		// through pending and idle), so m.err is safe to read.
		todo = todo[:0]
		for _, m := range sent {
			if m.err != nil {
				todo, lastErr = append(todo, int(m.partition)), m.err
			}
		}
	}
	return nil
}
