//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// Strimzi's real Topic Operator (hack/strimzi) runs in the e2e namespace for Kafka
// cluster my-cluster (setup deploys it): these tests' topics are its KafkaTopics.
const (
	strimziCluster    = "my-cluster"
	topicOperatorName = "strimzi-topic-operator"
)

// viaStrimzi makes x's topics KafkaTopics of the e2e namespace's Strimzi cluster.
func viaStrimzi(x *v1alpha1.SerializationExperiment) *v1alpha1.SerializationExperiment {
	x.Spec.Kafka = v1alpha1.KafkaSpec{Strimzi: &v1alpha1.StrimziKafka{ClusterName: strimziCluster}}
	return x
}

// scaleTopicOperator sets the Topic Operator's replicas; with wait, it waits until
// that many pods are ready (0: its pod is gone). Strimzi's readiness probe first
// looks after 10 s and then every 30 s: the experiment need not wait for it.
func scaleTopicOperator(t *testing.T, replicas int32, wait bool) {
	t.Helper()
	if out, err := kubectlIn("", "-n", namespace, "scale", "deployment/"+topicOperatorName, fmt.Sprintf("--replicas=%d", replicas)); err != nil {
		t.Fatalf("scale the Topic Operator: %v\n%s", err, out)
	}
	if !wait {
		t.Logf("Topic Operator scaled to %d", replicas)
		return
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		d := &appsv1.Deployment{}
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: topicOperatorName}, d)
		pods, _ := kubectlIn("", "-n", namespace, "get", "pods", "-l", "name="+topicOperatorName, "-o", "name")
		if err == nil && d.Status.ReadyReplicas == replicas && (replicas > 0 || strings.TrimSpace(pods) == "") {
			t.Logf("Topic Operator scaled to %d", replicas)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Topic Operator not at %d ready replicas after 3m (err %v, pods %q)", replicas, err, pods)
		}
		time.Sleep(time.Second)
	}
}

