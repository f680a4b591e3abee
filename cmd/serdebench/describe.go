package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
)

func describeCmd() *cobra.Command {
	c := &cobra.Command{Use: "describe", Short: "Show one object of a cluster in detail, its events included",
		Example: "  serdebench describe experiment thesis-batch -n kafka-bench"}
	group(c)
	var f clusterFlags
	x := &cobra.Command{
		Use:     "experiment NAME",
		Aliases: []string{"experiments", "sx"},
		Short:   "Show an experiment: its stage, conditions, trials, events and its result's verdict",
		Long: "Shows a SerializationExperiment as `kubectl describe` would, in serdebench's terms: the stage and its " +
			"conditions with reason and message, every trial's phase, attempt, duration and message, the events the " +
			"operator recorded for it, and, once it has a result, that result's recommendation and verdict.\n\n" +
			exitHelp(exitOK, exitError, exitUsage),
		Example: `  serdebench describe experiment thesis-batch -n kafka-bench
  serdebench describe sx thesis-batch -n kafka-bench`,
		Args: positional(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := f.client()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			d, err := describeExperiment(ctx, cl, ns, args[0])
			if err != nil {
				return err
			}
			return d.write(cmd.OutOrStdout(), time.Now())
		},
	}
	f.bind(x)
	c.AddCommand(x)
	return c
}

// experimentView is what describe shows of an experiment: the object, its
// events and its result (nil until it has one or when it is gone).
type experimentView struct {
	x      *v1alpha1.SerializationExperiment
	events []corev1.Event
	result *v1alpha1.SerializationResult
	// resultErr says why a referenced result could not be read.
	resultErr error
}

// describeExperiment reads the experiment, its events and its result.
func describeExperiment(ctx context.Context, cl client.Client, ns, name string) (*experimentView, error) {
	x := &v1alpha1.SerializationExperiment{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, x); err != nil {
		return nil, fmt.Errorf("get serializationexperiment %s/%s: %w", ns, name, err)
	}
	var events corev1.EventList
	if err := cl.List(ctx, &events, client.InNamespace(ns),
		client.MatchingFields{"involvedObject.name": name, "involvedObject.uid": string(x.UID)}); err != nil {
		return nil, fmt.Errorf("list the events of %s/%s: %w", ns, name, err)
	}
	v := &experimentView{x: x, events: events.Items}
	slices.SortStableFunc(v.events, func(a, b corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	if ref := x.Status.ResultRef; ref != nil {
		res := &v1alpha1.SerializationResult{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, res); err != nil {
			v.resultErr = err
		} else {
			v.result = res
		}
	}
	return v, nil
}

// eventTime is when an event last happened, whichever API wrote it.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// write prints the view; ages are relative to now.
func (v *experimentView) write(w io.Writer, now time.Time) error {
	x, st := v.x, v.x.Status
	age := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return duration.HumanDuration(now.Sub(t))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Name:\t%s\n", x.Name)
	fmt.Fprintf(tw, "Namespace:\t%s\n", x.Namespace)
	fmt.Fprintf(tw, "Created:\t%s (%s ago)\n", x.CreationTimestamp.UTC().Format(time.RFC3339), age(x.CreationTimestamp.Time))
	stage := string(st.Stage)
	if stage == "" {
		stage = "not started"
	}
	if st.ObservedGeneration != x.Generation {
		stage += fmt.Sprintf(" (the operator has not yet seen generation %d; it last saw %d)", x.Generation, st.ObservedGeneration)
	}
	fmt.Fprintf(tw, "Stage:\t%s\n", stage)
	fmt.Fprintf(tw, "Trials:\t%d of %d done\n", st.CompletedTrials, st.TrialCount)
	if st.StartTime != nil {
		ran := "running for " + duration.HumanDuration(now.Sub(st.StartTime.Time))
		if st.CompletionTime != nil {
			ran = "took " + duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time))
		}
		fmt.Fprintf(tw, "Started:\t%s (%s)\n", st.StartTime.UTC().Format(time.RFC3339), ran)
	}
	if st.ResultRef != nil {
		fmt.Fprintf(tw, "Result:\t%s (serdebench get result %s -n %s)\n", st.ResultRef.Name, st.ResultRef.Name, x.Namespace)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	conditions := make([][]string, len(st.Conditions))
	for i, c := range st.Conditions {
		conditions[i] = []string{c.Type, string(c.Status), c.Reason, age(c.LastTransitionTime.Time), c.Message}
	}
	if err := section(w, "Conditions", "none yet", []string{"TYPE", "STATUS", "REASON", "SINCE", "MESSAGE"}, conditions); err != nil {
		return err
	}
	trials := make([][]string, len(st.Trials))
	for i, t := range st.Trials {
		took := "-"
		switch {
		case t.StartTime != nil && t.CompletionTime != nil:
			took = duration.HumanDuration(t.CompletionTime.Sub(t.StartTime.Time))
		case t.StartTime != nil:
			took = duration.HumanDuration(now.Sub(t.StartTime.Time)) + " so far"
		}
		attempt := "-"
		if t.Attempt > 0 {
			attempt = fmt.Sprint(t.Attempt)
		}
		trials[i] = []string{t.Name, string(t.Phase), attempt, took, t.Message}
	}
	if err := section(w, "Trials", "none yet", []string{"NAME", "PHASE", "ATTEMPT", "TOOK", "MESSAGE"}, trials); err != nil {
		return err
	}

	if st.ResultRef != nil {
		fmt.Fprintln(w, "\nVerdict:")
		v.writeVerdict(w)
	}

	events := make([][]string, len(v.events))
	for i, e := range v.events {
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		seen := age(eventTime(e))
		if e.Count > 1 {
			seen += fmt.Sprintf(" (x%d)", e.Count)
		}
		events[i] = []string{e.Type, e.Reason, seen, from, strings.TrimSpace(e.Message)}
	}
	return section(w, "Events", "none (events expire after an hour by default)", []string{"TYPE", "REASON", "AGE", "FROM", "MESSAGE"}, events)
}

// section writes a titled table of rows under header, indented, or empty when
// there are none.
func section(w io.Writer, title, empty string, header []string, rows [][]string) error {
	fmt.Fprintf(w, "\n%s:\n", title)
	if len(rows) == 0 {
		fmt.Fprintln(w, "  "+empty)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// writeVerdict prints the result's recommendation and, for a scheduled run, its
// comparison with the runs before it.
func (v *experimentView) writeVerdict(w io.Writer) {
	if v.result == nil {
		fmt.Fprintf(w, "  the result %s could not be read: %v\n", v.x.Status.ResultRef.Name, v.resultErr)
		return
	}
	r := v.result
	if rec := r.Recommendation; rec != nil {
		say := func(format string, a ...any) { fmt.Fprint(w, report.Wrap(fmt.Sprintf(format, a...))) }
		say("  Recommendation per payload, by %s:\n", rec.Objective)
		if rec.Message != "" {
			say("    none: %s\n", rec.Message)
		}
		if rec.Advice != "" {
			say("    %s\n", rec.Advice)
		}
		for _, c := range rec.Choices {
			say("    %s\n", c.Summary)
		}
	} else {
		fmt.Fprintln(w, "  no recommendation")
	}
	if cmp := r.Comparison; cmp != nil {
		fmt.Fprintf(w, "  Against schedule %s's baseline (%d runs): %s\n", cmp.Schedule, len(cmp.BaselineResults), cmp.Verdict)
	}
}
