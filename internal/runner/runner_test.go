package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/kafkatest"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/runner"
)

func spec(codecs ...v1alpha1.Codec) v1alpha1.ExperimentSpec {
	records := int64(3000)
	return v1alpha1.ExperimentSpec{
		Codecs:    codecs,
		Payload:   v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}},
		Records:   &records,
		Warmup:    v1alpha1.Warmup{Records: 200},
		Consumers: 2,
		Producer:  v1alpha1.ProducerSettings{Compression: v1alpha1.CompressionSnappy, Acks: v1alpha1.AcksLeader},
		PoolSize:  64,
	}
}

// TestEveryCodecEndToEnd sends through the real broker with every codec and checks
// complete delivery: nothing lost, nothing duplicated, every measured record counted.
func TestEveryCodecEndToEnd(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	trials, err := plan.Expand(spec("json", "avro", "protobuf", "msgpack", "raw"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		t.Run(string(tr.Codec), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-codecs", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 {
				t.Fatalf("lost %d, duplicated %d, errors %d; warnings %v", r.Lost, r.Duplicated, r.Errors, r.Warnings)
			}
			if want := tr.Records + tr.Warmup.Records; r.Sent != want || r.Delivered != want {
				t.Fatalf("sent %d, delivered %d, want %d", r.Sent, r.Delivered, want)
			}
			if r.Records != tr.Records || r.EndToEnd.Count != tr.Records || r.Deserialize.Count != tr.Records {
				t.Fatalf("measured %d acked, %d e2e, %d decoded; want %d each (warmup excluded)", r.Records, r.EndToEnd.Count, r.Deserialize.Count, tr.Records)
			}
			if r.EndToEnd.P50 <= 0 || r.EndToEnd.Max < r.EndToEnd.P99 || r.RecordsPerSecond <= 0 || r.SerializeMicrosPerRecord <= 0 {
				t.Fatalf("implausible result %+v", r)
			}
		})
	}
}
