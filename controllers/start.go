package controllers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
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
	// clockEvery is how often it reads the clocks while a trial runs.
	clockEvery = 5 * time.Second
	// controlTimeout bounds one request to a worker.
	controlTimeout = 2 * time.Second
)

// endpoint is one worker container's control address.
type endpoint struct {
	// name is p<index> for a producer, the consumer's name (c<index>) otherwise.
	name     string
	producer bool
	node     string
	base     string
}

// endpoints finds the trial's workers in its pods: a container's role and id are
// its arguments (the index a Job's pod has expanded), its address the pod's IP
// and the container's metrics port. Pods not yet running, or without an IP, are
// left out.
func endpoints(pods []corev1.Pod) []endpoint {
	var out []endpoint
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			continue
		}
		index := p.Labels["batch.kubernetes.io/job-completion-index"]
		for _, c := range p.Spec.Containers {
			var role, id string
			for _, a := range c.Args {
				if v, ok := strings.CutPrefix(a, "--role="); ok {
					role = v
				}
				if v, ok := strings.CutPrefix(a, "--id="); ok {
					id = strings.ReplaceAll(v, "$(JOB_COMPLETION_INDEX)", index)
				}
			}
			var port int32
			for _, cp := range c.Ports {
				if strings.HasPrefix(cp.Name, "metrics") {
					port = cp.ContainerPort
				}
			}
			if role == "" || port == 0 {
				continue
			}
			e := endpoint{name: id, producer: role == protocol.RoleProducer, node: p.Spec.NodeName,
				base: (&url.URL{Scheme: "http", Host: fmt.Sprintf("%s:%d", p.Status.PodIP, port)}).String()}
			if e.producer {
				e.name = "p" + id
			}
			out = append(out, e)
		}
	}
	return out
}

// controlClient talks to the workers.
func (r *ExperimentReconciler) controlClient() control.Client {
	if r.ControlHTTP != nil {
		return control.Client{HTTP: r.ControlHTTP}
	}
	return control.Client{HTTP: &http.Client{Timeout: controlTimeout}}
}

// startProducers starts the trial's producers once all are ready; false while
// they are not (or a request failed: the next poll tries again).
func (r *ExperimentReconciler) startProducers(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (bool, error) {
	pods, err := r.trialPods(ctx, x, t)
	if err != nil {
		return false, err
	}
	eps := endpoints(pods)
	var producers, consumers int32
	for _, e := range eps {
		if e.producer {
			producers++
		} else {
			consumers++
		}
	}
	if producers < t.Producers || consumers < t.Consumers {
		return false, nil
	}
	cl := r.controlClient()
	for _, e := range eps {
		if !e.producer {
			continue
		}
		if ready, err := cl.Ready(ctx, e.base); err != nil || !ready {
			return false, err
		}
	}
	// One reading per node (its workers share its clock): the one with the
	// least uncertainty of its workers'.
	readings := map[string]control.Reading{}
	workers := map[string][]string{}
	for _, e := range eps {
		rd, err := cl.Clock(ctx, e.base)
		if err != nil {
			return false, err
		}
		if old, ok := readings[e.node]; !ok || rd.Uncertainty < old.Uncertainty {
			readings[e.node] = rd
		}
		workers[e.node] = append(workers[e.node], e.name)
	}
	at := time.Now().Add(startLead)
	for _, e := range eps {
		if e.producer {
			if err := cl.Start(ctx, e.base, at.Add(readings[e.node].Offset)); err != nil {
				return false, err
			}
		}
	}
	st := &serdebenchv1.TrialStart{At: metav1.NewMicroTime(at)}
	for node, rd := range readings {
		w := workers[node]
		sort.Strings(w)
		st.Nodes = append(st.Nodes, serdebenchv1.NodeClock{Node: node, Workers: w,
			OffsetMicros: rd.Offset.Microseconds(), UncertaintyMicros: rd.Uncertainty.Microseconds()})
	}
	sort.Slice(st.Nodes, func(i, j int) bool { return st.Nodes[i].Node < st.Nodes[j].Node })
	x.Status.Trials[t.Index].Start = st
	return true, nil
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
	cur := clockReadings{at: time.Now(), nodes: map[string]control.Reading{}}
	if ok {
		cur.nodes = prev.nodes
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
	r.clocks.mu.Unlock()
}

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
	sync := &serdebenchv1.TrialSync{ProducerRatesSumPerSecond: int64(merged.ProducerRatesSum + 0.5),
		WindowStartSpreadMicros: merged.WindowStartSpreadMicros}
	if st == nil {
		return sync
	}
	sync.StartAt = &st.At
	node := map[string]*serdebenchv1.NodeClock{}
	for i := range st.Nodes {
		for _, w := range st.Nodes[i].Workers {
			node[w] = &st.Nodes[i]
		}
	}
	var starts []time.Time
	producerNodes, consumerNodes := map[string]bool{}, map[string]bool{}
	for _, s := range sums {
		name := s.Worker
		if s.Role == summary.RoleProducer {
			name = "p" + s.Worker
		}
		n := node[name]
		if n == nil {
			continue
		}
		if s.Role == summary.RoleProducer {
			producerNodes[n.Node] = true
			if !s.WindowStart.IsZero() {
				starts = append(starts, s.WindowStart.Add(-time.Duration(n.OffsetMicros)*time.Microsecond))
			}
		} else {
			consumerNodes[n.Node] = true
		}
	}
	if len(starts) > 1 {
		sync.WindowStartSpreadMicros = summary.Spread(starts).Microseconds()
	}
	for p := range producerNodes {
		for c := range consumerNodes {
			if p != c {
				sync.EndToEndClockUncertaintyMicros = max(sync.EndToEndClockUncertaintyMicros, clockGap(p, c, st))
			}
		}
	}
	return sync
}

// clockGap bounds the error that nodes p's and c's clocks put into a latency
// measured from one to the other: the larger difference of their offsets (at
// the start and at the end) plus the readings' uncertainties.
func clockGap(p, c string, st *serdebenchv1.TrialStart) int64 {
	i := slices.IndexFunc(st.Nodes, func(n serdebenchv1.NodeClock) bool { return n.Node == p })
	j := slices.IndexFunc(st.Nodes, func(n serdebenchv1.NodeClock) bool { return n.Node == c })
	a, b := st.Nodes[i], st.Nodes[j]
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
// reading stays, its last moves on.
func mergeClocks(env []serdebenchv1.NodeClock, st *serdebenchv1.TrialStart) []serdebenchv1.NodeClock {
	if st == nil {
		return env
	}
	for _, n := range st.Nodes {
		last, lastU := n.EndOffsetMicros, n.EndUncertaintyMicros
		if last == nil {
			last, lastU = ptr.To(n.OffsetMicros), ptr.To(n.UncertaintyMicros)
		}
		i := slices.IndexFunc(env, func(e serdebenchv1.NodeClock) bool { return e.Node == n.Node })
		if i < 0 {
			env = append(env, serdebenchv1.NodeClock{Node: n.Node, OffsetMicros: n.OffsetMicros, UncertaintyMicros: n.UncertaintyMicros})
			i = len(env) - 1
		}
		env[i].EndOffsetMicros, env[i].EndUncertaintyMicros = last, lastU
	}
	sort.Slice(env, func(i, j int) bool { return env[i].Node < env[j].Node })
	if len(env) > maxClockNodes {
		env = env[:maxClockNodes]
	}
	return env
}

// maxClockNodes is the result's cap on node clocks (its MaxItems): the first by
// name. (Each trial's sync is computed from all of its nodes.)
const maxClockNodes = 32
