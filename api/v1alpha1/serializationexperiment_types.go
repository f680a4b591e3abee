package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CleanupPolicy says what happens to a trial's topic and Jobs once it is measured.
// +kubebuilder:validation:Enum=Delete;Retain
type CleanupPolicy string

// Cleanup policies.
const (
	CleanupDelete CleanupPolicy = "Delete"
	CleanupRetain CleanupPolicy = "Retain"
)

// SerializationExperimentSpec is the experiment plus where and how to run it on a
// cluster. `serdebench run` reads the same spec and ignores the cluster-only fields.
// +kubebuilder:validation:XValidation:rule="has(self.kafka.strimzi) != has(self.kafka.bootstrapServers)",message="kafka: set exactly one of strimzi and bootstrapServers"
// +kubebuilder:validation:XValidation:rule="has(self.kafka.schemaRegistry) || !self.codecs.exists(c, c.endsWith('/registry'))",message="codecs: a /registry codec needs kafka.schemaRegistry.url"
// +kubebuilder:validation:XValidation:rule="!has(self.durationSeconds) || !has(self.timeoutSeconds) || self.timeoutSeconds > self.durationSeconds + (has(self.warmup) && has(self.warmup.durationSeconds) ? self.warmup.durationSeconds : 0)",message="timeoutSeconds (default 1800) must exceed warmup.durationSeconds + durationSeconds: in a cluster every trial would time out (serdebench run bounds a trial by --trial-timeout instead, but reads the same spec)"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.workers) || !has(self.workers.colocate) || !self.workers.colocate || self.faults.scenarios.all(f, !has(f.target) || !has(f.target.role) || f.target.role == 'brokers')",message="workers.colocate runs producers and consumers in one pod: a fault on the producers or consumers needs them in pods of their own"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || has(self.kafka.strimzi) || has(self.kafka.brokerPods) || self.faults.scenarios.all(f, !has(f.network) || !has(f.network.partition) || !f.network.partition || !has(f.target) || !has(f.target.role) || f.target.role == 'brokers')",message="a partition of the producers or consumers from the brokers needs the brokers' pods: a Strimzi cluster or kafka.brokerPods"
type SerializationExperimentSpec struct {
	ExperimentSpec `json:",inline"`

	// Kafka is the cluster to run against.
	Kafka KafkaSpec `json:"kafka"`

	// Workers shapes the producer and consumer pods.
	// +optional
	Workers WorkersSpec `json:"workers,omitempty"`

	// TimeoutSeconds bounds each trial, from topic creation to the last summary:
	// more than its warmup and window (up to a day each). Default 1800.
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=172800
	// +kubebuilder:default=1800
	// +optional
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`

	// Retries is how many more times a trial is run (on a fresh topic) when the
	// cluster disrupted one of its pods: eviction, preemption, node loss (the
	// pod's DisruptionTarget condition). A worker's own failure is never retried.
	// Default 1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	// +kubebuilder:default=1
	// +optional
	Retries *int32 `json:"retries,omitempty"`

	// CleanupPolicy is Delete (remove each trial's topic and Jobs once measured) or
	// Retain (keep them for inspection; they are still removed when the experiment
	// is deleted). Default Delete.
	// +kubebuilder:default=Delete
	// +optional
	CleanupPolicy CleanupPolicy `json:"cleanupPolicy,omitempty"`
}

// KafkaSpec names the Kafka cluster: a Strimzi-managed one (topics as KafkaTopic
// resources) or any cluster by bootstrap address (topics through the Admin API).
type KafkaSpec struct {
	// Strimzi selects a Strimzi Kafka cluster; topics are created as KafkaTopic
	// resources and awaited until Ready.
	// +optional
	Strimzi *StrimziKafka `json:"strimzi,omitempty"`

	// BootstrapServers is a comma-separated list of host:port; topics are created
	// through the Kafka Admin API.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^,\s]+:[0-9]+(,[^,\s]+:[0-9]+)*$`
	// +optional
	BootstrapServers string `json:"bootstrapServers,omitempty"`

	// TLS enables TLS to the brokers.
	// +optional
	TLS *KafkaTLS `json:"tls,omitempty"`

	// SASL enables SASL authentication.
	// +optional
	SASL *KafkaSASL `json:"sasl,omitempty"`

	// BrokerPods selects the brokers' pods (default with strimzi: its broker
	// pods, by their strimzi.io labels): each trial's broker CPU is read from
	// their containers' cAdvisor series through Prometheus, and faults on the
	// brokers act on them.
	// +optional
	BrokerPods *BrokerPods `json:"brokerPods,omitempty"`

	// SchemaRegistry is where the registry codecs (avro/registry,
	// protobuf/registry, json/registry) register their schemas and look them up.
	// +optional
	SchemaRegistry *SchemaRegistry `json:"schemaRegistry,omitempty"`
}

