package topics

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// TestKafkaTopicGolden: a trial's KafkaTopic at each Strimzi API version serdebench
// speaks, with labels and topic config (the CRD schemas accept them: envtest's
// Strimzi tests create them).
func TestKafkaTopicGolden(t *testing.T) {
	spec := Spec{Name: "sx.thesis-batch.0123abcd.t000-json-1176b", Partitions: 3, Replicas: 1,
		Config: map[string]string{"min.insync.replicas": "1", "retention.ms": "3600000"},
		Labels: map[string]string{"serdebench.io/experiment": "thesis-batch", "serdebench.io/trial": "t000-json-1176b"}}
	for _, v := range StrimziVersions {
		gvk := schema.GroupVersionKind{Group: StrimziGroup, Version: v, Kind: KindKafkaTopic}
		golden.YAML(t, "kafkatopic-"+v, KafkaTopic(gvk, "kafka", "my-cluster", spec))
	}
}
