package controllers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
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
		if want := int(t.Producers + t.Consumers + t.Joiners()); len(sums) != want {
			return r.fail(ctx, x, t.Index, ReasonSummariesMissing, fmt.Sprintf("found %d of %d worker summaries for trial %s", len(sums), want, t.Name))
		}
		if why := groupEventMissed(t, sums); why != "" {
			return r.fail(ctx, x, t.Index, ReasonFaultNotInjected, fmt.Sprintf("trial %s, fault %s: %s", t.Name, t.Fault.Name, why))
		}
		merged, err := summary.Merge(sums)
		if err != nil {
			return r.fail(ctx, x, t.Index, ReasonSummariesMissing, err.Error())
		}
		if len(merged.Interrupted) > 0 {
			return r.fail(ctx, x, t.Index, ReasonWorkerInterrupted, fmt.Sprintf("trial %s: partial summaries from %v", t.Name, merged.Interrupted))
		}
		protocol.Annotate(t, merged)
		now := time.Now()
		splitAtFault(merged, x, t.Fault, ts.Fault, now)
		brokerCPU, err := r.brokerCPU(ctx, x, sums, merged, now)
		if errors.Is(err, errBrokerCPUNotYet) {
			return ctrl.Result{RequeueAfter: 3 * time.Second}, nil
		}
		hist := r.keepHistograms(ctx, x, t, merged)
		tr = build.TrialResult(t, merged, build.SeriesPerTrial(len(x.Status.Trials)))
		tr.Sync = trialSync(ts.Start, sums, merged)
		tr.Attempts = ts.Attempt
		tr.Fault = ts.Fault.DeepCopy()
		if w := faultWindowWarning(t.Fault, tr.Fault, sums); w != "" {
			tr.Warnings = append(tr.Warnings, w)
		}
		r.crossCheck(ctx, x, t, sums, &tr)
		ran.clocks, ran.brokerCPU = ts.Start, brokerCPU
		if err := r.writeResult(ctx, x, tr, ran, hist); err != nil {
			return ctrl.Result{}, err
		}
		r.sideEffect(x, "result written")
	}
	now := metav1.Now()
	if ts.Start != nil {
		ts.Start.Nodes = nil // in the result now; the status stays small
	}
	ts.Phase = serdebenchv1.TrialSucceeded
	ts.CompletionTime = &now
	ts.CleanedUp = false
	ts.Message = strings.Join(tr.Warnings, "; ")
	x.Status.CompletedTrials = int32(t.Index + 1)
	x.Status.ResultRef = &corev1.LocalObjectReference{Name: build.ResultName(x)}
	r.event(x, corev1.EventTypeNormal, ReasonTrialMeasured, "trial %s: %d rec/s, e2e p99 %d µs, lost %d", t.Name, tr.RecordsPerSecond, tr.EndToEndMicros.P99, tr.LostRecords)
	return r.updateStatus(ctx, x)
}

// ownResult is the experiment's SerializationResult so far, nil when there is
// none yet or the one of that name is a deleted predecessor's.
func (r *ExperimentReconciler) ownResult(ctx context.Context, x *serdebenchv1.SerializationExperiment) (*serdebenchv1.SerializationResult, error) {
	res := &serdebenchv1.SerializationResult{}
	err := r.reader().Get(ctx, client.ObjectKey{Namespace: x.Namespace, Name: build.ResultName(x)}, res)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get result: %w", err)
	}
	if res.Experiment.UID != string(x.UID) {
		return nil, nil
	}
	return res, nil
}

// recordedTrial returns the trial from the result if this attempt is already in it.
func (r *ExperimentReconciler) recordedTrial(ctx context.Context, x *serdebenchv1.SerializationExperiment, name string, attempt int32) (serdebenchv1.TrialResult, bool, error) {
	res, err := r.ownResult(ctx, x)
	if err != nil || res == nil {
		return serdebenchv1.TrialResult{}, false, err
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
			s, err := protocol.ReadSummary(term.Message, func() ([]byte, error) {
				return r.podLog(ctx, p, cs.Name, &corev1.PodLogOptions{TailLines: ptr.To(int64(50))})
			})
			if err != nil {
				return nil, placement{}, fmt.Errorf("pod %s container %s: %w", p.Name, cs.Name, err)
			}
			out = append(out, s)
			ran.workers = append(ran.workers, ranOn{node: p.Spec.NodeName, sum: s})
		}
	}
	return out, ran, nil
}

