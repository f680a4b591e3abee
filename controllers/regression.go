package controllers

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/report"
)

// Reasons for the Regressed condition.
const (
	// ReasonRegressed (Regressed=True): a metric breached its threshold in
	// persistenceRuns consecutive runs, beyond the noise the baseline shows.
	ReasonRegressed = "Regressed"
	// ReasonNoRegressed (Regressed=False): every metric is within its thresholds.
	ReasonNoRegressed = "WithinThresholds"
	// ReasonSuspect: a metric breached for the first time (fewer consecutive runs
	// than persistenceRuns): shown, not alerted.
	ReasonSuspect = "Suspect"
	// ReasonImproved (Regressed=False, Normal event): a metric was better than its
	// threshold in persistenceRuns consecutive runs, significantly, and none is
	// worse.
	ReasonImproved = "Improved"
	// ReasonEnvironmentShifted (Regressed=False, EnvironmentShifted=True, Warning
	// event): the trials moved together with the control trial.
	ReasonEnvironmentShifted = "EnvironmentShifted"
	// ReasonEnvironmentSteady (EnvironmentShifted=False): the run was judged and
	// the trials did not move together with the control.
	ReasonEnvironmentSteady = "EnvironmentSteady"
	// ReasonCollectingBaseline: fewer baseline runs than baseline.minRuns.
	ReasonCollectingBaseline = "CollectingBaseline"
	// ReasonNoBaseline: the schedule has no run before this one to compare with.
	ReasonNoBaseline = "NoBaseline"
	// ReasonBaselineMissing: a pinned baseline result does not exist.
	ReasonBaselineMissing = "BaselineMissing"
	// ReasonResultMissing: the run's own result is gone.
	ReasonResultMissing = "ResultMissing"
	// ReasonNothingMatched: no trial of the run matches a baseline trial.
	ReasonNothingMatched = "NothingMatched"
)

// Reasons for the WindowTooShort condition.
const (
	// ReasonWindowsTooShort (WindowTooShort=True): every trial of the last run
	// warned WindowTooShort.
	ReasonWindowsTooShort = "EveryTrialWindowTooShort"
	// ReasonWindowsLongEnough (WindowTooShort=False): at least one trial of the
	// last run measured a window long enough.
	ReasonWindowsLongEnough = "WindowsLongEnough"
)

