package build

import (
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// Strimzi's labels on a Kafka cluster's broker pods (node pools with the broker
// role, in KRaft clusters of Strimzi 0.4x and 1.x).
const (
	strimziClusterLabel    = "strimzi.io/cluster"
	strimziBrokerRoleLabel = "strimzi.io/broker-role"
)

// BrokerPods is the namespace and labels of the experiment's broker pods:
// kafka.brokerPods, else a Strimzi cluster's broker pods. ok is false when
// neither names them (brokers outside the cluster, or not said where).
func BrokerPods(x *serdebenchv1.SerializationExperiment) (namespace string, labels map[string]string, ok bool) {
	k := x.Spec.Kafka
	switch {
	case k.BrokerPods != nil:
		return defaultNamespace(k.BrokerPods.Namespace, x), k.BrokerPods.MatchLabels, true
	case k.Strimzi != nil:
		return StrimziNamespace(x), map[string]string{strimziClusterLabel: k.Strimzi.ClusterName, strimziBrokerRoleLabel: "true"}, true
	}
	return "", nil, false
}

func defaultNamespace(ns string, x *serdebenchv1.SerializationExperiment) string {
	if ns == "" {
		return x.Namespace
	}
	return ns
}
