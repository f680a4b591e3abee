package controllers

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/report"
)

// Reasons for the Regressed condition.
const (
	ReasonRegressed   = "Regressed"
	ReasonNoRegressed = "WithinThresholds"
	ReasonNoBaseline  = "NoBaseline"
)

// +kubebuilder:rbac:groups=serdebench.io,resources=serializationresults,verbs=get;list;watch;patch

// compareLatest compares the latest successful run (succeeded, oldest first) with the
// schedule's baseline once, and sets the Regressed condition.
func (r *ScheduleReconciler) compareLatest(ctx context.Context, s *serdebenchv1.SerializationSchedule, succeeded []serdebenchv1.SerializationExperiment) error {
	if len(succeeded) == 0 {
		return nil
	}
	latest := succeeded[len(succeeded)-1]
	if latest.Name == s.Status.LastComparedRun || latest.Status.ResultRef == nil {
		return nil
	}
	candidate, err := r.resultRows(ctx, s.Namespace, latest.Status.ResultRef.Name)
	if err != nil {
		return err
	}
	var baselines [][]report.Row
	var baselineNames []string
	b := s.Spec.Baseline
	switch b.Kind {
	case serdebenchv1.BaselinePinned:
		rows, err := r.resultRows(ctx, s.Namespace, b.ResultName)
		if err != nil {
			return err
		}
		baselines, baselineNames = append(baselines, rows), append(baselineNames, b.ResultName)
	default: // previous, rollingMedian
		n := 1
		if b.Kind == serdebenchv1.BaselineRollingMedian {
			n = max(int(b.Runs), 2)
		}
		prior := succeeded[:len(succeeded)-1]
		for i := len(prior) - 1; i >= 0 && len(baselines) < n; i-- {
			if prior[i].Status.ResultRef == nil {
				continue
			}
			rows, err := r.resultRows(ctx, s.Namespace, prior[i].Status.ResultRef.Name)
			if err != nil {
				return err
			}
			baselines, baselineNames = append(baselines, rows), append(baselineNames, prior[i].Status.ResultRef.Name)
		}
	}
	cond := metav1.Condition{Type: serdebenchv1.ConditionRegressed, ObservedGeneration: s.Generation}
	if len(baselines) == 0 {
		s.Status.LastComparedRun = latest.Name
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, ReasonNoBaseline, fmt.Sprintf("run %s has no baseline yet", latest.Name)
		meta.SetStatusCondition(&s.Status.Conditions, cond)
		return nil
	}
	th := s.Spec.Thresholds
	res := compare.Compare(baselines, candidate, compare.Thresholds{ThroughputDropPercent: float64(th.ThroughputDropPercent),
		P99RisePercent: float64(th.P99RisePercent), SerializeRisePercent: float64(th.SerializeRisePercent)})
	// The result says what it was compared with before the schedule records the run as
	// compared: a failed patch is retried on the next reconcile.
	if err := r.writeComparison(ctx, s, latest.Status.ResultRef.Name, baselineNames, res); err != nil {
		return err
	}
	s.Status.LastComparedRun = latest.Name
	if res.Regressed {
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonRegressed
		cond.Message = fmt.Sprintf("run %s against %d baseline run(s): %s", latest.Name, len(baselines), strings.Join(res.RegressedTrials(), "; "))
		r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonRegressed, "%s", cond.Message)
	} else {
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonNoRegressed
		cond.Message = fmt.Sprintf("run %s within thresholds of %d baseline run(s)", latest.Name, len(baselines))
	}
	meta.SetStatusCondition(&s.Status.Conditions, cond)
	return nil
}

// writeComparison patches the candidate result's comparison block.
func (r *ScheduleReconciler) writeComparison(ctx context.Context, s *serdebenchv1.SerializationSchedule, result string, baselines []string, res compare.Result) error {
	obj := &serdebenchv1.SerializationResult{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: result}, obj); err != nil {
		return fmt.Errorf("get result %s: %w", result, err)
	}
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Comparison = ComparisonOf(s, baselines, res)
	if err := r.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("write comparison to result %s: %w", result, err)
	}
	return nil
}

// ComparisonOf is a comparison as the SerializationResult records it.
func ComparisonOf(s *serdebenchv1.SerializationSchedule, baselines []string, res compare.Result) *serdebenchv1.ResultComparison {
	dec := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	out := &serdebenchv1.ResultComparison{Schedule: s.Name, BaselineKind: s.Spec.Baseline.Kind, BaselineResults: baselines,
		Thresholds: s.Spec.Thresholds, Regressed: res.Regressed, UnmatchedTrials: res.Unmatched}
	for _, t := range res.Trials {
		tc := serdebenchv1.TrialComparison{Name: t.Name, BaselineRuns: int32(t.Baselines), Regressed: t.Regressed}
		for _, m := range t.Metrics {
			tc.Metrics = append(tc.Metrics, serdebenchv1.MetricComparison{Name: m.Name, Unit: m.Unit, Baseline: dec(m.Baseline),
				BaselineMin: dec(m.Min), BaselineMax: dec(m.Max), Candidate: dec(m.Candidate), ChangePercent: dec(m.ChangePercent), Regressed: m.Regressed})
		}
		out.Trials = append(out.Trials, tc)
	}
	return out
}

func (r *ScheduleReconciler) resultRows(ctx context.Context, ns, name string) ([]report.Row, error) {
	res := &serdebenchv1.SerializationResult{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, res); err != nil {
		return nil, fmt.Errorf("get result %s: %w", name, err)
	}
	return report.ResultRows(res), nil
}
