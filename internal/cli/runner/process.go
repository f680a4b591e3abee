package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/control"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/run"
	"github.com/serdebench/serdebench/workers/summary"
)

// JVMWorkerEnv names the JVM worker's launcher (hack/jvm/build.sh's bin/worker-jvm)
// when Options.Workers does not.
const JVMWorkerEnv = "SERDEBENCH_JVM_WORKER"

// executor runs one worker until its trial is complete or ctx ends: run.Execute
// in this process for the Go runtime, a process of its own for the others.
type executor func(ctx context.Context, w protocol.Worker, env run.Env) (*summary.Summary, error)

// executorFor is the executor of client c's runtime.
func (o Options) executorFor(c trial.Client) (executor, error) {
	rt := c.OrDefault().Runtime()
	if rt == trial.RuntimeGo {
		return run.Execute, nil
	}
	argv, err := Launcher(o.Workers, rt)
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", c, err)
	}
	return func(ctx context.Context, w protocol.Worker, env run.Env) (*summary.Summary, error) {
		return executeProcess(ctx, argv, w, env)
	}, nil
}

// Launcher is the command that starts runtime rt's worker (not Go's, which runs in
// this process): workers' entry, else for the JVM $SERDEBENCH_JVM_WORKER or
// worker-jvm beside this executable.
func Launcher(workers map[trial.Runtime][]string, rt trial.Runtime) ([]string, error) {
	if argv := workers[rt]; len(argv) > 0 {
		return argv, nil
	}
	if rt == trial.RuntimeJVM {
		if p := jvmWorker(); p != "" {
			return []string{p}, nil
		}
	}
	return nil, fmt.Errorf("the %s worker is not here: build it (make worker-jvm: bin/worker-jvm) or name its launcher in $%s", rt, JVMWorkerEnv)
}

// RunTool runs a worker's subcommand (argv, a runtime's Launcher, then args; e.g.
// microbench) to its end and returns its stdout: SIGTERM when ctx ends, a kill
// ProcessStopGrace later; a failure says its stderr's last lines.
func RunTool(ctx context.Context, argv []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = ProcessStopGrace
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", argv[0], args[0], err, lastLines(stderr.String(), 5))
	}
	return stdout.Bytes(), nil
}

// RunWorker runs the one worker w, of the runtime of its side's client, until its
// trial is complete or ctx ends, and returns its summary: a worker alone, outside a
// trial's run (hack/bench's producer beside Kafka's ProducerPerformance).
func RunWorker(ctx context.Context, w protocol.Worker, o Options) (*summary.Summary, error) {
	execute, err := o.executorFor(w.Client())
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return execute(ctx, w, run.Env{Log: o.Log, Security: &o.Security})
}

// jvmWorker is the JVM worker's launcher: $SERDEBENCH_JVM_WORKER, else worker-jvm
// beside this executable (bin/ in a checkout), else "".
func jvmWorker() string {
	if p := os.Getenv(JVMWorkerEnv); p != "" {
		return p
	}
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "worker-jvm"); isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// ProcessStopGrace is how long a stopped worker process has, beyond its drain
// timeout, before it is killed.
const ProcessStopGrace = 5 * time.Second