// windowCondition says whether every trial of run's result warned WindowTooShort:
// a nightly whose windows are all too short judges numbers its thresholds cannot
// see past (docs/schedules.md, "A nightly sized for what it must find").
func windowCondition(s *serdebenchv1.SerializationSchedule, run string, res *serdebenchv1.SerializationResult) metav1.Condition {
	c := metav1.Condition{Type: serdebenchv1.ConditionWindowTooShort, ObservedGeneration: s.Generation, Status: metav1.ConditionFalse, Reason: ReasonWindowsLongEnough,
		Message: fmt.Sprintf("run %s: at least one trial's measured window is long enough", run)}
	first := ""
	for _, tr := range res.Trials {
		i := slices.IndexFunc(tr.Warnings, func(w string) bool { return strings.HasPrefix(w, "WindowTooShort") })
		if i < 0 {
			return c
		}
		if first == "" {
			first = tr.Name + ": " + tr.Warnings[i]
		}
	}
	if len(res.Trials) == 0 {
		return c
	}
	c.Status, c.Reason = metav1.ConditionTrue, ReasonWindowsTooShort
	c.Message = fmt.Sprintf("run %s: all %d trials warned WindowTooShort; raise the template's durationSeconds (time-based windows do not shrink on a faster cluster). First: %s",
		run, len(res.Trials), first)
	return c
}

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
		setNotJudged(s, cond)
		return nil, nil
	}
	latestResult, err := r.result(ctx, s.Namespace, latest.Status.ResultRef.Name)
	if apierrors.IsNotFound(err) {
		return unknown(ReasonResultMissing, fmt.Sprintf("run %s: its result %s is gone", latest.Name, latest.Status.ResultRef.Name))
	}
	if err != nil {
		return nil, err
	}
	candidate, candidateVersions := report.ResultRows(latestResult), compare.VersionsOf(latestResult.Environment)
	meta.SetStatusCondition(&s.Status.Conditions, windowCondition(s, latest.Name, latestResult))
	b := s.Spec.Baseline
	opts := compare.ScheduleOptions(&s.Spec)
	var baselines [][]report.Row
	var baselineNames []string
	var versions []compare.Versions // the baselines', oldest first
	switch b.Kind {
	case serdebenchv1.BaselinePinned:
		for _, name := range b.PinnedResults() {
			rows, v, err := r.resultRows(ctx, s.Namespace, name)
			if apierrors.IsNotFound(err) {
				msg := fmt.Sprintf("run %s not compared: the pinned baseline result %s does not exist", latest.Name, name)
				r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonBaselineMissing, "%s", msg)
				return unknown(ReasonBaselineMissing, msg)
			}
			if err != nil {
				return nil, err
			}
			baselines, baselineNames, versions = append(baselines, rows), append(baselineNames, name), append(versions, v)
		}
	default: // rollingMedian
		// The streak's earlier runs (persistenceRuns − 1) and the baseline's before them.
		want := opts.BaselineRuns + opts.Persistence - 1
		prior := succeeded[:len(succeeded)-1]
		for i := len(prior) - 1; i >= 0 && len(baselines) < want; i-- {
			if prior[i].Status.ResultRef == nil {
				continue
			}
			rows, v, err := r.resultRows(ctx, s.Namespace, prior[i].Status.ResultRef.Name)
			if apierrors.IsNotFound(err) {
				continue // deleted by hand: the runs before it still count
			}
			if err != nil {
				return nil, err
			}
			baselines, baselineNames, versions = append(baselines, rows), append(baselineNames, prior[i].Status.ResultRef.Name), append(versions, v)
		}
		slices.Reverse(baselines) // oldest first
		slices.Reverse(baselineNames)
		slices.Reverse(versions)
	}
	if len(baselines) == 0 {
		return unknown(ReasonNoBaseline, fmt.Sprintf("run %s has no baseline yet", latest.Name))
	}
	res := compare.Compare(baselines, candidate, opts)
	changes := changesOf(append(versions, candidateVersions), baselineNames)
	// The result says what it was compared with before the schedule records the run as
	// compared: a failed patch is retried on the next reconcile.
	patched, err := r.writeComparison(ctx, s, latest.Status.ResultRef.Name, baselineNames, res, opts, changes)
	if err != nil {
		return nil, err
	}
	s.Status.LastComparedRun = latest.Name
	if len(res.Trials) == 0 {
		cond.Reason = ReasonNothingMatched
		cond.Message = fmt.Sprintf("run %s: no trial matches a trial of the %d baseline run(s) by codec, schema, size and settings (did the template change?)", latest.Name, len(baselines))
		setNotJudged(s, cond)
		return patched, nil
	}
	against := fmt.Sprintf("run %s against the %d run(s) before it", latest.Name, len(baselines))
	switch res.Verdict {
	case compare.Regressed:
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonRegressed
		cond.Message = fmt.Sprintf("%s: %s", against, strings.Join(res.Flagged(compare.Regressed), "; "))
	case compare.Suspect:
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonSuspect
		cond.Message = fmt.Sprintf("%s: worse than the threshold and significant, not yet over %d runs (Regressed then): %s", against, opts.Persistence,
			strings.Join(res.Flagged(compare.Suspect), "; "))
	case compare.Improved:
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonImproved
		cond.Message = fmt.Sprintf("%s: better than the threshold over %d runs, significantly: %s", against, opts.Persistence,
			strings.Join(res.Flagged(compare.Improved), "; "))
	case compare.EnvironmentShifted:
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonEnvironmentShifted
		cond.Message = fmt.Sprintf("%s: the trials moved together with the control trial %s (the machine or cluster, not a trial): %s", against, res.Control,
			strings.Join(res.Flagged(compare.EnvironmentShifted), "; "))
		if res.ProbeDecides {
			cond.Message = fmt.Sprintf("%s: the trials moved together (the machine or cluster, not a trial): %s", against,
				strings.Join(res.Flagged(compare.EnvironmentShifted), "; "))
		}
	case compare.NotJudged:
		cond.Reason = ReasonCollectingBaseline
		cond.Message = fmt.Sprintf("%s: collecting the baseline, judged once %d earlier run(s) exist (baseline.minRuns %d before the streak's %d): the noise between runs is not known before",
			against, opts.Needed(), opts.MinRuns, opts.Persistence-1)
		if b.Kind == serdebenchv1.BaselinePinned {
			cond.Message = fmt.Sprintf("%s: %d pinned result(s), fewer than baseline.minRuns %d: pin more runs to judge (the noise between runs is not known from fewer)",
				against, len(baselines), opts.MinRuns)
		}
	default:
		cond.Status, cond.Reason = metav1.ConditionFalse, ReasonNoRegressed
		cond.Message = fmt.Sprintf("%s: within thresholds", against)
	}
	// Beside the verdict, what changed (a regression at an upgrade is the
	// upgrade's) and what the machine probe found, ahead of the flagged metrics: a
	// long message is cut from its end.
	var lead []string
	if len(changes) > 0 {
		lead = append(lead, "changed: "+strings.Join(changes, "; "))
	}
	if m := res.Machine(); m != "" && res.Verdict != compare.NotJudged {
		lead = append(lead, m)
	}
	if rest, ok := strings.CutPrefix(cond.Message, against+": "); ok && len(lead) > 0 {
		cond.Message = against + ": " + strings.Join(lead, "; ") + "; " + rest
	}
	cond.Message = names.Truncate(cond.Message, conditionMessageMax)
	switch res.Verdict {
	case compare.Regressed:
		r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonRegressed, "%s", cond.Message)
	case compare.EnvironmentShifted:
		// Not a trial's regression, and not nothing: every trial moved.
		r.Recorder.Eventf(s, corev1.EventTypeWarning, ReasonEnvironmentShifted, "%s", cond.Message)
	case compare.Improved:
		// Not an alert, and not nothing: a Normal event says what got faster.
		r.Recorder.Eventf(s, corev1.EventTypeNormal, ReasonImproved, "%s", cond.Message)
	}
	shifted := metav1.Condition{Type: serdebenchv1.ConditionEnvironmentShifted, ObservedGeneration: s.Generation, Status: metav1.ConditionFalse,
		Reason: ReasonEnvironmentSteady, Message: against + ": the control trial has not regressed with the others beyond the thresholds (a first night's fall waits for its streak)"}
	switch {
	case res.ProbeDecides && res.MachineShifted:
		shifted.Message = against + ": no trial's fall has persisted (a first night's waits for its streak); " + res.Machine()
	case res.ProbeDecides:
		shifted.Message = against + ": not the environment's move; " + res.Machine()
	}
	switch res.Verdict {
	case compare.EnvironmentShifted:
		shifted.Status, shifted.Reason, shifted.Message = metav1.ConditionTrue, ReasonEnvironmentShifted, cond.Message
	case compare.NotJudged:
		shifted.Status, shifted.Reason, shifted.Message = metav1.ConditionUnknown, cond.Reason, cond.Message
	}
	meta.SetStatusCondition(&s.Status.Conditions, shifted)
	meta.SetStatusCondition(&s.Status.Conditions, cond)
	return patched, nil
}

