package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestRateSearch runs rate searches through the real broker with each client. With
// a loose bound every step up to the cap is sustained, and each step holds exactly
// its rate × its length of records, acknowledged and received. With a bound below
// what linger alone costs, not even the first step is.
func TestRateSearch(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, client := range []trial.Client{trial.ClientSarama, trial.ClientFranz} {
		run := func(t *testing.T, maxP99Millis, lingerMs int32) *report.TrialResult {
			s := spec("raw")
			s.Client, s.Producers, s.Consumers = client, 2, 1
			s.Producer.LingerMs = ptr(lingerMs)
			s.Rate = v1alpha1.Rate{RecordsPerSecond: 400, Search: &trial.RateSearch{StepPercent: 50, StepSeconds: 1,
				MaxRecordsPerSecond: 1000, MaxP99Millis: maxP99Millis}}
			s.Records, s.DurationSeconds = nil, ptr(int32(30))
			s.Warmup = trial.Warmup{DurationSeconds: 1}
			trials, err := plan.Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-search", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.Result.Search == nil {
				t.Fatal("no search in the result")
			}
			return res
		}
		t.Run(string(client)+"/sustained", func(t *testing.T) {
			res := run(t, 5000, 5)
			s := res.Result.Search
			// 400, 600, 900, then the cap 1000 per producer: 4 steps of 1 s, then the
			// search ends (long before its 30 s).
			want := []int64{800, 1200, 1800, 2000}
			if len(s.Steps) != len(want) || s.MaxSustainedRecordsPerSecond != 2000 || s.Stopped != "" {
				t.Fatalf("search %+v; want steps at %v, all sustained", s, want)
			}
			var total int64
			for k, st := range s.Steps {
				if st.TargetRecordsPerSecond != want[k] || !st.Sustained || st.Records != want[k] || st.Received != want[k] || st.Ack.Count != want[k] || st.EndToEnd.Count != want[k] {
					t.Errorf("step %d: %+v; want %d records/s, sustained, %d records acknowledged and received", k, st, want[k], want[k])
				}
				total += st.Records
			}
			// 4 s of steps from producers that started apart, and the slowest
			// acknowledgement.
			r, skew := res.Result, producerSkew(res)
			if total != r.Records || r.Lost != 0 || r.WindowSeconds > 4+skew+float64(r.Ack.Max)*1.001/1e6+0.001 {
				t.Errorf("steps hold %d of %d measured records; lost %d; window %.3f s (producers %.3f s apart, slowest ack %d µs)",
					total, r.Records, r.Lost, r.WindowSeconds, skew, r.Ack.Max)
			}
		})
		t.Run(string(client)+"/unsustained", func(t *testing.T) {
			// Round-robin over 3 partitions at 400/s fills no 16 KiB batch: records
			// wait out the 20 ms linger.
			// The producers see it in their acknowledgements and stop the search
			// in step 0.
			s := run(t, 1, 20).Result.Search
			if s.MaxSustainedRecordsPerSecond != 0 || s.Steps[0].Sustained || !strings.Contains(s.Steps[0].Reason, "p99") {
				t.Fatalf("search %+v; want the first step not sustained for its p99", s)
			}
			if len(s.Steps) != 1 || !strings.Contains(s.Stopped, "saw step 0 fail") {
				t.Fatalf("search went on to %d steps, stopped %q; want it stopped in step 0", len(s.Steps), s.Stopped)
			}
		})
	}
}
