package protocol

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/usage"
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

// TestJITCompiling: a trial warns when a JVM role's JIT compilers were compiling
// for more than MaxJITShare of its window, per worker; Go roles, a shared process
// and a missing usage say nothing.
func TestJITCompiling(t *testing.T) {
	java := trial.Trial{Producers: 2, Consumers: 1, Settings: trial.Settings{Client: trial.ClientJava}}
	goProducers := trial.Trial{Producers: 2, Consumers: 1, Settings: trial.Settings{Client: trial.ClientFranz, ConsumerClient: trial.ClientJava}}
	workers := func(prodJIT, consJIT float64) *summary.Usage {
		return &summary.Usage{Scope: summary.ScopeWorkers,
			Producers: &usage.Window{Seconds: 10, JITSeconds: prodJIT}, Consumers: &usage.Window{Seconds: 10, JITSeconds: consJIT}}
	}
	for _, c := range []struct {
		name string
		t    trial.Trial
		u    *summary.Usage
		want []string // in the warning; nil: no warning
	}{
		{"both quiet", java, workers(2*10*MaxJITShare, 10*MaxJITShare), nil},
		{"producers busy, per worker", java, workers(2*10*MaxJITShare+0.1, 0), []string{"producers", "(more than 25 %)"}},
		{"one producer's share is half the sum", java, workers(10*MaxJITShare+0.1, 0), nil},
		{"consumers busy", java, workers(0, 9), []string{"consumers' for 90 %", "10.0 s window"}},
		{"both busy", java, workers(18, 9), []string{"producers' for 90 %", " and the consumers' for 90 %"}},
		{"a Go role's time is not the JIT's", goProducers, workers(18, 0), nil},
		{"the JVM role of a mixed trial", goProducers, workers(0, 9), []string{"consumers"}},
		{"one process", java, &summary.Usage{Scope: summary.ScopeProcess, Process: &usage.Window{Seconds: 10, JITSeconds: 9}}, nil},
		{"no usage", java, nil, nil},
	} {
		got := JITCompiling(c.t, &summary.Result{Usage: c.u})
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
