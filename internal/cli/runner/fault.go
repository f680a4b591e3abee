package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/netem"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// Faults apply a run's network faults to the packets the broker sends, with the
// local rig's engine (docs/faults.md, "Without Kubernetes").
type Faults struct {
	// Engine impairs the packets arriving from the broker (netem.Open).
	Engine *netem.Engine
	// Interface is the engine's, for messages.
	Interface string
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
}

func newFaultRun(t trial.Trial, f *Faults) (*faultRun, error) {
	if t.Fault.Network == nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonFaultNotInjected,
			Err: fmt.Errorf("fault %s: serdebench run applies network faults only; pod and stress faults need a cluster (docs/faults.md)", t.Fault.Name)}
	}
	if f == nil || f.Engine == nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonFaultNotInjected,
			Err: fmt.Errorf("fault %s: no local fault rig (run as root behind hack/calibrate/netns.sh with --fault-interface; docs/faults.md)", t.Fault.Name)}
	}
	imp, err := netem.FromFault(t.Fault.Network)
	if err != nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonFaultNotInjected, Err: fmt.Errorf("fault %s: %w", t.Fault.Name, err)}
	}
	return &faultRun{t: t, f: f, imp: imp, seed: uint64(t.Seed) + uint64(t.Index), ready: make(chan struct{}), done: make(chan struct{}),
		rec: report.LocalFault{Name: t.Fault.Name, Impairment: imp.String()}}, nil
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
	if err := r.f.Engine.Apply(ctx, r.imp, r.seed); err != nil {
		fail("%w", err)
		return
	}
	r.rec.Applied = time.Now()
	ended := sleepUntil(ctx, r.rec.Applied.Add(time.Duration(r.t.Fault.DurationSeconds)*time.Second))
	st, err := r.f.Engine.Clear(ctx)
	r.rec.Removed, r.rec.Rig = st.Removed, st
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

// finish waits for the fault's goroutine and splits the result at the fault.
func (r *faultRun) finish(res *summary.Result) (*report.LocalFault, error) {
	<-r.done
	if r.err != nil {
		return nil, r.err
	}
	if st := r.rec.Rig; st.Unheld > 0 || st.Enobufs > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("fault %s: the local engine could not keep up: %d of %d packets passed on unheld (less delay than set), %d queue messages dropped by the kernel (more loss than set)",
			r.t.Fault.Name, st.Unheld, st.Packets, st.Enobufs))
	}
	if err := res.SplitAtFault(r.rec.Applied, r.rec.Removed, r.f.Recovery); err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("fault %s: no phases: %v", r.t.Fault.Name, err))
	}
	return &r.rec, nil
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
