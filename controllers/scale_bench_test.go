package controllers_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/kubetest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
	"github.com/serdebench/serdebench/internal/topics"
)

// BenchmarkOperatorScale creates n experiments at once (n = 100 and 1,000) for the
// real manager binary (under the shipped RBAC, against the real broker: each
// provisions its first trial's topic and creates its Jobs, which nothing runs)
// and reports the time until all are accepted and until every first trial runs,
// the reconciles per second, the apiserver requests per experiment, and the
// manager's peak resident memory (target: under 150 MB at 1,000). A CPU profile
// of the steady state and a heap profile go to $SERDEBENCH_ARTIFACTS (default a
// temporary directory), their top entries to the log. Deleting them all
// (finalizers remove n topics) is part of the run; after a failure the
// experiments, the manager and the topics are removed all the same.
//
//	go test -run '^$' -bench 'OperatorScale/experiments=1000' -benchtime 1x -timeout 30m ./controllers/
func BenchmarkOperatorScale(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("experiments=%d", n), func(b *testing.B) { operatorScale(b, n) })
	}
}

func operatorScale(b *testing.B, n int) {
	brokers := kafkatest.Brokers(b)
	bin := filepath.Join(b.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/manager").CombinedOutput(); err != nil {
		b.Fatalf("build manager: %v\n%s", err, out)
	}
	artifacts := os.Getenv("SERDEBENCH_ARTIFACTS")
	if artifacts == "" {
		artifacts = b.TempDir()
	}
	for range b.N {
		kc := kubeconfig(b, "scale-bench", true)
		metricsAddr, probes, pprofAddr := promtest.FreeAddr(b), promtest.FreeAddr(b), promtest.FreeAddr(b)
		cmd := exec.Command(bin, "--kubeconfig="+kc, "--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probes,
			"--pprof-bind-address="+pprofAddr, "--worker-image=serdebench/worker:bench", "--max-concurrent-reconciles="+scaleWorkers())
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		ns := newNamespace(b)
		// Also after a failure: the experiments go while the manager still runs (its
		// finalizers delete their topics), then the manager, then any topic left.
		b.Cleanup(func() {
			if b.Failed() {
				b.Logf("manager log (tail):\n%s", tail(logs.String(), 40))
			}
			scaleCleanup(b, cmd, ns, brokers)
		})
		waitFor(b, 30*time.Second, "manager ready", func() (bool, error) {
			resp, err := http.Get("http://" + probes + "/readyz")
			if err != nil {
				return false, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
		before := managerMetrics(b, metricsAddr)
		start := time.Now()
		for i := range n {
			x := experiment(ns, fmt.Sprintf("scale-%04d", i), func(x *serdebenchv1.SerializationExperiment) {
				x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
			})
			if err := k8s.Create(context.Background(), x); err != nil {
				b.Fatal(err)
			}
		}
		created := time.Since(start)
		// Polled every 2 s: listing n experiments every 100 ms would load the
		// apiserver more than the manager does.
		kubetest.WaitFor(b, 5*time.Minute, 2*time.Second, "all experiments accepted", func() (bool, error) {
			return countWhere(b, ns, func(x *serdebenchv1.SerializationExperiment) bool { return x.Status.Stage != "" }) == n, nil
		})
		accepted := time.Since(start)
		kubetest.WaitFor(b, 10*time.Minute, 2*time.Second, "every first trial running", func() (bool, error) {
			got := countWhere(b, ns, func(x *serdebenchv1.SerializationExperiment) bool {
				return len(x.Status.Trials) > 0 && x.Status.Trials[0].Phase == serdebenchv1.TrialRunning
			})
			return got == n, fmt.Errorf("%d of %d first trials running", got, n)
		})
		running := time.Since(start)
		acceptLatency := acceptanceLatencies(b, ns)
		// Steady state: n experiments waiting for their worker pods, profiled.
		cpu := profile(b, pprofAddr, "profile?seconds=10", filepath.Join(artifacts, fmt.Sprintf("operator-scale-%d.cpu.pprof", n)), "")
		heap := profile(b, pprofAddr, "heap", filepath.Join(artifacts, fmt.Sprintf("operator-scale-%d.heap.pprof", n)), "-sample_index=inuse_space")
		elapsed := time.Since(start)
		after := managerMetrics(b, metricsAddr)
		if err := k8s.DeleteAllOf(context.Background(), &serdebenchv1.SerializationExperiment{}, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		kubetest.WaitFor(b, 10*time.Minute, 2*time.Second, "all experiments deleted", func() (bool, error) {
			return countWhere(b, ns, func(*serdebenchv1.SerializationExperiment) bool { return true }) == 0, nil
		})
		deleted := time.Since(start)
		peak := peakRSS(b, cmd.Process.Pid)
		rate := (after["reconciles"] - before["reconciles"]) / elapsed.Seconds()
		requests := (after["requests"] - before["requests"]) / float64(n)
		b.ReportMetric(peak/1e6, "peak-RSS-MB")
		b.ReportMetric(rate, "reconciles/s")
		b.ReportMetric(requests, "apiserver-requests/experiment")
		b.ReportMetric(accepted.Seconds(), "s-to-accept-all")
		b.ReportMetric(acceptLatency[len(acceptLatency)-1].Seconds(), "s-max-to-accept")
		b.ReportMetric(running.Seconds(), "s-to-run-all")
		b.Logf("%d experiments: created in %s, all accepted after %s (each within %s of its creation, median %s), all first trials running after %s, all deleted after %s; "+
			"%.0f reconciles/s; %.1f apiserver requests per experiment to their first trial running and 10 s after; "+
			"work queue wait %.3f s per item on average (the acceptor's: %.3f s); manager peak RSS %.1f MB\n%s\n%s", n, created.Round(time.Millisecond), accepted.Round(time.Millisecond),
			acceptLatency[len(acceptLatency)-1], acceptLatency[len(acceptLatency)/2],
			running.Round(time.Millisecond), deleted.Round(time.Millisecond), rate, requests,
			(after["queueSeconds"]-before["queueSeconds"])/max(1, after["queueItems"]-before["queueItems"]),
			(after["acceptQueueSeconds"]-before["acceptQueueSeconds"])/max(1, after["acceptQueueItems"]-before["acceptQueueItems"]), peak/1e6, cpu, heap)
		if left := kafkatest.Topics(b, brokers); len(left) > 0 {
			for name := range left {
				if strings.Contains(name, ".scale-") {
					b.Errorf("topic %s left after deletion", name)
				}
			}
		}
	}
}

// scaleWorkers is the manager's --max-concurrent-reconciles for the run
// ($SCALE_WORKERS, default the manager's default).
func scaleWorkers() string {
	if w := os.Getenv("SCALE_WORKERS"); w != "" {
		return w
	}
	return "4"
}

// scaleCleanup removes what a scale run leaves, bounded: the experiments (while
// the manager runs, so its finalizers delete their topics), the manager, then any
// topic of theirs still in Kafka.
func scaleCleanup(b *testing.B, cmd *exec.Cmd, ns string, brokers []string) {
	if countWhere(b, ns, func(*serdebenchv1.SerializationExperiment) bool { return true }) > 0 {
		_ = k8s.DeleteAllOf(context.Background(), &serdebenchv1.SerializationExperiment{}, client.InNamespace(ns))
		deadline := time.Now().Add(3 * time.Minute)
		for countWhere(b, ns, func(*serdebenchv1.SerializationExperiment) bool { return true }) > 0 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Second)
		}
	}
	if cmd.ProcessState == nil {
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		terminate(cmd.Process, done, 10*time.Second)
	}
	admin := &topics.Admin{Brokers: brokers}
	for name := range kafkatest.Topics(b, brokers) {
		if strings.Contains(name, ".scale-") {
			_ = admin.Delete(context.Background(), name)
		}
	}
}

// acceptanceLatencies are, sorted, how long after its creation each experiment
// was accepted (its Accepted condition's transition; both have 1 s resolution).
func acceptanceLatencies(b *testing.B, ns string) []time.Duration {
	b.Helper()
	list := &serdebenchv1.SerializationExperimentList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	var out []time.Duration
	for _, x := range list.Items {
		c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionAccepted)
		if c == nil || c.Status != metav1.ConditionTrue {
			b.Fatalf("%s not accepted: %+v", x.Name, c)
		}
		out = append(out, c.LastTransitionTime.Sub(x.CreationTimestamp.Time))
	}
	slices.Sort(out)
	return out
}

// profile saves a pprof profile from the manager and returns its top entries.
func profile(b *testing.B, addr, what, path, sampleIndex string) string {
	b.Helper()
	resp, err := (&http.Client{Timeout: time.Minute}).Get("http://" + addr + "/debug/pprof/" + what)
	if err != nil {
		b.Fatalf("profile %s: %v", what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("profile %s: %v %s", what, err, resp.Status)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"tool", "pprof", "-top", "-cum", "-nodecount=12"}
	if sampleIndex != "" {
		args = append(args, sampleIndex)
	}
	out, err := exec.Command("go", append(args, path)...).CombinedOutput()
	if err != nil {
		b.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	return fmt.Sprintf("%s (%s):\n%s", what, path, out)
}

func countWhere(t testing.TB, ns string, pred func(*serdebenchv1.SerializationExperiment) bool) int {
	t.Helper()
	list := &serdebenchv1.SerializationExperimentList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	n := 0
	for i := range list.Items {
		if pred(&list.Items[i]) {
			n++
		}
	}
	return n
}

// managerMetrics reads totals from the manager's /metrics: its experiment
// reconciles, its requests to the apiserver (client-go's), and its work queue's
// waits (seconds and items).
func managerMetrics(t testing.TB, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var key string
		switch {
		case strings.HasPrefix(line, "controller_runtime_reconcile_total{") && strings.Contains(line, `controller="serializationexperiment`):
			key = "reconciles" // both controllers: the acceptor's and the experiments'
		case strings.HasPrefix(line, "workqueue_queue_duration_seconds_sum{") && strings.Contains(line, `name="serializationexperiment-acceptance"`):
			key = "acceptQueueSeconds"
		case strings.HasPrefix(line, "workqueue_queue_duration_seconds_count{") && strings.Contains(line, `name="serializationexperiment-acceptance"`):
			key = "acceptQueueItems"
		case strings.HasPrefix(line, "rest_client_requests_total{"):
			key = "requests"
		case strings.HasPrefix(line, "workqueue_queue_duration_seconds_sum{") && strings.Contains(line, `name="serializationexperiment"`):
			key = "queueSeconds"
		case strings.HasPrefix(line, "workqueue_queue_duration_seconds_count{") && strings.Contains(line, `name="serializationexperiment"`):
			key = "queueItems"
		default:
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[key] += v
	}
	return out
}

// peakRSS is a process's resident-set high-water mark (VmHWM), in bytes.
func peakRSS(t testing.TB, pid int) float64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb * 1024
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
