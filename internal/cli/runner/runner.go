// Package runner runs an experiment's trials one at a time against a Kafka cluster
// without Kubernetes: for each trial it creates a fresh topic through the Admin API,
// runs the same workers the operator runs in pods (workers/protocol,
// workers/run) in-process — consumers first, producers once the group is
// stable — merges every worker's summary and deletes the topic.
package runner

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/control"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/run"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/usage"
)

// Options configure a local run.
type Options struct {
	Brokers []string
	// SchemaRegistry is the schema registry's URL, for the registry codecs.
	SchemaRegistry string
	// Security is TLS and SASL for the brokers, for topics and workers alike.
	Security   kafkaconn.Security
	Experiment string
	// RunID makes topic and group names unique per run (default: random).
	RunID string
	// Progress, if set, counts measured records acknowledged across trials.
	Progress *atomic.Int64
	// OnTrial, if set, is called before each trial starts.
	OnTrial func(t trial.Trial)
	// Stop, if set, is asked before each trial with the results so far; true
	// ends the run there, without error (spec.repeatUntil: plan.Stop).
	Stop func(next trial.Trial, done []report.TrialResult) bool
	// KeepTopics leaves each trial's topic in place (cleanupPolicy: Retain,
	// --keep-topics).
	KeepTopics bool
	// TrialTimeout bounds one trial; 0 means 30 minutes.
	TrialTimeout time.Duration
	// DrainTimeout bounds how long stopped workers wait for in-flight records
	// (default protocol.DefaultDrainTimeout).
	DrainTimeout time.Duration
	Log          *slog.Logger
	// Faults apply the trials' network faults (nil: a trial with a fault fails
	// with FaultNotInjected).
	Faults *Faults
	// Workers are the commands of the workers of runtimes other than Go, which
	// run as processes of their own (the JVM worker's default: $SERDEBENCH_JVM_WORKER,
	// else worker-jvm beside this executable).
	Workers map[trial.Runtime][]string
}

// TrialError is a failed trial and why (a protocol.Reason*).
type TrialError struct {
	Trial  string
	Reason string
	Err    error
}

func (e *TrialError) Error() string { return fmt.Sprintf("trial %s: %s: %v", e.Trial, e.Reason, e.Err) }
func (e *TrialError) Unwrap() error { return e.Err }

// Run runs the trials in order and returns their results. It stops at the first
// trial that fails (or is interrupted) and returns the results so far with the
// error, and before a trial Options.Stop says is not needed.
func Run(ctx context.Context, trials []trial.Trial, o Options) ([]report.TrialResult, error) {
	var out []report.TrialResult
	for _, t := range trials {
		if o.Stop != nil && o.Stop(t, out) {
			break
		}
		if o.OnTrial != nil {
			o.OnTrial(t)
		}
		res, err := RunTrial(ctx, t, o)
		if err != nil {
			return out, err
		}
		out = append(out, *res)
	}
	return out, nil
}