// setNotJudged sets the Regressed condition of a run that was not judged, and
// the EnvironmentShifted condition to the same: neither can be told.
func setNotJudged(s *serdebenchv1.SerializationSchedule, regressed metav1.Condition) {
	meta.SetStatusCondition(&s.Status.Conditions, regressed)
	shifted := regressed
	shifted.Type = serdebenchv1.ConditionEnvironmentShifted
	meta.SetStatusCondition(&s.Status.Conditions, shifted)
}

// maxChanges is how many changes a comparison records (the API's MaxItems): the
// latest.
const maxChanges = 32

// changesOf says what changed between the runs compared (their versions, oldest
// first, the candidate last), each at the run it changed: a baseline result by
// name, the candidate as "this run".
func changesOf(versions []compare.Versions, baselineNames []string) []string {
	name := func(i int) string {
		if i < len(baselineNames) {
			return "run " + baselineNames[i]
		}
		return "this run"
	}
	var out []string
	for _, c := range compare.Changes(versions) {
		out = append(out, names.Truncate(c.String(name(c.At), name(c.Since)), maxChangeLength))
	}
	return out[max(0, len(out)-maxChanges):]
}

// maxChangeLength bounds one recorded change (the API's items:MaxLength): a worker
// image list or a CPU model is the workers' to say.
const maxChangeLength = 1024

// writeComparison patches the candidate result's comparison block and returns the
// result as the API server stored it.
func (r *ScheduleReconciler) writeComparison(ctx context.Context, s *serdebenchv1.SerializationSchedule, result string, baselines []string, res compare.Result,
	o compare.Options, changes []string) (*serdebenchv1.SerializationResult, error) {
	obj := &serdebenchv1.SerializationResult{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: result}, obj); err != nil {
		return nil, fmt.Errorf("get result %s: %w", result, err)
	}
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Comparison = comparisonOf(s, baselines, res, o)
	obj.Comparison.Changes = changes
	if err := r.Patch(ctx, obj, patch); err != nil {
		return nil, fmt.Errorf("write comparison to result %s: %w", result, err)
	}
	return obj, nil
}

