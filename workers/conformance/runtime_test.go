package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/jvmtest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// runtime is one worker implementation: how to start it, and the client its
// trials name.
type runtime struct {
	name   string
	client trial.Client
	build  func(t *testing.T) []string
}

// clientJava is the JVM worker's client (workers/jvm: Main.CLIENT).
const clientJava trial.Client = "java"

var runtimes = []runtime{
	{name: "go", client: trial.ClientFranz, build: buildGo},
	{name: "jvm", client: clientJava, build: buildJVM},
}

var (
	goOnce   sync.Once
	goCmd    []string
	goErr    error
	buildDir string
)

// repoRoot is the checkout's root (tests run in their package's directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func buildGo(t *testing.T) []string {
	t.Helper()
	goOnce.Do(func() {
		bin := filepath.Join(buildDir, "worker")
		out, err := exec.Command("go", "build", "-o", bin, filepath.Join(repoRoot(t), "cmd", "worker")).CombinedOutput()
		if err != nil {
			goErr = fmt.Errorf("build the Go worker: %w\n%s", err, out)
		}
		goCmd = []string{bin}
	})
	if goErr != nil {
		t.Fatal(goErr)
	}
	return goCmd
}

// buildJVM is the JVM worker (jvmtest).
func buildJVM(t *testing.T) []string { return jvmtest.Worker(t) }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "serdebench-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// newTrial is a small experiment's trial, from the planner as the operator's are
// (admitted for client), before each process takes its runtime's client.
func newTrial(t *testing.T, client trial.Client, c trial.Codec, producers, consumers int32, rate int64, seconds int32) trial.Trial {
	t.Helper()
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Client: client, Codecs: []trial.Codec{c},
		Payload:         v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}},
		DurationSeconds: &seconds, Warmup: trial.Warmup{Records: 100}, Rate: v1alpha1.Rate{RecordsPerSecond: rate},
		Producers: producers, Consumers: consumers, PoolSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	return trials[0]
}

// newTopic is a fresh topic for trial tr, deleted when the test ends.
func newTopic(t *testing.T, brokers []string, tr trial.Trial) string {
	t.Helper()
	topic := fmt.Sprintf("serdebench.conformance.%d", time.Now().UnixNano())
	if err := runner.CreateTopic(brokers, topic, tr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = runner.DeleteTopic(brokers, topic) })
	return topic
}

// proc is a worker process.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	metrics        string
}

// start runs rt's worker as w on trial tr with rt's client on w's side (a
// consumer's through consumer.client, whoever produces), its arguments rendered by
// protocol.Worker's own Args as the operator renders a pod's.
func start(t *testing.T, rt runtime, w protocol.Worker, tr trial.Trial) *proc {
	t.Helper()
	switch {
	case w.Role == protocol.RoleProducer:
		tr.Settings.Client = rt.client
	case tr.Settings.ClientOf(trial.SideConsumers) != rt.client:
		tr.Settings.ConsumerClient = rt.client
	}
	w.Trial = tr
	if w.MetricsAddr == "" {
		w.MetricsAddr = promtest.FreeAddr(t)
	}
	if w.MetricsGrace == 0 {
		w.MetricsGrace = 100 * time.Millisecond
	}
	if w.DrainTimeout == 0 {
		w.DrainTimeout = 2 * time.Second
	}
	args, err := w.Args()
	if err != nil {
		t.Fatal(err)
	}
	argv := rt.build(t)
	p := &proc{t: t, cmd: exec.Command(argv[0], append(argv[1:], args...)...), done: make(chan struct{}), metrics: w.MetricsAddr}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		// A failed test shows what each of its workers said: a wait that timed out
		// (for records, for a group) otherwise names no cause.
		if t.Failed() {
			t.Logf("%s %s %s stderr:\n%s", rt.name, w.Role, w.ID, tail(p.stderr.String()))
		}
	})
	return p
}

// wait is the process's exit code; past timeout it is killed and the test fails.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("%s did not exit within %s\nstderr:\n%s", p.cmd.Path, timeout, tail(p.stderr.String()))
		return -1
	}
}

func (p *proc) signal(s syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		p.t.Fatal(err)
	}
}

// summary is the summary on stdout's last summary line.
func (p *proc) summary() *summary.Summary {
	p.t.Helper()
	line, err := protocol.LastSummaryLine(p.stdout.Bytes())
	if err != nil {
		p.t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, tail(p.stdout.String()), tail(p.stderr.String()))
	}
	s := &summary.Summary{}
	if err := json.Unmarshal([]byte(line), s); err != nil {
		p.t.Fatalf("summary: %v\n%s", err, line)
	}
	return s
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
