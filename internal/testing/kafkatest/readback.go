package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/wire"
)

// Stream is one producer's records on one partition.
type Stream struct {
	Producer  int
	Partition int32
}

// Log is what a read-back found of one stream: its distinct sequence numbers and
// how many copies of them were stored.
type Log struct {
	Set    summary.Intervals
	Copies int64
}

// ReadBack reads every partition of topic from its first offset to the end it has
// now with a plain franz-go consumer (no group) at the given isolation, keeping
// control records so it knows when it has reached the end, and returns what it found
// of each producer's data records (serdebench's full or compact headers; end
// records are not data), whatever run wrote them.
func ReadBack(t testing.TB, brokers []string, topic string, partitions int32, committed bool) map[Stream]Log {
	t.Helper()
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	parts := map[int32]kgo.Offset{}
	for p := range partitions {
		parts[p] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: parts}),
		kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends := EndOffsets(t, brokers, topic, partitions)
	sets := map[Stream]*summary.SeqSet{}
	next := map[int32]int64{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for done := false; !done; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read-back of %s stalled: at %v of %v", topic, next, ends)
		}
		for _, e := range fs.Errors() {
			t.Logf("read-back fetch error (retried): %v", e.Err)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			next[rec.Partition] = rec.Offset + 1
			if rec.Attrs.IsControl() {
				return
			}
			producer, seq, data := fields(rec)
			if data {
				s := Stream{Producer: producer, Partition: rec.Partition}
				if sets[s] == nil {
					sets[s] = new(summary.SeqSet)
				}
				sets[s].Add(int64(seq))
			}
		})
		done = true
		for p, end := range ends {
			if next[p] < end {
				done = false
			}
		}
	}
	out := map[Stream]Log{}
	for s, set := range sets {
		out[s] = Log{Set: set.Intervals(), Copies: set.Total()}
	}
	return out
}

// fields are a record's producer and sequence number, and whether it is data.
func fields(rec *kgo.Record) (producer int, seq uint64, data bool) {
	data = true
	for _, h := range rec.Headers {
		switch h.Key {
		case wire.Producer:
			if v, ok := wire.Uint32(h.Value); ok {
				producer = int(v)
			}
		case wire.Seq:
			seq, _ = wire.Uint64(h.Value)
		case wire.End:
			data = false
		case wire.Compact:
			f, ok := wire.ParseCompact(h.Value)
			if !ok {
				return 0, 0, false
			}
			return int(f.Producer), f.Seq, f.Flags&wire.FlagEnd == 0
		}
	}
	return producer, seq, data
}

// EndOffsets are the partitions' end offsets now.
func EndOffsets(t testing.TB, brokers []string, topic string, partitions int32) map[int32]int64 {
	t.Helper()
	c, err := sarama.NewClient(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	out := map[int32]int64{}
	for p := range partitions {
		if out[p], err = c.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
