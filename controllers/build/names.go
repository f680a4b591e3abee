package build

import (
	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
)

// Labels on everything the operator creates for an experiment.
const (
	LabelExperiment = "serdebench.io/experiment"
	LabelTrial      = "serdebench.io/trial"
	LabelRole       = "serdebench.io/role"
	LabelAttempt    = "serdebench.io/attempt"
	LabelManagedBy  = "app.kubernetes.io/managed-by"
	// ManagedBy is the managed-by label's value.
	ManagedBy = "serdebench"
	// Finalizer removes topics and Jobs when an experiment is deleted.
	Finalizer = "serdebench.io/cleanup"
)

// UIDPrefix makes names unique per experiment object, so a re-created experiment of
// the same name never reuses an old topic.
func UIDPrefix(x *serdebenchv1.SerializationExperiment, n int) string {
	return names.UIDPrefix(string(x.UID), n)
}

// TopicName is the trial attempt's Kafka topic, also the KafkaTopic resource's name.
func TopicName(x *serdebenchv1.SerializationExperiment, t trial.Trial, attempt int) string {
	return names.Topic(x.Name, UIDPrefix(x, 8), t, attempt)
}

// JobName is a trial attempt's Job for one role (consumers, producers or workers).
func JobName(x *serdebenchv1.SerializationExperiment, t trial.Trial, role string, attempt int) string {
	return names.Job(x.Name, string(x.UID), t.Index, role, attempt)
}

// TrialLabels are the labels of everything made for a trial.
func TrialLabels(x *serdebenchv1.SerializationExperiment, t trial.Trial) map[string]string {
	return map[string]string{LabelExperiment: names.Truncate(x.Name, 63), LabelTrial: t.Name, LabelManagedBy: ManagedBy}
}

// ResultName is the experiment's SerializationResult.
func ResultName(x *serdebenchv1.SerializationExperiment) string { return x.Name }

// HistogramsName is the ConfigMap that keeps a repeated experiment's merged
// latency histograms between repetitions (Histograms).
func HistogramsName(x *serdebenchv1.SerializationExperiment) string {
	return names.Truncate(x.Name, 253-len(histogramsSuffix)) + histogramsSuffix
}

const histogramsSuffix = "-histograms"
