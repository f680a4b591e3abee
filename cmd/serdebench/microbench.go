package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/microbench"
	"github.com/serdebench/serdebench/internal/report"
)

func microbenchCmd() *cobra.Command {
	var file, e2eFile, output string
	var benchTime time.Duration
	var nRuns int
	c := &cobra.Command{
		Use:   "microbench -f experiment.yaml [--e2e results.json]",
		Short: "Run an experiment's codecs, payloads and compressors in process, beside its end-to-end results",
		Long: "Measures Marshal, Unmarshal and payload compression of the experiment's codecs on the records its producers " +
			"send, without Kafka (ns, heap bytes and allocations per record, encoded size). With --e2e (the JSON of " +
			"`serdebench run -o json`, or a SerializationResult as `kubectl get -o yaml` or `serdebench get result -o json` " +
			"prints it) each row stands beside the end-to-end trial of the same codec, payload and compressor, and both " +
			"rankings are shown. With --runs N every case is measured N times: each cost is then a median with its interval, " +
			"and a rank counts only the codecs measurably cheaper, so codecs the runs cannot tell apart share it.\n\n" +
			exitHelp(exitOK, exitError, exitUsage, exitInterrupted),
		Example: `  serdebench microbench -f config/samples/thesis-batch.yaml
  # Beside the end-to-end run of the same file, 5 runs each
  serdebench microbench -f config/samples/thesis-batch.yaml --e2e thesis.json --runs 5`,
		Args: positional(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := outputOneOf(output, "table", "json", "csv"); err != nil {
				return err
			}
			if benchTime < time.Millisecond || benchTime > 10*time.Second {
				return usagef("--benchtime: must be between 1ms and 10s, got %s", benchTime)
			}
			if nRuns < 1 || nRuns > 30 {
				return usagef("--runs: must be between 1 and 30, got %d", nRuns)
			}
			_, trials, _, err := load(file)
			if err != nil {
				return err
			}
			var e2e []report.Row
			if e2eFile != "" {
				if e2e, err = readRows(e2eFile); err != nil {
					return usage(fmt.Errorf("--e2e: %w", err))
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cases := microbench.Cases(trials)
			// A registry variant's encoding is its format's, which microbench measures;
			// its header's cost needs the registry and is in the end-to-end result.
			cases = slices.DeleteFunc(cases, func(t trial.Trial) bool {
				if t.Codec.UsesRegistry() {
					fmt.Fprintf(cmd.ErrOrStderr(), "microbench: %s skipped: %s encodes as its format does, measured in process as that codec; "+
						"its registry header's cost is the end-to-end result's registry block\n", t.Name, t.Codec)
				}
				return t.Codec.UsesRegistry()
			})
			// Every run measures every case, so that drift over the runs hits all alike.
			var runs [][]microbench.Result
			for k := 1; k <= nRuns; k++ {
				prefix := "microbench: "
				if nRuns > 1 {
					prefix += fmt.Sprintf("run %d/%d: ", k, nRuns)
				}
				results, err := microbench.Run(ctx, cases, benchTime, nil, func(t trial.Trial) {
					fmt.Fprintln(cmd.ErrOrStderr(), prefix+t.Name)
				})
				if err != nil {
					if ctx.Err() != nil {
						return withCode(exitInterrupted, fmt.Errorf("interrupted: %w", err))
					}
					return err
				}
				runs = append(runs, results)
			}
			results := runs[0]
			if nRuns > 1 {
				if results, err = microbench.Merge(runs); err != nil {
					return err
				}
			}
			rows := microbench.Join(results, e2e)
			if e2eFile != "" && len(rows) == 0 {
				return usagef("--e2e %s: no trial has a codec, payload and compressor of this experiment", e2eFile)
			}
			out := cmd.OutOrStdout()
			switch output {
			case "json":
				return report.JSON(out, rows)
			case "csv":
				return microbench.CSV(out, rows)
			}
			return microbench.Table(out, rows)
		},
	}
	c.Flags().StringVarP(&file, "file", "f", "", "experiment file (YAML or JSON; or a schedule's, for its template)")
	c.Flags().StringVar(&e2eFile, "e2e", "", "end-to-end results to compare with: serdebench run -o json output, or a SerializationResult (YAML or JSON)")
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or csv")
	c.Flags().DurationVar(&benchTime, "benchtime", 500*time.Millisecond, "time per measured operation and case")
	c.Flags().IntVar(&nRuns, "runs", 1, "times to measure every case (each JVM measurement in a new JVM): above 1, ranks share where the runs cannot tell codecs apart, and each cost has its interval")
	required(c, "file")
	return c
}
