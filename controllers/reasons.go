package controllers

import (
	"github.com/serdebench/serdebench/workers/protocol"
)

// Reasons for conditions and events. Each one's comment is its entry in
// docs/api.md's reason table, which TestReasonsDoc generates from them.
const (
	// ReasonPlanned (Accepted=True): the spec is valid and expands into the trials
	// the message counts.
	ReasonPlanned = "Planned"
	// ReasonInvalidSpec (Accepted=False, Failed): the spec cannot run; the message
	// names the field.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonWaitingForTopic (TopicsReady=False): the trial's topic is not ready
	// yet (Strimzi's Topic Operator has not reconciled it, or Kafka is slow).
	ReasonWaitingForTopic = "WaitingForTopic"
	// ReasonWaitingForKafka (Ready=False): a trial's topic cannot be made yet
	// (Kafka unreachable, Strimzi absent, a TLS or SASL Secret missing; the
	// TopicsReady message says why); the experiment waits.
	ReasonWaitingForKafka = "WaitingForKafka"
	// ReasonTopicReady (TopicsReady=True): the current trial's topic exists.
	ReasonTopicReady = "TopicReady"
	// ReasonDeletingTopics (TopicsReady=False): a trial's cleanup or a deleted
	// experiment has waited more than 10 s for its topics to go (the message says
	// what holds them); it waits up to 2 minutes.
	ReasonDeletingTopics = "DeletingTopics"
	// ReasonTopicDeleted (TopicsReady): a DeletingTopics wait ended with the topics
	// gone.
	ReasonTopicDeleted = "TopicDeleted"
	// ReasonTopicCleanupIncomplete (TopicsReady, and a CleanupIncomplete warning
	// event): a DeletingTopics wait gave up after 2 minutes; a KafkaTopic left
	// keeps the Topic Operator's finalizer, so its topic goes once that is back.
	ReasonTopicCleanupIncomplete = "TopicCleanupIncomplete"
	// ReasonProducersStarted (event): a trial's producers were given their start
	// together.
	ReasonProducersStarted = "ProducersStarted"
	// ReasonTopicFailed (Failed): see protocol.ReasonTopicFailed.
	ReasonTopicFailed = protocol.ReasonTopicFailed
	// ReasonTrialRunning (Running=True): a trial's workers run.
	ReasonTrialRunning = "TrialRunning"
	// ReasonTrialMeasured (event): a trial's numbers are in the result.
	ReasonTrialMeasured = "TrialMeasured"
	// ReasonAllTrialsMeasured (Succeeded=True, Ready=True, Running=False): every
	// trial is in the SerializationResult.
	ReasonAllTrialsMeasured = "AllTrialsMeasured"
	// ReasonTrialTimeout (Failed): a trial did not finish within
	// spec.timeoutSeconds.
	ReasonTrialTimeout = "TrialTimeout"
	// ReasonWorkerFailed (Failed): see protocol.ReasonWorkerFailed; never retried.
	ReasonWorkerFailed = protocol.ReasonWorkerFailed
	// ReasonWorkerInterrupted (Failed): see protocol.ReasonWorkerInterrupted.
	ReasonWorkerInterrupted = protocol.ReasonWorkerInterrupted
	// ReasonTrialDisrupted (Failed, and a warning event per retry): the cluster
	// disrupted a trial's pod (eviction, preemption, node loss) more often than
	// spec.retries allows; each disruption before that reruns the trial as a new
	// attempt.
	ReasonTrialDisrupted = "TrialDisrupted"
	// ReasonSummariesMissing (Failed): the trial ended but not every worker's
	// summary could be read (termination message or log).
	ReasonSummariesMissing = "SummariesMissing"
	// ReasonPrometheus (warning event): the Prometheus cross-check of a trial
	// could not run; the trial is measured without it and says so.
	ReasonPrometheus = "PrometheusUnavailable"
	// ReasonStopped (Failed): a trial was already recorded as failed (by an
	// earlier pass); the experiment stops with that trial's message.
	ReasonStopped = "Stopped"
)
