package controllers

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/protocol"
)

// Labels on everything the operator creates for an experiment.
const (
	LabelExperiment = "serdebench.io/experiment"
	LabelTrial      = "serdebench.io/trial"
	LabelRole       = "serdebench.io/role"
	LabelAttempt    = "serdebench.io/attempt"
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

// topicName is the trial attempt's Kafka topic, also the KafkaTopic resource's name.
func topicName(x *serdebenchv1.SerializationExperiment, t trial.Trial, attempt int) string {
	return protocol.TopicName(x.Name, uidPrefix(x, 8), t, attempt)
}

// jobName is a trial attempt's Job for one role (consumers, producers or workers).
// It stays under 63 characters: it becomes a label value on the Job's pods.
func jobName(x *serdebenchv1.SerializationExperiment, t trial.Trial, role string, attempt int) string {
	name := fmt.Sprintf("%s-%s-t%03d-%s", truncate(x.Name, 30), uidPrefix(x, 5), t.Index, role)
	if attempt > 1 {
		name += fmt.Sprintf("-a%d", attempt)
	}
	return name
}

func trialLabels(x *serdebenchv1.SerializationExperiment, t trial.Trial) map[string]string {
	return map[string]string{LabelExperiment: truncate(x.Name, 63), LabelTrial: t.Name, LabelManagedBy: managedBy}
}

// resultName is the experiment's SerializationResult.
func resultName(x *serdebenchv1.SerializationExperiment) string { return x.Name }
