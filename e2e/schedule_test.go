//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/testing/kubetest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// kstatusOf is the object's status as kstatus (Flux, kubectl's wait logic) reads it.
func kstatusOf(t *testing.T, obj client.Object, kind string) status.Status {
	t.Helper()
	return kubetest.Kstatus(t, k8s, obj, v1alpha1.GroupVersion.WithKind(kind)).Status
}

// TestScheduleOnCluster: the chart's operator, under its namespaced RBAC, runs a
// schedule every minute against a planted regression, with the monitoring a user has
// (kube-prometheus-stack from its chart, the release installed with the values file
// the README gives):
//   - the chart's Prometheus selects the release's PodMonitor and ServiceMonitor and
//     loads its PrometheusRule, by the chart's own selectors;
//   - the baseline is three pinned results planted from one real run with three times
//     its records/s: the first scheduled run is Regressed (the result's comparison
//     block, the condition), kstatus reads the schedule and the run as Current;
//   - every query of the dashboard ConfigMap returns data over the runs;
//   - SerdebenchRegression fires in that Prometheus and its Alertmanager delivers it
//     to a receiver (routed by an AlertmanagerConfig in this namespace);
//   - a slower machine (CPU stress beside the workers, started after that): the
//     next run's trial falls as far against the planted baseline, but its machine
//     probe is slower, so the run is EnvironmentShifted (the condition, the
//     result's verdict, the probe's CPU part named slower), not Regressed, and
//     SerdebenchEnvironmentShifted fires in that Prometheus;
//   - deleting the schedule takes its runs and results with it (owner references,
//     the cluster's garbage collector).
func TestScheduleOnCluster(t *testing.T) {
	ctx := context.Background()
	checkSelected(t)
	host, _, err := net.SplitHostPort(stack.kafka) // an address of this machine the pods reach
	if err != nil {
		t.Fatal(err)
	}
	receiver := startAlertReceiver(t, host)
	begin := time.Now()

	// The workers on one node, with a CPU request: the node the stress goes to later,
	// and a share of its cores the stress leaves them (stressedNode).
	removeStressor(t)
	node := stressedNode(t)
	base := small("e2e-baseline", 3000, "protobuf")
	base.Spec.Workers.NodeSelector = map[string]string{corev1.LabelHostname: node}
	base.Spec.Workers.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: workerCPU}
	template := base.Spec
	create(t, base)
	_, baseResult := succeeded(t, base.Name, 3*time.Minute)
	t.Cleanup(func() { _ = k8s.Delete(ctx, base) })
	pinned := plant(t, baseResult, 5)
	alert := map[string]string{"alertname": "SerdebenchRegression", "namespace": namespace, "schedule": "e2e-minutely"}
	// Before the schedule exists the alert is not firing (one an interrupted run left
	// ends once its gauge is gone: a scrape and an evaluation).
	waitFor(t, 2*time.Minute, "no SerdebenchRegression firing for the schedule before it exists", func() bool { return !alertFiring(t, alert) })

	s := &v1alpha1.SerializationSchedule{ObjectMeta: metav1.ObjectMeta{Name: "e2e-minutely", Namespace: namespace},
		Spec: v1alpha1.SerializationScheduleSpec{Schedule: "* * * * *", SuccessfulHistoryLimit: ptr(int32(3)),
			// A pinned baseline judges each run at once; persistence 1 alerts on the first.
			Baseline: v1alpha1.Baseline{Kind: v1alpha1.BaselinePinned, ResultNames: pinned, Runs: 5, MinRuns: 3}, PersistenceRuns: 1,
			ExperimentTemplate: v1alpha1.ExperimentTemplate{Labels: map[string]string{"e2e": "schedule"}, Spec: template}}}
	_ = k8s.Delete(ctx, s.DeepCopy()) // a leftover of an interrupted run
	waitFor(t, 2*time.Minute, "an earlier schedule gone", func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(s), &v1alpha1.SerializationSchedule{}))
	})
	if err := k8s.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, s) })
	// Current only once the operator has observed it (without a status, kstatus reads
	// any custom resource as Current).
	waitFor(t, 30*time.Second, "the schedule observed and Current", func() bool {
		got := s.DeepCopy()
		return kstatusOf(t, got, "SerializationSchedule") == status.CurrentStatus && got.Status.ObservedGeneration == got.Generation &&
			meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionReady)
	})

	runs := func() []v1alpha1.SerializationExperiment {
		list := &v1alpha1.SerializationExperimentList{}
		if err := k8s.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{"serdebench.io/schedule": s.Name}); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(list.Items, func(a, b v1alpha1.SerializationExperiment) int {
			return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
		})
		return list.Items
	}
	var first v1alpha1.SerializationExperiment
	waitFor(t, 4*time.Minute, "a succeeded run", func() bool {
		for _, x := range runs() {
			if x.Status.Stage == v1alpha1.StageFailed {
				t.Fatalf("run %s failed: %+v", x.Name, meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed))
			}
			if x.Status.Stage == v1alpha1.StageSucceeded {
				first = x
				return true
			}
		}
		return false
	})
	if first.Labels["e2e"] != "schedule" || kstatusOf(t, first.DeepCopy(), "SerializationExperiment") != status.CurrentStatus {
		t.Fatalf("run %s: labels %v, kstatus not Current", first.Name, first.Labels)
	}
	var cond *metav1.Condition
	waitFor(t, time.Minute, "the first run compared", func() bool {
		got := &v1alpha1.SerializationSchedule{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
			t.Fatal(err)
		}
		cond = meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRegressed)
		return got.Status.LastComparedRun != "" && cond != nil
	})
	t.Logf("Regressed: %s %s: %s", cond.Status, cond.Reason, cond.Message)
	if cond.Status != metav1.ConditionTrue || cond.Reason != "Regressed" || !strings.Contains(cond.Message, "recordsPerSecond") {
		t.Fatalf("against a baseline with three times its records/s, the run is not Regressed: %+v", cond)
	}
	res := &v1alpha1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: first.Status.ResultRef.Name}, res); err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if c == nil || c.Schedule != s.Name || !slices.Equal(c.BaselineResults, pinned) || len(c.Trials) != 1 || !c.Regressed ||
		c.Verdict != v1alpha1.VerdictRegressed || c.Trials[0].Metrics[0].Name != "recordsPerSecond" || !c.Trials[0].Metrics[0].Regressed {
		t.Fatalf("comparison %+v", c)
	}
	for _, m := range c.Trials[0].Metrics {
		t.Logf("%s: baseline %s, candidate %s %s (%s %%) %s", m.Name, m.Baseline, m.Candidate, m.Unit, m.ChangePercent, m.Verdict)
	}

	checkDashboard(t, begin)
	// The operator's gauge, scraped every 30 s, then a rule evaluation every 30 s.
	judged := time.Now()
	waitFor(t, 3*time.Minute, "SerdebenchRegression firing in Prometheus", func() bool { return alertFiring(t, alert) })
	t.Logf("SerdebenchRegression firing in Prometheus %s after the checks above", time.Since(judged).Round(time.Second))
	waitFor(t, 3*time.Minute, "SerdebenchRegression delivered by Alertmanager to the receiver", func() bool { return receiver.delivered(alert) })
	t.Logf("and delivered to the receiver after %s", time.Since(judged).Round(time.Second))

	// A slower machine: CPU stress beside the workers. The planted fall is as before;
	// the machine probe now decides it is the machine's.
	t.Run("slower machine", func(t *testing.T) { slowerMachine(t, s, node) })

	// The schedule's history as one report, through the kubeconfig.
	bin := filepath.Join(t.TempDir(), "serdebench")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(repo, "cmd/serdebench")).CombinedOutput(); err != nil {
		t.Fatalf("build serdebench: %v\n%s", err, out)
	}
	html := filepath.Join(t.TempDir(), "history.html")
	if out, err := exec.Command(bin, "report", "--schedule", s.Name, "-n", namespace, "-o", html).CombinedOutput(); err != nil || !strings.Contains(string(out), html) {
		t.Fatalf("serdebench report --schedule: %v\n%s", err, out)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), c.Trials[0].Name) {
		t.Fatalf("the history report lacks the run's trial %s (%v)", c.Trials[0].Name, err)
	}

	// Deleting the schedule deletes its runs and their results.
	if err := k8s.Delete(ctx, s, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Minute, "runs and results garbage-collected", func() bool {
		if len(runs()) > 0 {
			return false
		}
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(res), &v1alpha1.SerializationResult{}))
	})
}

