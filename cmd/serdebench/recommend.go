package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

func recommendCmd() *cobra.Command {
	var f clusterFlags
	var optimize string
	c := &cobra.Command{
		Use:   "recommend RUN",
		Short: "Name the trial to use, the ones that tie with it, and how much worse each other is",
		Long: "RUN is a `serdebench run -o json` report, a SerializationResult file or a result's name in the cluster. The " +
			"objective is the experiment's spec.objective (a metric to make best under constraints), --optimize's metric, or " +
			"by default the Pareto front over records/s, end-to-end p99, bytes per record and worker CPU per record, of which " +
			"the highest records/s is chosen. Every other trial is compared with the chosen one over their repetitions " +
			"(relative change with its interval and confidence, Mann-Whitney U, Holm-corrected over all of them): those the " +
			"corrected test cannot tell from it tie. With too few repetitions it says how many it needs.\n\n" +
			exitHelp(exitOK, exitError, exitUsage),
		Example: `  serdebench recommend thesis.json
  serdebench recommend nightly-29378400 -n kafka-bench --optimize endToEndMicros.p99`,
		Args: positional(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := loadRun(cmd.Context(), &f, args[0])
			if err != nil {
				return err
			}
			o := run.Objective
			if optimize != "" {
				o = &v1alpha1.Objective{Optimize: optimize}
				if run.Objective != nil {
					o.Constraints = run.Objective.Constraints
				}
				if err := recommend.Check(&v1alpha1.Objective{Optimize: optimize}); err != nil {
					return usage(fmt.Errorf("--optimize: %w", err))
				}
			}
			res, err := recommend.Recommend(run.Runs, o)
			if err != nil {
				return err
			}
			return recommendation(cmd.OutOrStdout(), res, run.TrialSeconds, true)
		},
	}
	f.bind(c)
	c.Flags().StringVar(&optimize, "optimize", "", "the metric to make best instead of spec.objective's (a statistics name, e.g. endToEndMicros.p99)")
	return c
}

// recommendation writes a recommendation: what to run when it is inconclusive,
// then each choice in a line and, with alternatives, every other trial against
// its best.
func recommendation(w io.Writer, r recommend.Result, trialSeconds int, alternatives bool) error {
	say := func(format string, a ...any) { fmt.Fprint(w, report.Wrap(fmt.Sprintf(format, a...))) }
	say("\nRecommendation per payload, by %s:\n", r.Objective)
	if a := r.Advice(trialSeconds); a != "" {
		say("  %s\n", a)
	}
	for _, c := range r.Choices {
		say("  %s\n", r.Line(c))
		if len(c.Front) > 1 && !c.Inconclusive() {
			say("    Pareto front (no other trial is better in every one of its metrics): %s\n", strings.Join(c.Front, ", "))
		}
		for _, x := range c.Infeasible {
			say("    ruled out: %s\n", x)
		}
		if !alternatives || len(c.Others) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "    TRIAL\t%s vs BEST %%\tINTERVAL %%\tCONFIDENCE\tp (Holm)\t\t\n", r.Metric)
		for _, o := range c.Others {
			ci, conf, p := "-", "-", "-"
			if o.Change.Confidence > 0 {
				ci, conf = fmt.Sprintf("%+.1f…%+.1f", o.Change.LowPercent, o.Change.HighPercent), fmt.Sprintf("%.1f %%", 100*o.Change.Confidence)
			}
			// A p-value only where the test could decide.
			if !c.Inconclusive() && !math.IsNaN(o.P) {
				p = fmt.Sprintf("%.3f", o.P)
			}
			verdict := "worse"
			switch {
			case c.Inconclusive():
				verdict = "undecided"
			case o.Tie:
				verdict = "not told apart; " + o.Separation()
			}
			fmt.Fprintf(tw, "    %s\t%+.1f\t%s\t%s\t%s\t%s\t\n", o.Name, o.Change.Percent, ci, conf, p, verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	say("Method: within each payload, each trial its median over its repetitions; against the best, the Hodges-Lehmann change of logarithms with its interval, "+
		"Mann-Whitney U, Holm-corrected over all %d tests together at %.2f; \"not told apart\" is not shown different, not shown equal, and the repetitions "+
		"that would tell find the change measured %.0f %% of the time; the best's worth apart from its choice from %d random splits of the repetitions "+
		"into a part that picks and a part that measures (docs/measurement.md).\n", r.Tests, stats.Alpha, 100*stats.Power, stats.Splits)
	return nil
}

// tableWithRecommendation writes the table (every column when wide), each
// payload's recommended row marked, and under it what it could tell apart and
// the recommendation by spec.objective.
func tableWithRecommendation(w io.Writer, runs []report.Row, spec v1alpha1.ExperimentSpec, wide bool) error {
	runs = report.Stopped(runs, spec.RepeatUntil != nil)
	r, recErr := recommend.Recommend(runs, spec.Objective)
	table := func() error { return report.Table(w, runs, r.Marks()) }
	if wide {
		table = func() error { return report.WideTable(w, runs) }
	}
	if err := table(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if s := report.Stopping(runs, spec.RepeatUntil); s != nil {
		report.StoppingLine(w, s, spec)
	}
	report.Planning(w, report.PlanOf(runs), "sensitivity: ")
	if recErr != nil {
		_, werr := fmt.Fprintf(w, "\nNo recommendation: %v\n", recErr)
		return werr
	}
	return recommendation(w, r, recommend.TrialSeconds(spec), false)
}
