package producer

import (
	"context"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/workers/wire"
)

// message is a pooled record: its header values, its value buffer and the chosen
// client's record form, reused after acknowledgement so sending allocates nothing of
// its own.
type message struct {
	// vals holds the header values; nh of them are set (see setData). In the
	// compact set the one value is packed into packed instead.
	vals      [6][8]byte
	packed    []byte
	nh        int
	keys      *[6]string
	value     valueBytes
	partition int32
	intended  time.Time
	actual    time.Time
	seq       uint64
	err       error
	serNanos  int64
	// lookupNanos is the registry header's time (registry codecs), outside serNanos.
	lookupNanos int64
	// encodedBytes is the codec's output size, before payload compression, which
	// took compNanos.
	encodedBytes int64
	compNanos    int64
	payload      int64
	measured     bool
	marker       bool
	// step is the rate-search step of a measured record (-1: none) and stepTarget
	// the producer's rate in it.
	step       int
	stepTarget int64

	// sarama's form
	pm   sarama.ProducerMessage
	hdrs [6]sarama.RecordHeader
	// franz-go's form; rctx carries the message to the promise.
	rec   kgo.Record
	khdrs [6]kgo.RecordHeader
	rctx  recordContext
	// librdkafka's form (*rdkafkaForm), in a cgo build.
	rdk any
}

// recordContext is a franz-go record's context: the client's context (which bounds
// a buffered record's life) plus the message, so the promise finds it without a
// lookup or an allocation.
type recordContext struct {
	context.Context
	m *message
}

// valueBytes implements sarama.Encoder on a pointer, so setting pm.Value allocates
// nothing.
type valueBytes struct{ b []byte }

func (v *valueBytes) Encode() ([]byte, error) { return v.b, nil }
func (v *valueBytes) Length() int             { return len(v.b) }

var (
	// dataKeys are the header keys of a data record, in vals order: the sixth is
	// the warmup mark, or for a measured record of a rate search its step.
	dataKeys = [6]string{wire.Producer, wire.Seq, wire.Intended, wire.Actual, wire.Run, wire.Warmup}
	stepKeys = [6]string{wire.Producer, wire.Seq, wire.Intended, wire.Actual, wire.Run, wire.Step}
	// markerKeys are those of an end record: producer, records sent, run.
	markerKeys = [6]string{wire.Producer, wire.End, wire.Run}
	// compactKeys are a record's keys in the compact set: one.
	compactKeys = [6]string{wire.Compact}
	// byteKeys are the keys as sarama wants them, converted once.
	byteKeys = map[string][]byte{}
)

func init() {
	for _, k := range append(dataKeys[:], wire.End, wire.Step, wire.Compact) {
		byteKeys[k] = []byte(k)
	}
}

// setData sets a data record's header values; step is the rate-search step of a
// measured record (-1: none); compact packs them into one header.
func (m *message) setData(partition int32, producer uint32, run, seq uint64, intended, actual time.Time, warmup bool, step int, compact bool) {
	m.partition, m.keys, m.marker, m.step = partition, &dataKeys, false, step
	if compact {
		f := wire.Fields{Run: uint32(run), Intended: intended.UnixNano(), Seq: seq, Producer: producer}
		switch {
		case warmup:
			f.Flags = wire.FlagWarmup
		case step >= 0:
			f.Flags, f.Step = wire.FlagStep, uint32(step)
		}
		m.setCompact(f)
		return
	}
	wire.PutUint32(m.vals[0][:], producer)
	wire.PutUint64(m.vals[1][:], seq)
	wire.PutUint64(m.vals[2][:], uint64(intended.UnixNano()))
	wire.PutUint64(m.vals[3][:], uint64(actual.UnixNano()))
	wire.PutUint64(m.vals[4][:], run)
	m.nh = 5
	switch {
	case warmup:
		m.vals[5][0] = 1
		m.nh = 6
	case step >= 0:
		m.keys = &stepKeys
		wire.PutUint32(m.vals[5][:], uint32(step))
		m.nh = 6
	}
}

// setMarker sets an end record's header values: the producer and how many records
// it sent to the partition.
func (m *message) setMarker(partition int32, producer uint32, run, sent uint64, compact bool) {
	m.partition, m.keys, m.marker, m.step = partition, &markerKeys, true, -1
	m.value.b = nil
	if compact {
		m.setCompact(wire.Fields{Flags: wire.FlagEnd, Run: uint32(run), Seq: sent, Producer: producer})
		return
	}
	wire.PutUint32(m.vals[0][:], producer)
	wire.PutUint64(m.vals[1][:], sent)
	wire.PutUint64(m.vals[2][:], run)
	m.nh = 3
}

// setCompact makes f the record's one header.
func (m *message) setCompact(f wire.Fields) {
	if m.packed == nil {
		m.packed = make([]byte, 0, wire.CompactMaxBytes)
	}
	m.keys, m.nh = &compactKeys, 1
	m.packed = wire.AppendCompact(m.packed[:0], f)
}

// headerBytes is what the record's headers take: keys and values.
func (m *message) headerBytes() int {
	n := 0
	for i := range m.nh {
		n += len(m.keys[i]) + len(m.val(i))
	}
	return n
}

// val is header i's value.
func (m *message) val(i int) []byte {
	if m.keys == &compactKeys {
		return m.packed
	}
	if m.keys[i] == wire.Producer || m.keys[i] == wire.Step {
		return m.vals[i][:4]
	}
	if m.keys[i] == wire.Warmup {
		return m.vals[i][:1]
	}
	return m.vals[i][:8]
}

// saramaForm sets the sarama message. Assigning pm as a whole also resets sarama's
// internal per-send state from the previous use.
func (m *message) saramaForm(topic string) *sarama.ProducerMessage {
	for i := range m.nh {
		m.hdrs[i] = sarama.RecordHeader{Key: byteKeys[m.keys[i]], Value: m.val(i)}
	}
	m.pm = sarama.ProducerMessage{Topic: topic, Partition: m.partition, Headers: m.hdrs[:m.nh], Metadata: m}
	if !m.marker {
		m.pm.Value = &m.value
	}
	return &m.pm
}

// franzForm sets the franz-go record; ctx bounds its life once buffered.
func (m *message) franzForm(ctx context.Context, topic string) *kgo.Record {
	for i := range m.nh {
		m.khdrs[i] = kgo.RecordHeader{Key: m.keys[i], Value: m.val(i)}
	}
	// Set once per message and run: franz-go may still read a record's context
	// after its promise (the goroutine waiting for an unknown topic's metadata
	// selects on the first record's Done), so it is never written again.
	if m.rctx.m != m || m.rctx.Context != ctx {
		m.rctx = recordContext{Context: ctx, m: m}
	}
	m.rec = kgo.Record{Topic: topic, Partition: m.partition, Value: m.value.b, Headers: m.khdrs[:m.nh], Context: &m.rctx}
	return &m.rec
}