// SchemaRegistry names a schema registry by its Confluent-compatible REST API.
type SchemaRegistry struct {
	// URL is the API's base: Confluent Schema Registry's root
	// (http://schema-registry:8081), or Apicurio Registry's
	// http://apicurio:8080/apis/ccompat/v7.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	URL string `json:"url"`
}

// BrokerPods selects pods by label in one namespace.
type BrokerPods struct {
	// MatchLabels the broker pods carry, e.g. app.kubernetes.io/name: kafka.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	MatchLabels map[string]string `json:"matchLabels"`
	// Namespace of the pods (default: the experiment's).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// StrimziKafka is a Strimzi Kafka resource.
type StrimziKafka struct {
	// ClusterName is the Kafka resource's name (the strimzi.io/cluster label value).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	ClusterName string `json:"clusterName"`

	// Namespace of the Kafka resource; KafkaTopics are created there. Default: the
	// experiment's namespace.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// BootstrapServers overrides the workers' bootstrap address. Default:
	// <clusterName>-kafka-bootstrap.<namespace>.svc:9092.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	BootstrapServers string `json:"bootstrapServers,omitempty"`
}

// KafkaTLS configures TLS to the brokers.
type KafkaTLS struct {
	// CASecretRef names a Secret key holding the PEM CA bundle. Default: system roots.
	// +optional
	CASecretRef *corev1.SecretKeySelector `json:"caSecretRef,omitempty"`

	// InsecureSkipVerify disables server certificate verification (tests only).
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// SASLMechanism is a SASL mechanism.
// +kubebuilder:validation:Enum=PLAIN;SCRAM-SHA-256;SCRAM-SHA-512
type SASLMechanism string

// KafkaSASL configures SASL authentication.
type KafkaSASL struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism SASLMechanism `json:"mechanism"`

	// SecretRef names a Secret with keys "username" and "password".
	SecretRef corev1.LocalObjectReference `json:"secretRef"`
}

// WorkersSpec shapes the worker pods.
type WorkersSpec struct {
	// Image overrides the operator's default worker image.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Image string `json:"image,omitempty"`

	// Resources for each worker container.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// NodeSelector for worker pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Affinity for worker pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// TopologySpreadConstraints place worker pods. Default: each Job's pods (one
	// role of a trial) preferably spread over nodes (kubernetes.io/hostname,
	// maxSkew 1, ScheduleAnyway), so a trial larger than one node uses several
	// and one node still runs it all. Set to replace that.
	// +optional
	// +listType=atomic
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// Tolerations for worker pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Colocate runs each trial's producers and consumers in one pod, so end-to-end
	// latency is read on one clock. Default false.
	// +optional
	Colocate bool `json:"colocate,omitempty"`
}

// Stage is the experiment's coarse progress; it only moves forward. Empty until
// the operator has seen the experiment.
// +kubebuilder:validation:Enum=Accepted;Running;Succeeded;Failed
type Stage string

// Stages, in order.
const (
	StageAccepted  Stage = "Accepted"
	StageRunning   Stage = "Running"
	StageSucceeded Stage = "Succeeded"
	StageFailed    Stage = "Failed"
)

// Condition types.
const (
	// ConditionAccepted: the spec is valid and planned into trials.
	ConditionAccepted = "Accepted"
	// ConditionTopicsReady: the current trial's topic exists and is ready.
	ConditionTopicsReady = "TopicsReady"
	// ConditionRunning: a trial's workers are running.
	ConditionRunning = "Running"
	// ConditionSucceeded: every trial was measured and the result written.
	ConditionSucceeded = "Succeeded"
	// ConditionFailed: the experiment stopped; the reason says why.
	ConditionFailed = "Failed"
)

// RepeatUntil is an adaptive number of repetitions: {min: spec.repetitions, max,
// target half-width}.
type RepeatUntil struct {
	// TargetHalfWidthPercent is the widest a trial's interval may be on either
	// side of its median, in percent of the median: 3 stops when every chosen
	// figure is known to ±3 %.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	TargetHalfWidthPercent int32 `json:"targetHalfWidthPercent"`

	// MaxRepetitions is the most rounds that run when the target is not met. The
	// 98 % interval the rule checks needs 7 repetitions, so the earliest stop is
	// before the 8th round: 7 or fewer could never stop early.
	// +kubebuilder:validation:Minimum=8
	// +kubebuilder:validation:Maximum=20
	MaxRepetitions int32 `json:"maxRepetitions"`

	// Metrics are the figures whose intervals must meet the target, by the names
	// of the result's statistics (recordsPerSecond, endToEndMicros.p99, ...): those
	// with a median, not the counts repetitions add up (a test holds this list to
	// internal/report.Metrics).
	// +kubebuilder:validation:items:Enum=recordsPerSecond;serializedBytesPerSecond;serializedBytesPerRecord;serializeNanosPerRecord;deserializeNanosPerRecord;serializeSharePermille;deserializeSharePermille;endToEndMicros.mean;endToEndMicros.p50;endToEndMicros.p99;endToEndMicros.p999;endToEndMicros.max;ackMicros.mean;ackMicros.p50;ackMicros.p99;resources.workerCPUNanosPerRecord;resources.recordsPerCPUSecond;resources.peakRSSBytes;resources.peakHeapBytes;resources.brokerCPUNanosPerRecord
	// +kubebuilder:default={"recordsPerSecond","endToEndMicros.p99"}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +listType=set
	// +optional
	Metrics []string `json:"metrics,omitempty"`
}

// TrialPhase is one trial's progress.
// +kubebuilder:validation:Enum=Pending;CreatingTopic;Running;Collecting;Succeeded;Failed;Skipped
type TrialPhase string

// Trial phases, in order.
const (
	TrialPending       TrialPhase = "Pending"
	TrialCreatingTopic TrialPhase = "CreatingTopic"
	TrialRunning       TrialPhase = "Running"
	TrialCollecting    TrialPhase = "Collecting"
	TrialSucceeded     TrialPhase = "Succeeded"
	TrialFailed        TrialPhase = "Failed"
	// TrialSkipped: a repetition spec.repeatUntil did not need; it never ran.
	TrialSkipped TrialPhase = "Skipped"
)

// TrialStatus is one trial's progress.
type TrialStatus struct {
	// Name is the trial's name (t<index>-<codec>-<size>b).
	Name string `json:"name"`
	// Phase is where the trial is.
	Phase TrialPhase `json:"phase"`
	// Topic is the Kafka topic of the trial's current attempt.
	// +optional
	Topic string `json:"topic,omitempty"`
	// TopicRequested is false while the operator has not yet asked Kafka (or
	// Strimzi) to create the current attempt's topic, because neither could be
	// reached: such a topic provably does not exist, and deleting the experiment
	// does not wait for Kafka to delete it. Unset in status written by older
	// versions: the topic may exist. An existing topic (spec.topic.name) is never
	// created nor deleted, whatever this says.
	// +optional
	TopicRequested *bool `json:"topicRequested,omitempty"`
	// Attempt is the trial's current attempt, from 1; a disrupted attempt is
	// re-run on a fresh topic up to spec.retries times.
	// +optional
	Attempt int32 `json:"attempt,omitempty"`
	// CleanedUp is true once a finished trial's Jobs (and, per cleanupPolicy, its
	// topic) are gone. The operator records a trial's outcome first and cleans up
	// after, so a restart in between repeats only the cleanup.
	// +optional
	CleanedUp bool `json:"cleanedUp,omitempty"`
	// StartTime is when the trial's current attempt started (timeoutSeconds bounds
	// each attempt).
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// CompletionTime is when the trial finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Fault is the trial's fault as it was applied (spec.faults).
	// +optional
	Fault *FaultStatus `json:"fault,omitempty"`
	// Start is when the operator started the current attempt's producers, all
	// at one instant once every one was ready, and the clocks of the nodes its
	// workers ran on.
	// +optional
	Start *TrialStart `json:"start,omitempty"`
	// Message explains a failure or a warning.
	// +optional
	Message string `json:"message,omitempty"`
}

// TrialStart is the instant a trial's producers were given and the clocks of its
// workers' nodes against the operator's.
type TrialStart struct {
	// At is the instant every producer began (warmup included), on the
	// operator's clock; each was given it on its own node's clock. Absent:
	// the producers did not wait for one (started by an older operator, or
	// already done when a restarted one looked).
	// +optional
	At *metav1.MicroTime `json:"at,omitempty"`
	// Released is true once every producer was given the instant (it is
	// recorded before any is, so every retry gives the same one).
	// +optional
	Released bool `json:"released,omitempty"`
	// Nodes are the clocks of the nodes the workers ran on.
	// +optional
	// +listType=map
	// +listMapKey=node
	// +kubebuilder:validation:MaxItems=128
	Nodes []NodeClock `json:"nodes,omitempty"`
}

// NodeClock is one node's clock against the operator's: its offset (node minus
// operator) when the trial started and, once it ended, at the last reading
// before, each within its uncertainty either way (half the round trip of the
// exchange that measured it).
type NodeClock struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Workers are the trial's workers on it: p<index> for producers, consumers
	// by name (c<index>).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	Workers []string `json:"workers,omitempty"`
	// OffsetMicros and UncertaintyMicros are the reading at the start.
	OffsetMicros      int64 `json:"offsetMicros"`
	UncertaintyMicros int64 `json:"uncertaintyMicros"`
	// EndOffsetMicros and EndUncertaintyMicros are the last reading while the
	// workers ran (absent if none was taken after the start).
	// +optional
	EndOffsetMicros *int64 `json:"endOffsetMicros,omitempty"`
	// +optional
	EndUncertaintyMicros *int64 `json:"endUncertaintyMicros,omitempty"`
}

