package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/wire"
)

// TestPartitioners runs both partitioners with both clients at a fixed rate and
// reads partition 0 back from the broker: round-robin puts every third scheduled
// record there (intended times 3/rate apart); sticky puts runs of consecutive
// records there (1/rate apart), as the Java client's default partitioner does.
func TestPartitioners(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	const rate = 4000
	step := int64(time.Second / rate)
	for _, client := range []trial.Client{trial.ClientSarama, trial.ClientFranz} {
		for _, part := range []trial.Partitioner{trial.PartitionerRoundRobin, trial.PartitionerSticky} {
			t.Run(fmt.Sprintf("%s/%s", client, part), func(t *testing.T) {
				s := spec("raw")
				s.Client, s.Producer.Partitioner, s.Consumers = client, part, 1
				s.Rate.RecordsPerSecond = rate
				records := int64(2000)
				s.Records = &records
				trials, err := plan.Expand(s)
				if err != nil {
					t.Fatal(err)
				}
				res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers,
					Experiment: "it-partitioner", TrialTimeout: 2 * time.Minute, KeepTopics: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := runner.DeleteTopic(brokers, res.Topic); err != nil {
						t.Errorf("delete topic %s: %v", res.Topic, err)
					}
				})
				if r := res.Result; r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 {
					t.Fatalf("lost %d, duplicated %d, errors %d", r.Lost, r.Duplicated, r.Errors)
				}
				gaps := intendedGaps(t, brokers, res.Topic)
				// Runs of consecutive schedule slots on partition 0.
				var runs []int
				run := 1
				threes := 0
				for _, g := range gaps {
					if g == 3*step {
						threes++
					}
					if g == step {
						run++
						continue
					}
					runs = append(runs, run)
					run = 1
				}
				runs = append(runs, run)
				t.Logf("partition 0: %d records in %d runs; partitioner %q", len(gaps)+1, len(runs), res.Result.ClientSettings["partitioner"])
				if part == trial.PartitionerRoundRobin && threes != len(gaps) {
					t.Errorf("round-robin: %d of %d gaps are 3/rate", threes, len(gaps))
				}
				if part == trial.PartitionerSticky {
					// Java's rule keeps about 2 × batch.size on a partition: 27 records of
					// 1,176 B plus headers at 16 KiB (26 with the warmup mark); a draw may
					// pick the same partition again, so a run is k such stays. The first
					// and last runs may be cut by the trial's start and end.
					if len(runs) < 3 {
						t.Fatalf("sticky: %d runs on partition 0 (%v), want many", len(runs), runs)
					}
					for _, n := range runs[1 : len(runs)-1] {
						if k := (n + 14) / 27; k < 1 || n < 25*k || n > 28*k {
							t.Errorf("sticky: a run of %d records on partition 0, want whole stays of 25-28", n)
						}
					}
				}
			})
		}
	}
}

// intendedGaps reads partition 0 of topic and returns the differences between
// successive data records' intended send times, in nanoseconds.
func intendedGaps(t *testing.T, brokers []string, topic string) []int64 {
	t.Helper()
	var gaps []int64
	var prev int64
	eachRecord(t, brokers, topic, 0, func(m *sarama.ConsumerMessage) {
		for _, h := range m.Headers {
			if string(h.Key) == wire.Intended { // end records carry none
				v, _ := wire.Uint64(h.Value)
				if prev != 0 {
					gaps = append(gaps, int64(v)-prev)
				}
				prev = int64(v)
			}
		}
	})
	return gaps
}
