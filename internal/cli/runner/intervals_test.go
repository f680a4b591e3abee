package runner_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestIntervals runs 2 producers at a fixed rate for 12 s in 2 s intervals, with
// each client, and checks the intervals against what must hold on any machine,
// however loaded: they add up to the trial's records and latency histograms; every
// whole interval offers exactly the target rate (the pacer's schedule, by intended
// time); and what was acknowledged, received and left in backlog in an interval
// differs from what was offered by no more than the records due within the
// slowest acknowledgement or delivery. Only a bucketing or accounting bug breaks
// these; a slow CI machine only widens the bounds, as it widens the latencies.
// How fast the path is belongs to the benchmarks, not here.
//
// The producers start apart (each waits for the group on its own), so what is due
// when follows each one's own window start.
func TestIntervals(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, client := range []trial.Client{trial.ClientSarama, trial.ClientFranz} {
		t.Run(string(client), func(t *testing.T) {
			const rate, producers, seconds, width = 1000, 2, 12, 2
			s := spec("protobuf")
			s.Client, s.Producers, s.IntervalSeconds = client, producers, width
			s.Rate.RecordsPerSecond = rate
			s.Records, s.DurationSeconds = nil, ptr(int32(seconds))
			s.Warmup = trial.Warmup{DurationSeconds: 2}
			trials, err := plan.Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-intervals", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			defer func() {
				if t.Failed() {
					t.Logf("window %.3f s, ack %+v, e2e %+v", r.WindowSeconds, r.Ack, r.EndToEnd)
					for i, iv := range r.Intervals {
						t.Logf("interval %d: %+v", i, iv)
					}
				}
			}()
			const total = producers * rate // records/s offered by all producers
			// Records due in any span of d seconds, all producers (one more each for
			// the span's edges).
			due := func(d float64) float64 { return total*d + producers }
			ackMax := float64(r.Ack.Max)*1.01/1e6 + 0.001
			e2eMax := float64(r.EndToEnd.Max)*1.01/1e6 + 0.001
			if r.Failed != 0 || r.Lost != 0 {
				t.Fatalf("%d sends failed, %d records lost: the bounds below assume every record acknowledged and delivered", r.Failed, r.Lost)
			}
			if want := int64(total * seconds); math.Abs(float64(r.Records-want)) > producers {
				t.Errorf("%d records measured, want %d (%d/s for %d s)", r.Records, want, total, seconds)
			}
			// The pacer's schedule: each producer's measured record k is due k/rate
			// after its own window start (the producers start apart).
			const perProducer = rate * seconds
			starts := producerStarts(res)
			offer := map[int64]int64{}
			for _, p := range starts {
				for k := range int64(perProducer) {
					offer[p.Add(time.Duration(k)*time.Second/rate).Unix()/width*width]++
				}
			}
			// dueBefore counts the measured records due before at, all producers.
			dueBefore := func(at time.Time) int64 {
				var n int64
				for _, p := range starts {
					if d := at.Sub(p); d > 0 {
						n += min(int64((d*rate+time.Second-1)/time.Second), perProducer)
					}
				}
				return n
			}
			// Warmup records are in the backlog but not in e2eMax: until a second
			// after the last producer's window started, any of them may still wait.
			warmupUntil := slices.MaxFunc(starts, time.Time.Compare).Add(time.Duration((e2eMax + 1) * float64(time.Second)))

			var records, offered, acks, e2es int64
			var covered float64
			for i, iv := range r.Intervals {
				records += iv.Records
				// Cumulatively, nothing is acknowledged before it is due, and
				// everything due a slowest ack before the interval's end is.
				end := iv.Start.Add(width * time.Second)
				if hi, lo := dueBefore(end), dueBefore(end.Add(-time.Duration(ackMax*float64(time.Second)))); records > hi+producers || records < lo-producers {
					t.Errorf("interval %d: %d acknowledged by its end; the schedule has %d due by then, %d a slowest ack before", i, records, hi, lo)
				}
				offered += iv.OfferedRecords
				acks += iv.Ack.Count
				e2es += iv.EndToEnd.Count
				covered += iv.Seconds
				if want := offer[iv.Start.Unix()]; math.Abs(float64(iv.OfferedRecords-want)) > producers {
					t.Errorf("interval %d: %d records offered, the schedule has %d due", i, iv.OfferedRecords, want)
				}
				// Acknowledged in the interval but due before it, or due in it and
				// acknowledged after it: either is within one slowest acknowledgement
				// of an edge.
				if d := math.Abs(float64(iv.Records - iv.OfferedRecords)); d > due(ackMax) {
					t.Errorf("interval %d: %d acknowledged, %d offered: more apart than the %.0f records due within the slowest ack (%.3f s)",
						i, iv.Records, iv.OfferedRecords, due(ackMax), ackMax)
				}
				// Acknowledged and not yet received at the interval's end: due within
				// one slowest delivery before it.
				bound := due(e2eMax)
				if end.Before(warmupUntil) {
					bound += float64(producers) * rate * float64(s.Warmup.DurationSeconds)
				}
				if float64(iv.BacklogRecords) > bound {
					t.Errorf("interval %d: backlog %d records, more than the %.0f due within the slowest delivery (%.3f s)",
						i, iv.BacklogRecords, bound, e2eMax)
				}
				if iv.OfferedRecords > 0 && (iv.Ack.P50 <= 0 || iv.EndToEnd.P50 <= 0 ||
					iv.Ack.Max > r.Ack.Max*101/100 || iv.EndToEnd.Max > r.EndToEnd.Max*101/100) {
					t.Errorf("interval %d: latencies inconsistent with the trial's: ack %+v, e2e %+v", i, iv.Ack, iv.EndToEnd)
				}
			}
			// Everything acknowledged was delivered: nothing is left at the end.
			if n := len(r.Intervals); n == 0 || r.Intervals[n-1].BacklogRecords != 0 {
				t.Errorf("backlog left at the end of the trial, with nothing lost")
			}
			if records != r.Records || offered != r.Records || acks != r.Ack.Count || e2es != r.EndToEnd.Count {
				t.Fatalf("intervals hold %d records acknowledged, %d offered, %d ack and %d e2e latencies; the trial %d, %d, %d",
					records, offered, acks, e2es, r.Records, r.Ack.Count, r.EndToEnd.Count)
			}
			// The producers' window, extended to the consumers' last receipt: at most
			// one slowest delivery after the last acknowledgement.
			if covered < r.WindowSeconds-1e-6 || covered > r.WindowSeconds+e2eMax {
				t.Fatalf("intervals cover %.3f s of a %.3f s window (slowest delivery %.3f s)", covered, r.WindowSeconds, e2eMax)
			}
			if skew := producerSkew(res); r.WindowSeconds < seconds-0.01 || r.WindowSeconds > seconds+skew+ackMax {
				t.Errorf("window %.3f s for %d s of records from producers %.3f s apart (slowest ack %.3f s)", r.WindowSeconds, seconds, skew, ackMax)
			}
			// Aligned buckets: a span of c seconds touches ⌈c/w⌉ or one more.
			if n, lo := len(r.Intervals), int(math.Ceil(covered/width-1e-9)); r.IntervalSeconds != width || n < lo || n > lo+1 {
				t.Errorf("%d intervals of %d s for %.3f s covered", n, r.IntervalSeconds, covered)
			}
		})
	}
}

// producerStarts are the producers' measured window starts.
func producerStarts(res *report.TrialResult) []time.Time {
	var out []time.Time
	for _, s := range res.Summaries {
		if s.Role == "producer" {
			out = append(out, s.WindowStart)
		}
	}
	return out
}

// producerSkew is how far apart the producers' measured windows start, in seconds:
// the combined window is that much longer than each one's.
func producerSkew(res *report.TrialResult) float64 {
	starts := producerStarts(res)
	if len(starts) == 0 {
		return 0
	}
	lo, hi := slices.MinFunc(starts, time.Time.Compare), slices.MaxFunc(starts, time.Time.Compare)
	return hi.Sub(lo).Seconds()
}