// FaultStatus is a trial's fault as it was applied: its phase, when it got to
// each, and to which pods. Chaos Mesh applies most kinds; the operator itself
// tells a consumer of a consumers fault (a consumer group event) over HTTP.
type FaultStatus struct {
	// Name is the scenario's.
	Name string `json:"name"`
	// Phase is where the fault is in its lifecycle; the times below record when
	// it got there.
	// +optional
	Phase FaultPhase `json:"phase,omitempty"`
	// DueTime is when the fault was planned to begin: the scenario's startSeconds
	// after the last of the trial's producers began its measured window (as each
	// logged it).
	// +optional
	DueTime *metav1.Time `json:"dueTime,omitempty"`
	// Objects are the Chaos Mesh objects that apply it (Kind/name), recorded
	// before they are created.
	// +optional
	Objects []string `json:"objects,omitempty"`
	// CreateTime is when they were created; for a consumers fault, when the
	// operator first set out to tell the consumer (recorded before it does).
	// +optional
	CreateTime *metav1.Time `json:"createTime,omitempty"`
	// InjectedTime is when Chaos Mesh had applied it to every pod it selected, or
	// when the consumer of a consumers fault answered that it acted (the
	// operator's clock): the fault's actual start, in whole seconds as every
	// status time.
	// +optional
	InjectedTime *metav1.Time `json:"injectedTime,omitempty"`
	// RecoveredTime is when Chaos Mesh had recovered every pod, or when a
	// consumer's pause had surely ended (injectedTime + durationSeconds + 1 s, for
	// the whole seconds): the fault's actual end (unset for a kill, a join or a
	// leave, which act once).
	// +optional
	RecoveredTime *metav1.Time `json:"recoveredTime,omitempty"`
	// Targets are the pods (or containers) it acted on, as Chaos Mesh names them
	// (the first 8; for a consumers fault, the consumer's pod), and TargetCount
	// how many there were.
	// +optional
	Targets []string `json:"targets,omitempty"`
	// +optional
	TargetCount int32 `json:"targetCount,omitempty"`
}

