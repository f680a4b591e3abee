package producer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/producer"
)

// TestValuesOnTheWire: with messages and their value buffers reused after each
// acknowledgement, and (librdkafka, which copies a value as it takes the record)
// one buffer for every value, each client puts on the wire the bytes serialized
// for each record: the topic holds every pool record's encoding exactly as often
// as the schedule sent it, and nothing else.
func TestValuesOnTheWire(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, client := range []trial.Client{trial.ClientSarama, trial.ClientFranz, trial.ClientRdkafka} {
		t.Run(string(client), func(t *testing.T) {
			records, batch, linger := int64(3000), int32(16384), int32(5)
			tr, err := plan.Expand(v1alpha1.ExperimentSpec{
				Codecs:  []trial.Codec{"raw"},
				Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}},
				// A prime pool: neighbouring records differ, and each repeats.
				PoolSize: 7,
				Producer: v1alpha1.ProducerSettings{BatchSizeBytes: &batch, LingerMs: &linger},
				Client:   client,
				Records:  &records,
				Warmup:   trial.Warmup{Records: 300},
			})
			if err != nil {
				t.Fatal(err)
			}
			tc := tr[0]
			topic := fmt.Sprintf("serdebench.values.%s.%d", client, time.Now().UnixNano())
			if err := runner.CreateTopic(brokers, topic, tc); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = runner.DeleteTopic(brokers, topic) })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sum, err := producer.Run(ctx, producer.Config{Brokers: brokers, Topic: topic, Experiment: "it-values", Trial: tc})
			if err != nil {
				t.Fatal(err)
			}
			sent := tc.Records + tc.Warmup.Records
			if sum.Records+sum.WarmupRecords != sent || sum.Errors != 0 {
				t.Fatalf("acknowledged %d measured + %d warmup with %d errors, want %d in all", sum.Records, sum.WarmupRecords, sum.Errors, sent)
			}
			want := expectedValues(t, tc, sent)
			got := map[string]int64{}
			var n int64
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			// Every data record, and one end record per partition (no value).
			for n < sent+int64(tc.Partitions) && ctx.Err() == nil {
				fs := cl.PollFetches(ctx)
				fs.EachRecord(func(r *kgo.Record) {
					n++
					if r.Value != nil {
						got[string(r.Value)]++
					}
				})
			}
			if n != sent+int64(tc.Partitions) {
				t.Fatalf("read %d records, want %d and %d end records (%v)", n, sent, tc.Partitions, ctx.Err())
			}
			for v, c := range got {
				if want[v] != c {
					t.Errorf("a value (%d B) is on the topic %d times, want %d", len(v), c, want[v])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d distinct values on the topic, want the pool's %d", len(got), len(want))
			}
		})
	}
}

// expectedValues is how often each pool record's encoding is sent in n records:
// record i is pool entry i mod the pool's size, as the producer cycles it.
func expectedValues(t *testing.T, tc trial.Trial, n int64) map[string]int64 {
	t.Helper()
	schema, err := payload.Open(tc.Schema, tc.Source)
	if err != nil {
		t.Fatal(err)
	}
	c, err := codec.NewWith(string(tc.Codec), schema.TypeFor(int(tc.SizeBytes)), codec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The producer's seed for producer 0 (producer.Run).
	pool, err := schema.Pool(uint64(tc.Seed), int(tc.SizeBytes), int(tc.PoolSize))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for i := range n {
		native, err := c.Native(pool[i%int64(len(pool))])
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Marshal(nil, native)
		if err != nil {
			t.Fatal(err)
		}
		want[string(b)]++
	}
	return want
}