// executeProcess runs worker w as the process argv, speaking the worker contract
// (docs/worker-contract.md) as the operator does with a pod: w's arguments, a
// metrics port on loopback, the start through it (producers, when env.StartAt
// sets one), SIGTERM when ctx ends, the summary from its stdout and how it ended
// from its exit code. A consumers fault's group events are not passed on: the
// planner refuses them for runtimes other than Go.
func executeProcess(ctx context.Context, argv []string, w protocol.Worker, env run.Env) (*summary.Summary, error) {
	addr, err := freeLoopback()
	if err != nil {
		return nil, err
	}
	w.MetricsAddr, w.MetricsGrace = addr, 0
	w.StartGate = w.Role == protocol.RoleProducer && env.StartAt != nil
	var extraEnv []string
	if env.Security != nil {
		s := env.Security
		w.TLS, w.TLSInsecure, w.SASLMechanism = s.TLS, s.InsecureSkipVerify, s.SASLMechanism
		if len(s.CAPEM) > 0 {
			dir, err := os.MkdirTemp("", "serdebench-ca-")
			if err != nil {
				return nil, fmt.Errorf("write the CA for a worker process: %w", err)
			}
			defer func() { _ = os.RemoveAll(dir) }()
			w.TLSCAFile = filepath.Join(dir, "ca.crt")
			if err := os.WriteFile(w.TLSCAFile, s.CAPEM, 0o600); err != nil {
				return nil, fmt.Errorf("write the CA for a worker process: %w", err)
			}
		}
		if s.SASLMechanism != "" {
			extraEnv = append(extraEnv, protocol.SASLUserEnv+"="+s.Username, protocol.SASLPasswordEnv+"="+s.Password)
		}
	}
	args, err := w.Args()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %s: %w", w.Role, w.ID, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopped := make(chan struct{})
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			close(stopped)
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			// The worker's own bound is its drain timeout plus a few seconds: past
			// twice that grace it is killed.
			case <-time.After(w.DrainTimeout + 2*ProcessStopGrace):
				_ = cmd.Process.Kill()
			}
		})
	}
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-exited:
		}
	}()
	if env.Progress != nil && w.Role == protocol.RoleProducer {
		go followProgress("http://"+addr, env.Progress, exited)
	}
	if w.StartGate {
		if err := startProcess(ctx, "http://"+addr, w, env, exited); err != nil {
			stop()
			<-exited
			return nil, fmt.Errorf("%s %s: %w\n%s", w.Role, w.ID, err, stderr.String())
		}
	}
	<-exited
	code := cmd.ProcessState.ExitCode()
	var sum *summary.Summary
	if line, err := protocol.LastSummaryLine(stdout.Bytes()); err == nil {
		sum = &summary.Summary{}
		if err := json.Unmarshal([]byte(line), sum); err != nil {
			return nil, fmt.Errorf("%s %s: its summary: %w", w.Role, w.ID, err)
		}
	}
	killed := false
	select {
	case <-stopped:
		killed = code != protocol.ExitOK && code != protocol.ExitUsage && code != protocol.ExitInterrupted
	default:
	}
	switch {
	case code == protocol.ExitOK && sum != nil:
		return sum, nil
	case code == protocol.ExitInterrupted, killed:
		return sum, fmt.Errorf("%s %s: %w", w.Role, w.ID, run.ErrInterrupted)
	case code == protocol.ExitUsage:
		return nil, fmt.Errorf("%s %s: the worker (%s) refused the trial: %s", w.Role, w.ID, argv[0], lastLines(stderr.String(), 3))
	default:
		return sum, fmt.Errorf("%s %s: the worker (%s) exited %d: %s", w.Role, w.ID, argv[0], code, lastLines(stderr.String(), 5))
	}
}

// startProcess waits until the producer process is ready, then gives it the
// trial's start (env.StartAt: when every producer is ready) on its metrics port.
func startProcess(ctx context.Context, base string, w protocol.Worker, env run.Env, exited <-chan struct{}) error {
	c := control.Client{HTTP: &http.Client{Timeout: 2 * time.Second}}
	deadline := time.Now().Add(w.WaitTimeout + time.Minute) // its start, then its group's wait
	for {
		if ok, err := c.Ready(ctx, base); err == nil && ok {
			break
		}
		select {
		case <-exited:
			return errors.New("exited before it was ready")
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %s", w.WaitTimeout+time.Minute)
		}
	}
	at, err := env.StartAt(ctx)
	if err != nil {
		return err
	}
	return c.Start(ctx, base, at)
}

// followProgress adds a producer process's measured records, as its /metrics
// counts them, to progress every half second until it exits.
func followProgress(base string, progress *atomic.Int64, exited <-chan struct{}) {
	hc := &http.Client{Timeout: time.Second}
	var seen int64
	for {
		select {
		case <-exited:
			return
		case <-time.After(500 * time.Millisecond):
		}
		resp, err := hc.Get(base + "/metrics")
		if err != nil {
			continue
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(resp.Body)
		_ = resp.Body.Close()
		if err != nil || fams["serdebench_records_total"] == nil {
			continue
		}
		var n int64
		for _, m := range fams["serdebench_records_total"].GetMetric() {
			n += int64(m.GetCounter().GetValue())
		}
		if n > seen {
			progress.Add(n - seen)
			seen = n
		}
	}
}

// freeLoopback is a free loopback address for a worker's metrics port.
func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a port for a worker process: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// tailBuffer keeps the last max bytes written to it: a worker's stderr for its error.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// lastLines are s's last n non-empty lines, joined by "; ".
func lastLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "; ")
}
