package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/netem"
	"github.com/serdebench/serdebench/internal/netem/engine"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// Faults apply a run's faults without Kubernetes (docs/faults.md, "Without
// Kubernetes"): network faults to the packets the broker sends, with the local
// rig's engine; pod faults to the broker's process, through its script.
type Faults struct {
	// Engine impairs the packets arriving from the broker (engine.Open; nil: a
	// network fault fails its trial).
	Engine *engine.Engine
	// Interface is the engine's, for messages.
	Interface string
	// Broker kills, stops and restarts the broker (nil: a pod fault fails its
	// trial).
	Broker *BrokerScript
	// Recovery is spec.faults.recovery.
	Recovery trial.Recovery
	// InjectTimeout bounds how late a fault may start (default 30 s, as the
	// operator's): a fault that would land elsewhere in the window is not applied.
	InjectTimeout time.Duration
}

// faultRun applies one trial's fault: its startSeconds after the last producer
// began its measured window, for durationSeconds.
type faultRun struct {
	t    trial.Trial
	f    *Faults
	imp  netem.Impairment
	seed uint64

	mu     sync.Mutex
	starts []time.Time
	ready  chan struct{} // closed once every producer's window began

	done chan struct{}
	rec  report.LocalFault
	err  *TrialError
	// abort ends the trial (its workers) with the fault's error as the cause.
	abort context.CancelCauseFunc
	// brokers are the trial's bootstrap servers: a pod fault acts on one of them.
	brokers []string
	// group acts on the trial's consumers (a consumers fault); set before run.
	group groupHooks
}

// groupHooks are how a consumers fault acts: on the last consumer, or by
// starting one more.
type groupHooks struct {
	last *consumer.Control
	join func()
}

func newFaultRun(t trial.Trial, f *Faults, brokers []string) (*faultRun, error) {
	refuse := func(format string, args ...any) (*faultRun, error) {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonFaultNotInjected, Err: fmt.Errorf("fault %s: "+format, append([]any{t.Fault.Name}, args...)...)}
	}
	r := &faultRun{t: t, f: f, brokers: brokers, seed: uint64(t.Seed) + uint64(t.Index), ready: make(chan struct{}), done: make(chan struct{}),
		rec: report.LocalFault{Name: t.Fault.Name}}
	kind, err := t.Fault.Kind()
	switch {
	case err != nil:
		return refuse("%w", err)
	case kind == trial.FaultConsumers:
		r.rec.Action = "consumers-" + string(t.Fault.Consumers.Action)
	case t.Fault.Target.Role != "" && t.Fault.Target.Role != trial.RoleBrokers:
		return refuse("serdebench run acts on the broker only, not on the %s (docs/faults.md)", t.Fault.Target.Role)
	case kind == trial.FaultPod:
		if f == nil || f.Broker == nil {
			return refuse("no script to kill and restart the broker (--fault-broker-script hack/kafka/kafka.sh; docs/faults.md)")
		}
		r.rec.Action = string(t.Fault.Pod.Action)
	case kind == trial.FaultNetwork:
		if f == nil || f.Engine == nil {
			return refuse("no local fault rig (run as root behind hack/calibrate/netns.sh with --fault-interface; docs/faults.md)")
		}
		imp, err := netem.FromFault(t.Fault.Network)
		if err != nil {
			return refuse("%w", err)
		}
		r.imp, r.rec.Impairment = imp, imp.String()
	default:
		// localFaults (cmd/serdebench) refused it before any trial ran.
		return refuse("serdebench run cannot apply a %s fault: it needs a cluster with Chaos Mesh (%s; docs/faults.md)", kind, trial.FaultKinds[kind].Needs)
	}
	return r, nil
}

// windowStarted is each producer's report (workers/run.Env.WindowStarted).
func (r *faultRun) windowStarted(at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, at)
	if len(r.starts) == int(r.t.Producers) {
		close(r.ready)
	}
}

// run applies the fault when due and removes it when it ends; ctx ends when the
// producers do (or the trial is stopped). Done closes when it returns.
func (r *faultRun) run(ctx context.Context) {
	defer close(r.done)
	fail := func(format string, args ...any) {
		r.err = &TrialError{Trial: r.t.Name, Reason: protocol.ReasonFaultNotInjected, Err: fmt.Errorf("fault %s: "+format, append([]any{r.t.Fault.Name}, args...)...)}
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		fail("the producers ended before every one began its measured window")
		return
	}
	r.mu.Lock()
	var last time.Time
	for _, s := range r.starts {
		if s.After(last) {
			last = s
		}
	}
	r.mu.Unlock()
	due := last.Add(time.Duration(r.t.Fault.StartSeconds) * time.Second)
	r.rec.Due = due
	if !sleepUntil(ctx, due) {
		fail("the producers ended before the fault was due")
		return
	}
	timeout := r.f.InjectTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if late := time.Since(due); late > timeout {
		fail("%s late: not applied elsewhere in the window", late.Round(time.Millisecond))
		return
	}
	if r.t.Fault.Pod != nil {
		r.runBroker(ctx)
		return
	}
	if r.t.Fault.Consumers != nil {
		r.runGroup(ctx)
		return
	}
	if err := r.f.Engine.Apply(ctx, r.imp, r.seed); err != nil {
		fail("%w", err)
		return
	}
	r.rec.Applied = time.Now()
	ended := sleepUntil(ctx, r.rec.Applied.Add(time.Duration(r.t.Fault.DurationSeconds)*time.Second))
	st, err := r.f.Engine.Clear(ctx)
	r.rec.Removed, r.rec.Rig = st.Removed, &st
	switch {
	case st.ReadError != "":
		fail("the engine stopped reading packets (%s): the fault did not act as set", st.ReadError)
	case err != nil:
		r.err = &TrialError{Trial: r.t.Name, Reason: protocol.ReasonFaultNotRecovered, Err: fmt.Errorf("fault %s: %w", r.t.Fault.Name, err)}
	case !ended:
		fail("the producers ended while it was applied (it must end before the window does)")
	case st.Packets == 0:
		fail("the rig saw no packet from the broker on %s while it was applied: is the broker behind it (hack/calibrate/netns.sh)?", r.f.Interface)
	}
}

