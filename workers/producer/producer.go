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
	"strconv"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/trial"
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
	// Metrics, if set, receives live series.
	Metrics *metrics.Worker
	// Progress, if set, is incremented per acknowledged record.
	Progress *atomic.Int64
	// DrainTimeout bounds how long the producer still waits for acknowledgements
	// once ctx has ended (default DefaultDrainTimeout).
	DrainTimeout time.Duration
	Log          *slog.Logger
}

// DefaultDrainTimeout is how long a stopped worker waits for what is in flight.
const DefaultDrainTimeout = 5 * time.Second

// message is a pooled record: the sarama message, its header storage and its value
// buffer, reused after acknowledgement so sending allocates nothing of its own.
type message struct {
	pm       sarama.ProducerMessage
	hdrs     [6]sarama.RecordHeader
	vals     [6][8]byte
	value    valueBytes
	intended time.Time
	seq      uint64
	err      error
	serNanos int64
	payload  int64
	measured bool
	marker   bool
}

// valueBytes implements sarama.Encoder on a pointer, so setting pm.Value allocates
// nothing.
type valueBytes struct{ b []byte }

func (v *valueBytes) Encode() ([]byte, error) { return v.b, nil }
func (v *valueBytes) Length() int             { return len(v.b) }

var keys = [6][]byte{[]byte(wire.Producer), []byte(wire.Seq), []byte(wire.Intended), []byte(wire.Actual), []byte(wire.Run), []byte(wire.Warmup)}

// run holds one producer run's state. Fields after the comment are owned by the
// acknowledgement goroutine until it exits.
type run struct {
	cfg      Config
	codec    codec.Codec
	natives  []any
	sizes    []int64
	producer sarama.AsyncProducer
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

	// owned by the acknowledgement goroutine
	sum        summary.Summary
	ack        *summary.Histogram
	serHist    *summary.Histogram
	delay      *summary.Histogram
	ackedSeqs  []summary.SeqSet
	failedSeqs []summary.SeqSet
	winStart   time.Time
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
	schema, err := payload.Lookup(t.Schema)
	if err != nil {
		return nil, err
	}
	typ := schema.TypeFor(int(t.SizeBytes))
	c, err := codec.New(string(t.Codec), typ)
	if err != nil {
		return nil, err
	}
	// Build the pool before anything is timed: records, then the codec's native form.
	pool, err := schema.Pool(uint64(t.Seed)+uint64(cfg.ID)<<32, int(t.SizeBytes), int(t.PoolSize))
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, codec: c, natives: make([]any, len(pool)), sizes: make([]int64, len(pool)),
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
	}
	r.free = make(chan *message, freeListSize)
	r.sum = summary.Summary{Role: summary.RoleProducer, Worker: strconv.Itoa(cfg.ID), Experiment: cfg.Experiment,
		Trial: t.Name, Codec: string(t.Codec), Schema: t.Schema, SizeBytes: int(t.SizeBytes)}
	r.ack = r.sum.Histogram(summary.AckLatencyMicros, summary.NewLatency)
	r.serHist = r.sum.Histogram(summary.SerializeNanos, summary.NewDuration)
	r.delay = r.sum.Histogram(summary.SendDelayMicros, summary.NewLatency)

	topicMax, _ := strconv.Atoi(t.TopicConfig["max.message.bytes"])
	if t.ExistingTopic != "" {
		// Someone else's topic: its own limit decides how large a batch may be.
		if topicMax, err = topicMaxMessageBytes(ctx, cfg.Brokers, cfg.Security, cfg.Topic); err != nil {
			return nil, err
		}
	}
	scfg, err := SaramaConfig(t.Settings, fmt.Sprintf("serdebench-%s-p%d", t.Name, cfg.ID), maxValue, topicMax)
	if err != nil {
		return nil, err
	}
	if err := cfg.Security.Apply(scfg); err != nil {
		return nil, err
	}
	client, err := kafkaconn.NewClient(ctx, cfg.Brokers, scfg)
	if err != nil {
		return nil, err
	}
	defer func() { _ = client.Close() }()
	if cfg.WaitGroup != "" {
		if err := waitForGroup(ctx, client, cfg.WaitGroup, int(t.Consumers), cfg.WaitTimeout); err != nil {
			return nil, err
		}
	}
	r.producer, err = sarama.NewAsyncProducerFromClient(client)
	if err != nil {
		return nil, fmt.Errorf("create producer: %w", err)
	}
	ackDone := make(chan struct{})
	go r.handleAcks(ackDone)

	// drain ends DrainTimeout after ctx does: a stopped producer still collects what
	// is in flight, but not for long.
	drain, stopDrain := kafkaconn.AfterDone(ctx, cfg.DrainTimeout)
	defer stopDrain()
	sendErr := r.send(ctx)
	// Every record is acknowledged or failed before the end markers go out, so the
	// markers are the producer's last records on every partition.
	var markerErr error
	if r.waitIdle(drain) && ctx.Err() == nil {
		markerErr = r.sendMarkers(ctx)
	}
	r.producer.AsyncClose()
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
	r.finishSummary()
	if ctx.Err() != nil {
		r.sum.Interrupted = true
	}
	return &r.sum, errors.Join(sendErr, markerErr)
}

