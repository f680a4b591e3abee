// Package run runs one worker: cmd/worker's main (arguments in, summary and exit
// code out) and Execute, which the local runner calls in-process with the same
// protocol.Worker the operator renders into a pod's arguments; and a payload
// source's check (`worker check-source`, protocol.SourceCheck).
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/consumer"
	"github.com/serdebench/serdebench/workers/control"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/probe"
	"github.com/serdebench/serdebench/workers/producer"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
	"github.com/serdebench/serdebench/workers/usage"
	"github.com/serdebench/serdebench/workers/wire"
)

// ErrInterrupted marks a worker stopped before its trial was complete.
var ErrInterrupted = errors.New("interrupted before the trial was complete")

// Main runs the worker with args (without the program name) until it finishes or ctx
// ends (SIGTERM in cmd/worker), printing the summary to stdout and logs to stderr,
// and returns the process exit code (protocol.Exit*). The environment is read
// through getenv (the SASL credentials).
//
// Main does not measure the process's CPU and memory: its caller may run other
// workers in it (the envtest's kubelet does). ProcessMain does.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return main(ctx, args, getenv, stdout, stderr, false)
}

// ProcessMain is Main for a process that runs this one worker (cmd/worker in its
// pod): the summary also says what the process spent in the measured window.
func ProcessMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	TuneGC(getenv)
	return main(ctx, args, getenv, stdout, stderr, true)
}

