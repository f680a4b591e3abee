//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/testing/kubetest"

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
// schedule every minute: real runs succeed, the second is compared with the first
// (the result's comparison block with each metric's change, the Regressed
// condition saying the baseline is still being collected: one run cannot show the
// noise between runs), kstatus reads the
// schedule and its runs as Current, and deleting the schedule takes its runs and
// results with it (owner references, the cluster's garbage collector).
func TestScheduleOnCluster(t *testing.T) {
	ctx := context.Background()
	s := &v1alpha1.SerializationSchedule{ObjectMeta: metav1.ObjectMeta{Name: "e2e-minutely", Namespace: namespace},
		Spec: v1alpha1.SerializationScheduleSpec{Schedule: "* * * * *", SuccessfulHistoryLimit: ptr(int32(3)),
			// Persistence 1: the first run is the second's baseline, not its streak partner.
			Baseline: v1alpha1.Baseline{Kind: v1alpha1.BaselineRollingMedian, Runs: 2, MinRuns: 2}, PersistenceRuns: 1,
			ExperimentTemplate: v1alpha1.ExperimentTemplate{Labels: map[string]string{"e2e": "schedule"},
				Spec: small("", 3000, "protobuf").Spec}}}
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

	// Two finished runs (a minute apart, or more if Forbid skipped one).
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
	var done []v1alpha1.SerializationExperiment
	waitFor(t, 6*time.Minute, "two succeeded runs", func() bool {
		done = done[:0]
		for _, x := range runs() {
			if x.Status.Stage == v1alpha1.StageFailed {
				t.Fatalf("run %s failed: %+v", x.Name, meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed))
			}
			if x.Status.Stage == v1alpha1.StageSucceeded {
				done = append(done, x)
			}
		}
		return len(done) >= 2
	})
	first, second := done[0], done[1]
	if first.Labels["e2e"] != "schedule" || kstatusOf(t, first.DeepCopy(), "SerializationExperiment") != status.CurrentStatus {
		t.Fatalf("run %s: labels %v, kstatus not Current", first.Name, first.Labels)
	}
	var cond *metav1.Condition
	var compared string
	waitFor(t, time.Minute, "the second run compared", func() bool {
		got := &v1alpha1.SerializationSchedule{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
			t.Fatal(err)
		}
		cond = meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionRegressed)
		// Runs are compared in order, so a later one compared means the second was.
		compared = got.Status.LastComparedRun
		return compared != "" && compared != first.Name && cond != nil
	})
	t.Logf("Regressed: %s %s: %s", cond.Status, cond.Reason, cond.Message)
	res := &v1alpha1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: second.Status.ResultRef.Name}, res); err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if c == nil || c.Schedule != s.Name || !slices.Equal(c.BaselineResults, []string{first.Status.ResultRef.Name}) ||
		len(c.Trials) != 1 || len(c.Trials[0].Metrics) != 3 || c.Regressed || c.Verdict != v1alpha1.VerdictNotJudged ||
		(compared == second.Name && (cond.Status != metav1.ConditionUnknown || cond.Reason != "CollectingBaseline")) {
		t.Fatalf("comparison %+v, condition %+v", c, cond)
	}
	for _, m := range c.Trials[0].Metrics {
		t.Logf("%s: baseline %s, candidate %s %s (%s %%)", m.Name, m.Baseline, m.Candidate, m.Unit, m.ChangePercent)
		if m.Candidate == "" || m.ChangePercent == "" || m.Verdict != v1alpha1.VerdictNotJudged {
			t.Errorf("%s: a run against one run has a value and a change, and is not judged: %+v", m.Name, m)
		}
	}

	// The schedule's history as one report, through the kubeconfig.
	bin := filepath.Join(t.TempDir(), "serdebench")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(repo, "cmd/serdebench")).CombinedOutput(); err != nil {
		t.Fatalf("build serdebench: %v\n%s", err, out)
	}
	html := filepath.Join(t.TempDir(), "history.html")
	if out, err := exec.Command(bin, "report", "--schedule", s.Name, "-n", namespace, "-o", html).CombinedOutput(); err != nil || !strings.Contains(string(out), html) {
		t.Fatalf("serdebench report --schedule: %v\n%s", err, out)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), "Comparison with the baseline runs") {
		t.Fatalf("the history report lacks the comparison (%v)", err)
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
