package controllers

import (
	"fmt"
	"strings"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
)

// Labels on everything the operator creates for an experiment.
const (
	LabelExperiment = "serdebench.io/experiment"
	LabelTrial      = "serdebench.io/trial"
	LabelRole       = "serdebench.io/role"
	LabelManagedBy  = "app.kubernetes.io/managed-by"
	managedBy       = "serdebench"
	// Finalizer removes topics and Jobs when an experiment is deleted.
	Finalizer = "serdebench.io/cleanup"
)

// uidPrefix makes names unique per experiment object, so a re-created experiment of
// the same name never reuses an old topic.
func uidPrefix(x *serdebenchv1.SerializationExperiment, n int) string {
	return strings.ReplaceAll(string(x.UID), "-", "")[:n]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimRight(s[:n], "-.")
}

// topicName is the trial's Kafka topic, also the KafkaTopic resource's name: a valid
// Kafka topic name and Kubernetes object name.
func topicName(x *serdebenchv1.SerializationExperiment, t plan.Trial) string {
	return fmt.Sprintf("sx.%s.%s.%s", truncate(x.Name, 60), uidPrefix(x, 8), t.Name)
}

// jobName is a trial's Job for one role (consumers, producers or workers).
func jobName(x *serdebenchv1.SerializationExperiment, t plan.Trial, role string) string {
	return fmt.Sprintf("%s-%s-t%03d-%s", truncate(x.Name, 30), uidPrefix(x, 5), t.Index, role)
}

func trialLabels(x *serdebenchv1.SerializationExperiment, t plan.Trial) map[string]string {
	return map[string]string{LabelExperiment: truncate(x.Name, 63), LabelTrial: t.Name, LabelManagedBy: managedBy}
}

// resultName is the experiment's SerializationResult.
func resultName(x *serdebenchv1.SerializationExperiment) string { return x.Name }
