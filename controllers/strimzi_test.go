package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/topics"
)

// strimziRefused: a topic Strimzi's Topic Operator refuses (more replicas than the
// one broker) fails its trial at once with Strimzi's reason and message quoted,
// and its KafkaTopic still goes (the Topic Operator releases it).
func strimziRefused(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	startManager(t, nil, k)
	create(t, experiment(ns, "refused", func(x *serdebenchv1.SerializationExperiment) { x.Spec.Topic.Replicas = 2 }))
	x := waitStage(t, ns, "refused", serdebenchv1.StageFailed, 30*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTopicFailed || !strings.Contains(c.Message, "refused by Strimzi's Topic Operator: KafkaError: org.apache.kafka.common.errors.InvalidReplicationFactorException: Unable to replicate the partition 2 time(s)") {
		t.Fatalf("failed condition %+v", c)
	}
	if ts := x.Status.Trials[0]; ts.Phase != serdebenchv1.TrialFailed || !strings.Contains(ts.Message, "InvalidReplicationFactorException") {
		t.Fatalf("trial %+v", ts)
	}
	waitFor(t, 10*time.Second, "KafkaTopic deleted", func() (bool, error) { return len(kafkaTopics(t, ns)) == 0, nil })
}

// strimziStoppedMidRun: with the Topic Operator stopped while a trial runs, the
// trial's cleanup waits for it with a condition that says so, and the experiment
// goes on and succeeds once it is back.
func strimziStoppedMidRun(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	startManager(t, nil, k)
	create(t, experiment(ns, "to-stopped", nil))
	waitFor(t, 30*time.Second, "first trial running", func() (bool, error) {
		x := get(t, ns, "to-stopped")
		return len(x.Status.Trials) > 0 && x.Status.Trials[0].Phase == serdebenchv1.TrialRunning, nil
	})
	k.set(func(k *kubelet) { k.topicsReady = false })
	waitFor(t, 30*time.Second, "a condition saying the Topic Operator holds the topic", func() (bool, error) {
		c := meta.FindStatusCondition(get(t, ns, "to-stopped").Status.Conditions, serdebenchv1.ConditionTopicsReady)
		return c != nil && c.Reason == controllers.ReasonDeletingTopics && strings.Contains(c.Message, "Topic Operator has not yet deleted topic") &&
			strings.Contains(c.Message, topics.Finalizer), fmt.Errorf("condition %+v", c)
	})
	time.Sleep(2 * time.Second) // still waiting, not given up
	if x := get(t, ns, "to-stopped"); x.Status.Trials[1].Phase != serdebenchv1.TrialPending {
		t.Fatalf("second trial started while the first one's topic was held: %+v", x.Status.Trials[1])
	}
	k.set(func(k *kubelet) { k.topicsReady = true })
	waitStage(t, ns, "to-stopped", serdebenchv1.StageSucceeded, 60*time.Second)
	if left := kafkaTopics(t, ns); len(left) != 0 {
		t.Fatalf("KafkaTopics left: %v", left)
	}
}

// strimziDeletedWhileStopped: an experiment deleted while the Topic Operator is
// stopped waits for it, saying why, for the cleanup bound; then goes with a warning
// event. Its KafkaTopic stays (the Topic Operator's finalizer) and its topic is
// deleted from Kafka once the Topic Operator is back: nothing is orphaned.
func strimziDeletedWhileStopped(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.hold = true })
	// The condition shows after min(10 s, bound/2) and until the bound: 10 s of it.
	startManager(t, func(r *controllers.ExperimentReconciler) { r.CleanupGiveUp = 20 * time.Second }, k)
	create(t, experiment(ns, "orphan", nil))
	waitFor(t, 30*time.Second, "jobs created", func() (bool, error) { return len(jobs(t, ns)) == 2, nil })
	topic := kafkaTopics(t, ns)[0]
	k.set(func(k *kubelet) { k.topicsReady = false })
	x := get(t, ns, "orphan")
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "a condition saying what deletion waits for", func() (bool, error) {
		c := meta.FindStatusCondition(get(t, ns, "orphan").Status.Conditions, serdebenchv1.ConditionTopicsReady)
		return c != nil && c.Reason == controllers.ReasonDeletingTopics && strings.Contains(c.Message, "(is it running?)"), fmt.Errorf("condition %+v", c)
	})
	waitFor(t, 40*time.Second, "experiment gone after the bound", func() (bool, error) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &serdebenchv1.SerializationExperiment{})
		return apierrors.IsNotFound(err), err
	})
	var events corev1.EventList
	if err := k8s.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	said := false
	for _, e := range events.Items {
		said = said || (e.Reason == "CleanupIncomplete" && strings.Contains(e.Message, "Topic Operator"))
	}
	if !said {
		t.Errorf("no CleanupIncomplete event naming the Topic Operator")
	}
	if left := kafkaTopics(t, ns); len(left) != 1 || left[0] != topic {
		t.Fatalf("KafkaTopics %v, want %s kept for the Topic Operator", left, topic)
	}
	k.set(func(k *kubelet) { k.topicsReady = true })
	waitFor(t, 20*time.Second, "KafkaTopic and topic gone once the Topic Operator is back", func() (bool, error) {
		if left := kafkaTopics(t, ns); len(left) != 0 {
			return false, fmt.Errorf("KafkaTopics %v", left)
		}
		err := (&topics.Admin{Brokers: brokers}).Check(context.Background(), topic, 3)
		return err != nil && strings.Contains(err.Error(), "does not exist"), fmt.Errorf("topic in Kafka: %w", err)
	})
}
