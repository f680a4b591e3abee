//go:build replay

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/internal/cli/experiment"
	"github.com/serdebench/serdebench/internal/cli/htmlreport"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// nightlySample is the schedule users copy; the replay runs its experiment.
const nightlySample = "../../config/samples/nightly-schedule.yaml"

// TestUpgradeReplay replays a broker upgrade as a nightly meets it: the nightly
// sample's experiment on the real broker of the previous Kafka line
// ($SERDEBENCH_KAFKA_PREVIOUS) for a few runs, then on the current one
// ($SERDEBENCH_KAFKA), judged by `serdebench compare --schedule` with the sample's
// own options. The verdict must name the version change and be the numbers' own
// (Regressed, Improved or Within), never EnvironmentShifted: nothing but the
// broker changed, and the machine probe says so.
//
// It also logs whether a drop to half one trial's level from the upgrade on
// would have been Regressed: what the replay could see. Short by default (make
// test-upgrade-replay: 5 s windows, one repetition, 5 runs after a warm-up run
// then 2); SERDEBENCH_REPLAY_FULL=1 runs the sample as written (make
// upgrade-replay), and SERDEBENCH_REPLAY_BEFORE / _AFTER set the runs on each
// line. The table goes to the log and to $SERDEBENCH_ARTIFACTS.
func TestUpgradeReplay(t *testing.T) {
	previous := os.Getenv("SERDEBENCH_KAFKA_PREVIOUS")
	previousVersion, currentVersion := os.Getenv("SERDEBENCH_KAFKA_PREVIOUS_VERSION"), os.Getenv("SERDEBENCH_KAFKA_VERSION")
	if previous == "" || previousVersion == "" || currentVersion == "" {
		t.Fatal("the replay needs the previous line's broker: $SERDEBENCH_KAFKA_PREVIOUS (bootstrap), $SERDEBENCH_KAFKA_PREVIOUS_VERSION " +
			"and $SERDEBENCH_KAFKA_VERSION (make test-upgrade-replay starts it and sets them)")
	}
	current := kafkatest.Brokers(t)[0]
	full := os.Getenv("SERDEBENCH_REPLAY_FULL") == "1"
	before, after := envInt(t, "SERDEBENCH_REPLAY_BEFORE", 5), envInt(t, "SERDEBENCH_REPLAY_AFTER", 2)
	dir := t.TempDir()
	exp := filepath.Join(dir, "nightly.yaml")
	if err := os.WriteFile(exp, replayExperiment(t, full), 0o644); err != nil {
		t.Fatal(err)
	}
	// The previous line's broker was started for the replay: one run warms it,
	// and is not judged (the current one has been serving since kafka-up).
	serdebench(t, "run", "-f", exp, "--bootstrap", previous, "-o", "json", "-q")
	var files []string
	for i := range before + after {
		bootstrap, version := previous, previousVersion
		if i >= before {
			bootstrap, version = current, currentVersion
		}
		f := filepath.Join(dir, fmt.Sprintf("night-%02d-kafka-%s.json", i+1, version))
		if err := os.WriteFile(f, []byte(serdebench(t, "run", "-f", exp, "--bootstrap", bootstrap, "-o", "json", "-q")), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	cmd := rootCmd()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(append([]string{"compare", "--schedule", nightlySample, "-o", "json"}, files...))
	err := cmd.Execute()
	out := stdout.String()
	var got struct {
		compare.Result
		Changes []string `json:"changes"`
	}
	if jerr := json.Unmarshal([]byte(out), &got); jerr != nil {
		t.Fatalf("compare: %v (%v)\n%s", jerr, err, out)
	}
	sched, err2 := experiment.LoadSchedule(nightlySample)
	if err2 != nil {
		t.Fatal(err2)
	}
	table := replayTable(got.Result, got.Changes, compare.ScheduleOptions(&sched.Spec), previousVersion, currentVersion, before, after, full)
	t.Log("\n" + table)
	if a := os.Getenv("SERDEBENCH_ARTIFACTS"); a != "" {
		if werr := os.MkdirAll(a, 0o755); werr == nil {
			name := "upgrade-replay-short.md"
			if full {
				name = "upgrade-replay.md"
			}
			_ = os.WriteFile(filepath.Join(a, name), []byte(table), 0o644)
		}
	}
	// The exit code follows the verdict: 4 for Regressed, 0 otherwise here.
	switch code := exitCode(err); {
	case got.Verdict == compare.EnvironmentShifted || code == exitEnvironmentShifted:
		t.Fatalf("the upgrade was judged EnvironmentShifted (exit %d): only the broker changed\n%s", code, table)
	case got.Verdict == compare.NotJudged || code == exitNotJudged:
		t.Fatalf("nothing judged (exit %d): %d runs before the upgrade must be enough\n%s", code, before, table)
	case got.Verdict == compare.Regressed && code != exitRegressed, got.Verdict != compare.Regressed && code != exitOK:
		t.Fatalf("verdict %s exited %d (%v)", got.Verdict, code, err)
	}
	// The machine did not move: the probe, which every run carries, never finds
	// it slower (whether it could show it steady, or left the control trial to
	// decide, depends on this machine's noise: the table says).
	if len(got.Probe) == 0 || got.MachineShifted {
		t.Fatalf("probe parts %d, machine shifted %t: the runs carry the probe and the machine did not change\n%s", len(got.Probe), got.MachineShifted, table)
	}
	// The change is named at the first run on the current line.
	want := fmt.Sprintf("→ %s", majorMinor(currentVersion))
	var named bool
	for _, c := range got.Changes {
		named = named || (strings.HasPrefix(c, "Kafka: "+majorMinor(previousVersion)) && strings.Contains(c, want) && strings.Contains(c, filepath.Base(files[before])))
	}
	if !named {
		t.Fatalf("changes %q: want Kafka %s → %s at %s", got.Changes, previousVersion, currentVersion, filepath.Base(files[before]))
	}
	// Each verdict is the numbers' own: none is the environment's, none unjudged.
	for _, tr := range got.Trials {
		for _, m := range tr.Metrics {
			if m.Verdict == compare.EnvironmentShifted || m.Verdict == compare.NotJudged {
				t.Errorf("%s %s: %s", tr.Name, m.Name, m.Verdict)
			}
		}
	}
	// What the replay can see: the same runs with one trial (not the first, which
	// may be the control) set from the upgrade on to half its level before, its
	// runs keeping their noise about their own level (set, not scaled: the
	// upgrade's own effect on the trial, +59 % for protobuf in one CI run, would
	// hide a scaled drop). Logged, not asserted: at 5 s windows a noisy control
	// (21 % between runs here) left such a drop Within, and the power at the
	// sample's length is make nightly-replay's to measure.
	runs := make([][]report.Row, len(files))
	for i, f := range files {
		run, err := readRun(f)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = run.Runs
	}
	var key string
	for _, r := range runs[0] {
		if k := compare.Key(r); k != compare.Key(runs[0][0]) {
			key = k
			break
		}
	}
	planted, _ := compare.Replay(plant(runs, before, []string{key}, (1-replayPlantedDrop/100)*levelRatio(runs, before, key)), compare.ScheduleOptions(&sched.Spec))
	var found bool
	for _, tr := range planted.Trials {
		for _, m := range tr.Metrics {
			if tr.Key == key && m.Name == "recordsPerSecond" {
				found = m.Verdict == compare.Regressed && m.Streak != nil && clears(*m.Streak)
				t.Logf("planted: %s records/s %g %% lower from the upgrade on: %s (%s)", tr.Name, replayPlantedDrop, m.Said(), m.Verdict)
			}
		}
	}
	if !found {
		t.Logf("a %g %% drop planted in trial %s from the upgrade on was not Regressed: at this length the replay cannot see it", replayPlantedDrop, key)
	}
}

// levelRatio is the geometric mean of trial key's records/s in runs before from
// over its mean from there on: what scales the later runs to the earlier level.
func levelRatio(runs [][]report.Row, from int, key string) float64 {
	var logs [2][]float64
	for i, run := range runs {
		for _, r := range run {
			if compare.Key(r) == key && r.RecordsPerSecond > 0 {
				logs[min(i/from, 1)] = append(logs[min(i/from, 1)], math.Log(r.RecordsPerSecond))
			}
		}
	}
	mean := func(xs []float64) float64 {
		var sum float64
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	return math.Exp(mean(logs[0]) - mean(logs[1]))
}

// replayPlantedDrop is the known drop, in percent, the upgrade replay plants to
// show it can see one.
const replayPlantedDrop = 50.0

// clears says the one-sided bound lies beyond zero on the tested side.
func clears(x compare.Test) bool {
	b := float64(x.BoundPercent)
	return !math.IsNaN(b) && ((x.Upper && b < 0) || (!x.Upper && b > 0))
}

// replayExperiment is the nightly sample's experiment: as written, or short
// (windows of 5 s after a 2 s warmup, one repetition) for make test.
func replayExperiment(t *testing.T, full bool) []byte {
	t.Helper()
	data, err := os.ReadFile(nightlySample)
	if err != nil {
		t.Fatal(err)
	}
	if full {
		return data
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	spec := doc["spec"].(map[string]any)["experimentTemplate"].(map[string]any)["spec"].(map[string]any)
	delete(spec, "records")
	spec["durationSeconds"] = 5
	spec["warmup"] = map[string]any{"durationSeconds": 2}
	spec["repetitions"] = 1
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// replayTable is the replay's per-trial table in Markdown: each metric's level
// on the previous line (the baseline runs' center and spread) and the last run
// on the current one, the change with its descriptive interval, the tested
// change with its one-sided bound, and the verdict.
func replayTable(res compare.Result, changes []string, o compare.Options, previous, current string, before, after int, full bool) string {
	var b strings.Builder
	length := "short (5 s windows, 1 repetition)"
	if full {
		length = "full length (the sample as written)"
	}
	fmt.Fprintf(&b, "Upgrade replay, %s: %d runs on Kafka %s, then %d on %s; the last judged with the nightly sample's options.\n\n", length, before, previous, after, current)
	fmt.Fprintf(&b, "| trial | metric | Kafka %s (runs, spread) | Kafka %s | change (descriptive %%) | tested | verdict |\n|---|---|---|---|---|---|---|\n", previous, current)
	for _, tr := range res.Trials {
		for _, m := range tr.Metrics {
			tested := "-"
			switch {
			case m.Verdict == compare.Improved && m.Improvement != nil:
				tested = m.Improvement.String()
			case m.Streak != nil:
				tested = m.Streak.String()
			case m.Tested != nil:
				tested = m.Tested.String()
			}
			fmt.Fprintf(&b, "| %s | %s (%s) | %.4g (%d, %.1f %%) | %.4g | %+.1f %% [%+.1f, %+.1f] at %.0f %% | %s | %s |\n", tr.Name, m.Name, m.Unit,
				float64(m.Baseline), m.BaselineRuns, float64(m.SpreadPercent), float64(m.Candidate), float64(m.ChangePercent),
				float64(m.ChangeLowPercent), float64(m.ChangeHighPercent), 100*m.ChangeConfidence, tested, m.Verdict)
		}
	}
	for _, p := range res.Probe {
		fmt.Fprintf(&b, "\nmachine probe %s: %+.1f %% [%+.1f, %+.1f] at %.0f %%: %s", p.Name, float64(p.ChangePercent), float64(p.ChangeLowPercent),
			float64(p.ChangeHighPercent), 100*p.ChangeConfidence, p.Finding())
	}
	for _, c := range changes {
		fmt.Fprintf(&b, "\nchanged: %s", c)
	}
	fmt.Fprintf(&b, "\nmethod: %s\nverdict: %s\n", res.Method(o), res.Verdict)
	return b.String()
}

// majorMinor is "4.4" of "4.4.0": the release line the broker reports.
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// envInt is the positive integer in $name, else def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatal(errors.New("$" + name + ": want a positive integer, got " + strconv.Quote(s)))
	}
	return n
}

// TestNightlyReplay measures what the nightly sample can see on this machine's
// real broker ($SERDEBENCH_KAFKA): it runs the sample unchanged for
// $SERDEBENCH_REPLAY_NIGHTS nights (20) into $SERDEBENCH_REPLAY_DIR, which it
// keeps (a later call runs only the nights still missing, so a long measurement
// can span sessions), and then, judging as the schedule does (the sample's
// options):
//   - the unchanged nights' verdicts: every alarm is a false one;
//   - each trial's between-night spread, per metric;
//   - a lasting drop of d % planted in one trial's records/s (each trial, from
//     each night that has a full baseline and three nights after it), and in
//     every trial's at once (an upgrade beside a steady machine probe): how
//     often it is Regressed within 3 nights, and the smallest d found in at least
//     80 % of placements.
//
// The planted drop scales the measured values: the known truth rides on the
// real between-night noise. make nightly-replay runs it.
func TestNightlyReplay(t *testing.T) {
	bootstrap := kafkatest.Brokers(t)[0]
	full := os.Getenv("SERDEBENCH_REPLAY_FULL") == "1"
	nights := envInt(t, "SERDEBENCH_REPLAY_NIGHTS", 20)
	dir := os.Getenv("SERDEBENCH_REPLAY_DIR")
	if dir == "" {
		t.Fatal("$SERDEBENCH_REPLAY_DIR: the directory the nights are kept in (make nightly-replay sets it)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "nightly.yaml")
	if err := os.WriteFile(exp, replayExperiment(t, full), 0o644); err != nil {
		t.Fatal(err)
	}
	sched, err := experiment.LoadSchedule(nightlySample)
	if err != nil {
		t.Fatal(err)
	}
	o := compare.ScheduleOptions(&sched.Spec)
	runs := make([][]report.Row, nights)
	for i := range nights {
		// make nightly-replay keeps the nights in the repository: without the
		// workers' summaries and gzipped, about 23 kB a night instead of 1 MB.
		f := filepath.Join(dir, fmt.Sprintf("night-%02d.json.gz", i+1))
		if _, err := os.Stat(f); err != nil {
			// Written whole or not at all: an interrupted night is run again.
			out, err := withoutSummaries([]byte(serdebench(t, "run", "-f", exp, "--bootstrap", bootstrap, "-o", "json", "-q")))
			if err != nil {
				t.Fatalf("night %d: %v", i+1, err)
			}
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			_, err = w.Write(out)
			if err = errors.Join(err, w.Close()); err != nil {
				t.Fatalf("gzip night %d: %v", i+1, err)
			}
			if err := os.WriteFile(f+".tmp", z.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(f+".tmp", f); err != nil {
				t.Fatal(err)
			}
			t.Logf("night %d of %d: %s", i+1, nights, f)
		}
		run, err := readNight(f)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = run.Runs
	}
	n := nightlyOf(runs, o)
	table := n.table(o, nights, full)
	t.Log("\n" + table)
	if a := os.Getenv("SERDEBENCH_ARTIFACTS"); a != "" {
		if err := os.MkdirAll(a, 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(a, "nightly-replay.md"), []byte(table), 0o644)
		}
	}
	// Unchanged nights alarm within the sample's budget (12 a year, each alert):
	// fail only when a count is implausible under it (binomial tail below 0.001).
	for verdict, count := range map[compare.Verdict]int{compare.Regressed: n.regressed, compare.EnvironmentShifted: n.shifted} {
		if p := (distuv.Binomial{N: float64(n.judged), P: 12.0 / 365}).Survival(float64(count) - 1); count > 0 && p < 0.001 {
			t.Errorf("%d of %d unchanged nights %s: P = %.2g at the budget of 12 a year", count, n.judged, verdict, p)
		}
	}
	// A halving of one trial's throughput is what a nightly exists to see.
	if f := n.found[0][len(plantedDrops)-1]; f.placed == 0 || float64(f.found) < 0.8*float64(f.placed) {
		t.Errorf("a %g %% drop of one trial was found within 3 nights in %d of %d placements, want at least 80 %%", plantedDrops[len(plantedDrops)-1], f.found, f.placed)
	}
}

// withoutSummaries is a `serdebench run -o json` report without its trials'
// worker summaries: every histogram and series, nine tenths of its bytes. The
// rows the replay judges come from the trials' results, which stay (a night
// read either way gives the same rows).
func withoutSummaries(report []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(report, &doc); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var trials []map[string]json.RawMessage
	if err := json.Unmarshal(doc["trials"], &trials); err != nil {
		return nil, fmt.Errorf("report's trials: %w", err)
	}
	for _, tr := range trials {
		delete(tr, "summaries")
	}
	var err error
	if doc["trials"], err = json.Marshal(trials); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// readNight is readRun of a gzipped night.
func readNight(path string) (htmlreport.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return htmlreport.Run{}, err
	}
	defer func() { _ = f.Close() }()
	r, err := gzip.NewReader(f)
	if err != nil {
		return htmlreport.Run{}, fmt.Errorf("%s: %w", path, err)
	}
	js, err := io.ReadAll(r)
	if err != nil {
		return htmlreport.Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return parseRun(js, path)
}

// plantedDrops are the drops planted, in percent of records/s.
var plantedDrops = []float64{5, 10, 15, 20, 25, 30, 40, 50}

// nightly is what a replay of unchanged nights shows.
type nightly struct {
	judged, regressed, suspect, shifted, improved int
	// spread is each trial's between-night spread per metric, in percent.
	spread []compare.Trial
	// probeSpread is each machine probe part's between-night spread (of the
	// nights' medians), in percent, by name; steady, slower and blind count the
	// judged nights the probe showed the machine steady, slower, or could not tell.
	probeSpread           map[string]float64
	steady, slower, blind int
	// found[0] is one trial's planted drop, found[1] every trial's, by drop.
	found [2][]detection
}

// detection counts how often a planted drop was Regressed within 3 nights.
type detection struct{ placed, found int }

func nightlyOf(runs [][]report.Row, o compare.Options) nightly {
	var n nightly
	// Each night judged against the nights before it, as the schedule judges them
	// (compare.Replay's loop): its verdict, and what the machine probe found.
	for i := range runs {
		res := compare.Compare(runs[:i], runs[i], o)
		if res.Verdict == compare.NotJudged {
			continue
		}
		n.judged++
		switch res.Verdict {
		case compare.Regressed:
			n.regressed++
		case compare.Suspect:
			n.suspect++
		case compare.EnvironmentShifted:
			n.shifted++
		case compare.Improved:
			n.improved++
		}
		switch {
		case !res.ProbeDecides:
			n.blind++
		case res.MachineShifted:
			n.slower++
		default:
			n.steady++
		}
	}
	n.probeSpread = compare.ProbeSpread(runs)
	// The spread of every night but the last, each trial's own: the last judged
	// against all of them at once.
	all := o
	all.BaselineRuns, all.Persistence = len(runs), 1
	n.spread = compare.Compare(runs[:len(runs)-1], runs[len(runs)-1], all).Trials
	var keys []string
	for _, r := range runs[0] {
		if k := compare.Key(r); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for every := range 2 {
		n.found[every] = make([]detection, len(plantedDrops))
		for di, d := range plantedDrops {
			// From a full baseline on, where the nights allow: the nightly as it
			// runs once set up, not while its first runs collect a baseline.
			for s := max(o.MinRuns, min(o.BaselineRuns, len(runs)-3)); s+2 < len(runs); s++ {
				targets := [][]string{}
				if every == 1 {
					targets = append(targets, keys)
				} else {
					for _, k := range keys {
						targets = append(targets, []string{k})
					}
				}
				for _, ks := range targets {
					planted := plant(runs, s, ks, 1-d/100)
					hit := false
					for i := s; i <= s+2 && !hit; i++ {
						res := compare.Compare(planted[:i], planted[i], o)
						for _, tr := range res.Trials {
							for _, m := range tr.Metrics {
								hit = hit || (m.Name == "recordsPerSecond" && m.Verdict == compare.Regressed && slices.Contains(ks, tr.Key))
							}
						}
					}
					n.found[every][di].placed++
					if hit {
						n.found[every][di].found++
					}
				}
			}
		}
	}
	return n
}

// plant is runs with the records/s of trials keys scaled by factor from night
// from on.
func plant(runs [][]report.Row, from int, keys []string, factor float64) [][]report.Row {
	out := slices.Clone(runs)
	for i := from; i < len(out); i++ {
		out[i] = slices.Clone(runs[i])
		for j := range out[i] {
			if slices.Contains(keys, compare.Key(out[i][j])) {
				out[i][j].RecordsPerSecond *= factor
			}
		}
	}
	return out
}

func (n nightly) table(o compare.Options, nights int, full bool) string {
	var b strings.Builder
	length := "short (5 s windows, 1 repetition)"
	if full {
		length = "the sample as written"
	}
	fmt.Fprintf(&b, "Nightly replay, %s: %d unchanged nights on this machine's broker, judged with the sample's options (%d baseline runs, at least %d; persistence %d; thresholds %g / %g / %g %%).\n\n",
		length, nights, o.BaselineRuns, o.MinRuns, o.Persistence, o.Thresholds.ThroughputDropPercent, o.Thresholds.P99RisePercent, o.Thresholds.SerializeRisePercent)
	fmt.Fprintf(&b, "Judged nights: %d; Regressed %d (false alarms), Suspect %d, EnvironmentShifted %d, Improved %d.\n\n", n.judged, n.regressed, n.suspect, n.shifted, n.improved)
	fmt.Fprintf(&b, "| trial | metric | nights | between-night spread |\n|---|---|---|---|\n")
	for _, tr := range n.spread {
		for _, m := range tr.Metrics {
			fmt.Fprintf(&b, "| %s | %s (%s) | %d | %.1f %% |\n", tr.Name, m.Name, m.Unit, m.BaselineRuns, float64(m.SpreadPercent))
		}
	}
	fmt.Fprintf(&b, "\nThe machine probe: between-night spread (of each night's median) cpu %.1f %%, fsync %.1f %%, connect %.1f %%; on the %d judged nights it showed the machine steady on %d, slower on %d, and could not tell on %d (the control trial decided).\n",
		n.probeSpread["cpu"], n.probeSpread["fsync"], n.probeSpread["connect"], n.steady+n.slower+n.blind, n.steady, n.slower, n.blind)
	fmt.Fprintf(&b, "\nA lasting drop of records/s planted from a night on, found Regressed within 3 nights (95 %% Clopper–Pearson interval):\n\n| drop | one trial | every trial |\n|---|---|---|\n")
	smallest := [2]float64{math.NaN(), math.NaN()}
	for di, d := range plantedDrops {
		cells := [2]string{}
		for every := range 2 {
			f := n.found[every][di]
			lo, hi := exact(f.found, f.placed)
			cells[every] = fmt.Sprintf("%d of %d (%.0f %%, %.0f–%.0f %%)", f.found, f.placed, 100*float64(f.found)/float64(max(f.placed, 1)), 100*lo, 100*hi)
			if math.IsNaN(smallest[every]) && f.placed > 0 && float64(f.found) >= 0.8*float64(f.placed) {
				smallest[every] = d
			}
		}
		fmt.Fprintf(&b, "| %g %% | %s | %s |\n", d, cells[0], cells[1])
	}
	fmt.Fprintf(&b, "\nSmallest drop found within 3 nights in at least 80 %% of placements: one trial %g %%, every trial %g %% (NaN: none planted was).\n", smallest[0], smallest[1])
	return b.String()
}

// exact is the 95 % Clopper–Pearson interval of k successes in n.
func exact(k, n int) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(0.025)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(0.975)
	}
	return lo, hi
}
