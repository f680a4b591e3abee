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
