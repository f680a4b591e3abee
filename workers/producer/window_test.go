package producer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/producer"
)

// TestWindowAnnounced: an open loop announces its measured window (the log line
// the operator times faults from, and WindowStarted) when its schedule begins, at
// the first measured record's intended time, whether the warmup ends by time or
// by count; so a warmup send that stalls cannot make the announcement late. A
// closed loop cannot know its window's start before it reaches it, and announces
// it then. Each announcement is the window start the summary reports.
func TestWindowAnnounced(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, c := range []struct {
		name          string
		rate          int64
		warmupSeconds int32
		warmupRecords int64
		first         int64 // the first measured record (open loop)
	}{
		{"open-by-time", 2000, 1, 500, 2000},
		{"open-by-count", 2000, 1, 3001, 3001},
		{"open-slow", 7, 1, 0, 7},
		{"closed", 0, 0, 500, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			records, duration := int64(2000), int32(1)
			spec := v1alpha1.ExperimentSpec{
				Codecs:  []trial.Codec{"raw"},
				Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1024}},
				Rate:    v1alpha1.Rate{RecordsPerSecond: c.rate},
				Warmup:  trial.Warmup{DurationSeconds: c.warmupSeconds, Records: c.warmupRecords},
			}
			if c.rate > 0 {
				spec.DurationSeconds = &duration
			} else {
				spec.Records = &records
			}
			tr, err := plan.Expand(spec)
			if err != nil {
				t.Fatal(err)
			}
			tc := tr[0]
			topic := fmt.Sprintf("serdebench.window.%s.%d", c.name, time.Now().UnixNano())
			if err := runner.CreateTopic(brokers, topic, tc); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = runner.DeleteTopic(brokers, topic) })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var mu sync.Mutex
			var announced, heard []time.Time
			var start time.Time
			sum, err := producer.Run(ctx, producer.Config{Brokers: brokers, Topic: topic, Experiment: "it-window", Trial: tc,
				StartAt: func(context.Context) (time.Time, error) {
					start = time.Now().Add(100 * time.Millisecond)
					return start, nil
				},
				WindowStarted: func(at time.Time) {
					mu.Lock()
					defer mu.Unlock()
					announced, heard = append(announced, at), append(heard, time.Now())
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(announced) != 1 {
				t.Fatalf("window announced %d times, want once", len(announced))
			}
			at, when := announced[0], heard[0]
			if !sum.WindowStart.Equal(at) {
				t.Errorf("summary's window start %v, announced %v", sum.WindowStart, at)
			}
			if c.rate == 0 {
				if when.Before(at) {
					t.Errorf("closed loop announced its window %v before it began (%v)", at.Sub(when), at)
				}
				return
			}
			// The schedule's own arithmetic (record i due at start + i/rate). The
			// producer carries the start onto its monotonic clock from a reading of
			// its own, which differs by the instant between two clock reads: far less
			// than 100 µs, and far less than the 500 µs between two records here.
			want := start.Add(time.Duration(float64(c.first) * 1e9 / float64(c.rate)))
			if d := at.Sub(want); d < -100*time.Microsecond || d > 100*time.Microsecond {
				t.Errorf("window announced at %v, want record %d's intended time %v (%v after the start)", at, c.first, want, want.Sub(start))
			}
			if !when.Before(at) {
				t.Errorf("open loop announced its window %v after it began: it must when its schedule begins", when.Sub(at))
			}
		})
	}
}
