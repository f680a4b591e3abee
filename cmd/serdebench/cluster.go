package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
)

// clusterFlags select the cluster and namespace as kubectl does.
type clusterFlags struct {
	kubeconfig, namespace string
}

func (f *clusterFlags) bind(c *cobra.Command) {
	c.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "", "namespace (default: the kubeconfig context's)")
}

// config is the REST config and namespace the flags select.
func (f *clusterFlags) config() (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if f.kubeconfig != "" {
		rules.ExplicitPath = f.kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.Timeout = 30 * time.Second
	ns := f.namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", fmt.Errorf("namespace from kubeconfig: %w", err)
		}
	}
	return cfg, ns, nil
}

func (f *clusterFlags) client() (client.Client, string, error) {
	cfg, ns, err := f.config()
	if err != nil {
		return nil, "", err
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connect to %s: %w", cfg.Host, err)
	}
	return c, ns, nil
}

func getCmd() *cobra.Command {
	c := &cobra.Command{Use: "get", Short: "Show what the operator recorded in a cluster",
		Example: `  serdebench get experiments -n kafka-bench
  serdebench get result thesis-batch -n kafka-bench`}
	group(c)
	var f clusterFlags
	var output string
	result := &cobra.Command{
		Use:   "result NAME",
		Short: "Print a SerializationResult as the table `serdebench run` prints (or every column, JSON, CSV)",
		Long:  "Prints a SerializationResult of the cluster as the table `serdebench run` prints (120 columns; -o wide for every column), or as JSON or CSV.\n\n" + exitHelp(exitOK, exitError, exitUsage),
		Example: `  serdebench get result thesis-batch -n kafka-bench
  # Every column, and the clients' internals
  serdebench get result thesis-batch -n kafka-bench -o wide
  # For serdebench compare, report and recommend, or a spreadsheet
  serdebench get result thesis-batch -n kafka-bench -o json > thesis.json
  serdebench get result thesis-batch -n kafka-bench -o csv > thesis.csv`,
		Args: positional(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputOneOf(output, "table", "wide", "json", "csv"); err != nil {
				return err
			}
			cl, ns, err := f.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			res := &v1alpha1.SerializationResult{}
			if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: args[0]}, res); err != nil {
				return fmt.Errorf("get serializationresult %s/%s: %w", ns, args[0], err)
			}
			return printResult(cmd.OutOrStdout(), res, output)
		},
	}
	f.bind(result)
	result.Flags().StringVarP(&output, "output", "o", "table", "output format: table (fits 120 columns), wide (every column), json or csv")
	c.AddCommand(result, listCmd(kindExperiment), listCmd(kindSchedule), listCmd(kindResult))
	return c
}

// printResult writes the result in the chosen format; the table has a header naming
// the experiment, the Kafka and the images that ran it.
func printResult(w io.Writer, res *v1alpha1.SerializationResult, output string) error {
	switch output {
	case "json":
		return report.JSON(w, res)
	case "csv":
		return report.CSV(w, report.ResultRows(res))
	}
	e := res.Environment
	fmt.Fprintf(w, "SerializationResult %s/%s: experiment %s, %d trials\n", res.Namespace, res.Name, res.Experiment.Name, len(res.Trials))
	fmt.Fprintf(w, "Kafka: %s\n", e.KafkaRelease)
	if e.KafkaAPIVersions != "" {
		fmt.Fprintf(w, "Kafka APIs: %s\n", e.KafkaAPIVersions)
	}
	fmt.Fprintf(w, "Worker image: %s\n", e.WorkerImage)
	if len(e.WorkerImageIDs) > 0 {
		fmt.Fprintf(w, "Worker image ran: %s\n", strings.Join(e.WorkerImageIDs, ", "))
	}
	fmt.Fprintf(w, "Operator: %s; nodes: %s\n", e.OperatorVersion, strings.Join(e.NodeNames, ", "))
	if e.KubernetesVersion != "" {
		fmt.Fprintf(w, "Kubernetes: %s\n", e.KubernetesVersion)
	}
	if len(e.Software) > 0 {
		fmt.Fprintf(w, "Software: %s\n", report.SoftwareLine(e.Software))
	}
	if len(e.Machines) > 0 {
		fmt.Fprintf(w, "Machines: %s\n", report.MachinesLine(e.Machines))
	}
	if b := report.BrokerCPU(e.BrokerCPU); b != "" {
		fmt.Fprintf(w, "Broker CPU: %s\n", b)
	}
	if c := res.Comparison; c != nil {
		// A scheduled run: what changed since the runs it was judged against.
		fmt.Fprintf(w, "Compared with %d earlier run(s): %s\n", len(c.BaselineResults), c.Verdict)
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "changed: %s\n", ch)
		}
	}
	fmt.Fprintln(w)
	return tableWithRecommendation(w, report.ResultRows(res), res.Experiment.Spec.ExperimentSpec, output == "wide")
}

