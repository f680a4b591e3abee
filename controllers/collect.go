package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// collect reads the workers' summaries, cross-checks them with Prometheus, writes
// the trial into the result and marks it measured; cleanup follows in the next
// step. A trial already in the result (a restart after the result write) goes
// straight to being marked measured: it is recorded exactly once.
func (r *ExperimentReconciler) collect(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	tr, recorded, err := r.recordedTrial(ctx, x, t.Name, ts.Attempt)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !recorded {
		sums, ran, err := r.summaries(ctx, x, t)
		if err != nil {
			return ctrl.Result{}, err
		}
		if want := int(t.Producers + t.Consumers); len(sums) != want {
			return r.fail(ctx, x, t.Index, ReasonSummariesMissing, fmt.Sprintf("found %d of %d worker summaries for trial %s", len(sums), want, t.Name))
		}
		merged, err := summary.Merge(sums)
		if err != nil {
			return r.fail(ctx, x, t.Index, ReasonSummariesMissing, err.Error())
		}
		if len(merged.Interrupted) > 0 {
			return r.fail(ctx, x, t.Index, ReasonWorkerInterrupted, fmt.Sprintf("trial %s: partial summaries from %v", t.Name, merged.Interrupted))
		}
		protocol.Annotate(t, merged)
		tr = trialResult(t, merged, seriesPerTrial(len(x.Status.Trials)))
		tr.Attempts = ts.Attempt
		r.crossCheck(ctx, x, t, sums, &tr)
		if err := r.writeResult(ctx, x, tr, ran); err != nil {
			return ctrl.Result{}, err
		}
		r.sideEffect(x, "result written")
	}
	now := metav1.Now()
	ts.Phase = serdebenchv1.TrialSucceeded
	ts.CompletionTime = &now
	ts.CleanedUp = false
	ts.Message = strings.Join(tr.Warnings, "; ")
	x.Status.CompletedTrials = int32(t.Index + 1)
	x.Status.ResultRef = &corev1.LocalObjectReference{Name: resultName(x)}
	r.event(x, corev1.EventTypeNormal, ReasonTrialMeasured, "trial %s: %d rec/s, e2e p99 %d µs, lost %d", t.Name, tr.RecordsPerSecond, tr.EndToEndMicros.P99, tr.LostRecords)
	return r.updateStatus(ctx, x)
}

// recordedTrial returns the trial from the result if this attempt is already in it.
func (r *ExperimentReconciler) recordedTrial(ctx context.Context, x *serdebenchv1.SerializationExperiment, name string, attempt int32) (serdebenchv1.TrialResult, bool, error) {
	res := &serdebenchv1.SerializationResult{}
	err := r.reader().Get(ctx, client.ObjectKey{Namespace: x.Namespace, Name: resultName(x)}, res)
	if apierrors.IsNotFound(err) {
		return serdebenchv1.TrialResult{}, false, nil
	}
	if err != nil {
		return serdebenchv1.TrialResult{}, false, fmt.Errorf("get result: %w", err)
	}
	if res.Experiment.UID != string(x.UID) {
		return serdebenchv1.TrialResult{}, false, nil
	}
	for _, tr := range res.Trials {
		if tr.Name == name && tr.Attempts == attempt {
			return tr, true, nil
		}
	}
	return serdebenchv1.TrialResult{}, false, nil
}

// summaries reads the summary of every worker container of the trial's current
// attempt: the pods owned (by UID) by its Jobs, from each container's termination
// message or, when that says the summary was too large, its log.
func (r *ExperimentReconciler) summaries(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) ([]*summary.Summary, placement, error) {
	pods, err := r.trialPods(ctx, x, t)
	if err != nil {
		return nil, placement{}, err
	}
	var out []*summary.Summary
	var ran placement
	for i := range pods {
		p := &pods[i]
		ran.nodes = mergeSorted(ran.nodes, nonEmpty(p.Spec.NodeName))
		for _, cs := range p.Status.ContainerStatuses {
			ran.imageIDs = mergeSorted(ran.imageIDs, nonEmpty(cs.ImageID))
			term := cs.State.Terminated
			if term == nil || term.ExitCode != protocol.ExitOK {
				continue
			}
			s, err := protocol.ReadSummary(term.Message, func() ([]byte, error) { return r.podLog(ctx, p, cs.Name) })
			if err != nil {
				return nil, placement{}, fmt.Errorf("pod %s container %s: %w", p.Name, cs.Name, err)
			}
			out = append(out, s)
		}
	}
	return out, ran, nil
}

