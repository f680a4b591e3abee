package controllers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/workers/control"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// The producers' start: once every worker pod of the trial runs and every
// producer says it is ready (connected, its consumer group stable), the operator
// reads each worker's clock, picks one instant startLead ahead and gives each
// producer that instant on its own node's clock (workers/control). While the
// trial runs it reads the clocks again (clockEvery), so the result has each
// node's offset at the start and near the end.
const (
	// startLead leaves time to tell every producer (one request each) before the
	// instant comes.
	startLead = time.Second
	// startPoll is how often the operator looks for ready producers.
	startPoll = 500 * time.Millisecond
	// watchedPoll is the safety-net poll while a trial waits for its worker pods,
	// whose changes are watched.
	watchedPoll = time.Minute
	// clockEvery is how often it reads the clocks while a trial runs.
	clockEvery = 5 * time.Second
	// controlTimeout bounds one request to a worker.
	controlTimeout = 2 * time.Second
)

// errWorkersNotUp: not every worker pod of the trial runs yet. Their pods' changes
// are watched, so the operator waits for those rather than polling at startPoll.
var errWorkersNotUp = errors.New("not every worker pod runs yet")

// endpoint is one worker container's control address.
type endpoint struct {
	// name is p<index> for a producer, the consumer's name (c<index>) otherwise.
	name string
	// pod is the pod's namespace/name.
	pod      string
	producer bool
	// gated says the producer waits for a start (--start-gate).
	gated bool
	node  string
	base  string
}

// endpoints finds the trial's workers in its pods: each container's assignment
// is its arguments, read as the worker reads them (protocol.Parse, with the index
// the Job's pod has expanded), its address the pod's IP and the worker's metrics
// port. Pods not yet running, or without an IP, and workers that ended are left
// out.
func endpoints(pods []corev1.Pod) []endpoint {
	var out []endpoint
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			continue
		}
		index := p.Annotations[batchv1.JobCompletionIndexAnnotation] // the Job controller's, as the kubelet expands it
		// A worker that ended answers no more, though its pod may run on (colocated
		// workers share one).
		ended := endedWorkers(p)
		for _, c := range p.Spec.Containers {
			if ended[c.Name] {
				continue
			}
			args := make([]string, len(c.Args))
			for j, a := range c.Args {
				args[j] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", index)
			}
			w, err := protocol.Parse(args, io.Discard)
			if err != nil || w.MetricsAddr == "" {
				continue
			}
			_, port, err := net.SplitHostPort(w.MetricsAddr)
			if err != nil {
				continue
			}
			out = append(out, endpoint{name: workerName(w.Role, w.ID), pod: p.Namespace + "/" + p.Name, producer: w.Role == protocol.RoleProducer, gated: w.StartGate,
				node: p.Spec.NodeName, base: (&url.URL{Scheme: "http", Host: net.JoinHostPort(p.Status.PodIP, port)}).String()})
		}
	}
	return out
}

// workerEnded says whether one of the pod's workers has ended while the pod runs
// on (colocated workers share a pod): as a pod that ended, it was started by
// nobody, and its summary or error is what collect reads.
func workerEnded(p *corev1.Pod) bool { return len(endedWorkers(p)) > 0 }

// endedWorkers are the pod's containers that have ended, by name.
func endedWorkers(p *corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			out[cs.Name] = true
		}
	}
	return out
}

// workerName is how a trial's clocks name a worker: p<index> for a producer, a
// consumer by its name (c<index>).
func workerName(role, id string) string {
	if role == protocol.RoleProducer {
		return "p" + id
	}
	return id
}

// controlClient talks to the workers.
func (r *ExperimentReconciler) controlClient() control.Client {
	if r.ControlHTTP != nil {
		return control.Client{HTTP: r.ControlHTTP}
	}
	return control.Client{HTTP: &http.Client{Timeout: controlTimeout}}
}

// startRequests bounds the requests to workers in flight at once.
const startRequests = 16

