package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/cli/experiment"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

func compareCmd() *cobra.Command {
	var f clusterFlags
	var output, control, schedule string
	o := compare.DefaultOptions
	c := &cobra.Command{
		Use:   "compare RUN... CANDIDATE",
		Short: fmt.Sprintf("Judge a run against the runs before it, trial by trial, as a schedule does; exit %d on a regression", exitRegressed),
		Long: "Each argument is a `serdebench run -o json` report, a SerializationResult file (YAML or JSON), or the name " +
			"of a SerializationResult in the cluster (--kubeconfig, -n), oldest first; the last is judged. Trials match by codec, " +
			"schema, size and settings. Each run is one value per trial and metric: the median of its repetitions.\n\n" +
			"Runs differ by more than the repetitions inside one run show, so the candidate is judged against the spread of the " +
			"earlier runs (the last --baseline-runs before the streak's, at least --min-runs: fewer and nothing is judged): CHANGE is " +
			"its change from their center with the 95 % interval Student's t gives one more run. A metric breaches when the " +
			"change is worse than its threshold and its one-sided p, Holm-corrected over every trial and metric, is below 0.05 " +
			"(and, beside the control trial, relative to the control too). Every earlier run is judged the same way in turn, so " +
			"a breach that persists over --persistence runs is Regressed; a first breach is Suspect (shown, exit 0). Its mirror is " +
			"Improved (exit 0): each of those runs better than the threshold the other way and their mean significantly better " +
			"(Holm-corrected on its own), unless the environment gained with it (the control trial, or a faster machine probe); " +
			"one better run alone is Within. " +
			"When the control trial regressed and the others moved with it, or a trial regressed beside a machine probe shown slower, " +
			"the metric is EnvironmentShifted (its own exit code): the machine changed, not the trial. docs/schedules.md says which false-alarm rate the defaults give at measured noise.\n\n" +
			"Where what the runs recorded beside their spec changed — the Kafka release, the Kubernetes version, the worker image, " +
			"a runtime or client library, the machines' CPU or kernel — each change is printed with the run it happened at: a " +
			"verdict at an upgrade is likely the upgrade's.\n\n" +
			exitHelp(exitOK, exitError, exitUsage, exitRegressed, exitNotJudged, exitEnvironmentShifted),
		Example: `  # A nightly history, oldest first: the last run against the five before it
  serdebench compare night-*.json
  # A CI gate against a release's runs: fail at the first breach
  serdebench compare release/run-1.json release/run-2.json release/run-3.json pr.json --persistence 1
  # Local runs of a schedule's experiment, judged as the schedule judges them
  serdebench compare --schedule nightly-schedule.yaml night-*.json
  # Results in the cluster
  serdebench compare -n kafka-bench nightly-29378400 nightly-29379840 nightly-29381280 nightly-29382720`,
		Args: positional(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputOneOf(output, "table", "json"); err != nil {
				return err
			}
			if schedule != "" {
				if err := scheduleOptions(cmd, schedule, &o); err != nil {
					return err
				}
			}
			runs := make([][]report.Row, len(args))
			versions := make([]compare.Versions, len(args))
			for i, a := range args {
				run, err := loadRun(cmd.Context(), &f, a)
				if err != nil {
					return err
				}
				runs[i] = run.Runs // every repetition: each run's value is their median
				versions[i] = run.Versions
			}
			var changes []string
			for _, c := range compare.Changes(versions) {
				changes = append(changes, c.String(args[c.At], args[c.Since]))
			}
			if control != "" {
				key, err := controlKey(runs[len(runs)-1], control)
				if err != nil {
					return usage(err)
				}
				o.Control = key
			}
			res, verdicts := compare.Replay(runs, o)
			if len(res.Trials) == 0 {
				// A gate that compared nothing must not pass.
				return withCode(exitNotJudged, fmt.Errorf("nothing compared: no trial of %s matches a trial of the runs before it (codec, schema, size and settings)", args[len(args)-1]))
			}
			var err error
			if output == "json" {
				err = report.JSON(cmd.OutOrStdout(), struct {
					compare.Result
					Method  string            `json:"method"`
					History []compare.Verdict `json:"history"`
					// Changes are what changed between the runs besides the spec.
					Changes []string `json:"changes,omitempty"`
				}{res, res.Method(o), verdicts, changes})
			} else {
				err = compareTable(cmd.OutOrStdout(), res, o, args, verdicts, changes)
			}
			if err != nil {
				return err
			}
			switch res.Verdict {
			case compare.Regressed:
				return withCode(exitRegressed, fmt.Errorf("regression against the baseline: %v", res.Flagged(compare.Regressed)))
			case compare.EnvironmentShifted:
				return withCode(exitEnvironmentShifted, fmt.Errorf("environment shifted: the trials moved with the control trial or a slower machine probe: %v", res.Flagged(compare.EnvironmentShifted)))
			case compare.NotJudged:
				return withCode(exitNotJudged, fmt.Errorf("not judged: %d earlier run(s); a verdict needs at least %d (--min-runs %d baseline runs before the streak's %d: --persistence − 1)",
					len(runs)-1, o.Needed(), o.MinRuns, o.Persistence-1))
			}
			return nil
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	c.Flags().Float64Var(&o.Thresholds.ThroughputDropPercent, "throughput-drop-percent", o.Thresholds.ThroughputDropPercent, "records/s lower than the baseline by more than this can breach")
	c.Flags().Float64Var(&o.Thresholds.P99RisePercent, "p99-rise-percent", o.Thresholds.P99RisePercent, "end-to-end p99 higher than the baseline by more than this can breach")
	c.Flags().Float64Var(&o.Thresholds.SerializeRisePercent, "serialize-rise-percent", o.Thresholds.SerializeRisePercent, "serialize µs higher than the baseline by more than this can breach")
	c.Flags().IntVar(&o.BaselineRuns, "baseline-runs", o.BaselineRuns, "how many earlier runs make a run's baseline")
	c.Flags().IntVar(&o.MinRuns, "min-runs", o.MinRuns, "the fewest earlier runs a metric is judged with")
	c.Flags().IntVar(&o.Persistence, "persistence", o.Persistence, "consecutive breaching runs before a metric is Regressed (1: at once)")
	c.Flags().StringVar(&control, "control", "", "the control trial, by name (default: the candidate's first trial)")
	c.Flags().StringVar(&schedule, "schedule", "", "a SerializationSchedule file: judge with its thresholds, baseline and persistence "+
		"(as it judges its runs; serdebench run -f on it runs its template), the flags above set explicitly overriding them")
	return c
}

// scheduleOptions sets o from the schedule file's spec, except for the options
// the command line sets explicitly.
func scheduleOptions(cmd *cobra.Command, path string, o *compare.Options) error {
	s, err := experiment.LoadSchedule(path)
	if err != nil {
		return usage(fmt.Errorf("--schedule: %w", err))
	}
	from := compare.ScheduleOptions(&s.Spec)
	for flag, set := range map[string]func(){
		"throughput-drop-percent": func() { o.Thresholds.ThroughputDropPercent = from.Thresholds.ThroughputDropPercent },
		"p99-rise-percent":        func() { o.Thresholds.P99RisePercent = from.Thresholds.P99RisePercent },
		"serialize-rise-percent":  func() { o.Thresholds.SerializeRisePercent = from.Thresholds.SerializeRisePercent },
		"baseline-runs":           func() { o.BaselineRuns = from.BaselineRuns },
		"min-runs":                func() { o.MinRuns = from.MinRuns },
		"persistence":             func() { o.Persistence = from.Persistence },
	} {
		if !cmd.Flags().Changed(flag) {
			set()
		}
	}
	return nil
}

// controlKey is the key of the candidate's trial named name.
func controlKey(rows []report.Row, name string) (string, error) {
	var names []string
	for _, r := range rows {
		if report.ConfigOf(r) == name || r.Name == name {
			return compare.Key(r), nil
		}
		names = append(names, report.ConfigOf(r))
	}
	return "", fmt.Errorf("--control %s: no such trial in the candidate (%s)", name, strings.Join(names, ", "))
}

func compareTable(w io.Writer, res compare.Result, o compare.Options, args []string, history []compare.Verdict, changes []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	conf := fmt.Sprintf("%.0f %% CI", 100*stats.Confidence)
	fmt.Fprintf(tw, "TRIAL\tMETRIC\tUNIT\tRUNS\tBASELINE\tSPREAD %%\tCANDIDATE\tCHANGE %%\tCHANGE %s %%\tTESTED ON\tTHIS RUN %% (BOUND, CONF)\tp (Holm)\tLAST %d RUNS %% (BOUND, CONF) p\tVERDICT\t\n", conf, o.Persistence)
	num := func(v compare.Num, format string) string {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return "n/a"
		}
		return fmt.Sprintf(format, float64(v))
	}
	test := func(x *compare.Test) string {
		if x == nil {
			return "-"
		}
		return x.Cell()
	}
	for _, t := range res.Trials {
		name := t.Name
		if t.Control {
			name += " (control)"
		}
		for _, m := range t.Metrics {
			ci := "n/a"
			if !math.IsNaN(float64(m.ChangeLowPercent)) {
				ci = fmt.Sprintf("%+.1f…%+.1f", m.ChangeLowPercent, m.ChangeHighPercent)
			}
			on := "-"
			if m.Tested != nil {
				on = m.Tested.On()
			}
			streak := "-"
			if st := m.StreakTest(); st != nil {
				streak = fmt.Sprintf("%s p %s", test(st), num(st.P, "%.3f"))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, m.Name, m.Unit, m.BaselineRuns,
				num(m.Baseline, "%.2f"), num(m.SpreadPercent, "%.1f"), num(m.Candidate, "%.2f"), num(m.ChangePercent, "%+.1f"), ci,
				on, test(m.Tested), num(m.P, "%.3f"), streak, m.Verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "RUNS: baseline runs, each one value (the median of its repetitions); BASELINE: their geometric mean; SPREAD: the noise between them\n")
	fmt.Fprintf(w, "(standard deviation of their logarithms). CHANGE: the candidate's from BASELINE, with the interval of the level's change at %.0f %%\n", 100*stats.Confidence)
	fmt.Fprintf(w, "(Student's t, one more run, two-sided: descriptive). The verdicts rest on the tests: TESTED ON the control trial of each run (the change\n")
	fmt.Fprintf(w, "relative to it) or the trial's own baseline; THIS RUN and LAST %d RUNS: the tested change with its one-sided bound in the worse\n", o.Persistence)
	fmt.Fprintf(w, "direction (LAST %d RUNS of an Improved metric: its test in the better direction) at the confidence the Holm-corrected test\n", o.Persistence)
	fmt.Fprintf(w, "faced (beyond 0 exactly when p < %.2f). Method: %s.\n", stats.Alpha, res.Method(o))
	for _, p := range res.Probe {
		shifted := p.Finding()
		if p.Shifted {
			shifted = strings.ToUpper(shifted) // the one a reader must not miss
		}
		fmt.Fprintf(w, "machine probe %s: this run %s %s against %s over %d baseline runs; the last %d runs' change %s %% [%s, %s] at %.0f %%, p %s (slower, Holm): %s\n", p.Name,
			num(p.Candidate, "%.0f"), p.Unit, num(p.Baseline, "%.0f"), p.BaselineRuns, p.StreakRuns, num(p.ChangePercent, "%+.1f"), num(p.ChangeLowPercent, "%+.1f"),
			num(p.ChangeHighPercent, "%+.1f"), 100*p.ChangeConfidence, num(p.P, "%.3f"), shifted)
	}
	var hist []string
	for i, v := range history {
		hist = append(hist, fmt.Sprintf("%s %s", args[i], v))
	}
	fmt.Fprintf(w, "history, oldest first: %s\n", strings.Join(hist, ", "))
	for _, i := range res.Excluded {
		fmt.Fprintf(w, "left out of the baseline, every trial far slower than the other runs (a cold broker?): %s\n", args[i])
	}
	for _, u := range res.Unmatched {
		fmt.Fprintf(w, "not in any earlier run: %s\n", u)
	}
	for _, m := range res.Missing {
		fmt.Fprintf(w, "in an earlier run, not in the candidate: %s\n", m)
	}
	// Beside the verdict: a change of the stack at the run a metric moved is the
	// likeliest cause.
	for _, c := range changes {
		fmt.Fprintf(w, "changed: %s\n", c)
	}
	return nil
}