// runBroker kills or stops the broker and starts it again: at once after a kill
// (as a StatefulSet makes a new pod, or the kubelet restarts a killed container),
// durationSeconds later after a failure (as Chaos Mesh restores a failed pod).
// The fault's start is when it was asked for, as Chaos Mesh's injectedTime is.
func (r *faultRun) runBroker(ctx context.Context) {
	fail := func(reason, format string, args ...any) {
		r.err = &TrialError{Trial: r.t.Name, Reason: reason, Err: fmt.Errorf("fault %s: "+format, append([]any{r.t.Fault.Name}, args...)...)}
	}
	b := r.f.Broker
	if err := b.Serves(ctx, r.brokers); err != nil {
		fail(protocol.ReasonFaultNotInjected, "nothing was killed: %w", err)
		return
	}
	failure := r.t.Fault.Pod.Action == trial.PodFailure
	var err error
	// Once begun, a stop or kill runs to its end (bounded by the script's
	// timeout) and the broker is started again, whatever ends the trial: a run
	// leaves the broker as it found it.
	bg := context.WithoutCancel(ctx)
	r.rec.Applied = time.Now()
	if failure {
		err = b.Stop(bg)
	} else {
		err = b.Kill(bg)
	}
	if err != nil {
		if serr := b.Start(bg); serr != nil {
			fail(protocol.ReasonFaultNotRecovered, "%w; and the broker did not start again: %w", err, serr)
			r.abortTrial()
			return
		}
		fail(protocol.ReasonFaultNotInjected, "%w", err)
		return
	}
	r.rec.Down = time.Now()
	ended := true
	if failure {
		ended = sleepUntil(ctx, r.rec.Applied.Add(time.Duration(r.t.Fault.DurationSeconds)*time.Second))
		r.rec.Removed = time.Now()
	}
	if err := b.Start(bg); err != nil {
		fail(protocol.ReasonFaultNotRecovered, "the broker did not start again: %w", err)
		r.abortTrial()
		return
	}
	r.rec.Ready = time.Now()
	if !ended {
		fail(protocol.ReasonFaultNotInjected, "the producers ended while the broker was down (the failure must end before the window does)")
	}
}

// runGroup applies a consumer group event: one more consumer joins, the last one
// leaves, or the last one pauses for durationSeconds.
func (r *faultRun) runGroup(ctx context.Context) {
	r.rec.Applied = time.Now()
	switch r.t.Fault.Consumers.Action {
	case trial.ConsumerJoin:
		r.group.join()
	case trial.ConsumerLeave:
		r.group.last.Leave()
	case trial.ConsumerPause:
		d := time.Duration(r.t.Fault.DurationSeconds) * time.Second
		r.group.last.Pause(d)
		if !sleepUntil(ctx, r.rec.Applied.Add(d)) {
			r.err = &TrialError{Trial: r.t.Name, Reason: protocol.ReasonFaultNotInjected,
				Err: fmt.Errorf("fault %s: the producers ended while the consumer was paused (the pause must end before the window does)", r.t.Fault.Name)}
		}
		r.rec.Removed = time.Now()
	}
}

// abortTrial ends the trial with the fault's error: its workers would wait for a
// broker that is not coming back until the trial's timeout.
func (r *faultRun) abortTrial() {
	if r.abort != nil {
		r.abort(r.err)
	}
}

// finish waits for the fault's goroutine and splits the result at the fault.
func (r *faultRun) finish(res *summary.Result) (*report.LocalFault, error) {
	<-r.done
	if r.err != nil {
		return nil, r.err
	}
	if w := rigWarning(r.rec.Rig); w != "" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("fault %s: %s", r.t.Fault.Name, w))
	}
	if err := res.SplitAtFault(r.rec.Applied, r.rec.Removed, r.f.Recovery); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("fault %s: no phases: %v", r.t.Fault.Name, err))
	}
	return &r.rec, nil
}

// rigWarning says how the engine's fault differed from its setting ("": it did
// not, as far as it and the kernel can tell).
func rigWarning(st *netem.Stats) string {
	if st == nil {
		return ""
	}
	var parts []string
	if st.Unheld > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d packets passed on unheld (less delay than set)", st.Unheld, st.Packets))
	}
	switch {
	case st.KernelDropped > 0:
		parts = append(parts, fmt.Sprintf("the kernel dropped %d packets before the engine saw them (more loss than set)", st.KernelDropped))
	case st.KernelDropped < 0 && st.Enobufs > 0:
		parts = append(parts, fmt.Sprintf("the kernel dropped queue messages %d times (ENOBUFS; more loss than set, by how much is unknown: its counters were unreadable)", st.Enobufs))
	}
	if len(parts) == 0 {
		return ""
	}
	return "the local engine could not keep up: " + strings.Join(parts, "; ")
}

// sleepUntil waits until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
