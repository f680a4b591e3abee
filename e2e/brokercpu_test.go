//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/usage"
)

// TestBrokerCPU: with the brokers in pods (kafka.brokerPods), the operator reads
// their CPU over a trial's window from the kubelet's cAdvisor series in
// Prometheus. The known truth is the brokers' JVMs themselves: the local
// cluster's node is this machine, so the test samples their /proc CPU every
// 100 ms and cuts the trial's window out. The two agree within what interpolating
// between cAdvisor's samples can miss: the CPU spent within one sample span of
// either bound.
func TestBrokerCPU(t *testing.T) {
	brokers := brokerPods(t)
	if os.Getenv("SERDEBENCH_STACK_LOCAL_CLUSTER") != "1" {
		t.Fatal("the truth is the brokers' processes on this machine: run on the local cluster (hack/stack/stack.sh up without KUBECONFIG)")
	}
	var samplers []*usage.Sampler
	for _, pid := range brokerPIDs(t) {
		samplers = append(samplers, usage.Start(usage.Process(pid)))
	}
	x := small("broker-cpu", 0, trial.CodecProtobuf)
	x.Spec.Records = nil
	// cAdvisor refreshes a container's stats every 10–20 s (a jittered 10 s):
	// the window is long enough not to be too short for that.
	x.Spec.DurationSeconds = ptr(int32(60))
	x.Spec.Warmup = trial.Warmup{DurationSeconds: 5}
	x.Spec.IntervalSeconds = 1
	x.Spec.Rate = v1alpha1.Rate{RecordsPerSecond: 2000}
	x.Spec.Client = trial.ClientFranz
	x.Spec.Kafka = v1alpha1.KafkaSpec{BootstrapServers: strings.Join(brokers, ","),
		BrokerPods: &v1alpha1.BrokerPods{MatchLabels: map[string]string{"app.kubernetes.io/name": "kafka"}, Namespace: brokersNamespace}}
	create(t, x)
	_, res := succeeded(t, x.Name, 4*time.Minute)
	for _, s := range samplers {
		if err := s.Stop(); err != nil {
			t.Fatalf("read a broker's /proc: %v", err)
		}
	}
	tr := res.Trials[0]
	env := res.Environment.BrokerCPU
	if env == nil || env.Namespace != brokersNamespace || len(env.Pods) != len(brokers) || env.ResolutionSeconds < 1 || env.ResolutionSeconds > 30 {
		t.Fatalf("environment.brokerCPU %+v: want the %d broker pods and a resolution of a few seconds (warnings %v)", env, len(brokers), tr.Warnings)
	}
	if tr.Resources == nil || tr.Resources.BrokerCPUNanosPerRecord <= 0 || len(tr.Intervals) < 2 {
		t.Fatalf("resources %+v, %d intervals: want the brokers' CPU per record (warnings %v)", tr.Resources, len(tr.Intervals), tr.Warnings)
	}
	for _, w := range tr.Warnings {
		if strings.Contains(w, "broker") || strings.Contains(w, "cAdvisor") {
			t.Errorf("warning: %s", w)
		}
	}
	// The window from its intervals: the first is partial at its start.
	first, last := tr.Intervals[0], tr.Intervals[len(tr.Intervals)-1]
	step := tr.Intervals[1].StartTime.Sub(first.StartTime.Time)
	from := first.StartTime.Add(step - time.Duration(first.WindowMillis)*time.Millisecond)
	to := last.StartTime.Add(time.Duration(last.WindowMillis) * time.Millisecond)
	res1 := time.Duration(env.ResolutionSeconds) * time.Second
	var truth float64
	for _, s := range samplers {
		w, ok := s.Window(from, to)
		if !ok {
			t.Fatalf("the /proc samples do not cover %s..%s", from, to)
		}
		truth += w.CPUSeconds
	}
	// At each bound, interpolation misses at most what the brokers spent between
	// the two cAdvisor samples around it: at most the most they spent in any span
	// of the resolution's length that holds the bound.
	slack := bracket(t, samplers, from, res1) + bracket(t, samplers, to, res1)
	got := float64(tr.Resources.BrokerCPUNanosPerRecord) * float64(tr.Records) / 1e9
	t.Logf("brokers' CPU over the %s window: cAdvisor %.2f s (%d ns/record, samples %s apart), their processes %.2f s; interpolation may miss %.2f s",
		to.Sub(from).Round(time.Millisecond), got, tr.Resources.BrokerCPUNanosPerRecord, res1, truth, slack)
	if math.Abs(got-truth) > slack+0.02*truth {
		t.Errorf("cAdvisor says the brokers spent %.2f s of CPU, their processes %.2f s: more apart than %.2f s", got, truth, slack)
	}
	deleteAndCheckClean(t, x, brokers)
}

// brokerPIDs finds the broker containers' processes on this node: each pod's
// container ID is in the cgroup path of the processes it runs.
func brokerPIDs(t *testing.T) []int {
	t.Helper()
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(brokersNamespace), client.MatchingLabels{"app.kubernetes.io/name": "kafka"}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			if _, id, ok := strings.Cut(cs.ContainerID, "://"); ok {
				ids[id] = true
			}
		}
	}
	cgroups, _ := filepath.Glob("/proc/[0-9]*/cgroup")
	var pids []int
	for _, f := range cgroups {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone
		}
		for id := range ids {
			if strings.Contains(string(b), id) {
				var pid int
				if _, err := fmt.Sscan(filepath.Base(filepath.Dir(f)), &pid); err == nil {
					pids = append(pids, pid)
				}
			}
		}
	}
	if len(ids) == 0 || len(pids) < len(ids) {
		t.Fatalf("found %d processes for %d broker containers %v", len(pids), len(ids), ids)
	}
	return pids
}

// bracket is the most the samplers' processes spent together in a span of length
// d holding t, the span's start moved in 1 s steps. Before the samplers started
// the brokers idled (no experiment existed), and after they stopped the trial was
// over: spans are cut there.
func bracket(t *testing.T, samplers []*usage.Sampler, at time.Time, d time.Duration) float64 {
	t.Helper()
	var most float64
	for back := time.Duration(0); back <= d; back += time.Second {
		var sum float64
		for _, s := range samplers {
			from, to := at.Add(-back), at.Add(d-back)
			if first := s.First().At; from.Before(first) {
				from = first
			}
			if last := s.Last().At; to.After(last) {
				to = last // the test read the brokers until the result came
			}
			w, ok := s.Window(from, to)
			if !ok {
				t.Fatalf("the /proc samples do not cover %s..%s", from, to)
			}
			sum += w.CPUSeconds
		}
		most = max(most, sum)
	}
	return most
}
