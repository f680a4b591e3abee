package build

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestMergeHistograms: repetitions merge into the ConfigMap once each, and the
// merged percentiles are those of all their values together, within the stored
// 1 % — not the median of the repetitions' own: one slow repetition moves the
// merged p99 where the median of p99s ignores it.
func TestMergeHistograms(t *testing.T) {
	x := experiment(nil)
	cm := Histograms(x)
	rng := rand.New(rand.NewPCG(1, 2))
	all := summary.NewLatency()
	var p99s []int64
	for k, scale := range []float64{1000, 1000, 5000} { // the third repetition is slow
		e2e, ack := summary.NewLatency(), summary.NewLatency()
		for range 20000 {
			v := int64(scale * math.Exp(0.5*rng.NormFloat64()))
			e2e.Record(v)
			ack.Record(v / 2)
			all.Record(v)
		}
		p99s = append(p99s, e2e.Quantile(99))
		tr := trial.Trial{Name: fmt.Sprintf("t000-json-512b-r%d", k+1), Config: "t000-json-512b", Repetition: int32(k + 1)}
		for attempt := range 2 { // a retried collect merges nothing more
			changed, err := MergeHistograms(cm, tr, e2e, ack)
			if err != nil || changed != (attempt == 0) {
				t.Fatalf("repetition %d, collect %d: changed %v, %v", k+1, attempt+1, changed, err)
			}
		}
	}
	m, err := MergedFrom(cm, "t000-json-512b")
	if err != nil || m == nil {
		t.Fatalf("merged: %+v, %v", m, err)
	}
	if m.Runs != 3 || m.ResolutionPermille != 10 || m.EndToEndMicros.Count != 60000 || m.AckMicros.Count != 60000 {
		t.Fatalf("merged %+v", m)
	}
	want := all.Quantile(99)
	if got := m.EndToEndMicros.P99; math.Abs(float64(got-want)) > 0.01*float64(want) {
		t.Errorf("merged p99 %d µs, all values' %d µs: want within 1 %%", got, want)
	}
	// The median of the p99s is a typical repetition's; the merged one sees the slow one.
	if median := p99s[1]; m.EndToEndMicros.P99 < 2*median {
		t.Errorf("merged p99 %d µs, the repetitions' p99s %v: the slow repetition should weigh in", m.EndToEndMicros.P99, p99s)
	}
	if m, err := MergedFrom(cm, "t001-avro-512b"); m != nil || err != nil {
		t.Errorf("a trial never merged: %+v, %v", m, err)
	}
	// Another experiment's (or nobody's) ConfigMap of that name is not this one's.
	if OwnsHistograms(x, cm) {
		t.Error("a ConfigMap without this experiment as its controller counts as its own")
	}
	// Past the size limit nothing is merged, and the caller is told.
	full := Histograms(x)
	full.Data = map[string]string{"filler": strings.Repeat("x", HistogramsMaxBytes)}
	if changed, err := MergeHistograms(full, trial.Trial{Name: "t001-avro-512b-r1", Config: "t001-avro-512b"}, summary.NewLatency(), summary.NewLatency()); changed || err == nil {
		t.Errorf("over the limit: changed %v, %v", changed, err)
	}
	if n := len(cm.Data["t000-json-512b.e2e"]) + len(cm.Data["t000-json-512b.ack"]); n > 8<<10 {
		t.Errorf("one trial's histograms take %d B: the 1 MiB ConfigMap would not hold 64 trials'", n)
	}
}