// placement is where a trial's workers ran: nodes and the image digests their
// containers ran (sorted, distinct).
type placement struct{ nodes, imageIDs []string }

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// trialPods lists the pods of the trial's current attempt: those whose controller
// is one of the attempt's Jobs (by UID, so a same-named Job of an earlier
// experiment or attempt never contributes).
func (r *ExperimentReconciler) trialPods(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) ([]corev1.Pod, error) {
	attempt := fmt.Sprint(x.Status.Trials[t.Index].Attempt)
	jobs, err := r.jobsOf(ctx, x, labels.SelectorFromSet(labels.Set{LabelTrial: t.Name, LabelAttempt: attempt}))
	if err != nil {
		return nil, err
	}
	return r.podsOf(ctx, x, t.Name, jobs...)
}

// podsOf lists, uncached, the pods of one trial that the given Jobs control (by UID).
// Uncached: the Job informer may already show a Job complete while the Pod informer
// still has a container running, and a missing summary fails the trial.
func (r *ExperimentReconciler) podsOf(ctx context.Context, x *serdebenchv1.SerializationExperiment, trialName string, jobs ...batchv1.Job) ([]corev1.Pod, error) {
	uids := map[types.UID]bool{}
	for _, j := range jobs {
		uids[j.UID] = true
	}
	list := &corev1.PodList{}
	if err := r.reader().List(ctx, list, client.InNamespace(x.Namespace), client.MatchingLabels{LabelTrial: trialName, LabelManagedBy: managedBy}); err != nil {
		return nil, fmt.Errorf("list pods of trial %s: %w", trialName, err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && uids[ref.UID] {
			out = append(out, p)
		}
	}
	return out, nil
}

func (r *ExperimentReconciler) podLog(ctx context.Context, p *corev1.Pod, container string) ([]byte, error) {
	var raw []byte
	var err error
	switch {
	case r.PodLogs != nil:
		raw, err = r.PodLogs(ctx, p.Namespace, p.Name, container)
	case r.Clientset != nil:
		raw, err = r.Clientset.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: container, TailLines: ptrTo(int64(50))}).DoRaw(ctx)
	default:
		return nil, fmt.Errorf("pod %s container %s: summary is in the log but no clientset to read logs", p.Name, container)
	}
	if err != nil {
		return nil, fmt.Errorf("read log of pod %s container %s: %w", p.Name, container, err)
	}
	return raw, nil
}

