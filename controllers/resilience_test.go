package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestDisruptedTrialIsRetried: a producer pod evicted mid-run (DisruptionTarget,
// the Job's pod failure policy fails the Job) is re-run once on a fresh topic; the
// result says it took two attempts, and its numbers are those of the clean attempt.
func TestDisruptedTrialIsRetried(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.evict["producers"] = 1 })
	startManager(t, nil, k)
	create(t, experiment(ns, "evicted", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Codecs = []trial.Codec{"json"}
		x.Spec.Rate.RecordsPerSecond = 100 // 3 s: still running when the eviction comes
	}))
	x := waitStage(t, ns, "evicted", serdebenchv1.StageSucceeded, 90*time.Second)
	ts := x.Status.Trials[0]
	if ts.Attempt != 2 || !strings.Contains(ts.Topic, ".a2") {
		t.Fatalf("trial status %+v: want attempt 2 on a fresh topic", ts)
	}
	res := result(t, ns, "evicted")
	checkResult(t, res, 1)
	if res.Trials[0].Attempts != 2 {
		t.Fatalf("result says %d attempts, want 2", res.Trials[0].Attempts)
	}
	existing := kafkatest.Topics(t, brokers)
	for _, topic := range []string{strings.TrimSuffix(ts.Topic, ".a2"), ts.Topic} {
		if existing[topic] {
			t.Errorf("topic %s left in the broker", topic)
		}
	}
	waitFor(t, 10*time.Second, "jobs deleted", func() (bool, error) { return len(jobs(t, ns)) == 0, nil })
	if runs := k.jobRuns(); len(runs) != 4 {
		t.Fatalf("jobs run: %v, want consumers and producers of 2 attempts", runs)
	}
}

// TestDisruptionWithoutRetries: with retries 0 a disrupted trial fails, saying so.
func TestDisruptionWithoutRetries(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.evict["consumers"] = 1 })
	startManager(t, nil, k)
	create(t, experiment(ns, "evicted-once", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Retries = ptr(int32(0))
		x.Spec.Rate.RecordsPerSecond = 100
	}))
	x := waitStage(t, ns, "evicted-once", serdebenchv1.StageFailed, 60*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTrialDisrupted || !strings.Contains(c.Message, "DisruptionTarget") {
		t.Fatalf("failed condition %+v", c)
	}
	waitFor(t, 10*time.Second, "jobs deleted", func() (bool, error) { return len(jobs(t, ns)) == 0, nil })
}

// TestInterruptedWorkerFailsTrial: a worker stopped from outside (SIGTERM, no
// disruption) reports a partial summary and exits 3; the trial fails with
// WorkerInterrupted instead of being recorded.
func TestInterruptedWorkerFailsTrial(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.interrupt["consumers"] = true })
	startManager(t, nil, k)
	create(t, experiment(ns, "stopped", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Rate.RecordsPerSecond = 100
	}))
	x := waitStage(t, ns, "stopped", serdebenchv1.StageFailed, 60*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonWorkerInterrupted || !strings.Contains(c.Message, "exited 3") {
		t.Fatalf("failed condition %+v", c)
	}
	res := &serdebenchv1.SerializationResult{}
	if err := k8s.Get(context.Background(), keyOf(ns, "stopped"), res); err == nil && len(res.Trials) > 0 {
		t.Fatalf("interrupted trial recorded: %+v", res.Trials)
	}
}

// TestCrashInjection restarts the manager right after every status write and every
// side effect (topic, Jobs, result, Job deletion, topic deletion) of a two-trial
// experiment: the aborted step's manager dies there and a new one takes over. Each
// trial still runs exactly once, is recorded exactly once, and nothing is left.
func TestCrashInjection(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	const name = "crashy"
	var mu sync.Mutex
	seen := map[string]int{}
	crashed := make(chan string, 1000)
	// Each point (what happened, in which state of the trials) crashes the first
	// time it is reached; a new manager then gets past it.
	points := map[string]bool{}
	configure := func(r *controllers.ExperimentReconciler) {
		dead := false
		crash := func(what string, x *serdebenchv1.SerializationExperiment) {
			mu.Lock()
			defer mu.Unlock()
			point := what + " " + trialStates(x)
			if points[point] && !dead {
				return
			}
			points[point] = true
			seen[what]++
			if !dead {
				dead = true
				crashed <- point
			}
			// The process dies here: nothing after the side effect happens.
			panic(fmt.Sprintf("injected crash after %s", point))
		}
		r.AfterStatusWrite = func(x *serdebenchv1.SerializationExperiment) {
			if x.Name == name {
				crash("status write", x)
			}
		}
		r.AfterSideEffect = func(x *serdebenchv1.SerializationExperiment, what string) {
			if x.Name == name {
				crash(what, x)
			}
		}
	}
	create(t, experiment(ns, name, func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
	}))
	restarts := 0
	deadline := time.Now().Add(4 * time.Minute)
	for get(t, ns, name).Status.Stage != serdebenchv1.StageSucceeded {
		if time.Now().After(deadline) {
			t.Fatalf("not done after %d restarts: %+v", restarts, get(t, ns, name).Status)
		}
		if get(t, ns, name).Status.Stage == serdebenchv1.StageFailed {
			t.Fatalf("failed: %+v", meta.FindStatusCondition(get(t, ns, name).Status.Conditions, serdebenchv1.ConditionFailed))
		}
		stop := startManager(t, configure, k)
		select {
		case <-crashed:
			restarts++
		case <-time.After(30 * time.Second):
		}
		stop()
	}
	mu.Lock()
	t.Logf("%d manager restarts at %d points; crashes after: %v", restarts, len(points), seen)
	for _, what := range []string{"status write", "topic ensured", "job created", "result written", "jobs deleted", "topic deleted"} {
		if seen[what] == 0 {
			t.Errorf("never crashed after %q", what)
		}
	}
	mu.Unlock()
	checkResult(t, result(t, ns, name), 2)
	for job, n := range k.jobRuns() {
		if n != 1 {
			t.Fatalf("job %s ran %d times", job, n)
		}
	}
	if runs := k.jobRuns(); len(runs) != 4 {
		t.Fatalf("jobs run: %v, want 4", runs)
	}
	waitFor(t, 10*time.Second, "nothing left", func() (bool, error) {
		left := jobs(t, ns)
		existing := kafkatest.Topics(t, brokers)
		for _, ts := range get(t, ns, name).Status.Trials {
			if existing[ts.Topic] {
				return false, fmt.Errorf("topic %s left", ts.Topic)
			}
		}
		return len(left) == 0, fmt.Errorf("%d jobs left", len(left))
	})
}

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// trialStates is the trials' progress, e.g. "Succeeded+,Running".
func trialStates(x *serdebenchv1.SerializationExperiment) string {
	var b strings.Builder
	for i, ts := range x.Status.Trials {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(ts.Phase))
		if ts.CleanedUp {
			b.WriteByte('+')
		}
	}
	return string(x.Status.Stage) + ":" + b.String()
}