// comparisonOf is a comparison as the SerializationResult records it.
func comparisonOf(s *serdebenchv1.SerializationSchedule, baselines []string, res compare.Result, o compare.Options) *serdebenchv1.ResultComparison {
	var excluded []string
	for _, i := range res.Excluded {
		if i < len(baselines) {
			excluded = append(excluded, baselines[i])
		}
	}
	out := &serdebenchv1.ResultComparison{Schedule: s.Name, BaselineKind: s.Spec.Baseline.Kind, BaselineResults: baselines, ExcludedResults: excluded,
		Thresholds: s.Spec.Thresholds, PersistenceRuns: int32(o.Persistence), Verdict: res.Verdict, Regressed: res.Regressed(),
		Control: res.Control, Method: res.Method(o), UnmatchedTrials: res.Unmatched, MissingTrials: res.Missing}
	for _, t := range res.Trials {
		tc := serdebenchv1.TrialComparison{Name: t.Name, Control: t.Control, Verdict: t.Verdict, Regressed: t.Verdict == compare.Regressed}
		for _, m := range t.Metrics {
			tc.BaselineRuns = max(tc.BaselineRuns, int32(m.BaselineRuns))
			mc := serdebenchv1.MetricComparison{Name: m.Name, Unit: m.Unit, BaselineRuns: int32(m.BaselineRuns), Baseline: comparisonFigure(m.Baseline),
				BaselineMin: comparisonFigure(m.Min), BaselineMax: comparisonFigure(m.Max), SpreadPercent: comparisonFigure(m.SpreadPercent), Candidate: comparisonFigure(m.Candidate),
				ChangePercent: comparisonFigure(m.ChangePercent), ChangeLowPercent: comparisonFigure(m.ChangeLowPercent), ChangeHighPercent: comparisonFigure(m.ChangeHighPercent),
				ChangeConfidencePermille: int32(math.Floor(1000 * m.ChangeConfidence)), ControlChangePercent: comparisonFigure(m.ControlChangePercent),
				PValue: comparisonP(m.P), StreakRuns: int32(m.StreakRuns), StreakChangePercent: comparisonFigure(m.StreakChangePercent), StreakPValue: comparisonP(m.StreakP),
				Tested: comparisonTest(m.Tested), Streak: comparisonTest(m.Streak), Improvement: comparisonTest(m.Improvement), Verdict: m.Verdict,
				Regressed: m.Regressed()}
			tc.Metrics = append(tc.Metrics, mc)
		}
		out.Trials = append(out.Trials, tc)
	}
	return out
}

// comparisonTest is a verdict's test as the result records it (nil for none).
func comparisonTest(t *compare.Test) *serdebenchv1.ComparisonTest {
	if t == nil {
		return nil
	}
	return &serdebenchv1.ComparisonTest{Runs: int32(t.Runs), TestedOn: t.TestedOn, ChangePercent: comparisonFigure(t.ChangePercent),
		BoundPercent: comparisonFigure(t.BoundPercent), ConfidencePermille: int32(math.Floor(1000 * t.Confidence)), PValue: comparisonP(t.P)}
}

// comparisonFigure is a comparison's figure as the result records it.
func comparisonFigure(v compare.Num) string { return report.Decimal(float64(v), 2) }

// comparisonP is a comparison's p-value as the result records it.
func comparisonP(v compare.Num) string { return report.Decimal(float64(v), 4) }

func (r *ScheduleReconciler) resultRows(ctx context.Context, ns, name string) ([]report.Row, compare.Versions, error) {
	res, err := r.result(ctx, ns, name)
	if err != nil {
		return nil, nil, err
	}
	return report.ResultRows(res), compare.VersionsOf(res.Environment), nil
}

// result reads a SerializationResult afresh.
func (r *ScheduleReconciler) result(ctx context.Context, ns, name string) (*serdebenchv1.SerializationResult, error) {
	res := &serdebenchv1.SerializationResult{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, res); err != nil {
		return nil, fmt.Errorf("get result %s: %w", name, err) // wrapped: IsNotFound still sees it
	}
	return res, nil
}

func (r *ScheduleReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}
