package topics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func mapperServing(versions ...string) meta.RESTMapper {
	var gvs []schema.GroupVersion
	for _, v := range versions {
		gvs = append(gvs, schema.GroupVersion{Group: StrimziGroup, Version: v})
	}
	m := meta.NewDefaultRESTMapper(gvs)
	for _, gv := range gvs {
		m.Add(gv.WithKind(KindKafkaTopic), meta.RESTScopeNamespace)
	}
	return m
}

// TestServedStrimziGVK: v1 (Strimzi 1.x) is preferred when served, v1beta2 (0.x)
// otherwise, and a cluster serving neither is an error naming what it serves.
func TestServedStrimziGVK(t *testing.T) {
	for _, c := range []struct {
		served []string
		want   string
	}{
		{[]string{"v1"}, "v1"},
		{[]string{"v1beta2"}, "v1beta2"},
		{[]string{"v1beta2", "v1"}, "v1"},
		{[]string{"v1beta1", "v1beta2"}, "v1beta2"},
	} {
		gvk, err := ServedStrimziGVK(mapperServing(c.served...), KindKafkaTopic)
		if err != nil || gvk.Version != c.want {
			t.Errorf("served %v: got %v, %v; want %s", c.served, gvk, err, c.want)
		}
	}
	_, err := ServedStrimziGVK(mapperServing("v1beta1"), KindKafkaTopic)
	if err == nil || !strings.Contains(err.Error(), "v1beta1") || !strings.Contains(err.Error(), "[v1 v1beta2]") {
		t.Errorf("unsupported version: %v", err)
	}
}

// kafkaTopic is a KafkaTopic as Strimzi's Topic Operator leaves it: generation,
// observedGeneration and conditions as given, created at created.
func kafkaTopic(generation, observed int64, created time.Time, conds ...map[string]any) *unstructured.Unstructured {
	kt := KafkaTopic(schema.GroupVersionKind{Group: StrimziGroup, Version: "v1", Kind: KindKafkaTopic}, "ns", "my-cluster", Spec{Name: "t", Partitions: 3, Replicas: 1})
	kt.SetGeneration(generation)
	kt.SetCreationTimestamp(metav1.NewTime(created))
	if observed > 0 || len(conds) > 0 {
		var cs []any
		for _, c := range conds {
			cs = append(cs, c)
		}
		kt.Object["status"] = map[string]any{"observedGeneration": observed, "conditions": cs}
	}
	return kt
}

// TestKafkaTopicState reads KafkaTopics as the real Topic Operator (Strimzi 1.2.0,
// e2e/strimzi_test.go) leaves them: its messages are quoted from it.
func TestKafkaTopicState(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fresh, old := now.Add(-time.Second), now.Add(-NoStatusAfter-time.Second)
	ready := map[string]any{"type": "Ready", "status": "True"}
	refusedRF := map[string]any{"type": "Ready", "status": "False", "reason": "KafkaError",
		"message": "org.apache.kafka.common.errors.InvalidReplicationFactorException: Unable to replicate the partition 2 time(s): The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned."}
	timeout := map[string]any{"type": "Ready", "status": "False", "reason": "KafkaError",
		"message": "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: createTopics"}
	decrease := map[string]any{"type": "Ready", "status": "False", "reason": "NotSupported", "message": "Decreasing partitions not supported"}
	internal := map[string]any{"type": "Ready", "status": "False", "reason": "InternalError", "message": "java.lang.NullPointerException"}
	unknown := map[string]any{"type": "Ready", "status": "False", "reason": "KafkaError", "message": "org.apache.kafka.common.errors.UnknownServerException: The server experienced an unexpected error"}
	conflict := map[string]any{"type": "Ready", "status": "False", "reason": "ResourceConflict", "message": "Managed by Ref{namespace='ns', name='other'}"}
	paused := map[string]any{"type": ConditionReconciliationPaused, "status": "True"}
	for _, c := range []struct {
		name    string
		kt      *unstructured.Unstructured
		ready   bool
		refused bool
		says    string // in the error; "" means no error
	}{
		{"just created, no status yet", kafkaTopic(1, 0, fresh), false, false, ""},
		{"no status for long: the Topic Operator is not there", kafkaTopic(1, 0, old), false, false, "no status from Strimzi's Topic Operator for 31s: is it running, watching namespace ns and selecting strimzi.io/cluster=my-cluster?"},
		{"ready", kafkaTopic(1, 1, fresh, ready), true, false, ""},
		{"ready for an older generation", kafkaTopic(2, 1, fresh, ready), false, false, ""},
		{"older generation, for long", kafkaTopic(2, 1, old, ready), false, false, "no status for generation 2 (observed 1)"},
		{"more replicas than brokers", kafkaTopic(1, 1, fresh, refusedRF), false, true, "refused by Strimzi's Topic Operator: KafkaError: org.apache.kafka.common.errors.InvalidReplicationFactorException"},
		{"refused for an older generation: not yet a refusal", kafkaTopic(2, 1, fresh, refusedRF), false, false, ""},
		{"retriable Kafka error", kafkaTopic(1, 1, fresh, timeout), false, false, "not ready yet: KafkaError: org.apache.kafka.common.errors.TimeoutException"},
		{"partition decrease", kafkaTopic(1, 1, fresh, decrease), false, true, "NotSupported: Decreasing partitions not supported"},
		{"internal error: retried", kafkaTopic(1, 1, fresh, internal), false, false, "InternalError"},
		{"unknown server error: retried", kafkaTopic(1, 1, fresh, unknown), false, false, "UnknownServerException"},
		{"another KafkaTopic manages the topic", kafkaTopic(1, 1, fresh, conflict), false, true, "ResourceConflict"},
		{"paused", kafkaTopic(1, 1, fresh, paused), false, false, "reconciliation is paused"},
	} {
		ok, err := KafkaTopicState(c.kt, now)
		if ok != c.ready || errors.Is(err, ErrRefused) != c.refused || (c.says == "") != (err == nil) ||
			(err != nil && !strings.Contains(err.Error(), c.says)) {
			t.Errorf("%s: ready %v, err %v; want ready %v, refused %v, saying %q", c.name, ok, err, c.ready, c.refused, c.says)
		}
	}
	unmanaged := kafkaTopic(1, 0, fresh)
	unmanaged.SetAnnotations(map[string]string{AnnotationManaged: "false"})
	if _, err := KafkaTopicState(unmanaged, now); !errors.Is(err, ErrRefused) {
		t.Errorf("unmanaged KafkaTopic: %v, want a refusal", err)
	}
	deleting := kafkaTopic(1, 1, fresh, ready)
	deleting.SetDeletionTimestamp(&metav1.Time{Time: fresh})
	deleting.SetFinalizers([]string{Finalizer})
	if ok, err := KafkaTopicState(deleting, now); ok || err == nil || errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), Finalizer) {
		t.Errorf("KafkaTopic being deleted: %v, %v; want not ready, waiting, naming the finalizer", ok, err)
	}
}
