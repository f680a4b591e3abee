// Package protocol is the trial protocol shared by the local runner and the
// operator: how a trial's topic and consumer group are named, how a worker is told
// what to run (Worker and its command-line arguments), how it says how it ended (exit
// codes) and how its summary travels back (stdout, the termination message, or the
// log when the message is too small).
package protocol

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// Worker exit codes. The operator reads them from terminated containers.
const (
	// ExitOK: the trial is complete and the summary is whole.
	ExitOK = 0
	// ExitFailed: the worker failed (unreachable broker, bad trial, send errors that
	// stopped it).
	ExitFailed = 1
	// ExitUsage: the arguments were invalid.
	ExitUsage = 2
	// ExitInterrupted: the worker was stopped (SIGTERM, its timeout) before the trial
	// was complete; it printed a partial summary marked interrupted.
	ExitInterrupted = 3
)

// Reasons a trial fails, shared by the local runner and the operator's conditions.
const (
	// ReasonWorkerFailed: a worker reported an error.
	ReasonWorkerFailed = "WorkerFailed"
	// ReasonWorkerInterrupted: a worker stopped before the trial was complete
	// (timeout, SIGTERM); its partial numbers are not a result.
	ReasonWorkerInterrupted = "WorkerInterrupted"
	// ReasonTopicFailed: the trial's topic could not be created.
	ReasonTopicFailed = "TopicFailed"
)

// Roles of workers.
const (
	RoleProducer = summary.RoleProducer
	RoleConsumer = summary.RoleConsumer
)

// RunName names one attempt of one trial of one experiment object (runID): a
// valid Kafka topic name and Kubernetes object name, unique so that a re-created
// experiment or a retried trial never reads old records.
func RunName(experiment, runID string, t trial.Trial, attempt int) string {
	name := fmt.Sprintf("sx.%s.%s.%s", truncate(experiment, 60), truncate(runID, 8), t.Name)
	if attempt > 1 {
		name += fmt.Sprintf(".a%d", attempt)
	}
	return name
}

// TopicName is the attempt's topic: the existing topic the spec names, else a fresh
// one named RunName (also the KafkaTopic's name).
func TopicName(experiment, runID string, t trial.Trial, attempt int) string {
	if t.ExistingTopic != "" {
		return t.ExistingTopic
	}
	return RunName(experiment, runID, t, attempt)
}

// GroupName is the attempt's consumer group, unique per attempt even on a shared
// topic; workers derive the run identifier in their records' headers from it.
func GroupName(experiment, runID string, t trial.Trial, attempt int) string {
	return RunName(experiment, runID, t, attempt) + ".consumers"
}

// ProducerID is producer i's --id.
func ProducerID(i int) string { return fmt.Sprint(i) }

// ConsumerName is consumer i's --name.
func ConsumerName(i int) string { return fmt.Sprintf("c%d", i) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimRight(s[:n], "-.")
}

// Annotate adds what depends on a trial's settings to its merged result (the merge
// sees only the summaries): the rate search's verdicts and settings' warnings.
func Annotate(t trial.Trial, r *summary.Result) {
	if t.Search != nil {
		r.EvaluateSearch(int64(t.Search.MaxP99Millis) * 1000)
	}
	if t.Settings.Acks == "0" && r.Lost > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("acks=0: %d records were written to the connection but never stored by the broker; "+
			"with acks=0 the producer cannot know what the broker got", r.Lost))
	}
}