// planStart chooses the trial's start once every producer is ready: it reads
// the clocks and records the instant, startLead ahead, in the trial's status; the
// producers hear of it only once that is written (releaseProducers), so a retry
// or a restarted operator gives them the same instant. False while they are not
// all ready. Producers that do not wait for a start (started by an operator
// before this one, or already finished when it looked) are recorded as started
// by nobody.
func (r *ExperimentReconciler) planStart(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (bool, error) {
	pods, err := r.trialPods(ctx, x, t)
	if err != nil {
		return false, err
	}
	ts := &x.Status.Trials[t.Index]
	for i := range pods {
		if p := &pods[i]; p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || workerEnded(p) {
			ts.Start = &serdebenchv1.TrialStart{Released: true}
			return true, nil
		}
	}
	eps := endpoints(pods)
	var producers, consumers int32
	for _, e := range eps {
		switch {
		case e.producer && !e.gated:
			ts.Start = &serdebenchv1.TrialStart{Released: true}
			return true, nil
		case e.producer:
			producers++
		default:
			consumers++
		}
	}
	// A join's standby consumer too: it must be up to be told to join.
	if producers < t.Producers || consumers < t.Consumers+t.Joiners() {
		return false, errWorkersNotUp
	}
	cl := r.controlClient()
	ready := make([]bool, len(eps))
	if err := each(ctx, eps, func(ctx context.Context, i int, e endpoint) error {
		if !e.producer {
			ready[i] = true
			return nil
		}
		var err error
		ready[i], err = cl.Ready(ctx, e.base)
		return err
	}); err != nil || slices.Contains(ready, false) {
		return false, err
	}
	readings := make([]control.Reading, len(eps))
	if err := each(ctx, eps, func(ctx context.Context, i int, e endpoint) error {
		var err error
		readings[i], err = cl.Clock(ctx, e.base)
		return err
	}); err != nil {
		return false, err
	}
	// One reading per node (its workers share its clock): the least uncertain.
	byNode := map[string]*serdebenchv1.NodeClock{}
	st := &serdebenchv1.TrialStart{At: ptr.To(metav1.NewMicroTime(time.Now().Add(startLead)))}
	for i, e := range eps {
		rd := readings[i]
		n := byNode[e.node]
		if n == nil {
			n = &serdebenchv1.NodeClock{Node: e.node, OffsetMicros: rd.Offset.Microseconds(), UncertaintyMicros: rd.Uncertainty.Microseconds()}
			byNode[e.node] = n
		} else if u := rd.Uncertainty.Microseconds(); u < n.UncertaintyMicros {
			n.OffsetMicros, n.UncertaintyMicros = rd.Offset.Microseconds(), u
		}
		n.Workers = append(n.Workers, e.name)
	}
	for _, n := range byNode {
		sort.Strings(n.Workers)
		st.Nodes = append(st.Nodes, *n)
	}
	sort.Slice(st.Nodes, func(i, j int) bool { return st.Nodes[i].Node < st.Nodes[j].Node })
	ts.Start = st
	return true, nil
}

// releaseProducers gives every producer the planned instant on its node's clock.
// A producer keeps the first start it hears, so sending again is harmless.
func (r *ExperimentReconciler) releaseProducers(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) error {
	st := x.Status.Trials[t.Index].Start
	pods, err := r.trialPods(ctx, x, t)
	if err != nil {
		return err
	}
	offset := map[string]time.Duration{}
	for _, n := range st.Nodes {
		offset[n.Node] = time.Duration(n.OffsetMicros) * time.Microsecond
	}
	cl := r.controlClient()
	return each(ctx, endpoints(pods), func(ctx context.Context, _ int, e endpoint) error {
		if !e.producer {
			return nil
		}
		return cl.Start(ctx, e.base, st.At.Add(offset[e.node]))
	})
}

// each runs f for every endpoint, startRequests at a time; the first error wins.
func each(ctx context.Context, eps []endpoint, f func(context.Context, int, endpoint) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(startRequests)
	for i, e := range eps {
		g.Go(func() error { return f(ctx, i, e) })
	}
	return g.Wait()
}

// clockBook holds the latest clock reading of each node per running trial
// attempt, in memory: it goes into the status once the trial's workers end (a
// restarted operator has only the readings it took since).
type clockBook struct {
	mu   sync.Mutex
	last map[string]clockReadings
}

type clockReadings struct {
	at    time.Time
	nodes map[string]control.Reading
}

// clockKey names one attempt of one trial of one experiment.
func clockKey(x *serdebenchv1.SerializationExperiment, t trial.Trial) string {
	return fmt.Sprintf("%s/%s/%d", x.UID, t.Name, x.Status.Trials[t.Index].Attempt)
}

// readClocks reads the running workers' clocks, at most every clockEvery.
func (r *ExperimentReconciler) readClocks(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) {
	key := clockKey(x, t)
	r.clocks.mu.Lock()
	if r.clocks.last == nil {
		r.clocks.last = map[string]clockReadings{}
	}
	prev, ok := r.clocks.last[key]
	r.clocks.mu.Unlock()
	if ok && time.Since(prev.at) < clockEvery {
		return
	}
	pods, err := r.trialPods(ctx, x, t)
	if err != nil {
		return
	}
	cur := clockReadings{at: time.Now(), nodes: maps.Clone(prev.nodes)}
	if cur.nodes == nil {
		cur.nodes = map[string]control.Reading{}
	}
	cl := r.controlClient()
	for _, e := range endpoints(pods) {
		rd, err := cl.Clock(ctx, e.base)
		if err != nil {
			continue // a worker that has finished stops serving
		}
		if old, seen := cur.nodes[e.node]; !seen || old.At.Before(cur.at) || rd.Uncertainty < old.Uncertainty {
			cur.nodes[e.node] = rd
		}
	}
	r.clocks.mu.Lock()
	r.clocks.last[key] = cur
	for k, v := range r.clocks.last {
		// A trial nobody read for a while ended without endClocks (a failed
		// attempt, a deleted experiment).
		if time.Since(v.at) > clockForget {
			delete(r.clocks.last, k)
		}
	}
	r.clocks.mu.Unlock()
}

// clockForget is when an attempt's readings are dropped unread.
const clockForget = 10 * time.Minute

// endClocks moves the last readings of the trial's attempt into its start.
func (r *ExperimentReconciler) endClocks(x *serdebenchv1.SerializationExperiment, t trial.Trial) {
	key := clockKey(x, t)
	r.clocks.mu.Lock()
	last, ok := r.clocks.last[key]
	delete(r.clocks.last, key)
	r.clocks.mu.Unlock()
	st := x.Status.Trials[t.Index].Start
	if !ok || st == nil {
		return
	}
	for i := range st.Nodes {
		if rd, ok := last.nodes[st.Nodes[i].Node]; ok {
			st.Nodes[i].EndOffsetMicros = ptr.To(rd.Offset.Microseconds())
			st.Nodes[i].EndUncertaintyMicros = ptr.To(rd.Uncertainty.Microseconds())
		}
	}
}

// trialSync is what the result says of the trial's start and clocks: the spread
// of the producers' window starts on the operator's clock, and how far the
// clocks can have moved end-to-end latency.
func trialSync(st *serdebenchv1.TrialStart, sums []*summary.Summary, merged *summary.Result) *serdebenchv1.TrialSync {
	out := &serdebenchv1.TrialSync{ProducerRatesSumPerSecond: int64(merged.ProducerRatesSum + 0.5),
		StartSpreadMicros: merged.WindowStartSpreadMicros}
	if st == nil {
		return out
	}
	out.StartAt = st.At
	node := map[string]*serdebenchv1.NodeClock{} // by worker name
	for i := range st.Nodes {
		for _, w := range st.Nodes[i].Workers {
			node[w] = &st.Nodes[i]
		}
	}
	var starts []time.Time
	producerNodes, consumerNodes := map[*serdebenchv1.NodeClock]bool{}, map[*serdebenchv1.NodeClock]bool{}
	for _, s := range sums {
		n := node[workerName(s.Role, s.Worker)]
		switch {
		case n == nil:
		case s.Role == summary.RoleProducer:
			producerNodes[n] = true
			if !s.WindowStart.IsZero() {
				starts = append(starts, s.WindowStart.Add(-time.Duration(n.OffsetMicros)*time.Microsecond))
			}
		default:
			consumerNodes[n] = true
		}
	}
	if len(starts) > 1 {
		out.StartSpreadMicros = summary.Spread(starts).Microseconds()
	}
	for p := range producerNodes {
		for c := range consumerNodes {
			if p != c {
				out.ClockUncertaintyMicros = max(out.ClockUncertaintyMicros, clockGap(*p, *c))
			}
		}
	}
	return out
}

// clockGap bounds the error that nodes a's and b's clocks put into a latency
// measured from one to the other: the larger difference of their offsets (at
// the start and at the end) plus the readings' uncertainties.
func clockGap(a, b serdebenchv1.NodeClock) int64 {
	gap := abs(a.OffsetMicros-b.OffsetMicros) + a.UncertaintyMicros + b.UncertaintyMicros
	if a.EndOffsetMicros != nil && b.EndOffsetMicros != nil {
		gap = max(gap, abs(*a.EndOffsetMicros-*b.EndOffsetMicros)+*a.EndUncertaintyMicros+*b.EndUncertaintyMicros)
	}
	return gap
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// mergeClocks adds a trial's node clocks to the experiment's: a node's first
// reading stays, its last end reading moves on (none: the node has only its
// start reading).
func mergeClocks(env []serdebenchv1.NodeClock, st *serdebenchv1.TrialStart) []serdebenchv1.NodeClock {
	if st == nil {
		return env
	}
	for _, n := range st.Nodes {
		i := slices.IndexFunc(env, func(e serdebenchv1.NodeClock) bool { return e.Node == n.Node })
		if i < 0 {
			env = append(env, serdebenchv1.NodeClock{Node: n.Node, OffsetMicros: n.OffsetMicros, UncertaintyMicros: n.UncertaintyMicros})
			i = len(env) - 1
		}
		if n.EndOffsetMicros != nil {
			env[i].EndOffsetMicros, env[i].EndUncertaintyMicros = n.EndOffsetMicros, n.EndUncertaintyMicros
		}
	}
	sort.Slice(env, func(i, j int) bool { return env[i].Node < env[j].Node })
	if len(env) > maxClockNodes {
		env = env[:maxClockNodes]
	}
	return env
}

// maxClockNodes is the result's cap on node clocks (its MaxItems): the first by
// name. (Each trial's sync is computed from all of its nodes.)
const maxClockNodes = 24

// producersWindowStart is when the last of the trial attempt's producers began
// its measured window, as each logged it (zero while any has not). A producer
// that ended without one is an error: its trial cannot time a fault.
func (r *ExperimentReconciler) producersWindowStart(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (time.Time, error) {
	role := build.RoleProducer
	if x.Spec.Workers.Colocate {
		role = build.RoleWorkers
	}
	pods := &corev1.PodList{}
	sel := labels.Set{build.LabelTrial: t.Name, build.LabelRole: role, build.LabelAttempt: fmt.Sprint(x.Status.Trials[t.Index].Attempt)}
	if err := r.List(ctx, pods, client.InNamespace(x.Namespace), client.MatchingLabels(sel)); err != nil {
		return time.Time{}, fmt.Errorf("list producer pods: %w", err)
	}
	var last time.Time
	n := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		for _, cs := range p.Status.ContainerStatuses {
			if !strings.HasPrefix(cs.Name, protocol.RoleProducer) {
				continue
			}
			if cs.State.Running == nil && cs.State.Terminated == nil {
				return time.Time{}, nil
			}
			log, err := r.podLog(ctx, p, cs.Name, &corev1.PodLogOptions{LimitBytes: ptr.To(int64(windowLogBytes))})
			if err != nil {
				return time.Time{}, err
			}
			at, ok := protocol.WindowStart(log)
			switch {
			case !ok && cs.State.Terminated != nil:
				return time.Time{}, fmt.Errorf("%w: pod %s container %s ended without logging %q", errNoWindow, p.Name, cs.Name, protocol.WindowStarted)
			case !ok:
				return time.Time{}, nil
			}
			if at.After(last) {
				last = at
			}
			n++
		}
	}
	if n < int(t.Producers) {
		return time.Time{}, nil
	}
	return last, nil
}

// windowLogBytes bounds the head of a producer's log read for its window start
// (the line comes after the client's setup, long before the summary).
const windowLogBytes = 256 << 10

// errNoWindow: a producer ended without a measured window.
var errNoWindow = errors.New("no measured window")
