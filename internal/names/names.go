// Package names is how everything a trial attempt creates is named: its topic and
// consumer group (by the local runner and the operator alike) and the operator's
// Jobs. Names are unique per experiment object and attempt, so a re-created
// experiment or a retried trial never reads old records or adopts old Jobs.
package names

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
)

// Run names one attempt of one trial of one experiment object (runID): a valid
// Kafka topic name and Kubernetes object name.
func Run(experiment, runID string, t trial.Trial, attempt int) string {
	name := fmt.Sprintf("sx.%s.%s.%s", Truncate(experiment, 60), Truncate(runID, 8), t.Name)
	if attempt > 1 {
		name += fmt.Sprintf(".a%d", attempt)
	}
	return name
}

// Topic is the attempt's topic: the existing topic the spec names, else a fresh one
// named Run (also the KafkaTopic's name).
func Topic(experiment, runID string, t trial.Trial, attempt int) string {
	if t.ExistingTopic != "" {
		return t.ExistingTopic
	}
	return Run(experiment, runID, t, attempt)
}

// Group is the attempt's consumer group, unique per attempt even on a shared topic;
// workers derive the run identifier in their records' headers from it.
func Group(experiment, runID string, t trial.Trial, attempt int) string {
	return Run(experiment, runID, t, attempt) + ".consumers"
}

// Job is a trial attempt's Job for one role (consumers, producers or workers). It
// stays under 63 characters: it becomes a label value on the Job's pods.
func Job(experiment, uid string, index int, role string, attempt int) string {
	name := fmt.Sprintf("%s-%s-t%03d-%s", Truncate(experiment, 30), UIDPrefix(uid, 5), index, role)
	if attempt > 1 {
		name += fmt.Sprintf("-a%d", attempt)
	}
	return name
}

// Fault is a trial attempt's fault object (a Chaos Mesh chaos); part tells the
// objects of one fault apart (netem, bandwidth, partition, pod, stress).
func Fault(experiment, uid string, index int, part string, attempt int) string {
	return Job(experiment, uid, index, "fault-"+part, attempt)
}

// UIDPrefix is the first n characters of an object's UID without dashes: short,
// and different for a re-created object of the same name.
func UIDPrefix(uid string, n int) string {
	return strings.ReplaceAll(uid, "-", "")[:n]
}

// Truncate cuts s to at most n bytes, without a trailing dash or dot (which names
// may not end with).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimRight(s[:n], "-.")
}

// SourceCheckJob is the Job that checks an experiment's payload source whose
// content hashes to hash (a new check for new content).
func SourceCheckJob(experiment, uid, hash string) string {
	return fmt.Sprintf("%s-%s-check-%s", Truncate(experiment, 30), UIDPrefix(uid, 5), hash[:min(8, len(hash))])
}