// RunTrial runs one trial end to end: topic, consumers, producers (after the group
// is stable), summaries, cleanup. A trial whose workers were interrupted (timeout,
// SIGTERM) fails with ReasonWorkerInterrupted: partial numbers are never a result.
func RunTrial(ctx context.Context, t trial.Trial, o Options) (*report.TrialResult, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.RunID == "" {
		o.RunID = newRunID()
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = protocol.DefaultDrainTimeout
	}
	// The producers' and the consumers' runtimes (consumer.client may set them apart).
	produce, err := o.executorFor(t.Settings.ClientOf(trial.SideProducers))
	if err != nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonWorkerFailed, Err: err}
	}
	consume, err := o.executorFor(t.Settings.ClientOf(trial.SideConsumers))
	if err != nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonWorkerFailed, Err: err}
	}
	// Workers of another runtime measure their own processes; this one's says
	// nothing of them.
	producers, consumers := t.Settings.ClientOf(trial.SideProducers).Runtime(), t.Settings.ClientOf(trial.SideConsumers).Runtime()
	inProcess := producers == trial.RuntimeGo && consumers == trial.RuntimeGo
	timeout := o.TrialTimeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("trial timed out after %s", timeout))
	defer cancel()
	// A fault that leaves the trial without its broker ends it (abort's cause).
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	var fr *faultRun
	if t.Fault != nil {
		var err error
		if fr, err = newFaultRun(t, o.Faults, o.Brokers); err != nil {
			return nil, err
		}
		fr.abort = abort
	}
	topic := names.Topic(o.Experiment, o.RunID, t, 1)
	group := names.Group(o.Experiment, o.RunID, t, 1)
	admin := &topics.Admin{Brokers: o.Brokers, Security: o.Security}
	if t.ExistingTopic != "" {
		if err := admin.Check(ctx, topic, t.Partitions); err != nil {
			return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonTopicFailed, Err: err}
		}
	} else if err := createTopic(ctx, admin, topic, t); err != nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonTopicFailed, Err: err}
	}
	defer func() {
		if o.KeepTopics {
			return
		}
		// The trial's context may be over; cleaning up gets its own bound.
		dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer dcancel()
		if t.ExistingTopic != "" {
			// The topic is someone else's: it stays; the trial's group goes.
			if err := admin.DeleteGroup(dctx, group); err != nil {
				o.Log.Warn("delete consumer group", "group", group, "err", err)
			}
			return
		}
		if err := admin.Delete(dctx, topic); err != nil {
			o.Log.Warn("delete topic", "topic", topic, "err", err)
		}
	}()

	var mu sync.Mutex
	var sums []*summary.Summary
	var errs []error
	collect := func(s *summary.Summary, err error) {
		mu.Lock()
		defer mu.Unlock()
		if s != nil {
			sums = append(sums, s)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	// The workers share this process: it is measured as a whole, and a broker on
	// this machine by its PID.
	self := usage.Start(usage.Self())
	defer func() { _ = self.Stop() }()
	var broker *usage.Sampler
	if pid, err := brokerPID(o.Brokers); err == nil {
		broker = usage.Start(usage.Process(pid))
		defer func() { _ = broker.Stop() }()
	} else {
		o.Log.Debug("broker CPU not read", "err", err)
	}
	base := protocol.Worker{Trial: t, Bootstrap: o.Brokers, Topic: topic, Group: group, Experiment: o.Experiment,
		ExperimentUID: o.RunID, WaitTimeout: time.Minute, DrainTimeout: o.DrainTimeout, SchemaRegistry: o.SchemaRegistry}
	env := run.Env{Log: o.Log, Progress: o.Progress, Security: &o.Security}
	consumerCtx, stopConsumers := context.WithCancelCause(ctx)
	defer stopConsumers(nil)
	faultCtx, stopFault := context.WithCancel(ctx)
	defer stopFault()
	var wg, pwg sync.WaitGroup
	startConsumer := func(i int, ctl *consumer.Control) {
		w := base
		w.Role, w.ID = protocol.RoleConsumer, protocol.ConsumerName(i)
		wg.Go(func() {
			s, err := consume(consumerCtx, w, run.Env{Log: o.Log, Security: &o.Security, Control: ctl})
			if err != nil {
				err = fmt.Errorf("consumer %s: %w", w.ID, err)
			}
			collect(s, err)
		})
	}
	controls := make([]*consumer.Control, t.Consumers)
	for i := range controls {
		controls[i] = consumer.NewControl()
		startConsumer(i, controls[i])
	}
	// A join's consumer starts with the others, as its pod does: it reads the
	// trial's start and waits for the join (consumer.NewStandby).
	var standby *consumer.Control
	if t.Joiners() > 0 {
		standby = consumer.NewStandby()
		startConsumer(len(controls), standby)
	}
	if fr != nil {
		// A consumer group event acts on the last consumer, or adds one.
		fr.group = groupHooks{last: controls[len(controls)-1], join: standby.Join}
		env.WindowStarted = fr.windowStarted
		go fr.run(faultCtx)
		// The rule is out before the trial returns, whatever ends it.
		defer func() { stopFault(); <-fr.done }()
	}
	// The producers start together, as the operator starts a trial's pods.
	start := control.NewBarrier(int(t.Producers), startLead)
	env.StartAt = func(ctx context.Context) (time.Time, error) { return start.Wait(ctx, base.WaitTimeout) }
	for i := range int(t.Producers) {
		w := base
		w.Role, w.ID, w.WaitForGroup = protocol.RoleProducer, protocol.ProducerID(i), true
		pwg.Go(func() {
			s, err := produce(ctx, w, env)
			if err != nil {
				start.Abort(fmt.Errorf("producer %s failed", w.ID))
				err = fmt.Errorf("producer %s: %w", w.ID, err)
				// Without a producer the consumers would wait for its end records.
				stopConsumers(fmt.Errorf("producer %s failed", w.ID))
			}
			collect(s, err)
		})
	}
	pwg.Wait()
	stopFault() // the fault ended before the window did, or it fails the trial
	if fr != nil {
		<-fr.done // no consumer joins once the consumers are waited for
	}
	if standby != nil {
		standby.Abandon() // never told to join: the fault's record says so
	}
	wg.Wait()
	var aborted *TrialError
	if errors.As(context.Cause(ctx), &aborted) {
		return nil, aborted
	}
	if err := errors.Join(errs...); err != nil {
		reason := protocol.ReasonWorkerFailed
		if errors.Is(err, run.ErrInterrupted) && !failedOtherwise(errs) {
			reason = protocol.ReasonWorkerInterrupted
		}
		return nil, &TrialError{Trial: t.Name, Reason: reason, Err: err}
	}
	res, err := summary.Merge(sums)
	if err != nil {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonWorkerFailed, Err: err}
	}
	protocol.Annotate(t, res)
	switch {
	case inProcess:
		setUsage(res, sums, self, broker)
	case producers != consumers && res.Usage == nil:
		// One side's workers ran in this process, the other's in their own.
		res.Warnings = append(res.Warnings, "no CPU or memory usage: the Go side's workers ran inside this process (with the runner), the JVM side's in processes of their own; run the trial in a cluster to measure both")
	}
	if len(res.Interrupted) > 0 {
		return nil, &TrialError{Trial: t.Name, Reason: protocol.ReasonWorkerInterrupted, Err: fmt.Errorf("partial summaries from %v", res.Interrupted)}
	}
	out := &report.TrialResult{Trial: t, Topic: topic, Result: res, Summaries: sums}
	if fr != nil {
		if out.Fault, err = fr.finish(res); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// startLead is how long after the last producer is ready they all begin: time
// for each to leave the barrier and reach its pacer.
const startLead = 20 * time.Millisecond

// setUsage records what this process, and the broker's, spent over the
// producers' combined window.
func setUsage(res *summary.Result, sums []*summary.Summary, self, broker *usage.Sampler) {
	var from, to time.Time
	for _, s := range sums {
		if s.Role != protocol.RoleProducer || s.WindowStart.IsZero() {
			continue
		}
		if from.IsZero() || s.WindowStart.Before(from) {
			from = s.WindowStart
		}
		if s.WindowEnd.After(to) {
			to = s.WindowEnd
		}
	}
	if self.Stop() != nil {
		return
	}
	w, ok := self.Window(from, to)
	if !ok {
		return
	}
	var b *usage.Window
	if broker != nil && broker.Stop() == nil {
		if bw, ok := broker.Window(from, to); ok {
			b = &bw
		}
	}
	res.SetProcessUsage(&w, b)
}

// brokerPID is the PID of the process serving the first bootstrap address when
// it is on this machine (a loopback address), for its CPU time.
func brokerPID(brokers []string) (int, error) {
	if len(brokers) == 0 {
		return 0, errors.New("no brokers")
	}
	host, port, err := net.SplitHostPort(brokers[0])
	if err != nil {
		return 0, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return 0, fmt.Errorf("broker %s is not on this machine's loopback", brokers[0])
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return 0, err
	}
	pid, err := usage.ListeningPID(p)
	if err != nil {
		return 0, err
	}
	// A proxy in front of a containerised broker (docker-proxy, a port-forward)
	// holds the port too: only a JVM is the broker.
	if comm, err := usage.Command(pid); err != nil || comm != "java" {
		return 0, fmt.Errorf("port %d is held by %q, not a broker's JVM", p, comm)
	}
	return pid, nil
}

// failedOtherwise reports whether any error is a failure rather than an interrupt.
func failedOtherwise(errs []error) bool {
	for _, err := range errs {
		if !errors.Is(err, run.ErrInterrupted) {
			return true
		}
	}
	return false
}

// createTopic creates the trial's topic and waits (up to 30 s) until the cluster
// reports it with all its partitions.
func createTopic(ctx context.Context, admin *topics.Admin, topic string, t trial.Trial) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	spec := topics.Spec{Name: topic, Partitions: t.Partitions, Replicas: t.Replicas, Config: t.TopicConfig}
	for {
		ready, err := admin.Ensure(ctx, spec)
		if err != nil {
			return err
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topic %s not ready: %w", topic, context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CreateTopic creates the trial's topic on a plaintext cluster and waits until it is
// usable.
func CreateTopic(brokers []string, topic string, t trial.Trial) error {
	return CreateTopicWith(brokers, kafkaconn.Security{}, topic, t)
}

// CreateTopicWith creates the trial's topic and waits (up to 30 s) until the
// cluster reports it with all its partitions.
func CreateTopicWith(brokers []string, sec kafkaconn.Security, topic string, t trial.Trial) error {
	return createTopic(context.Background(), &topics.Admin{Brokers: brokers, Security: sec}, topic, t)
}

// DeleteTopic deletes a trial's topic on a plaintext cluster.
func DeleteTopic(brokers []string, topic string) error {
	return (&topics.Admin{Brokers: brokers}).Delete(context.Background(), topic)
}

// newRunID is 8 random base-36 characters: topic and group names of two runs never
// collide (a clock reading truncated to 8 characters could, within milliseconds).
func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b)
}