// FaultPhase is where a trial's fault is in its lifecycle. It moves forward only,
// in this order; a fault that cannot go on fails its trial (FaultNotInjected,
// FaultNotRecovered) and its objects are removed with the trial's cleanup.
// +kubebuilder:validation:Enum=Scheduling;Due;Creating;Injecting;Injected;Removing;Removed
type FaultPhase string

// The fault phases.
const (
	// FaultScheduling: waiting for the trial's producers to begin their measured
	// windows, from which the fault's time counts.
	FaultScheduling FaultPhase = "Scheduling"
	// FaultDue: dueTime is set; waiting for it.
	FaultDue FaultPhase = "Due"
	// FaultCreating: its Chaos Mesh objects are named (objects), before any is
	// created, so that a restart creates the same ones, once.
	FaultCreating FaultPhase = "Creating"
	// FaultInjecting: created (createTime); waiting for Chaos Mesh to apply it to
	// every pod it selects.
	FaultInjecting FaultPhase = "Injecting"
	// FaultInjected: applied (injectedTime); waiting for Chaos Mesh to recover it
	// (a consumer's pause: for it to end), or for the trial's window to end. A
	// consumers fault goes from Due to Injected, or for a join or a leave, which
	// leave nothing to undo, to Removing.
	FaultInjected FaultPhase = "Injected"
	// FaultRemoving: recovered (recoveredTime), acted once (a kill), or the window
	// ended; its objects are deleted, and gone once Chaos Mesh has undone them on
	// every pod.
	FaultRemoving FaultPhase = "Removing"
	// FaultRemoved: its objects are gone; the next trial may start.
	FaultRemoved FaultPhase = "Removed"
)

