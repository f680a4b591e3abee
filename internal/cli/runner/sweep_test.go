package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestProducerSettingsSweep runs every combination of linger {0, 1, 100} ms, batch
// size {0, 16 KiB, 1 MiB} and mode {batch, single} (the settings whose interplay can
// strand a partial batch) through the real broker, as `serdebench run` would, each
// with one of acks {0, 1, all} so that every acks value meets every value of each
// of the others (a pairwise design: 18 trials of the 54, each costing the same ~2-4 s
// of topic and group set-up; what is left out is the other acks values' triples). Every trial must finish (a setting that strands a
// partial batch hangs until the deadline and fails) and deliver what was sent. With
// acks=0 the producer cannot know what the broker stored: a loss is allowed there
// only if the result says so.
func TestProducerSettingsSweep(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	// Odd counts leave a partial last batch on every partition.
	records := int64(2001)
	lingers, batches := []int32{0, 1, 100}, []int32{0, 16384, 1 << 20}
	modes, acks := []trial.Mode{trial.ModeBatch, trial.ModeSingle}, []trial.Acks{trial.AcksNone, trial.AcksLeader, trial.AcksAll}
	s := v1alpha1.ExperimentSpec{
		Codecs:    []trial.Codec{trial.CodecProtobuf},
		Payload:   v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}},
		Records:   &records,
		Warmup:    trial.Warmup{Records: 101},
		Consumers: 2,
		PoolSize:  64,
		Matrix: &v1alpha1.Matrix{
			LingerMs:       lingers,
			BatchSizeBytes: batches,
			Acks:           acks,
			Mode:           modes,
		},
	}
	all, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 54 {
		t.Fatalf("%d trials, want 54", len(all))
	}
	// acks = (linger + batch + mode + 2) mod 3, by each value's index: for any fixed
	// value of one of the three, the other two sum to every residue. The offset puts
	// acks 0 (never acknowledged) with linger 100 ms and 1 MiB batches, the largest
	// partial batch.
	var trials []trial.Trial
	pairs := map[string]bool{}
	for _, tr := range all {
		st := tr.Settings
		l, b, m := slices.Index(lingers, st.LingerMs), slices.Index(batches, st.BatchSizeBytes), slices.Index(modes, st.Mode)
		if l < 0 || b < 0 || m < 0 || slices.Index(acks, st.Acks) != (l+b+m+2)%3 {
			continue
		}
		trials = append(trials, tr)
		for _, p := range []string{fmt.Sprint("l", l), fmt.Sprint("b", b), fmt.Sprint("m", m)} {
			pairs[p+fmt.Sprint("a", st.Acks)] = true
		}
	}
	if !slices.ContainsFunc(trials, func(tr trial.Trial) bool {
		return tr.Settings.Acks == trial.AcksNone && tr.Settings.LingerMs == 100 && tr.Settings.BatchSizeBytes == 1<<20 && tr.Settings.Mode == trial.ModeBatch
	}) {
		t.Fatal("acks 0 with linger 100 ms and 1 MiB batches is not in the design")
	}
	if len(trials) != 18 || len(pairs) != 3*3+3*3+2*3 {
		t.Fatalf("%d trials covering %d acks pairs, want 18 covering 24", len(trials), len(pairs))
	}
	started := map[string]time.Time{}
	start := time.Now()
	results, err := runner.Run(context.Background(), trials, runner.Options{Brokers: brokers, Experiment: "it-sweep",
		TrialTimeout: time.Minute, OnTrial: func(tr trial.Trial) { started[tr.Name] = time.Now() }})
	if err != nil {
		t.Fatalf("after %d of %d trials: %v", len(results), len(trials), err)
	}
	var slowest time.Duration
	var slowestName string
	for i, res := range results {
		tr, r := res.Trial, res.Result
		took := time.Since(started[tr.Name])
		if i+1 < len(results) {
			took = started[results[i+1].Trial.Name].Sub(started[tr.Name])
		}
		if took > slowest {
			slowest, slowestName = took, tr.Name+" "+tr.Settings.Describe()
		}
		label := fmt.Sprintf("%s (%s)", tr.Name, tr.Settings.Describe())
		want := records + 101
		if r.Records != records || r.Failed != 0 || r.Duplicated != 0 {
			t.Errorf("%s: measured %d of %d, failed %d, duplicated %d", label, r.Records, records, r.Failed, r.Duplicated)
		}
		if tr.Settings.Acks == trial.AcksNone {
			if r.Delivered+r.Lost != r.Sent || r.Sent != want {
				t.Errorf("%s: sent %d delivered %d lost %d", label, r.Sent, r.Delivered, r.Lost)
			}
			if r.Lost > 0 && !strings.Contains(strings.Join(r.Warnings, " "), "acks=0") {
				t.Errorf("%s: %d lost with acks=0 but no warning says why: %v", label, r.Lost, r.Warnings)
			}
			continue
		}
		if r.Sent != want || r.Delivered != want || r.Lost != 0 || r.UnacknowledgedDelivered != 0 {
			t.Errorf("%s: sent %d delivered %d lost %d unacknowledged-delivered %d, want %d delivered", label, r.Sent, r.Delivered, r.Lost, r.UnacknowledgedDelivered, want)
		}
	}
	t.Logf("%d trials in %s (mean %s; slowest %s: %s)", len(trials), time.Since(start).Round(time.Millisecond),
		(time.Since(start) / time.Duration(len(trials))).Round(time.Millisecond), slowestName, slowest.Round(time.Millisecond))
}

// TestLingerZeroFinishes is the reported reproduction: linger 0 with a 64 KiB batch
// and a record count that leaves a partial last batch used to hang forever.
func TestLingerZeroFinishes(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	records := int64(20001)
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
		Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}}, Records: &records,
		Producer: v1alpha1.ProducerSettings{BatchSizeBytes: ptr(int32(65536)), LingerMs: ptr(int32(0))}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-linger0", TrialTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Result; r.Records != records || r.Delivered != records || r.Lost != 0 {
		t.Fatalf("records %d delivered %d lost %d", r.Records, r.Delivered, r.Lost)
	}
	t.Logf("finished in %s, %.0f rec/s", time.Since(start).Round(time.Millisecond), res.Result.RecordsPerSecond)
}
