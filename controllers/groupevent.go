package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/protocol"
)

// groupEvent acts out a consumers fault when it is due, as `serdebench run`
// does: over HTTP to a consumer's control endpoint (workers/control), the last
// consumer leaves or pauses, or the standby consumer joins. Its injected time is
// the consumer's answer; a consumer that cannot be told within the inject
// timeout fails the trial with FaultNotInjected. A repeat after a restart is
// harmless: the consumer ignores a second leave or join.
func (f *faultRun) groupEvent(ctx context.Context) (ctrl.Result, bool, error) {
	if f.jobsDone {
		return f.stop(ctx, ReasonFaultNotInjected, "the trial ended before the fault was due")
	}
	if wait := f.fs.DueTime.Sub(f.now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, true, nil
	}
	late := f.now.Sub(f.fs.DueTime.Time)
	if late > f.r.faultInjectTimeout() {
		return f.tooLate(ctx, late)
	}
	if f.fs.CreateTime == nil {
		// Recorded before the consumer is told: after a lost status write or a
		// restart, a consumer gone since is taken to have left then (its
		// summary must say so: collect checks).
		at := metav1.NewTime(f.now)
		f.fs.CreateTime = &at
		return f.to(ctx, serdebenchv1.FaultDue)
	}
	ev := f.t.Fault.Consumers
	name := protocol.ConsumerName(int(f.t.Consumers) - 1) // the last one leaves or pauses
	if ev.Action == trial.ConsumerJoin {
		name = protocol.ConsumerName(int(f.t.Consumers)) // the standby
	}
	pods, err := f.r.trialPods(ctx, f.x, f.t)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	var target *endpoint
	for _, ep := range endpoints(pods) {
		if !ep.producer && ep.name == name {
			target = &ep
		}
	}
	retry := func(why string) (ctrl.Result, bool, error) {
		if late+f.r.poll() > f.r.faultInjectTimeout() {
			return f.stop(ctx, ReasonFaultNotInjected, fmt.Sprintf("consumer %s could not be told to %s within %s: %s", name, ev.Action, f.r.faultInjectTimeout(), why))
		}
		return ctrl.Result{RequeueAfter: f.r.poll()}, true, nil
	}
	if target == nil && ev.Action == trial.ConsumerLeave && f.fs.CreateTime.Time.Before(f.now.Add(-f.r.poll())) {
		// Told before, and gone since: it left when told.
		return f.applied(ctx, name, *f.fs.CreateTime, "")
	}
	if target == nil {
		return retry("it has no running pod with an address, or its container has ended")
	}
	rctx, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	if err := f.r.controlClient().GroupEvent(rctx, target.base, string(ev.Action), time.Duration(f.t.Fault.DurationSeconds)*time.Second); err != nil {
		return retry(err.Error())
	}
	return f.applied(ctx, name, metav1.NewTime(time.Now()), target.pod)
}

// applied records the consumer group event as applied at at, to the consumer
// name in pod ("": the pod is gone).
func (f *faultRun) applied(ctx context.Context, name string, at metav1.Time, pod string) (ctrl.Result, bool, error) {
	f.fs.InjectedTime = &at
	f.fs.TargetCount, f.fs.Targets = 1, []string{pod}
	if pod == "" {
		f.fs.Targets = []string{"consumer " + name}
	}
	f.r.sideEffect(f.x, "fault applied")
	f.r.event(f.x, corev1.EventTypeNormal, "FaultApplied", "trial %s: consumer %s told to %s (fault %s)", f.t.Name, name, f.t.Fault.Consumers.Action, f.t.Fault.Name)
	if f.t.Fault.OneShot() {
		return f.to(ctx, serdebenchv1.FaultRemoving) // nothing to undo: Removing finds no object
	}
	return f.to(ctx, serdebenchv1.FaultInjected)
}

// awaitPauseEnd waits out a consumer's pause, which ends by itself after
// durationSeconds; the trial's Jobs run on meanwhile. The recovery time is when
// the pause has surely ended: the status keeps whole seconds, so the injected
// time may be up to a second early. A pause the window's end cut short has no
// recovery time: the result says it had no after-phase.
func (f *faultRun) awaitPauseEnd(ctx context.Context) (ctrl.Result, bool, error) {
	end := f.fs.InjectedTime.Add(time.Duration(f.t.Fault.DurationSeconds)*time.Second + time.Second)
	switch {
	case !f.now.Before(end):
		at := metav1.NewTime(end)
		f.fs.RecoveredTime = &at
		return f.to(ctx, serdebenchv1.FaultRemoving)
	case f.jobsDone:
		return f.to(ctx, serdebenchv1.FaultRemoving)
	}
	return ctrl.Result{RequeueAfter: end.Sub(f.now)}, false, nil
}
