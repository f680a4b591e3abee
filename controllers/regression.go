package controllers

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// ReasonBaselineMissing: the pinned baseline result does not exist.
	ReasonBaselineMissing = "BaselineMissing"
	// ReasonResultMissing: the run's own result is gone.
	ReasonResultMissing = "ResultMissing"
	// ReasonNothingMatched: no trial of the run matches a baseline trial.
	ReasonNothingMatched = "NothingMatched"
)

// +kubebuilder:rbac:groups=serdebench.io,resources=serializationresults,verbs=get;list;watch;patch

// compareLatest compares the latest successful run (succeeded, oldest first) with the
// schedule's baseline once, writes the result's comparison block and sets the
// Regressed condition. It returns the result as patched (nil when nothing was
// written), for the gauges: the cache may not have seen the patch yet. A result that
// is gone leaves the condition Unknown and the schedule running.
func (r *ScheduleReconciler) compareLatest(ctx context.Context, s *serdebenchv1.SerializationSchedule, succeeded []serdebenchv1.SerializationExperiment) (*serdebenchv1.SerializationResult, error) {
	if len(succeeded) == 0 {
		return nil, nil
	}
	latest := succeeded[len(succeeded)-1]
	if latest.Name == s.Status.LastComparedRun || latest.Status.ResultRef == nil {
		return nil, nil
	}
	cond := metav1.Condition{Type: serdebenchv1.ConditionRegressed, ObservedGeneration: s.Generation, Status: metav1.ConditionUnknown}
	unknown := func(reason, msg string) (*serdebenchv1.SerializationResult, error) {
		s.Status.LastComparedRun = latest.Name
		cond.Reason, cond.Message = reason, msg
		meta.SetStatusCondition(&s.Status.Conditions, cond)
		return nil, nil
	}
	candidate, err := r.resultRows(ctx, s.Namespace, latest.Status.ResultRef.Name)
	if apierrors.IsNotFound(err) {
		return unknown(ReasonResultMissing, fmt.Sprintf("run %s: its result %s is gone", latest.Name, latest.Status.ResultRef.Name))
	}
	if err != nil {
		return nil, err
	}
	var baselines [][]report.Row
	var baselineNames []string
	b := s.Spec.Baseline
	switch b.Kind {
	case serdebenchv1.BaselinePinned:
		rows, err := r.resultRows(ctx, s.Namespace, b.ResultName)
		if apierrors.IsNotFound(err) {
			msg := fmt.Sprintf("run %s not compared: the pinned baseline result %s does not exist", latest.Name, b.ResultName)
			r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonBaselineMissing, "%s", msg)
			return unknown(ReasonBaselineMissing, msg)
		}
		if err != nil {
			return nil, err
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
			if apierrors.IsNotFound(err) {
				continue // deleted by hand: the runs before it still count
			}
			if err != nil {
				return nil, err
			}
			baselines, baselineNames = append(baselines, rows), append(baselineNames, prior[i].Status.ResultRef.Name)
		}
	}
	if len(baselines) == 0 {
		return unknown(ReasonNoBaseline, fmt.Sprintf("run %s has no baseline yet", latest.Name))
	}
	th := s.Spec.Thresholds
	res := compare.Compare(baselines, candidate, compare.Thresholds{ThroughputDropPercent: float64(th.ThroughputDropPercent),
		P99RisePercent: float64(th.P99RisePercent), SerializeRisePercent: float64(th.SerializeRisePercent)})
	// The result says what it was compared with before the schedule records the run as
	// compared: a failed patch is retried on the next reconcile.
	patched, err := r.writeComparison(ctx, s, latest.Status.ResultRef.Name, baselineNames, res)
	if err != nil {
		return nil, err
	}
	s.Status.LastComparedRun = latest.Name
	if len(res.Trials) == 0 {
		cond.Reason = ReasonNothingMatched
		cond.Message = fmt.Sprintf("run %s: no trial matches a trial of the %d baseline run(s) by codec, schema, size and settings (did the template change?)", latest.Name, len(baselines))
		meta.SetStatusCondition(&s.Status.Conditions, cond)
		return patched, nil
	}
	if res.Regressed {
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonRegressed
		cond.Message = fmt.Sprintf("run %s against %d baseline run(s): %s", latest.Name, len(baselines), strings.Join(res.RegressedTrials(), "; "))
		r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonRegressed, "%s", cond.Message)
	} else {
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonNoRegressed
		cond.Message = fmt.Sprintf("run %s within thresholds of %d baseline run(s)", latest.Name, len(baselines))
	}
	meta.SetStatusCondition(&s.Status.Conditions, cond)
	return patched, nil
}

// writeComparison patches the candidate result's comparison block and returns the
// result as the API server stored it.
func (r *ScheduleReconciler) writeComparison(ctx context.Context, s *serdebenchv1.SerializationSchedule, result string, baselines []string, res compare.Result) (*serdebenchv1.SerializationResult, error) {
	obj := &serdebenchv1.SerializationResult{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: result}, obj); err != nil {
		return nil, fmt.Errorf("get result %s: %w", result, err)
	}
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Comparison = comparisonOf(s, baselines, res)
	if err := r.Patch(ctx, obj, patch); err != nil {
		return nil, fmt.Errorf("write comparison to result %s: %w", result, err)
	}
	return obj, nil
}

// comparisonOf is a comparison as the SerializationResult records it.
func comparisonOf(s *serdebenchv1.SerializationSchedule, baselines []string, res compare.Result) *serdebenchv1.ResultComparison {
	dec := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	out := &serdebenchv1.ResultComparison{Schedule: s.Name, BaselineKind: s.Spec.Baseline.Kind, BaselineResults: baselines,
		Thresholds: s.Spec.Thresholds, Regressed: res.Regressed, UnmatchedTrials: res.Unmatched, MissingTrials: res.Missing}
	for _, t := range res.Trials {
		tc := serdebenchv1.TrialComparison{Name: t.Name, BaselineRuns: int32(t.Baselines), Regressed: t.Regressed}
		for _, m := range t.Metrics {
			tc.Metrics = append(tc.Metrics, serdebenchv1.MetricComparison{Name: m.Name, Unit: m.Unit, Baseline: dec(m.Baseline),
				BaselineMin: dec(m.Min), BaselineMax: dec(m.Max), BaselineLow: dec(m.BaselineLow), BaselineHigh: dec(m.BaselineHigh),
				Candidate: dec(m.Candidate), CandidateLow: dec(m.CandidateLow), CandidateHigh: dec(m.CandidateHigh),
				ChangePercent: dec(m.ChangePercent), ChangeLowPercent: dec(m.ChangeLowPercent), ChangeHighPercent: dec(m.ChangeHighPercent),
				PValue: strconv.FormatFloat(m.P, 'f', 4, 64), Significant: m.Significant, Regressed: m.Regressed})
		}
		out.Trials = append(out.Trials, tc)
	}
	return out
}

func (r *ScheduleReconciler) resultRows(ctx context.Context, ns, name string) ([]report.Row, error) {
	res := &serdebenchv1.SerializationResult{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, res); err != nil {
		return nil, fmt.Errorf("get result %s: %w", name, err) // wrapped: IsNotFound still sees it
	}
	return report.ResultRows(res), nil
}

func (r *ScheduleReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}
