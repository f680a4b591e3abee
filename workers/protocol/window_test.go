package protocol

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

func TestWindowTooShort(t *testing.T) {
	batch := func(linger int32, records int64) trial.Trial {
		return trial.Trial{Records: records, Settings: trial.Settings{Mode: trial.ModeBatch, LingerMs: linger}}
	}
	for _, c := range []struct {
		name string
		t    trial.Trial
		r    summary.Result
		want []string // "" for no warning
	}{
		{"long enough", batch(5, 100000), summary.Result{WindowSeconds: 10}, nil},
		{"under 5 s", batch(5, 4000), summary.Result{WindowSeconds: 0.5},
			[]string{"WindowTooShort", "0.50 s", "under 5 s", "records to at least 40000 per producer", "durationSeconds to at least 5"}},
		{"linger 1 s needs 20 s", batch(1000, 0), summary.Result{WindowSeconds: 10},
			[]string{"under 20 linger.ms periods of 1000 ms", "set durationSeconds to at least 20"}},
		{"linger in single mode does not count", trial.Trial{Settings: trial.Settings{Mode: trial.ModeSingle, LingerMs: 1000}}, summary.Result{WindowSeconds: 10}, nil},
		{"measured fetch interval", batch(0, 0), summary.Result{WindowSeconds: 8, FetchInterval: summary.Percentiles{Count: 10, P50: 500_000}},
			[]string{"under 20 fetch intervals (their p50, 500 ms)", "at least 10"}},
		{"a rate search has its own steps", trial.Trial{Search: &trial.RateSearch{}}, summary.Result{WindowSeconds: 1}, nil},
	} {
		got := WindowTooShort(c.t, &c.r)
		if (got == "") != (c.want == nil) {
			t.Errorf("%s: %q", c.name, got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}

// TestJITWarmupShort: a trial with a JVM worker on either side warns when each
// producer warmed up with fewer than MinJVMWarmupRecords records or for less than
// MinJVMWarmupSeconds, counting a timed warmup at the trial's rate, or at the
// window's for a closed loop, and a warmup of records at the same rates.
func TestJITWarmupShort(t *testing.T) {
	java := func(w trial.Warmup, rate int64, consumers trial.Client) trial.Trial {
		return trial.Trial{Producers: 2, Warmup: w, Settings: trial.Settings{Client: trial.ClientJava, ConsumerClient: consumers, RecordsPerSecond: rate}}
	}
	for _, c := range []struct {
		name string
		t    trial.Trial
		r    summary.Result
		warn bool
	}{
		{"no warmup", java(trial.Warmup{}, 0, ""), summary.Result{}, true},
		{"enough records", java(trial.Warmup{Records: MinJVMWarmupRecords}, 0, ""), summary.Result{}, false},
		{"too few records", java(trial.Warmup{Records: MinJVMWarmupRecords - 1}, 0, ""), summary.Result{}, true},
		{"5 s at 2000/s", java(trial.Warmup{DurationSeconds: 5}, 2000, ""), summary.Result{}, false},
		{"5 s at 1000/s", java(trial.Warmup{DurationSeconds: 5}, 1000, ""), summary.Result{}, true},
		{"a closed loop, 2 s at the window's rate", java(trial.Warmup{DurationSeconds: 2}, 0, ""), summary.Result{RecordsPerSecond: 50000}, false},
		{"a closed loop, 1 s at the window's rate", java(trial.Warmup{DurationSeconds: 1}, 0, ""), summary.Result{RecordsPerSecond: 50000}, true},
		{"records passing in 0.8 s", java(trial.Warmup{Records: 20000}, 0, ""), summary.Result{RecordsPerSecond: 50000}, true},
		{"records lasting 4 s", java(trial.Warmup{Records: 20000}, 0, ""), summary.Result{RecordsPerSecond: 10000}, false},
		{"records at a target rate, 1 s", java(trial.Warmup{Records: 20000}, 20000, ""), summary.Result{}, true},
		{"Java consumers of Go producers", trial.Trial{Settings: trial.Settings{Client: trial.ClientFranz, ConsumerClient: trial.ClientJava}}, summary.Result{}, true},
		{"Go only", trial.Trial{Settings: trial.Settings{Client: trial.ClientFranz}}, summary.Result{}, false},
	} {
		got := JITWarmupShort(c.t, &c.r)
		if (got != "") != c.warn || (got != "" && !strings.HasPrefix(got, "JITWarmupShort:")) {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}

// TestJITCompiling: a trial warns when one worker's JIT compilations took more than
// MaxJITShare of its window, naming the role and the share; none says nothing.
func TestJITCompiling(t *testing.T) {
	for _, c := range []struct {
		name   string
		shares summary.JITShares
		want   []string // in the warning; nil: no warning
	}{
		{"at the bound", summary.JITShares{Producers: MaxJITShare, Consumers: MaxJITShare}, nil},
		{"none reported (Go workers)", summary.JITShares{}, nil},
		{"producers past it", summary.JITShares{Producers: MaxJITShare + 0.01}, []string{"a producer's for 26 %", "more than 25 %"}},
		{"consumers", summary.JITShares{Consumers: 0.9}, []string{"a consumer's for 90 %"}},
		{"both, two compiler threads", summary.JITShares{Producers: 1.5, Consumers: 0.3}, []string{"a producer's for 150 % and a consumer's for 30 %"}},
	} {
		got := JITCompiling(&summary.Result{JITShares: c.shares})
		if (got != "") != (c.want != nil) || (got != "" && !strings.HasPrefix(got, "JITCompiling:")) {
			t.Errorf("%s: %q", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}