// SerializationExperimentStatus is what the operator observed.
type SerializationExperimentStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Stage is Accepted, Running, Succeeded or Failed; it only moves forward.
	// +optional
	Stage Stage `json:"stage,omitempty"`

	// Conditions: Accepted, TopicsReady, Running, Succeeded, Failed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// TrialCount is the number of trials the spec expands into.
	// +optional
	TrialCount int32 `json:"trialCount,omitempty"`

	// CompletedTrials is the number of trials measured so far.
	// +optional
	CompletedTrials int32 `json:"completedTrials,omitempty"`

	// Trials is every trial's progress, in plan order.
	// +optional
	Trials []TrialStatus `json:"trials,omitempty"`

	// StartTime is when the first trial started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the experiment succeeded or failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// ResultRef names the SerializationResult.
	// +optional
	ResultRef *corev1.LocalObjectReference `json:"resultRef,omitempty"`
}

// SerializationExperiment runs serialization trials on Kafka and records a
// SerializationResult.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sx,categories=serdebench
// +kubebuilder:printcolumn:name="Stage",type=string,JSONPath=`.status.stage`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,description="Ready's reason: the stage, WaitingForKafka, or how it ended"
// +kubebuilder:printcolumn:name="Done",type=integer,JSONPath=`.status.completedTrials`,description="Trials measured"
// +kubebuilder:printcolumn:name="Trials",type=integer,JSONPath=`.status.trialCount`,description="Trials planned"
// +kubebuilder:printcolumn:name="Result",type=string,JSONPath=`.status.resultRef.name`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || (!has(oldSelf.status.startTime) && !(has(oldSelf.status.stage) && oldSelf.status.stage in ['Succeeded', 'Failed'])) || self.spec == oldSelf.spec",message="spec is immutable once the run has started or finished: delete and re-create the experiment"
type SerializationExperiment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the experiment to run.
	Spec SerializationExperimentSpec `json:"spec"`

	// Status is the operator's progress report.
	// +optional
	Status SerializationExperimentStatus `json:"status,omitempty"`
}

// SerializationExperimentList is a list of experiments.
// +kubebuilder:object:root=true
type SerializationExperimentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the experiments.
	Items []SerializationExperiment `json:"items"`
}
