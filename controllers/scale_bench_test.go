package controllers_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
)

// BenchmarkOperatorScale creates 100 experiments at once for the real manager
// binary (under the shipped RBAC, against the real broker: each provisions its
// first trial's topic and creates its Jobs, which nothing runs) and reports the
// time until all are accepted, the reconciles per second over the run, and the
// manager's peak resident memory (target: under 100 MB). Deleting them all
// (finalizers remove 100 topics) is part of the run.
//
//	go test -run '^$' -bench OperatorScale -benchtime 1x ./controllers/
func BenchmarkOperatorScale(b *testing.B) {
	const n = 100
	brokers := kafkatest.Brokers(b)
	bin := filepath.Join(b.TempDir(), "manager")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/manager").CombinedOutput(); err != nil {
		b.Fatalf("build manager: %v\n%s", err, out)
	}
	for range b.N {
		kc := kubeconfig(b, "scale-bench", true)
		metricsAddr, probes := promtest.FreeAddr(b), promtest.FreeAddr(b)
		cmd := exec.Command(bin, "--kubeconfig="+kc, "--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probes,
			"--worker-image=serdebench/worker:bench", "--max-concurrent-reconciles=4")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 30*time.Second, "manager ready", func() (bool, error) {
			resp, err := http.Get("http://" + probes + "/readyz")
			if err != nil {
				return false, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
		ns := newNamespace(b)
		reconcilesBefore := reconciles(b, metricsAddr)
		start := time.Now()
		for i := range n {
			x := experiment(ns, fmt.Sprintf("scale-%03d", i), func(x *serdebenchv1.SerializationExperiment) {
				x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
			})
			if err := k8s.Create(context.Background(), x); err != nil {
				b.Fatal(err)
			}
		}
		created := time.Since(start)
		waitFor(b, 5*time.Minute, "all experiments accepted", func() (bool, error) {
			return countWhere(b, ns, func(x *serdebenchv1.SerializationExperiment) bool { return x.Status.Stage != "" }) == n, nil
		})
		accepted := time.Since(start)
		waitFor(b, 5*time.Minute, "every first trial running", func() (bool, error) {
			return countWhere(b, ns, func(x *serdebenchv1.SerializationExperiment) bool {
				return len(x.Status.Trials) > 0 && x.Status.Trials[0].Phase == serdebenchv1.TrialRunning
			}) == n, nil
		})
		running := time.Since(start)
		time.Sleep(10 * time.Second) // steady state: 100 experiments polling their Jobs
		elapsed := time.Since(start)
		rate := float64(reconciles(b, metricsAddr)-reconcilesBefore) / elapsed.Seconds()
		if err := k8s.DeleteAllOf(context.Background(), &serdebenchv1.SerializationExperiment{}, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 5*time.Minute, "all experiments deleted", func() (bool, error) {
			return countWhere(b, ns, func(*serdebenchv1.SerializationExperiment) bool { return true }) == 0, nil
		})
		deleted := time.Since(start)
		peak := peakRSS(b, cmd.Process.Pid)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		b.ReportMetric(peak/1e6, "peak-RSS-MB")
		b.ReportMetric(rate, "reconciles/s")
		b.ReportMetric(accepted.Seconds(), "s-to-accept-all")
		b.ReportMetric(running.Seconds(), "s-to-run-all")
		b.Logf("%d experiments: created in %s, all accepted after %s, all first trials running after %s, all deleted after %s; "+
			"%.0f reconciles/s; manager peak RSS %.1f MB", n, created.Round(time.Millisecond), accepted.Round(time.Millisecond),
			running.Round(time.Millisecond), deleted.Round(time.Millisecond), rate, peak/1e6)
		if left := kafkatest.Topics(b, brokers); len(left) > 0 {
			for name := range left {
				if strings.Contains(name, ".scale-") {
					b.Errorf("topic %s left after deletion", name)
				}
			}
		}
	}
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

// reconciles is the manager's own count of experiment reconciles (all results).
func reconciles(t testing.TB, addr string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var total float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "controller_runtime_reconcile_total{") && strings.Contains(line, `controller="serializationexperiment"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatal(err)
			}
			total += v
		}
	}
	return total
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