// waitFor polls cond every second until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	kubetest.WaitFor(t, timeout, time.Second, what, func() (bool, error) { return cond(), nil })
}

// plant creates n SerializationResults copied from res with its trials' records/s
// three times higher, 1% apart (a baseline's spread), and their machine probes
// spread as one trial's reading can move between runs here: the VM's cores run
// at two speeds, its CPU loop reading about 8,000 or 14,000–17,000 ns/op
// (docs/schedules.md), so a run's reading may be half or twice the one res
// made. Copies that all said the same would leave the probe unjudged (no
// spread, no noise known); a spread narrower than the two speeds would call the
// other speed a slower machine. CPU stress beside the workers slows the loop
// ten times (slowerMachine). Returns their names; they are deleted after the
// test.
func plant(t *testing.T, res *v1alpha1.SerializationResult, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		p := res.DeepCopy()
		p.ObjectMeta = metav1.ObjectMeta{Name: fmt.Sprintf("e2e-planted-%d", i), Namespace: namespace, Labels: map[string]string{"e2e": "planted"}}
		p.Comparison = nil
		for j := range p.Trials {
			p.Trials[j].RecordsPerSecond = int64(float64(p.Trials[j].RecordsPerSecond) * 3 * (1 + 0.01*float64(i-1)))
			if pr := p.Trials[j].Probe; pr != nil {
				// Evenly from e^-0.35 to e^+0.35: a spread of 0.28 in the logarithm at
				// n = 5, which tells a change of about 2.6 times (Holm over the
				// probe's three parts); the two speeds are 1.9 times apart.
				f := math.Exp(0.35 * (float64(i) - float64(n-1)/2) / (float64(n-1) / 2))
				pr.CPUNanosPerOp = int64(float64(pr.CPUNanosPerOp) * f)
				pr.FsyncMicros = max(1, int64(float64(pr.FsyncMicros)*f))
				pr.ConnectMicros = max(1, int64(float64(pr.ConnectMicros)*f))
			}
		}
		_ = k8s.Delete(context.Background(), p.DeepCopy()) // a leftover of an interrupted run
		waitFor(t, time.Minute, "an earlier planted result gone", func() bool {
			return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKeyFromObject(p), &v1alpha1.SerializationResult{}))
		})
		if err := k8s.Create(context.Background(), p); err != nil {
			t.Fatalf("plant %s: %v", p.Name, err)
		}
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), p) })
		names = append(names, p.Name)
	}
	return names
}