// placement is where a trial's workers ran: nodes and the image digests their
// containers ran (sorted, distinct), the nodes' clocks, and the broker pods whose
// CPU was read.
type placement struct {
	nodes, imageIDs []string
	clocks          *serdebenchv1.TrialStart
	brokerCPU       *serdebenchv1.BrokerCPU
	// workers are each summary with its pod's node: what it ran on.
	workers []ranOn
}

// ranOn is a worker's summary and the node its pod ran on.
type ranOn struct {
	node string
	sum  *summary.Summary
}

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
	jobs, err := r.jobsOf(ctx, x, labels.SelectorFromSet(labels.Set{build.LabelTrial: t.Name, build.LabelAttempt: attempt}))
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
	if err := r.reader().List(ctx, list, client.InNamespace(x.Namespace), client.MatchingLabels{build.LabelTrial: trialName,
		build.LabelExperiment: names.Truncate(x.Name, 63), build.LabelManagedBy: build.ManagedBy}); err != nil {
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

func (r *ExperimentReconciler) podLog(ctx context.Context, p *corev1.Pod, container string, opts *corev1.PodLogOptions) ([]byte, error) {
	var raw []byte
	var err error
	switch {
	case r.PodLogs != nil:
		raw, err = r.PodLogs(ctx, p.Namespace, p.Name, container)
	case r.Clientset != nil:
		o := opts.DeepCopy()
		o.Container = container
		raw, err = r.Clientset.CoreV1().Pods(p.Namespace).GetLogs(p.Name, o).DoRaw(ctx)
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
	start, end := producerWindow(sums)
	var records int64
	for _, s := range sums {
		if s.Role == summary.RoleProducer {
			records += s.Records
		}
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The last scrape may land up to one interval after the window; workers keep
	// serving for their grace period.
	// The attempt's group tells this attempt's workers from a disrupted earlier one's
	// (which may still serve its last totals).
	group := names.Group(x.Name, build.UIDPrefix(x, 8), t, int(x.Status.Trials[t.Index].Attempt))
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
	// Like intervals, the series shares the result's budget with the other trials.
	most := min(maxSeriesPoints, build.SeriesPerTrial(len(x.Status.Trials)))
	step := max(time.Second, end.Sub(start)/time.Duration(most)+time.Second).Truncate(time.Second)
	points, err := r.Prometheus.RecordsRate(qctx, sel, start.Truncate(step), end.Add(step), step)
	if err != nil {
		tr.Warnings = append(tr.Warnings, "prometheus rate series unavailable: "+err.Error())
		return
	}
	if len(points) == 0 {
		// A trial shorter than a few scrape intervals has no rate to show.
		tr.Warnings = append(tr.Warnings, "WindowTooShort: Prometheus has no rate samples in the trial window, which is shorter than a few scrape intervals: raise durationSeconds (or records), or lower the PodMonitor's interval")
		return
	}
	series := &serdebenchv1.ThroughputSeries{StartTime: metav1.NewTime(points[0].Time), StepSeconds: int32(step / time.Second)}
	for _, p := range points[:min(len(points), most)] {
		series.RecordsPerSecond = append(series.RecordsPerSecond, int64(p.Value+0.5))
	}
	tr.ThroughputSeries = series
}

// maxSeriesPoints bounds the series so results stay small at the matrix cap.
const maxSeriesPoints = 60

// writeResult creates or updates the experiment's result with this trial.
func (r *ExperimentReconciler) writeResult(ctx context.Context, x *serdebenchv1.SerializationExperiment, tr serdebenchv1.TrialResult, ran placement, hist *corev1.ConfigMap) error {
	res := &serdebenchv1.SerializationResult{}
	err := r.reader().Get(ctx, client.ObjectKey{Namespace: x.Namespace, Name: build.ResultName(x)}, res)
	create := apierrors.IsNotFound(err)
	if err != nil && !create {
		return fmt.Errorf("get result: %w", err)
	}
	if create {
		res = &serdebenchv1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: build.ResultName(x), Namespace: x.Namespace,
			Labels: map[string]string{build.LabelExperiment: names.Truncate(x.Name, 63), build.LabelManagedBy: build.ManagedBy}}}
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
	res.Environment.WorkerImage = build.WorkerImage(r.buildConfig(), x)
	if res.Environment.KafkaRelease == "" {
		b := r.broker(ctx, x)
		res.Environment.KafkaRelease, res.Environment.KafkaAPIVersions = b.Release, b.APIVersions
	}
	res.Environment.OperatorVersion = r.OperatorVersion
	res.Environment.NodeNames = mergeSorted(res.Environment.NodeNames, ran.nodes)
	res.Environment.WorkerImageIDs = mergeSorted(res.Environment.WorkerImageIDs, ran.imageIDs)
	res.Environment.Clocks = mergeClocks(res.Environment.Clocks, ran.clocks)
	res.Environment.BrokerCPU = mergeBrokerCPU(res.Environment.BrokerCPU, ran.brokerCPU)
	if v := r.kubernetesVersion(ctx); v != "" {
		// A read that failed keeps the version an earlier trial read.
		res.Environment.KubernetesVersion = names.Truncate(v, maxVersionLength)
	}
	for _, w := range ran.workers {
		res.Environment.Software = report.Software(res.Environment.Software, w.sum)
		res.Environment.Machines = report.Machines(res.Environment.Machines, w.node, w.sum)
	}
	replaced := false
	for i := range res.Trials {
		if res.Trials[i].Name == tr.Name {
			res.Trials[i], replaced = tr, true
		}
	}
	if !replaced {
		res.Trials = append(res.Trials, tr)
	}
	res.Summary = build.Summary(res.Trials)
	rows := report.ResultRows(res)
	res.Statistics = report.Statistics(rows)
	for i := range res.Statistics {
		st := &res.Statistics[i]
		m, err := build.MergedFrom(hist, st.Name)
		if err != nil {
			return err
		}
		// Only when the ConfigMap holds exactly the repetitions the result does.
		if m != nil && int(m.Runs) == len(st.Runs) {
			st.Merged = m
		}
	}
	rec, recErr := recommend.Recommend(rows, x.Spec.Objective)
	res.Recommendation = recommend.Block(rec, recErr, recommend.TrialSeconds(x.Spec.ExperimentSpec))
	res.Sensitivity = report.PlanOf(rows).Sensitivity()
	res.Stopping = report.Stopping(rows, x.Spec.RepeatUntil)
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

// broker is best effort: a result without it is still a result. The brokers'
// own word comes first, on the Strimzi path too (the workers' bootstrap): a Kafka
// resource says what was asked for, and during a rolling upgrade that is not yet
// what runs. Only when the brokers cannot be asked does the resource speak, and
// the release says so.
func (r *ExperimentReconciler) broker(ctx context.Context, x *serdebenchv1.SerializationExperiment) topics.Broker {
	prov, err := r.provisioner(ctx, x)
	if err != nil {
		return topics.Broker{Release: "unknown: " + err.Error()}
	}
	if _, strimzi := prov.(*topics.Strimzi); strimzi {
		admin, serr := r.admin(ctx, x)
		if serr == nil {
			if b, err := admin.Broker(ctx); err == nil && b.Spoke {
				return b
			} else if err != nil {
				serr = err
			}
		}
		b, err := prov.Broker(ctx)
		if err != nil {
			return topics.Broker{Release: "unknown: " + err.Error()}
		}
		if serr != nil {
			b.Release += fmt.Sprintf(" (as the Kafka resource declares it: the brokers could not be asked: %v)", serr)
		} else {
			b.Release += " (as the Kafka resource declares it: the brokers name no release)"
		}
		return b
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

// splitAtFault splits a faulted trial's result at the fault's actual window, as
// Chaos Mesh recorded it; what keeps it from doing so becomes a warning.
func splitAtFault(m *summary.Result, x *serdebenchv1.SerializationExperiment, spec *trial.Fault, f *serdebenchv1.FaultStatus, now time.Time) {
	if f == nil || f.InjectedTime == nil || x.Spec.Faults == nil {
		return
	}
	var end time.Time
	switch {
	case f.RecoveredTime != nil:
		end = f.RecoveredTime.Time
	case spec != nil && !spec.OneShot():
		// Still in effect when the workers ended (the operator removed it then), not
		// a kill: it ended after the window, by now at the latest.
		end = now
	}
	if err := m.SplitAtFault(f.InjectedTime.Time, end, x.Spec.Faults.Recovery); err != nil {
		m.Warnings = append(m.Warnings, fmt.Sprintf("fault %s: no phases: %v", f.Name, err))
	}
}

// faultWindowWarning says when a fault did not fall inside the producers' measured
// window (it is planned from their logged window starts, and may be created up to
// the inject timeout late).
func faultWindowWarning(spec *trial.Fault, f *serdebenchv1.FaultStatus, sums []*summary.Summary) string {
	if f == nil || f.InjectedTime == nil {
		return ""
	}
	start, end := producerWindow(sums)
	switch {
	case start.IsZero():
		return ""
	case f.InjectedTime.Time.Before(start):
		return fmt.Sprintf("fault %s took effect %s before the measured window began: the trial has no healthy before-phase", f.Name, start.Sub(f.InjectedTime.Time).Round(100*time.Millisecond))
	case f.InjectedTime.After(end):
		return fmt.Sprintf("fault %s took effect %s after the measured window ended", f.Name, f.InjectedTime.Time.Sub(end).Round(100*time.Millisecond))
	case spec != nil && spec.DurationSeconds > 0 && (f.RecoveredTime == nil || f.RecoveredTime.After(end)):
		return fmt.Sprintf("fault %s lasted past the measured window: the trial has no after-phase", f.Name)
	}
	return ""
}

// producerWindow spans the producers' measured windows: the earliest start, the
// latest end (zero without a producer summary).
func producerWindow(sums []*summary.Summary) (start, end time.Time) {
	for _, s := range sums {
		if s.Role != summary.RoleProducer {
			continue
		}
		if start.IsZero() || s.WindowStart.Before(start) {
			start = s.WindowStart
		}
		if s.WindowEnd.After(end) {
			end = s.WindowEnd
		}
	}
	return start, end
}

// groupEventMissed says why the summaries show a consumers fault's leave did not
// happen ("": they show it did, or the trial has none): the leaving consumer's
// summary must say it left. (A join's standby reports only once it joined: the
// summary count checks that.)
func groupEventMissed(t trial.Trial, sums []*summary.Summary) string {
	f := t.Fault
	if f == nil || f.Consumers == nil || f.Consumers.Action != trial.ConsumerLeave {
		return ""
	}
	name := protocol.ConsumerName(int(t.Consumers) - 1)
	for _, s := range sums {
		if s.Role == summary.RoleConsumer && s.Worker == name {
			if s.Left {
				return ""
			}
			return fmt.Sprintf("consumer %s was told to leave, and its summary says it stayed to the end", name)
		}
	}
	return fmt.Sprintf("no summary of consumer %s, which was told to leave", name)
}

// maxVersionLength is the API's MaxLength of a recorded version.
const maxVersionLength = 64

// kubernetesVersion is the API server's version, read for each result: a cluster
// upgraded between two runs of a schedule says so ("" when it cannot be read; the
// result then records none, and compare sees no change).
func (r *ExperimentReconciler) kubernetesVersion(ctx context.Context) string {
	if r.Clientset == nil {
		return ""
	}
	v, err := r.Clientset.Discovery().ServerVersion()
	if err != nil {
		log.FromContext(ctx).Info("Kubernetes version not read", "err", err)
		return ""
	}
	return v.GitVersion
}