func main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, measure bool) int {
	if len(args) > 0 && args[0] == protocol.CheckCommand {
		return checkMain(args[1:], stderr)
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	w, err := protocol.Parse(args, stderr)
	if err == nil {
		err = goClient(w)
	}
	if err != nil {
		log.Error("invalid arguments", "err", err)
		return protocol.ExitUsage
	}
	sum, err := Execute(ctx, w, Env{Getenv: getenv, Log: log, MeasureUsage: measure})
	if sum != nil {
		if werr := protocol.WriteSummary(stdout, sum, w.SummaryFile, w.TerminationLog, w.TerminationMax); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	switch {
	case err == nil:
		return protocol.ExitOK
	case errors.Is(err, ErrInterrupted):
		log.Error("worker interrupted", "role", w.Role, "trial", w.Trial.Name, "err", err)
		return protocol.ExitInterrupted
	default:
		log.Error("worker failed", "role", w.Role, "trial", w.Trial.Name, "err", err)
		return protocol.ExitFailed
	}
}

// goClient refuses a trial whose client for w's role runs in another runtime's
// worker: this one runs the Go clients only, never one in place of another.
func goClient(w protocol.Worker) error {
	field := "client"
	if w.Side() == trial.SideConsumers && w.Trial.Settings.ConsumerClient != "" {
		field = "consumerClient"
	}
	if c := w.Client(); c.Runtime() != trial.RuntimeGo {
		return fmt.Errorf("--trial: settings.%s %s runs in the %s worker, not this one (the Go worker: sarama, franz-go, librdkafka)", field, c, c.Runtime())
	}
	return nil
}

// Env is what Execute takes from its surroundings.
type Env struct {
	// Getenv reads the SASL credentials (default os.Getenv).
	Getenv func(string) string
	// Log receives the worker's logs (default slog.Default()).
	Log *slog.Logger
	// Progress, if set, counts measured records.
	Progress *atomic.Int64
	// Security, if set, replaces the worker's TLS and SASL settings: in-process
	// callers pass what they have already loaded.
	Security *kafkaconn.Security
	// WindowStarted, if set, learns when a producer's measured window began (the
	// local runner times faults from it).
	WindowStarted func(time.Time)
	// StartAt, if set, holds a producer once it is ready and returns the instant
	// its schedule begins: the local runner starts a trial's producers together
	// with it. (A pod's producer with --start-gate waits for the operator instead.)
	StartAt func(context.Context) (time.Time, error)
	// Control, if set, lets a consumer's caller pause it or make it leave its
	// group mid-trial (the local runner's consumer group events).
	Control *consumer.Control
	// MeasureUsage measures the process's CPU time and memory over the worker's
	// measured window: only where the worker has its process to itself (a pod);
	// in-process workers share theirs, which the local runner measures.
	MeasureUsage bool
}

// stopGrace is how long Execute waits, beyond the worker's drain timeout, for a
// stopped worker to return before giving up on it.
const stopGrace = 5 * time.Second

// Execute runs w until its trial is complete or ctx ends. A worker stopped early
// returns its partial summary (marked interrupted) with an error wrapping
// ErrInterrupted. Once ctx has ended Execute returns within w.DrainTimeout plus a
// few seconds, whatever the client library is doing. A standby consumer that its
// coordinator abandons before its join (consumer.Control.Abandon: the local
// runner's, when the fault is over) returns no summary and no error.
func Execute(ctx context.Context, w protocol.Worker, env Env) (*summary.Summary, error) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Log == nil {
		env.Log = slog.Default()
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if w.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.Timeout)
		defer cancel()
	}
	sec := kafkaconn.Security{TLS: w.TLS, InsecureSkipVerify: w.TLSInsecure, SASLMechanism: w.SASLMechanism,
		Username: env.Getenv(protocol.SASLUserEnv), Password: env.Getenv(protocol.SASLPasswordEnv)}
	if env.Security != nil {
		sec = *env.Security
	} else if w.TLSCAFile != "" {
		ca, err := os.ReadFile(w.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca-file: %w", err)
		}
		sec.CAPEM = ca
	}
	worker := w.ID
	if worker == "" && w.Role == protocol.RoleConsumer {
		worker = protocol.ConsumerName(0)
	}
	m := metrics.New(metrics.Labels{Experiment: w.Experiment, ExperimentUID: w.ExperimentUID, Topic: w.Topic, Group: w.Group,
		Trial: w.Trial.Name, Codec: string(w.Trial.Codec), Role: w.Role, Worker: worker})
	workDone, finish := context.WithCancel(context.Background())
	defer finish()
	wait := func() {}
	var gate *control.Gate
	if w.StartGate && w.Role == protocol.RoleProducer {
		gate = control.NewGate(w.WaitTimeout)
		env.StartAt = func(ctx context.Context) (time.Time, error) { return gate.Wait(ctx, w.WaitTimeout) }
	}
	// A consumer in a pod of a trial with a consumers fault acts out its
	// coordinator's group events (only then: anyone who reaches the port could
	// make it leave); a standby waits for its join.
	var grp *control.Group
	if f := w.Trial.Fault; w.Role == protocol.RoleConsumer && w.MetricsAddr != "" && f != nil && f.Consumers != nil {
		switch {
		case w.Standby():
			env.Control = consumer.NewStandby()
		case env.Control == nil:
			env.Control = consumer.NewControl()
		}
		grp = &control.Group{Leave: env.Control.Leave, Pause: env.Control.Pause}
		if w.Standby() {
			grp.Join = env.Control.Join
		}
	}
	if w.MetricsAddr != "" {
		addr, wt, err := m.Serve(workDone, w.MetricsAddr, w.MetricsGrace, func(mux *http.ServeMux) { control.Register(mux, gate, grp) })
		if err != nil {
			return nil, err
		}
		wait = wt
		env.Log.Info("serving metrics", "addr", addr)
	}

	type outcome struct {
		sum *summary.Summary
		err error
	}
	var sampler *usage.Sampler
	if env.MeasureUsage {
		sampler = usage.Start(usage.Self())
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		switch w.Role {
		case protocol.RoleProducer:
			var group string
			if w.WaitForGroup {
				group = w.Group
			}
			var id int
			if _, err := fmt.Sscanf(worker, "%d", &id); err != nil {
				o.err = fmt.Errorf("--id: a producer's id is its index, got %q", worker)
				break
			}
			pr := machineProbe(ctx, id, w.Bootstrap, env.Log)
			o.sum, o.err = producer.Run(ctx, producer.Config{Brokers: w.Bootstrap, Security: sec, Topic: w.Topic, Experiment: w.Experiment,
				Trial: w.Trial, ID: id, Run: wire.RunID(w.Group), SchemaRegistry: w.SchemaRegistry, WaitGroup: group, WaitTimeout: w.WaitTimeout, Metrics: m, Progress: env.Progress,
				DrainTimeout: w.DrainTimeout, Log: env.Log, WindowStarted: env.WindowStarted, StartAt: env.StartAt})
			if o.sum != nil {
				// The second reading of the CPU part, after the window, when its thread
				// has the core to itself (probe.Recheck); only after a trial that ran to
				// its end.
				if o.err == nil && !o.sum.Interrupted {
					switch counted, err := probe.Recheck(ctx, pr); {
					case err != nil:
						env.Log.Warn("machine probe: second CPU reading failed", "err", err)
					case counted:
						env.Log.Info("machine probe: second CPU reading counted", "cpuNanosPerOp", pr.CPUNanosPerOp)
					case pr != nil:
						env.Log.Info("machine probe: no quiet moment for a second CPU reading; the first stands")
					}
				}
				o.sum.Probe = pr
			}
		case protocol.RoleConsumer:
			o.sum, o.err = consumer.Run(ctx, consumer.Config{Brokers: w.Bootstrap, Security: sec, Topic: w.Topic, Group: w.Group,
				Experiment: w.Experiment, Trial: w.Trial, Name: worker, Run: wire.RunID(w.Group), SchemaRegistry: w.SchemaRegistry, Metrics: m, Progress: env.Progress,
				DrainTimeout: w.DrainTimeout, Log: env.Log, Control: env.Control})
		}
		done <- o
	}()
	// The worker bounds its own waits; this bounds the worker.
	hard, stopHard := kafkaconn.AfterDone(ctx, w.DrainTimeout+stopGrace)
	defer stopHard()
	var o outcome
	select {
	case o = <-done:
	case <-hard.Done():
		return nil, fmt.Errorf("%w: the %s did not stop within %s of being stopped (%w)", ErrInterrupted, w.Role, w.DrainTimeout+stopGrace, context.Cause(ctx))
	}
	// Stopped from outside, at any stage (even while waiting for its group): the
	// worker was interrupted, whatever error the stop caused.
	if (o.sum != nil && o.sum.Interrupted) || (o.err != nil && ctx.Err() != nil) {
		why := "stopped early"
		if cause := context.Cause(ctx); cause != nil {
			why = cause.Error()
		}
		if o.sum != nil {
			why += " (" + stoppedAt(o.sum) + ")"
		}
		o.err = errors.Join(o.err, fmt.Errorf("%w: %s", ErrInterrupted, why))
	}
	if o.sum != nil {
		o.sum.Build = buildOf(w.Client())
	}
	if sampler != nil {
		if err := sampler.Stop(); err != nil {
			env.Log.Warn("process usage not measured", "err", err)
		} else if o.sum != nil {
			u, ok := sampler.Window(o.sum.WindowStart, o.sum.WindowEnd)
			if !ok && o.sum.Records == 0 {
				// A consumer that got no partition has no window: its whole run, which
				// is idle, stands in rather than leave the trial unmeasured.
				u, ok = sampler.Whole()
			}
			if ok {
				o.sum.Usage = &u
			}
		}
	}
	// Stop serving only after the grace period, so a final scrape sees the totals.
	finish()
	if o.sum != nil {
		wait()
	}
	return o.sum, o.err
}