// crossCheck compares Prometheus' count of measured producer records with the
// summaries'. An unreachable Prometheus is a warning: the summaries suffice.
func (r *ExperimentReconciler) crossCheck(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, sums []*summary.Summary, tr *serdebenchv1.TrialResult) {
	if r.Prometheus == nil {
		return
	}
	var start, end time.Time
	var records int64
	for _, s := range sums {
		if s.Role != summary.RoleProducer {
			continue
		}
		records += s.Records
		if start.IsZero() || s.WindowStart.Before(start) {
			start = s.WindowStart
		}
		if s.WindowEnd.After(end) {
			end = s.WindowEnd
		}
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The last scrape may land up to one interval after the window; workers keep
	// serving for their grace period.
	// The attempt's group tells this attempt's workers from a disrupted earlier one's
	// (which may still serve its last totals).
	group := names.Group(x.Name, uidPrefix(x, 8), t, int(x.Status.Trials[t.Index].Attempt))
	sel := promquery.Selector{Namespace: x.Namespace, ExperimentUID: string(x.UID), Group: group, Trial: t.Name, Role: summary.RoleProducer}
	got, err := r.Prometheus.RecordsTotal(qctx, sel, start, time.Now())
	if err != nil {
		tr.Warnings = append(tr.Warnings, "prometheus cross-check skipped: "+err.Error())
		r.event(x, corev1.EventTypeWarning, ReasonPrometheus, "trial %s: %v", t.Name, err)
		return
	}
	diff := got - records
	tr.PrometheusRecordsDifference = &diff
	if diff != 0 {
		tr.Warnings = append(tr.Warnings, fmt.Sprintf("prometheus counted %d measured producer records, the summaries %d", got, records))
	}
	step := max(time.Second, end.Sub(start)/maxSeriesPoints+time.Second).Truncate(time.Second)
	points, err := r.Prometheus.RecordsRate(qctx, sel, start.Truncate(step), end.Add(step), step)
	if err != nil {
		tr.Warnings = append(tr.Warnings, "prometheus rate series unavailable: "+err.Error())
		return
	}
	if len(points) == 0 {
		// A trial shorter than a few scrape intervals has no rate to show.
		tr.Warnings = append(tr.Warnings, "prometheus has no rate samples in the trial window (trial too short for the scrape interval)")
		return
	}
	series := &serdebenchv1.ThroughputSeries{StartTime: metav1.NewTime(points[0].Time), StepSeconds: int32(step / time.Second)}
	for _, p := range points[:min(len(points), maxSeriesPoints)] {
		series.RecordsPerSecond = append(series.RecordsPerSecond, int64(p.Value+0.5))
	}
	tr.ThroughputSeries = series
}

// maxSeriesPoints bounds the series so results stay small at the matrix cap.
const maxSeriesPoints = 60

// writeResult creates or updates the experiment's result with this trial.
func (r *ExperimentReconciler) writeResult(ctx context.Context, x *serdebenchv1.SerializationExperiment, tr serdebenchv1.TrialResult, ran placement) error {
	res := &serdebenchv1.SerializationResult{}
	err := r.reader().Get(ctx, client.ObjectKey{Namespace: x.Namespace, Name: resultName(x)}, res)
	create := apierrors.IsNotFound(err)
	if err != nil && !create {
		return fmt.Errorf("get result: %w", err)
	}
	if create {
		res = &serdebenchv1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: resultName(x), Namespace: x.Namespace,
			Labels: map[string]string{LabelExperiment: names.Truncate(x.Name, 63), LabelManagedBy: managedBy}}}
		if err := controllerutil.SetControllerReference(x, res, r.Scheme); err != nil {
			return err
		}
	}
	if !create && res.Experiment.UID != string(x.UID) {
		// Left by a deleted experiment of the same name (its owner reference would let
		// the garbage collector delete this one's result later).
		return fmt.Errorf("result %s belongs to another experiment (uid %s); delete it", res.Name, res.Experiment.UID)
	}
	res.Experiment = serdebenchv1.ExperimentSnapshot{Name: x.Name, UID: string(x.UID), Generation: x.Generation, Spec: x.Spec}
	res.Environment.WorkerImage = r.workerImage(x)
	if res.Environment.KafkaRelease == "" {
		b := r.broker(ctx, x)
		res.Environment.KafkaRelease, res.Environment.KafkaAPIVersions = b.Release, b.APIVersions
	}
	res.Environment.OperatorVersion = r.OperatorVersion
	res.Environment.NodeNames = mergeSorted(res.Environment.NodeNames, ran.nodes)
	res.Environment.WorkerImageIDs = mergeSorted(res.Environment.WorkerImageIDs, ran.imageIDs)
	replaced := false
	for i := range res.Trials {
		if res.Trials[i].Name == tr.Name {
			res.Trials[i], replaced = tr, true
		}
	}
	if !replaced {
		res.Trials = append(res.Trials, tr)
	}
	res.Summary = summarize(res.Trials)
	if create {
		err = r.Create(ctx, res)
	} else {
		err = r.Update(ctx, res)
	}
	if err != nil {
		return fmt.Errorf("write result %s: %w", res.Name, err)
	}
	return nil
}

// broker is best effort: a result without it is still a result.
func (r *ExperimentReconciler) broker(ctx context.Context, x *serdebenchv1.SerializationExperiment) topics.Broker {
	prov, err := r.provisioner(ctx, x)
	if err != nil {
		return topics.Broker{Release: "unknown: " + err.Error()}
	}
	b, err := prov.Broker(ctx)
	if err != nil {
		return topics.Broker{Release: "unknown: " + err.Error()}
	}
	return b
}