// waitTopicsCondition waits until the experiment's TopicsReady condition has reason
// and its message holds says.
func waitTopicsCondition(t *testing.T, name, reason, says string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		x := &v1alpha1.SerializationExperiment{}
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, x)
		c := meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionTopicsReady)
		if err == nil && c != nil && c.Reason == reason && strings.Contains(c.Message, says) {
			t.Logf("%s: TopicsReady %s: %s", name, c.Reason, c.Message)
			return
		}
		if time.Now().After(deadline) {
			dump(t, name)
			t.Fatalf("%s: no TopicsReady %s saying %q after %s (condition %+v, err %v)", name, reason, says, timeout, c, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestStrimziRefusedTopic: a topic the Topic Operator refuses (two replicas, one
// broker) fails the trial with Strimzi's own reason and message.
func TestStrimziRefusedTopic(t *testing.T) {
	x := viaStrimzi(small("strimzi-refused", 1000, "json"))
	x.Spec.Topic.Replicas = 2
	create(t, x)
	x = waitStage(t, x.Name, 2*time.Minute)
	c := meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed)
	if x.Status.Stage != v1alpha1.StageFailed || c == nil || c.Reason != controllers.ReasonTopicFailed ||
		!strings.Contains(c.Message, "refused by Strimzi's Topic Operator: KafkaError: org.apache.kafka.common.errors.InvalidReplicationFactorException") ||
		!strings.Contains(c.Message, "only 1 broker(s) are registered") {
		dump(t, x.Name)
		t.Fatalf("stage %s, failed condition %+v", x.Status.Stage, c)
	}
	t.Logf("failed as Strimzi said: %s", c.Message)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestTopicOperatorStopped stops the Topic Operator while a trial runs: the trial's
// cleanup waits for it with a condition that says so, and the experiment goes on
// once it is back. Then an experiment deleted while the Topic Operator is stopped
// waits for it (saying why) and leaves nothing once it returns.
func TestTopicOperatorStopped(t *testing.T) {
	t.Cleanup(func() { scaleTopicOperator(t, 1, true) })
	x := viaStrimzi(small("to-stopped", 6000, "json", "protobuf"))
	x.Spec.Rate.RecordsPerSecond = 500 // 12 s per trial: time to stop the Topic Operator mid-trial
	create(t, x)
	waitTrialRunning(t, x.Name, 0, "producers")
	scaleTopicOperator(t, 0, true)
	waitTopicsCondition(t, x.Name, controllers.ReasonDeletingTopics, "Topic Operator has not yet deleted topic", 2*time.Minute)
	scaleTopicOperator(t, 1, false)
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 2)
	deleteAndCheckClean(t, x, []string{stack.kafka})

	y := viaStrimzi(small("to-stopped-delete", 3000, "json"))
	y.Spec.Rate.RecordsPerSecond = 500
	create(t, y)
	waitTrialRunning(t, y.Name, 0, "producers")
	scaleTopicOperator(t, 0, true)
	if err := k8s.Delete(context.Background(), y.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	waitTopicsCondition(t, y.Name, controllers.ReasonDeletingTopics, "(is it running?)", time.Minute)
	kts, _ := kubectlIn("", "-n", namespace, "get", "kafkatopics", "-o", "name")
	t.Logf("while the Topic Operator is stopped, the experiment waits; KafkaTopics: %s", strings.TrimSpace(kts))
	scaleTopicOperator(t, 1, false)
	waitGone(t, y.Name, 2*time.Minute)
	have := kafkatest.Topics(t, []string{stack.kafka})
	if kts, _ := kubectlIn("", "-n", namespace, "get", "kafkatopics", "-o", "name"); strings.Contains(kts, "to-stopped-delete") {
		t.Errorf("KafkaTopics left: %s", kts)
	}
	for name := range have {
		if strings.Contains(name, "to-stopped-delete") {
			t.Errorf("topic %s left in Kafka", name)
		}
	}
}

// TestStrimziTopicsMatchAdmin: a topic made by Strimzi's Topic Operator and one made
// through the Admin API for the same trial are the same to the workers:
// partitions, replication and every topic-level setting.
func TestStrimziTopicsMatchAdmin(t *testing.T) {
	// Both at once: the operator runs experiments side by side.
	xs := []*v1alpha1.SerializationExperiment{viaStrimzi(small("same-strimzi", 500, "json")), small("same-admin", 500, "json")}
	for _, x := range xs {
		x.Spec.CleanupPolicy = v1alpha1.CleanupRetain
		x.Spec.Topic.Config = map[string]string{"retention.ms": "600000"}
		create(t, x)
	}
	var described []string
	for _, x := range xs {
		x, res := succeeded(t, x.Name, 3*time.Minute)
		checkTrials(t, res, 1)
		described = append(described, describeTopic(t, x.Status.Trials[0].Topic))
		deleteAndCheckClean(t, x, []string{stack.kafka})
	}
	if described[0] != described[1] {
		t.Fatalf("topics differ:\nStrimzi: %s\nAdmin:   %s", described[0], described[1])
	}
	t.Logf("both: %s", described[0])
}

// describeTopic is a topic's partition count, replication factor and the settings
// set on it (not broker defaults), as one comparable line.
func describeTopic(t *testing.T, name string) string {
	t.Helper()
	ad, err := sarama.NewClusterAdmin([]string{stack.kafka}, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ad.Close() }()
	md, err := ad.DescribeTopics([]string{name})
	if err != nil || len(md) != 1 || md[0].Err != sarama.ErrNoError {
		t.Fatalf("describe %s: %v %+v", name, err, md)
	}
	results, err := ad.DescribeConfigs([]*sarama.ConfigResource{{Type: sarama.TopicResource, Name: name}}, sarama.DescribeConfigsOptions{})
	if err != nil || len(results) != 1 || results[0].ErrorCode != sarama.ErrNoError {
		t.Fatalf("describe configs of %s: %v %+v", name, err, results)
	}
	var set []string
	for _, e := range results[0].Configs {
		if e.Source == sarama.SourceTopic {
			set = append(set, e.Name+"="+e.Value)
		}
	}
	sort.Strings(set)
	return fmt.Sprintf("%d partitions, %d replicas, set: %v", len(md[0].Partitions), len(md[0].Partitions[0].Replicas), set)
}
