// Package protocol is the worker's side of the trial protocol, which the local
// runner and the operator speak to it: how a worker is told what to run (Worker and
// its command-line arguments), how it says how it ended (exit codes) and how its
// summary travels back (stdout, the termination message, or the log when the
// message is too small). Names of topics, groups and Jobs are internal/names'.
package protocol

import (
	"fmt"

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
	// ExitInvalidSource: a source check (CheckCommand) found a sample that does not
	// fit the schema or does not come back equal through a codec; the termination
	// message says which.
	ExitInvalidSource = 4
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
	// ReasonFaultNotInjected: a trial's fault was not applied (by Chaos Mesh, or
	// the local rig): the trial fails, it is never measured as faulted on a
	// healthy system.
	ReasonFaultNotInjected = "FaultNotInjected"
	// ReasonFaultNotRecovered: a fault could not be undone.
	ReasonFaultNotRecovered = "FaultNotRecovered"
)

// Roles of workers.
const (
	RoleProducer = summary.RoleProducer
	RoleConsumer = summary.RoleConsumer
)

// ProducerID is producer i's --id.
func ProducerID(i int) string { return fmt.Sprint(i) }

// ConsumerName is consumer i's --name.
func ConsumerName(i int) string { return fmt.Sprintf("c%d", i) }

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