// finishSummary moves the sequence sets into the summary (after the acknowledgement
// goroutine has returned).
func (r *run) finishSummary() {
	r.sum.Unacknowledged = r.pending.Load()
	for p := range r.ackedSeqs {
		if s := &r.ackedSeqs[p]; s.Distinct() > 0 {
			r.sum.Acked = append(r.sum.Acked, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
		}
		if s := &r.failedSeqs[p]; s.Distinct() > 0 {
			r.sum.Failed = append(r.sum.Failed, summary.Delivery{Producer: r.cfg.ID, Partition: p, Total: s.Total(), Intervals: s.Intervals()})
		}
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
	select {
	case r.producer.Input() <- &m.pm:
		return true
	case <-ctx.Done():
		r.pending.Add(-1)
		return false
	}
}

// send runs the schedule: record i is due at start + i/rate (open loop) or as soon as
// the previous one is handed over (closed loop, rate 0).
func (r *run) send(ctx context.Context) error {
	t := r.cfg.Trial
	parts := int64(t.Partitions)
	seqs := r.seqs
	rate := t.Settings.RecordsPerSecond
	single := t.Settings.Mode == v1alpha1.ModeSingle
	warmupDur := time.Duration(t.Warmup.DurationSeconds) * time.Second
	measureDur := time.Duration(t.DurationSeconds) * time.Second
	start := time.Now()
	measureStart := start.Add(warmupDur)
	measuredSent := int64(0)
	// One reusable timer: time.After would allocate per record.
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for i := int64(0); ; i++ {
		if ctx.Err() != nil {
			return nil
		}
		m := r.get()
		intended := time.Now()
		if rate > 0 {
			intended = start.Add(time.Duration(float64(i) * 1e9 / float64(rate)))
			if d := time.Until(intended); d > 0 {
				timer.Reset(d)
				select {
				case <-timer.C:
				case <-ctx.Done():
					r.put(m)
					return nil
				}
			}
		}
		warmup := i < t.Warmup.Records || intended.Before(measureStart)
		if !warmup && measuredSent == 0 {
			measureStart = intended
			r.setWindowStart(intended)
		}
		if !warmup {
			if (t.Records > 0 && measuredSent >= t.Records) || (measureDur > 0 && intended.Sub(measureStart) >= measureDur) {
				r.put(m)
				return nil
			}
			measuredSent++
		}
		// In a closed loop the record is due when the producer starts on it.
		actual := intended
		if rate > 0 {
			actual = time.Now()
		}
		idx := i % int64(len(r.natives))
		b, err := r.codec.Marshal(m.value.b, r.natives[idx])
		ser := time.Since(actual).Nanoseconds()
		if err != nil {
			return fmt.Errorf("serialize record %d: %w", i, err)
		}
		p := i % parts
		m.value.b = b
		m.intended, m.serNanos, m.payload, m.measured, m.marker, m.seq, m.err = intended, ser, r.sizes[idx], !warmup, false, seqs[p], nil
		m.fill(r.cfg.Topic, int32(p), uint32(r.cfg.ID), r.cfg.Run, seqs[p], intended, actual, warmup)
		seqs[p]++
		if !r.handOver(ctx, m) {
			return nil
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

// fill sets the sarama message and its headers. Assigning pm as a whole also resets
// sarama's internal per-send state from the previous use.
func (m *message) fill(topic string, partition int32, producer uint32, run, seq uint64, intended, actual time.Time, warmup bool) {
	m.hdrs[0] = sarama.RecordHeader{Key: keys[0], Value: wire.PutUint32(m.vals[0][:], producer)}
	m.hdrs[1] = sarama.RecordHeader{Key: keys[1], Value: wire.PutUint64(m.vals[1][:], seq)}
	m.hdrs[2] = sarama.RecordHeader{Key: keys[2], Value: wire.PutUint64(m.vals[2][:], uint64(intended.UnixNano()))}
	m.hdrs[3] = sarama.RecordHeader{Key: keys[3], Value: wire.PutUint64(m.vals[3][:], uint64(actual.UnixNano()))}
	m.hdrs[4] = sarama.RecordHeader{Key: keys[4], Value: wire.PutUint64(m.vals[4][:], run)}
	n := 5
	if warmup {
		m.vals[5][0] = 1
		m.hdrs[5] = sarama.RecordHeader{Key: keys[5], Value: m.vals[5][:1]}
		n = 6
	}
	m.pm = sarama.ProducerMessage{Topic: topic, Partition: partition, Value: &m.value, Headers: m.hdrs[:n], Metadata: m}
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

func (r *run) setWindowStart(t time.Time) {
	// Written once by the sender before the first measured record is handed over, so
	// the acknowledgement goroutine reads it after the channel send (happens-before).
	r.winStart = t
}

// handleAcks owns the summary's counters, histograms and sequence sets.
func (r *run) handleAcks(done chan struct{}) {
	defer close(done)
	succ, errs := r.producer.Successes(), r.producer.Errors()
	for succ != nil || errs != nil {
		select {
		case pm, ok := <-succ:
			if !ok {
				succ = nil
				continue
			}
			r.acknowledge(pm.Metadata.(*message), nil, time.Now())
		case pe, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			r.acknowledge(pe.Msg.Metadata.(*message), pe.Err, time.Now())
		case <-r.stopAcks:
			return
		}
	}
}

func (r *run) acknowledge(m *message, err error, now time.Time) {
	mt := r.cfg.Metrics
	p := m.pm.Partition
	switch {
	case m.marker:
		m.err = err
	case err != nil:
		r.failedSeqs[p].Add(int64(m.seq))
		r.sum.Errors++
		if r.sum.FirstError == "" {
			r.sum.FirstError = err.Error()
		}
		if mt != nil {
			mt.Errors.Inc()
		}
	case m.measured:
		r.ackedSeqs[p].Add(int64(m.seq))
		r.sum.Records++
		r.sum.SerializedBytes += int64(len(m.value.b))
		r.sum.PayloadBytes += m.payload
		r.sum.CodecNanos += m.serNanos
		r.serHist.Record(m.serNanos)
		lat := now.Sub(m.intended).Microseconds()
		r.ack.Record(lat)
		actual, _ := wire.Uint64(m.hdrs[3].Value)
		r.delay.Record((int64(actual) - m.intended.UnixNano()) / 1e3)
		if r.sum.WindowStart.IsZero() {
			r.sum.WindowStart = r.winStart
		}
		if now.After(r.sum.WindowEnd) {
			r.sum.WindowEnd = now
		}
		if mt != nil {
			mt.Records.Inc()
			mt.SerializedBytes.Add(float64(len(m.value.b)))
			mt.CodecSeconds.Add(float64(m.serNanos) / 1e9)
			mt.Latency.Observe(float64(lat) / 1e6)
		}
		if r.cfg.Progress != nil {
			r.cfg.Progress.Add(1)
		}
	default:
		r.ackedSeqs[p].Add(int64(m.seq))
		r.sum.WarmupRecords++
		if mt != nil {
			mt.WarmupRecords.Inc()
		}
	}
	// A failed message is never reused: sarama still reads it after returning it on
	// Errors (partitionProducer.updateLeaderIfBrokerProducerIsNil backs off on
	// msg.retries after returnError). Failures are rare; allocating anew is cheap.
	if !m.marker && err == nil {
		r.put(m)
	}
	if r.cfg.Trial.Settings.Mode == v1alpha1.ModeSingle {
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

// markerAttempts bounds how often an end record is re-sent after an error.
const markerAttempts = 10

// sendMarkers writes one end record per partition carrying the number of records
// this producer assigned to it, and waits for their acknowledgement, re-sending
// those that failed: without them the consumers would wait for the trial timeout.
func (r *run) sendMarkers(ctx context.Context) error {
	todo := make([]int, r.cfg.Trial.Partitions)
	for p := range todo {
		todo[p] = p
	}
	var lastErr error
	for attempt := 1; len(todo) > 0; attempt++ {
		if attempt > markerAttempts {
			return fmt.Errorf("end records for partitions %v failed %d times: %w", todo, markerAttempts, lastErr)
		}
		if attempt > 1 {
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
				return nil // interrupted: the summary says so
			}
		}
		sent := make([]*message, 0, len(todo))
		for _, p := range todo {
			m := &message{marker: true}
			m.hdrs[0] = sarama.RecordHeader{Key: keys[0], Value: wire.PutUint32(m.vals[0][:], uint32(r.cfg.ID))}
			m.hdrs[1] = sarama.RecordHeader{Key: []byte(wire.End), Value: wire.PutUint64(m.vals[1][:], r.seqs[p])}
			m.hdrs[2] = sarama.RecordHeader{Key: keys[4], Value: wire.PutUint64(m.vals[2][:], r.cfg.Run)}
			m.pm = sarama.ProducerMessage{Topic: r.cfg.Topic, Partition: int32(p), Headers: m.hdrs[:3], Metadata: m}
			if !r.handOver(ctx, m) {
				return nil
			}
			sent = append(sent, m)
		}
		if !r.waitIdle(ctx) {
			return nil
		}
		// waitIdle returned after the acknowledgements were handled (happens-before
		// through pending and idle), so m.err is safe to read.
		todo = todo[:0]
		for _, m := range sent {
			if m.err != nil {
				todo, lastErr = append(todo, int(m.pm.Partition)), m.err
			}
		}
	}
	return nil
}

// waitForGroup polls until the consumer group is Stable with the expected members.
func waitForGroup(ctx context.Context, client sarama.Client, group string, members int, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.Now().Add(timeout)
	last := "unknown"
	for {
		// sarama's calls take no context; each poll is bounded by ctx all the same.
		g, err := kafkaconn.Bounded(ctx, func() (*sarama.GroupDescription, error) {
			b, err := client.Coordinator(group)
			if err != nil {
				_ = client.RefreshCoordinator(group)
				return nil, err
			}
			resp, err := b.DescribeGroups(&sarama.DescribeGroupsRequest{Groups: []string{group}})
			if err != nil || len(resp.Groups) != 1 {
				return nil, fmt.Errorf("describe group %s: %w", group, err)
			}
			return resp.Groups[0], nil
		})
		if err == nil {
			last = fmt.Sprintf("state %s with %d of %d members", g.State, len(g.Members), members)
			if g.State == "Stable" && len(g.Members) == members {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("consumer group %s not ready after %s: %s", group, timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for consumer group %s: %w", group, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
