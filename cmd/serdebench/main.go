// Command serdebench runs serialization experiments locally, without Kubernetes:
//
//	serdebench run -f experiment.yaml [--bootstrap host:port] [--output table|json|csv]
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/experiment"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/version"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	workerrun "github.com/serdebench/serdebench/workers/run"
	"github.com/serdebench/serdebench/workers/source"
)

func main() {
	// `serdebench run` runs its workers in this process: the same collector
	// setting as a worker pod's.
	workerrun.TuneGC(os.Getenv)
	os.Exit(exitCode(rootCmd().Execute()))
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{Use: "serdebench", Short: "Measure serialization formats and producer settings on Kafka", SilenceUsage: true,
		Long:    "Measure serialization formats and producer settings on Kafka.\n\n" + exitHelp(allExitCodes()...),
		Version: version.Get().String()}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	group(root)
	root.SetVersionTemplate("serdebench {{.Version}}\n")
	root.AddCommand(runCmd(), validateCmd(), microbenchCmd(), compareCmd(), recommendCmd(), reportCmd(), getCmd(), describeCmd(), waitCmd(), versionCmd())
	return root
}

func validateCmd() *cobra.Command {
	var file, noiseFrom string
	var f clusterFlags
	c := &cobra.Command{
		Use:   "validate -f experiment.yaml",
		Short: "Check an experiment file, print its trials and what it can tell apart",
		Long: "Checks the file as the API server would and prints the trials it expands into. Then it plans: with the " +
			"spec's repetitions and a noise level — records/s between repetitions within a run, from a previous result with " +
			"repetitions (--noise-from: a run -o json report, a SerializationResult file or a result's name) or else " +
			"this project's measured default — the smallest difference between a trial and the baseline trial " +
			"(spec.compare.baseline) the table's Holm-corrected test finds with 80 % power, or the repetitions it needs.\n\n" +
			exitHelp(exitOK, exitError, exitUsage),
		Example: `  serdebench validate -f config/samples/thesis-batch.yaml
  serdebench validate -f my-experiment.yaml --noise-from last-run.json`,
		Args: positional(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, trials, sizes, err := load(file)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			configs := map[string]bool{}
			for _, t := range trials {
				mark := ""
				if t.Reference {
					mark = "\t(baseline)"
				}
				fmt.Fprintf(out, "%s\t%s%s\n", t.Name, t.Settings.Describe(), mark)
				configs[t.Config] = true
			}
			for _, s := range sizes {
				fmt.Fprintf(out, "payload source: %s: every sample round-trips, mean %.0f B\n", s.Codec, s.MeanBytes)
			}
			noise, source := report.DefaultNoise, "this project's default: docs/measurement.md; --noise-from for your cluster's"
			if noiseFrom != "" {
				run, err := loadRun(cmd.Context(), &f, noiseFrom)
				if err != nil {
					return fmt.Errorf("--noise-from: %w", err)
				}
				n, df := report.NoiseOf(run.Runs)
				if df == 0 {
					return usagef("--noise-from %s: no trial was repeated, so it holds no noise to plan with (spec.repetitions above 1)", noiseFrom)
				}
				noise, source = n, fmt.Sprintf("from %s, %d degrees of freedom", noiseFrom, df)
			}
			report.Planning(out, report.PlanFor(len(configs), max(1, int(x.Spec.Repetitions)), noise, source), "planning: ")
			if u := x.Spec.RepeatUntil; u != nil {
				// The fewest rounds are above; the most, when the target is never met.
				report.Planning(out, report.PlanFor(len(configs), int(u.MaxRepetitions), noise, source), "planning at repeatUntil.maxRepetitions: ")
			}
			return nil
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&file, "file", "f", "", "experiment file (YAML or JSON; or a schedule's, for its template)")
	c.Flags().StringVar(&noiseFrom, "noise-from", "", "a previous result with repetitions whose noise to plan with")
	required(c, "file")
	return c
}

func runCmd() *cobra.Command {
	var file, bootstrap, output, brokerVersion, caFile, saslMechanism, faultInterface, faultBroker, schemaRegistry string
	var faultQueue uint16
	var quiet, useTLS, tlsInsecure, keepTopics bool
	var trialTimeout time.Duration
	c := &cobra.Command{
		Use:   "run -f experiment.yaml",
		Short: "Run an experiment's trials one at a time against a Kafka cluster",
		Long: "Runs the experiment file's trials one after another against a broker, without Kubernetes: the file is " +
			"checked as the API server would admit it (serdebench validate), each trial gets a topic of its own, its " +
			"producers and consumers run in this process, and the table (or -o json / csv) follows. spec.faults runs " +
			"on the local rig (root; docs/faults.md). A SerializationSchedule file runs once: the experiment its " +
			"template makes (serdebench compare --schedule judges such runs with its options).\n\n" +
			exitHelp(exitOK, exitError, exitUsage, exitInterrupted),
		Example: `  # The thesis's batch test against a broker on this machine
  serdebench run -f config/samples/thesis-batch.yaml

  # Another broker, the full report as JSON (for serdebench compare and report)
  serdebench run -f my-experiment.yaml --bootstrap kafka-0.example:9092 -o json > run.json

  # TLS and SCRAM
  SERDEBENCH_SASL_USERNAME=bench SERDEBENCH_SASL_PASSWORD=... \
    serdebench run -f my-experiment.yaml --bootstrap kafka.example:9093 --tls --sasl-mechanism SCRAM-SHA-512

  # Network faults on the local rig (root)
  make faults EXPERIMENT=config/samples/local/iov-network.yaml`,
		Args: positional(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if err := outputOneOf(output, "table", "wide", "json", "csv"); err != nil {
				return err
			}
			x, trials, _, err := load(file)
			if err != nil {
				return err
			}
			faults, err := localFaults(x, faultInterface, faultQueue, faultBroker)
			if err != nil {
				return err
			}
			if faults != nil && faults.Engine != nil {
				defer func() { _ = faults.Engine.Close() }()
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Whatever failed once a signal came was cut short by it.
			defer func() {
				if err != nil && ctx.Err() != nil {
					err = withCode(exitInterrupted, err)
				}
			}()
			// Workers bound their own waits; this bounds the command, whatever they do.
			// (Registered after stop, so it is unregistered before stop runs.)
			defer context.AfterFunc(ctx, func() {
				time.Sleep(stopDeadline)
				fmt.Fprintf(cmd.ErrOrStderr(), "serdebench: interrupted; workers did not stop within %s, exiting\n", stopDeadline)
				os.Exit(exitInterrupted)
			})()
			brokers := strings.Split(bootstrapFor(bootstrap, x.Spec.Kafka.BootstrapServers), ",")
			if faults != nil && faults.Broker != nil {
				if err := faults.Broker.Serves(ctx, brokers); err != nil {
					return fmt.Errorf("spec.faults: --fault-broker-script: %w", err)
				}
			}
			sec := kafkaconn.Security{TLS: useTLS, InsecureSkipVerify: tlsInsecure, SASLMechanism: saslMechanism,
				Username: os.Getenv("SERDEBENCH_SASL_USERNAME"), Password: os.Getenv("SERDEBENCH_SASL_PASSWORD")}
			if caFile != "" {
				if sec.CAPEM, err = os.ReadFile(caFile); err != nil {
					return fmt.Errorf("--tls-ca-file: %w", err)
				}
			}
			broker, err := runner.Broker(ctx, brokers, sec)
			if err != nil {
				return err
			}
			// The broker's own word wins (its metadata.version); the flag names the
			// release of a broker that sends none.
			if brokerVersion != "" && !broker.Spoke {
				broker.Release = brokerVersion
			}
			env := report.Environment{BrokerRelease: broker.Release, BrokerAPIVersions: broker.APIVersions, Brokers: brokers, WorkerVersion: version.String(),
				GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH,
				StartedAt: time.Now().UTC().Format(time.RFC3339)}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			var progress atomic.Int64
			bar := newBar(trials, quiet)
			done := make(chan struct{})
			go func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(200 * time.Millisecond):
						_ = bar.Set64(progress.Load())
					}
				}
			}()
			if schemaRegistry == "" && x.Spec.Kafka.SchemaRegistry != nil {
				schemaRegistry = x.Spec.Kafka.SchemaRegistry.URL
			}
			results, err := runner.Run(ctx, trials, runner.Options{Brokers: brokers, Security: sec, SchemaRegistry: schemaRegistry, Experiment: x.Name, Progress: &progress,
				TrialTimeout: trialTimeout, Log: log, KeepTopics: keepTopics || x.Spec.CleanupPolicy == v1alpha1.CleanupRetain, Faults: faults,
				OnTrial: func(t trial.Trial) { bar.Describe(fmt.Sprintf("%s (%d/%d)", t.Name, t.Index+1, len(trials))) },
				Stop: func(next trial.Trial, done []report.TrialResult) bool {
					_, stop := plan.Stop(x.Spec.ExperimentSpec, next, report.LocalRows(done))
					return stop
				}})
			close(done)
			_ = bar.Finish()
			fmt.Fprintln(cmd.ErrOrStderr())
			env.FinishedAt = time.Now().UTC().Format(time.RFC3339)
			host, _ := os.Hostname()
			for _, r := range results {
				env.Software = report.Software(env.Software, r.Summaries...)
				for _, s := range r.Summaries {
					env.Machines = report.Machines(env.Machines, host, s)
				}
			}
			out := cmd.OutOrStdout()
			var werr error
			switch output {
			case "json":
				rows := report.Stopped(report.LocalRows(results), x.Spec.RepeatUntil != nil)
				werr = report.JSON(out, report.Report{Experiment: x.Name, Environment: env, Spec: x.Spec, Trials: results, Statistics: report.Statistics(rows),
					Stopping: report.Stopping(rows, x.Spec.RepeatUntil)})
			case "csv":
				werr = report.CSV(out, report.Stopped(report.LocalRows(results), x.Spec.RepeatUntil != nil))
			default:
				werr = tableWithRecommendation(out, report.LocalRows(results), x.Spec.ExperimentSpec, output == "wide")
			}
			if err != nil {
				if ctx.Err() != nil {
					return withCode(exitInterrupted, fmt.Errorf("interrupted: %w", err))
				}
				return err
			}
			return werr
		},
	}
	c.Flags().StringVarP(&file, "file", "f", "", "experiment file (YAML or JSON; or a schedule's, for its template)")
	c.Flags().StringVar(&bootstrap, "bootstrap", "", "Kafka bootstrap servers (default: spec.kafka.bootstrapServers, else "+defaultBootstrap+")")
	c.Flags().StringVar(&schemaRegistry, "schema-registry", "", "the schema registry's Confluent-compatible API for the /registry codecs (default: spec.kafka.schemaRegistry.url)")
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table (fits 120 columns), wide (every column), json or csv")
	c.Flags().StringVar(&brokerVersion, "broker-version", os.Getenv("SERDEBENCH_KAFKA_VERSION"), "the broker's release, recorded in the JSON environment when the broker does not say it (no metadata.version in its API versions answer: before Kafka 3.3)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	c.Flags().BoolVar(&useTLS, "tls", false, "use TLS to the brokers")
	c.Flags().StringVar(&caFile, "tls-ca-file", "", "PEM CA bundle for TLS (default: system roots)")
	c.Flags().BoolVar(&tlsInsecure, "tls-insecure", false, "skip TLS certificate verification")
	c.Flags().StringVar(&saslMechanism, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; credentials from $SERDEBENCH_SASL_USERNAME and $SERDEBENCH_SASL_PASSWORD")
	c.Flags().DurationVar(&trialTimeout, "trial-timeout", 30*time.Minute, "fail a trial that takes longer")
	c.Flags().BoolVar(&keepTopics, "keep-topics", false, "keep each trial's topic (as cleanupPolicy: Retain does)")
	c.Flags().StringVar(&faultInterface, "fault-interface", os.Getenv("SERDEBENCH_FAULT_INTERFACE"),
		"spec.faults: the local rig's interface the broker's packets arrive on (hack/calibrate/netns.sh sets $SERDEBENCH_FAULT_INTERFACE); needs root")
	c.Flags().Uint16Var(&faultQueue, "fault-queue", defaultFaultQueue, "spec.faults: the NFQUEUE number the fault engine binds")
	c.Flags().StringVar(&faultBroker, "fault-broker-script", os.Getenv("SERDEBENCH_FAULT_BROKER_SCRIPT"),
		"spec.faults: the script that kills, stops and restarts the broker for pod faults (hack/kafka/kafka.sh: status, kill, down, up; run with this command's environment)")
	required(c, "file")
	return c
}

// load reads an experiment file, checks a payload source against its schema and
// codecs, and plans the trials. Its errors are usage errors: the file is what is wrong.
func load(file string) (*v1alpha1.SerializationExperiment, []trial.Trial, []codec.Size, error) {
	x, err := experiment.Load(file)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	var sizes []codec.Size
	if src := x.Spec.Payload.Source; src != nil {
		if err := experiment.ResolveSource(x, filepath.Dir(file)); err != nil {
			return nil, nil, nil, usage(err)
		}
		schema, samples, err := source.ReadFiles(trial.Source{SchemaFile: src.SchemaPath, SamplesFile: src.SamplesPath})
		if err != nil {
			return nil, nil, nil, usage(err)
		}
		if sizes, err = experiment.CheckSource(&x.Spec.ExperimentSpec, schema, samples); err != nil {
			return nil, nil, nil, usagef("%s: %w", src.SamplesPath, err)
		}
	}
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		return nil, nil, nil, usage(err)
	}
	return x, trials, sizes, nil
}

const defaultBootstrap = "127.0.0.1:9092"

// stopDeadline bounds how long the command runs on after SIGTERM or Ctrl-C.
const stopDeadline = 15 * time.Second

// bootstrapFor picks the flag, then the file's bootstrapServers, then the local broker.
func bootstrapFor(flag, fromSpec string) string {
	switch {
	case flag != "":
		return flag
	case fromSpec != "":
		return fromSpec
	}
	return defaultBootstrap
}

func newBar(trials []trial.Trial, quiet bool) *progressbar.ProgressBar {
	var total int64
	for _, t := range trials {
		total += t.Records * int64(t.Producers)
	}
	if total == 0 {
		total = -1 // duration-based: a spinner
	}
	opts := []progressbar.Option{progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(), progressbar.OptionSetItsString("rec"), progressbar.OptionShowIts(),
		progressbar.OptionThrottle(200 * time.Millisecond)}
	if quiet || !term.IsTerminal(int(os.Stderr.Fd())) {
		opts = append(opts, progressbar.OptionSetVisibility(false))
	}
	return progressbar.NewOptions64(total, opts...)
}