func waitCmd() *cobra.Command {
	var f clusterFlags
	var timeout, interval time.Duration
	var output string
	c := &cobra.Command{
		Use:   "wait NAME",
		Short: "Follow a SerializationExperiment until it succeeds or fails, then print its result",
		Long: "Prints each stage and trial change, and the result once the experiment succeeded. When it failed, the " +
			"error names the Failed condition's reason and message.\n\n" + exitHelp(exitOK, exitError, exitUsage, exitInterrupted),
		Example: `  kubectl apply -f config/samples/thesis-batch.yaml
  serdebench wait thesis-batch -n kafka-bench --timeout 1h
  # In a script: its result as JSON once it succeeded
  serdebench wait thesis-batch -n kafka-bench -o json > thesis.json || echo "exit $?"`,
		Args: positional(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputOneOf(output, "table", "wide", "json", "csv"); err != nil {
				return err
			}
			cl, ns, err := f.client()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			x, err := follow(ctx, cl, ns, args[0], interval, cmd.ErrOrStderr())
			if err != nil {
				if ctx.Err() != nil {
					return withCode(exitInterrupted, err)
				}
				return err
			}
			if x.Status.Stage == v1alpha1.StageFailed {
				cond := meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed)
				if cond != nil {
					return fmt.Errorf("experiment %s/%s failed: %s: %s", ns, x.Name, cond.Reason, cond.Message)
				}
				return fmt.Errorf("experiment %s/%s failed", ns, x.Name)
			}
			if x.Status.ResultRef == nil {
				return fmt.Errorf("experiment %s/%s succeeded without a result reference", ns, x.Name)
			}
			res := &v1alpha1.SerializationResult{}
			rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer rcancel()
			if err := cl.Get(rctx, client.ObjectKey{Namespace: ns, Name: x.Status.ResultRef.Name}, res); err != nil {
				return fmt.Errorf("get serializationresult %s/%s: %w", ns, x.Status.ResultRef.Name, err)
			}
			return printResult(cmd.OutOrStdout(), res, output)
		},
	}
	f.bind(c)
	c.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "give up after this long")
	c.Flags().DurationVar(&interval, "interval", time.Second, "how often to look")
	c.Flags().StringVarP(&output, "output", "o", "table", "result format: table (fits 120 columns), wide (every column), json or csv")
	return c
}

// follow polls the experiment until it ends (Succeeded or Failed), printing every
// stage and trial-phase change to log. It returns the final object, or an error
// when ctx ends first or the experiment cannot be read.
func follow(ctx context.Context, cl client.Client, ns, name string, interval time.Duration, log io.Writer) (*v1alpha1.SerializationExperiment, error) {
	seen := map[string]string{}
	shown := map[string]string{} // warning -> the trial it was first shown for
	start := time.Now()
	say := func(key, val, line string) {
		if seen[key] != val {
			seen[key] = val
			fmt.Fprintf(log, "[%5.1fs] %s\n", time.Since(start).Seconds(), line)
		}
	}
	for {
		x := &v1alpha1.SerializationExperiment{}
		err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, x)
		switch {
		case err == nil:
			if x.Status.ObservedGeneration == x.Generation {
				say("stage", string(x.Status.Stage), fmt.Sprintf("%s: %s (%d/%d trials done)", name, x.Status.Stage, x.Status.CompletedTrials, x.Status.TrialCount))
			}
			for i, t := range x.Status.Trials {
				line := fmt.Sprintf("  trial %d/%d %s: %s", i+1, len(x.Status.Trials), t.Name, t.Phase)
				if t.Attempt > 1 {
					line += fmt.Sprintf(" (attempt %d)", t.Attempt)
				}
				if t.Message != "" {
					line += ": " + sayOnce(shown, t.Name, t.Message)
				}
				say("trial/"+t.Name, fmt.Sprint(t.Phase, t.Attempt, t.Message), line)
			}
			if x.Status.ObservedGeneration == x.Generation && (x.Status.Stage == v1alpha1.StageSucceeded || x.Status.Stage == v1alpha1.StageFailed) {
				return x, nil
			}
		case ctx.Err() != nil:
		case apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
			// Waiting does not change these.
			return nil, fmt.Errorf("experiment %s/%s: %w", ns, name, err)
		default:
			// Transient API errors are retried until the deadline; say them once.
			say("error", err.Error(), "  (retrying) "+err.Error())
		}
		select {
		case <-ctx.Done():
			last := seen["stage"]
			if last == "" {
				last = "not seen"
			}
			return nil, fmt.Errorf("experiment %s/%s still %s after %s: %w", ns, name, last, time.Since(start).Round(time.Second), ctx.Err())
		case <-time.After(interval):
		}
	}
}

// sayOnce shortens a trial's message (warnings joined by "; ") to the warnings not
// yet shown for another trial: a warning every trial has is said once.
func sayOnce(shown map[string]string, trial, msg string) string {
	var out []string
	for _, warn := range strings.Split(msg, "; ") {
		first, ok := shown[warn]
		switch {
		case !ok:
			shown[warn] = trial
			out = append(out, warn)
		case first == trial:
			out = append(out, warn)
		default:
			out = append(out, "(warning as for "+first+")")
		}
	}
	return strings.Join(slices.Compact(out), "; ")
}
