package build

import (
	"reflect"
	"testing"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestBrokerPods: kafka.brokerPods names the broker pods (its namespace defaulting
// to the experiment's), else a Strimzi cluster's broker pods; brokers behind a
// bootstrap address alone have none.
func TestBrokerPods(t *testing.T) {
	for name, c := range map[string]struct {
		kafka  serdebenchv1.KafkaSpec
		ns     string
		labels map[string]string
		ok     bool
	}{
		"strimzi": {serdebenchv1.KafkaSpec{Strimzi: &serdebenchv1.StrimziKafka{ClusterName: "c", Namespace: "kafka"}},
			"kafka", map[string]string{"strimzi.io/cluster": "c", "strimzi.io/broker-role": "true"}, true},
		"brokerPods": {serdebenchv1.KafkaSpec{BootstrapServers: "k:9092", BrokerPods: &serdebenchv1.BrokerPods{MatchLabels: map[string]string{"app": "kafka"}}},
			"bench", map[string]string{"app": "kafka"}, true},
		"brokerPods over strimzi": {serdebenchv1.KafkaSpec{Strimzi: &serdebenchv1.StrimziKafka{ClusterName: "c"},
			BrokerPods: &serdebenchv1.BrokerPods{MatchLabels: map[string]string{"app": "kafka"}, Namespace: "streaming"}},
			"streaming", map[string]string{"app": "kafka"}, true},
		"bootstrap": {serdebenchv1.KafkaSpec{BootstrapServers: "k:9092"}, "", nil, false},
	} {
		x := experiment(func(x *serdebenchv1.SerializationExperiment) { x.Namespace, x.Spec.Kafka = "bench", c.kafka })
		ns, labels, ok := BrokerPods(x)
		if ns != c.ns || !reflect.DeepEqual(labels, c.labels) || ok != c.ok {
			t.Errorf("%s: %q %v %v, want %q %v %v", name, ns, labels, ok, c.ns, c.labels, c.ok)
		}
	}
}