func mergeSorted(a, b []string) []string {
	set := map[string]bool{}
	for _, s := range append(append([]string{}, a...), b...) {
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func summarize(trials []serdebenchv1.TrialResult) serdebenchv1.ResultSummary {
	s := serdebenchv1.ResultSummary{Trials: int32(len(trials))}
	for _, t := range trials {
		s.LostRecords += t.LostRecords
		s.DuplicatedRecords += t.DuplicatedRecords
		if t.RecordsPerSecond > s.FastestRecordsPerSecond {
			s.FastestRecordsPerSecond, s.FastestCodec, s.FastestTrial = t.RecordsPerSecond, string(t.Codec), t.Name
		}
	}
	return s
}

// seriesBudget bounds the intervals, and the search steps, of all trials in one
// result, which keeps a result at the matrix cap under its 1 MiB target
// (result_size_test.go). Each trial gets at least 2 of each.
const seriesBudget = 640

// seriesPerTrial is how many intervals, and how many search steps, each of n
// trials may report (the API's MaxItems at most).
func seriesPerTrial(n int) int {
	return min(summary.MaxIntervals, max(2, seriesBudget/max(n, 1)))
}

// trialResult converts a merged result into the API's integer fields, with at most
// maxItems intervals and search steps.
func trialResult(t trial.Trial, m *summary.Result, maxItems int) serdebenchv1.TrialResult {
	lat := func(p summary.Percentiles) serdebenchv1.LatencyMicros {
		return serdebenchv1.LatencyMicros{Count: p.Count, P50: p.P50, P75: p.P75, P90: p.P90, P95: p.P95, P99: p.P99, P999: p.P999,
			P9999: p.P9999, Max: p.Max}
	}
	size := t.SizeBytes
	if t.Source != nil {
		size = int32(m.PayloadBytesPerRecord + 0.5) // the user's records: their mean JSON size
	}
	res := serdebenchv1.TrialResult{
		Name: t.Name, Codec: t.Codec, Schema: t.PayloadSchema(), SizeBytes: size,
		Settings:       t.Settings,
		ClientSettings: m.ClientSettings,
		Producers:      int32(m.Producers), Consumers: int32(m.Consumers),
		WindowMillis:                   int64(m.WindowSeconds * 1000),
		Records:                        m.Records,
		RecordsPerSecond:               int64(m.RecordsPerSecond),
		SerializedBytesPerSecond:       int64(m.SerializedMBPerSecond * 1e6),
		SerializedBytesPerRecord:       int64(m.SerializedBytesPerRecord + 0.5),
		SerializeNanosPerRecord:        int64(m.SerializeMicrosPerRecord * 1000),
		DeserializeNanosPerRecord:      int64(m.DeserializeMicrosPerRecord * 1000),
		CompressedBytesPerRecord:       int64(m.CompressedBytesPerRecord + 0.5),
		CompressNanosPerRecord:         int64(m.CompressMicrosPerRecord * 1000),
		DecompressNanosPerRecord:       int64(m.DecompressMicrosPerRecord * 1000),
		SerializeSharePermille:         int32(m.SerializeSharePercent * 10),
		DeserializeSharePermille:       int32(m.DeserializeSharePercent * 10),
		EndToEndMicros:                 lat(m.EndToEnd),
		AckMicros:                      lat(m.Ack),
		SendDelayMicros:                lat(m.SendDelay),
		SentRecords:                    m.Sent,
		DeliveredRecords:               m.Delivered,
		LostRecords:                    m.Lost,
		FailedRecords:                  m.Failed,
		UnacknowledgedDeliveredRecords: m.UnacknowledgedDelivered,
		DuplicatedRecords:              m.Duplicated,
		Errors:                         m.Errors,
		Warnings:                       m.Warnings,
	}
	if m.FetchInterval.Count > 0 {
		f := lat(m.FetchInterval)
		res.FetchIntervalMicros = &f
	}
	if sr := m.Search; sr != nil {
		res.Search = &serdebenchv1.SearchResult{MaxSustainedRecordsPerSecond: sr.MaxSustainedRecordsPerSecond, Stopped: sr.Stopped}
		// The steps that matter: up to the first one not sustained.
		last := len(sr.Steps) - 1
		for k, st := range sr.Steps {
			if !st.Sustained {
				last = k
				break
			}
		}
		for _, st := range sr.Steps[max(0, last+1-maxItems) : last+1] {
			res.Search.Steps = append(res.Search.Steps, serdebenchv1.SearchStep{Index: int32(st.Index), TargetRecordsPerSecond: st.TargetRecordsPerSecond,
				Records: st.Records, Received: st.Received, AckP99Micros: st.Ack.P99, EndToEndP99Micros: st.EndToEnd.P99,
				Sustained: st.Sustained, Reason: st.Reason})
		}
	}
	ivs, width := m.Intervals, m.IntervalSeconds
	if len(ivs) > maxItems {
		ivs, width = m.IntervalsAtMost(maxItems)
	}
	res.IntervalSeconds = int32(width)
	for _, iv := range ivs {
		res.Intervals = append(res.Intervals, serdebenchv1.Interval{StartTime: metav1.NewTime(iv.Start),
			WindowMillis: int64(iv.Seconds * 1000), Records: iv.Records, RecordsPerSecond: int64(iv.RecordsPerSecond),
			OfferedRecordsPerSecond: int64(iv.OfferedRecordsPerSecond), ConsumedRecordsPerSecond: int64(iv.ConsumedRecordsPerSecond),
			AckP50Micros: iv.Ack.P50, AckP99Micros: iv.Ack.P99, EndToEndP50Micros: iv.EndToEnd.P50,
			EndToEndP99Micros: iv.EndToEnd.P99, BacklogRecords: iv.BacklogRecords})
	}
	return res
}

func ptrTo[T any](v T) *T { return &v }
