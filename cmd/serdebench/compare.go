package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/report"
)

// errRegressed makes the command exit with exitRegressed.
var errRegressed = errors.New("regression against the baseline")

// exitRegressed is compare's exit code when a trial regressed, for CI gates.
const exitRegressed = 3

func compareCmd() *cobra.Command {
	var f clusterFlags
	var output string
	th := compare.DefaultThresholds
	c := &cobra.Command{
		Use:   "compare BASELINE... CANDIDATE",
		Short: "Compare a run with one or more baseline runs, trial by trial; exit 3 on a regression",
		Long: "Each argument is a `serdebench run -o json` report, a SerializationResult file (YAML or JSON), or the name " +
			"of a SerializationResult in the cluster (--kubeconfig, -n). Trials match by codec, schema, size and settings; " +
			"a trial's repetitions (spec.repetitions) are its values and every figure is their median. DIFF says whether the " +
			"change is significant (Mann-Whitney U test, p < 0.05: needs 4 repetitions on each side; ~ where it is not), " +
			"with the change's 95 % interval. A metric regresses when it is worse than the baselines' median by more than " +
			"its threshold and its interval lies beyond the baseline's (with single runs and up to 7 baseline values: worse than every baseline run), " +
			"so noise is not an alert.",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "table" && output != "json" {
				return fmt.Errorf("--output: must be table or json, got %q", output)
			}
			runs := make([][]report.Row, len(args))
			for i, a := range args {
				run, err := loadRun(cmd.Context(), &f, a)
				if err != nil {
					return err
				}
				runs[i] = run.Runs // every repetition: the comparison tests them
			}
			res := compare.Compare(runs[:len(runs)-1], runs[len(runs)-1], th)
			if len(res.Trials) == 0 {
				// A gate that compared nothing must not pass.
				return fmt.Errorf("nothing compared: no trial of %s matches a baseline trial (codec, schema, size and settings)", args[len(args)-1])
			}
			var err error
			if output == "json" {
				err = report.JSON(cmd.OutOrStdout(), res)
			} else {
				err = compareTable(cmd.OutOrStdout(), res)
			}
			if err != nil {
				return err
			}
			if res.Regressed {
				return fmt.Errorf("%w: %v", errRegressed, res.RegressedTrials())
			}
			return nil
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	c.Flags().Float64Var(&th.ThroughputDropPercent, "throughput-drop-percent", th.ThroughputDropPercent, "records/s lower than the baseline by more than this regresses")
	c.Flags().Float64Var(&th.P99RisePercent, "p99-rise-percent", th.P99RisePercent, "end-to-end p99 higher than the baseline by more than this regresses")
	c.Flags().Float64Var(&th.SerializeRisePercent, "serialize-rise-percent", th.SerializeRisePercent, "serialize µs higher than the baseline by more than this regresses")
	return c
}

func compareTable(w io.Writer, res compare.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TRIAL\tRUNS\tMETRIC\tUNIT\tBASELINE\tBASELINE CI\tCANDIDATE\tCANDIDATE CI\tCHANGE %\tCHANGE CI %\tp\tDIFF\t\t")
	for _, t := range res.Trials {
		for _, m := range t.Metrics {
			flag, diff := "", "~"
			if m.Regressed {
				flag = "REGRESSED"
			}
			if m.Significant {
				diff = "different"
			}
			fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%.2f\t%.2f–%.2f\t%.2f\t%.2f–%.2f\t%+.1f\t%+.1f…%+.1f\t%.3f\t%s\t%s\t\n", t.Name,
				t.BaselineValues, t.Repetitions, m.Name, m.Unit, m.Baseline, m.BaselineLow, m.BaselineHigh, m.Candidate, m.CandidateLow,
				m.CandidateHigh, m.ChangePercent, m.ChangeLowPercent, m.ChangeHighPercent, m.P, diff, flag)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "RUNS: baseline values (every repetition of every baseline run) / candidate repetitions. CI: the median's interval (the range up to 7 values);")
	fmt.Fprintln(w, "CHANGE CI: the change's (Hodges-Lehmann shift over the baseline median). DIFF: different where the Mann-Whitney U test gives p < 0.05, else ~.")
	for _, u := range res.Unmatched {
		fmt.Fprintf(w, "not in any baseline: %s\n", u)
	}
	for _, m := range res.Missing {
		fmt.Fprintf(w, "in a baseline, not in the candidate: %s\n", m)
	}
	return nil
}