// stoppedAt says how far an interrupted worker had got, so that a trial that
// timed out says which of its workers waited for what.
func stoppedAt(s *summary.Summary) string {
	size := func(ds []summary.Delivery) (n int64) {
		for _, d := range ds {
			n += d.Intervals.Size()
		}
		return n
	}
	if s.Role == protocol.RoleProducer {
		return fmt.Sprintf("%d records acknowledged, %d failed, %d awaiting an answer", size(s.Acked), size(s.Failed), s.Unacknowledged)
	}
	last := "none"
	if !s.WindowEnd.IsZero() {
		last = s.WindowEnd.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%d records received, the last measured one at %s", size(s.Received), last)
}

// machineProbe measures the machine for producer 0 of a trial, before it connects
// (two probes at once would measure each other), in the temporary directory and
// against the first bootstrap address; nil for the others, or when no part could
// be measured. A part that failed is logged and left out.
func machineProbe(ctx context.Context, id int, bootstrap []string, log *slog.Logger) *summary.Probe {
	if id != 0 || len(bootstrap) == 0 {
		return nil
	}
	p, err := probe.Measure(ctx, os.TempDir(), bootstrap[0])
	if err != nil {
		log.Warn("machine probe incomplete", "err", err)
	}
	if p == (summary.Probe{}) {
		return nil
	}
	log.Info("machine probe", "cpuNanosPerOp", p.CPUNanosPerOp, "fsyncMicros", p.FsyncMicros, "connectMicros", p.ConnectMicros)
	return &p
}
