package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/htmlreport"
)

func reportCmd() *cobra.Command {
	var f clusterFlags
	var out, schedule string
	c := &cobra.Command{
		Short: "Write one self-contained HTML report (charts, table, environment) of one run, or compare several",
		Use:   "report [RUN...] [--schedule NAME] [-o report.html]",
		Long: "Each RUN is a `serdebench run -o json` report, a SerializationResult file (YAML or JSON), or the name of a " +
			"SerializationResult in the cluster (--kubeconfig, -n). With several runs, the charts show them side by side " +
			"and the last is compared with the ones before it, as `serdebench compare` does. The file carries its charting " +
			"library inline and opens offline.\n\n" + exitHelp(exitOK, exitError, exitUsage),
		Example: `  serdebench report thesis.json -o thesis.html
  # Three nights side by side, the last compared with the two before it
  serdebench report night-1.json night-2.json night-3.json -o nights.html
  # Every result of a schedule in the cluster
  serdebench report --schedule nightly -n kafka-bench -o nightly.html`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if schedule != "" {
				names, err := scheduleResults(cmd.Context(), &f, schedule)
				if err != nil {
					return err
				}
				args = append(names, args...)
			}
			if len(args) == 0 {
				return usagef("name at least one run, or --schedule")
			}
			runs := make([]htmlreport.Run, 0, len(args))
			for _, a := range args {
				run, err := loadRun(cmd.Context(), &f, a)
				if err != nil {
					return err
				}
				runs = append(runs, run)
			}
			var buf bytes.Buffer
			if err := htmlreport.Write(&buf, runs, time.Now()); err != nil {
				return err
			}
			if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
			abs, err := filepath.Abs(out)
			if err != nil {
				abs = out
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (%d KiB)\n", abs, (buf.Len()+1023)/1024)
			return nil
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&out, "output", "o", "serdebench-report.html", "the HTML file to write")
	c.Flags().StringVar(&schedule, "schedule", "", "also report a SerializationSchedule's successful runs in the cluster, oldest first (its history)")
	return c
}

// scheduleResults names the results of a schedule's successful runs, oldest first.
func scheduleResults(ctx context.Context, f *clusterFlags, schedule string) ([]string, error) {
	cl, ns, err := f.client()
	if err != nil {
		return nil, fmt.Errorf("--schedule needs a cluster: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	list := &v1alpha1.SerializationExperimentList{}
	if err := cl.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{v1alpha1.LabelSchedule: schedule}); err != nil {
		return nil, fmt.Errorf("list runs of schedule %s/%s: %w", ns, schedule, err)
	}
	slices.SortFunc(list.Items, func(a, b v1alpha1.SerializationExperiment) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	var names []string
	for _, x := range list.Items {
		if x.Status.Stage == v1alpha1.StageSucceeded && x.Status.ResultRef != nil {
			names = append(names, x.Status.ResultRef.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("schedule %s/%s has no successful run", ns, schedule)
	}
	return names, nil
}
