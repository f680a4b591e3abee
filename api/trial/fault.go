package trial

// Fault is a condition a trial runs under for part of its measured window: a
// network impairment, a pod's loss or a resource squeeze on the Kafka brokers or
// on the trial's own workers. In a cluster the operator applies it through Chaos
// Mesh; `serdebench run` applies the network faults and broker kills itself
// (docs/faults.md). A fault that was not applied fails its trial: a result is
// never measured on a healthy system under a fault's name.
// +kubebuilder:validation:XValidation:rule="(has(self.network) ? 1 : 0) + (has(self.pod) ? 1 : 0) + (has(self.stress) ? 1 : 0) + (has(self.consumers) ? 1 : 0) == 1",message="a fault sets exactly one of network, pod, stress and consumers"
// +kubebuilder:validation:XValidation:rule="!has(self.pod) || self.pod.action != 'failure' || (has(self.durationSeconds) && self.durationSeconds > 0)",message="pod.action failure lasts durationSeconds: set it"
// +kubebuilder:validation:XValidation:rule="!has(self.pod) || !has(self.target) || !has(self.target.role) || self.target.role == 'brokers'",message="pod faults act on brokers: a worker killed mid-trial takes its measurements with it"
// +kubebuilder:validation:XValidation:rule="has(self.pod) ? (self.pod.action == 'failure' || !has(self.durationSeconds) || self.durationSeconds == 0) : (has(self.consumers) && self.consumers.action != 'pause' ? (!has(self.durationSeconds) || self.durationSeconds == 0) : (has(self.durationSeconds) && self.durationSeconds > 0))",message="pod kill, container-kill and a consumer's join or leave act once (no durationSeconds); network, stress and consumer pause faults last durationSeconds: set it"
// +kubebuilder:validation:XValidation:rule="!has(self.consumers) || !has(self.target) || !has(self.target.matchLabels)",message="a consumers fault acts on the trial's own consumers: target.matchLabels does not apply"
type Fault struct {
	// Name identifies the scenario in trial names, results and comparisons.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=20
	Name string `json:"name"`
	// Target is whose pods the fault acts on (default: all the brokers).
	// +kubebuilder:default={}
	// +optional
	Target FaultTarget `json:"target,omitempty"`
	// StartSeconds is when the fault begins, in seconds after the measured window
	// began: the seconds before it are the trial's before-phase.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	StartSeconds int32 `json:"startSeconds"`
	// DurationSeconds is how long a network, stress or pod failure fault, or a
	// consumer's pause, lasts; a pod or container kill, and a consumer's join or
	// leave, act once.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
	// Network impairs the target's outgoing packets.
	// +optional
	Network *NetworkFault `json:"network,omitempty"`
	// Pod kills or fails the target's pods.
	// +optional
	Pod *PodFault `json:"pod,omitempty"`
	// Stress loads the target's CPUs or memory.
	// +optional
	Stress *StressFault `json:"stress,omitempty"`
	// Consumers changes the trial's consumer group: a member joins or leaves
	// (a rebalance), or one stops taking records for durationSeconds. The
	// result's stalls say how long partitions went unconsumed.
	// +optional
	Consumers *ConsumerFault `json:"consumers,omitempty"`
}

// ConsumerAction is what happens to the trial's consumer group.
// +kubebuilder:validation:Enum=join;leave;pause
type ConsumerAction string

// Consumer group events.
const (
	// ConsumerJoin starts one more consumer, which joins the group: a
	// rebalance gives it partitions.
	ConsumerJoin ConsumerAction = "join"
	// ConsumerLeave shuts one consumer down cleanly: it commits, leaves the
	// group, and a rebalance gives its partitions to the others (its
	// measurements up to then count).
	ConsumerLeave ConsumerAction = "leave"
	// ConsumerPause makes one consumer stop taking records for durationSeconds
	// while it stays in the group (a slow consumer, a long pause): its
	// partitions wait, no rebalance.
	ConsumerPause ConsumerAction = "pause"
)

// ConsumerFault is a consumer group event (Fault.Consumers). It acts on the last
// consumer (leave, pause) or adds one (join).
type ConsumerFault struct {
	// Action is join, leave or pause.
	Action ConsumerAction `json:"action"`
}

// FaultRole is whose pods a fault acts on.
// +kubebuilder:validation:Enum=brokers;producers;consumers
type FaultRole string

// Fault targets.
const (
	// RoleBrokers are the Kafka brokers: a Strimzi cluster's broker pods, or the
	// pods target.matchLabels selects.
	RoleBrokers FaultRole = "brokers"
	// RoleProducers and RoleConsumers are the trial's own worker pods.
	RoleProducers FaultRole = "producers"
	RoleConsumers FaultRole = "consumers"
)

// FaultPods is how many of the selected pods a fault acts on.
// +kubebuilder:validation:Enum=all;one
type FaultPods string

// Pod counts.
const (
	PodsAll FaultPods = "all"
	// PodsOne is one selected pod, chosen by Chaos Mesh at random.
	PodsOne FaultPods = "one"
)

// FaultTarget selects the pods a fault acts on.
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || !has(self.role) || self.role == 'brokers'",message="target.matchLabels selects broker pods (role brokers); producers and consumers are the trial's own"
// +kubebuilder:validation:XValidation:rule="!has(self.namespace) || has(self.matchLabels)",message="target.namespace goes with target.matchLabels"
type FaultTarget struct {
	// Role is brokers, producers or consumers.
	// +kubebuilder:default=brokers
	// +optional
	Role FaultRole `json:"role,omitempty"`
	// MatchLabels selects the broker pods when spec.kafka is not a Strimzi cluster
	// (Strimzi's broker pods are found by their strimzi.io labels).
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// Namespace of the pods MatchLabels selects (default: the experiment's).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Pods is all of the selected pods, or one of them.
	// +kubebuilder:default=all
	// +optional
	Pods FaultPods `json:"pods,omitempty"`
}

// NetworkFault impairs the packets the target sends. A delay, loss and bandwidth
// cap combine; a partition drops everything and combines with nothing.
// +kubebuilder:validation:XValidation:rule="has(self.delay) || has(self.lossPercent) || has(self.bandwidth) || (has(self.partition) && self.partition)",message="network sets at least one of delay, lossPercent, bandwidth and partition"
// +kubebuilder:validation:XValidation:rule="!has(self.partition) || !self.partition || !(has(self.delay) || has(self.lossPercent) || has(self.bandwidth))",message="network.partition drops every packet: it combines with no other network fault"
// +kubebuilder:validation:XValidation:rule="!has(self.lossCorrelationPercent) || has(self.lossPercent)",message="network.lossCorrelationPercent needs lossPercent"
type NetworkFault struct {
	// Delay holds each packet the target sends: added once to every round trip
	// with its peers.
	// +optional
	Delay *Delay `json:"delay,omitempty"`
	// LossPercent of the target's packets are dropped, e.g. "5" or "0.5" (a
	// decimal string: the API has no floats).
	// +kubebuilder:validation:Pattern=`^(100(\.0{1,3})?|[0-9]{1,2}(\.[0-9]{1,3})?)$`
	// +optional
	LossPercent string `json:"lossPercent,omitempty"`
	// LossCorrelationPercent makes a loss depend on the previous packet's (netem's
	// correlation: losses come in bursts).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	LossCorrelationPercent int32 `json:"lossCorrelationPercent,omitempty"`
	// Bandwidth caps the target's outgoing rate.
	// +optional
	Bandwidth *Bandwidth `json:"bandwidth,omitempty"`
	// Partition cuts the target off: every packet between it and its peers is
	// dropped, both ways.
	// +optional
	Partition bool `json:"partition,omitempty"`
}

// DelayDistribution is how a delay's jitter is drawn.
// +kubebuilder:validation:Enum=normal;uniform
type DelayDistribution string

// Delay distributions.
const (
	// DistributionNormal draws each packet's delay from N(latency, jitter²)
	// (serdebench run only: Chaos Mesh cannot ask netem for a distribution).
	DistributionNormal DelayDistribution = "normal"
	// DistributionUniform draws it from [latency − jitter, latency + jitter]: what
	// netem does without a distribution table, so what Chaos Mesh applies.
	DistributionUniform DelayDistribution = "uniform"
)

// Delay is a network delay with its variation.
// +kubebuilder:validation:XValidation:rule="!has(self.jitterMicroseconds) || self.jitterMicroseconds <= self.latencyMicroseconds",message="network.delay.jitterMicroseconds must not exceed latencyMicroseconds"
type Delay struct {
	// LatencyMicroseconds is the mean delay of each packet.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	LatencyMicroseconds int32 `json:"latencyMicroseconds"`
	// JitterMicroseconds is the delay's spread: the standard deviation (normal) or
	// the half-width (uniform); 0 delays every packet alike.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000000
	// +optional
	JitterMicroseconds int32 `json:"jitterMicroseconds,omitempty"`
	// CorrelationPercent makes a packet's delay depend on the previous one's.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CorrelationPercent int32 `json:"correlationPercent,omitempty"`
	// Distribution of the jitter.
	// +kubebuilder:default=normal
	// +optional
	Distribution DelayDistribution `json:"distribution,omitempty"`
}

// Bandwidth is a token-bucket cap on the target's outgoing rate.
type Bandwidth struct {
	// RateKilobitsPerSecond is the cap (1 kbit = 1000 bit).
	// +kubebuilder:validation:Minimum=8
	// +kubebuilder:validation:Maximum=100000000
	RateKilobitsPerSecond int32 `json:"rateKilobitsPerSecond"`
	// BufferBytes is the bucket: the largest burst sent at full speed.
	// +kubebuilder:default=10000
	// +kubebuilder:validation:Minimum=1500
	// +kubebuilder:validation:Maximum=104857600
	// +optional
	BufferBytes int32 `json:"bufferBytes,omitempty"`
	// LimitBytes is how much may wait for tokens before packets are dropped.
	// +kubebuilder:default=262144
	// +kubebuilder:validation:Minimum=1500
	// +kubebuilder:validation:Maximum=1073741824
	// +optional
	LimitBytes int32 `json:"limitBytes,omitempty"`
}

// PodAction is what happens to the target's pods.
// +kubebuilder:validation:Enum=kill;failure;container-kill
type PodAction string

// Pod actions (Chaos Mesh's PodChaos).
const (
	// PodKill deletes the pods; their controller (a StatefulSet, Strimzi, the Job)
	// makes new ones.
	PodKill PodAction = "kill"
	// PodFailure replaces the pods' containers by a pause image for the fault's
	// duration: the pods stay, unready, and come back as they were.
	PodFailure PodAction = "failure"
	// ContainerKill kills containerNames; the kubelet restarts them.
	ContainerKill PodAction = "container-kill"
)

// PodFault kills or fails pods.
// +kubebuilder:validation:XValidation:rule="(self.action == 'container-kill') == (has(self.containerNames) && size(self.containerNames) > 0)",message="pod.containerNames names the containers container-kill kills, and only it"
type PodFault struct {
	// Action is kill, failure or container-kill.
	Action PodAction `json:"action"`
	// ContainerNames are the containers container-kill kills.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=set
	// +optional
	ContainerNames []string `json:"containerNames,omitempty"`
}

// StressFault loads the target's CPUs or memory from inside its pods.
// +kubebuilder:validation:XValidation:rule="has(self.cpu) || has(self.memory)",message="stress sets cpu, memory or both"
type StressFault struct {
	// CPU keeps workers busy.
	// +optional
	CPU *CPUStress `json:"cpu,omitempty"`
	// Memory allocates and touches memory.
	// +optional
	Memory *MemoryStress `json:"memory,omitempty"`
}

// CPUStress is Chaos Mesh's CPU stressor.
type CPUStress struct {
	// Workers are the busy threads.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Workers int32 `json:"workers"`
	// LoadPercent is each worker's share of one CPU.
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	LoadPercent int32 `json:"loadPercent,omitempty"`
}

// MemoryStress is Chaos Mesh's memory stressor.
type MemoryStress struct {
	// Workers each allocate SizeMegabytes (Chaos Mesh's memStress: the total is
	// workers × size).
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Workers int32 `json:"workers,omitempty"`
	// SizeMegabytes is the memory each worker takes (1 MB = 10^6 B).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1048576
	SizeMegabytes int32 `json:"sizeMegabytes"`
}

// Defaults of a fault's optional fields (the same values as its +kubebuilder:default
// markers).
const (
	DefaultBandwidthBufferBytes int32 = 10000
	DefaultBandwidthLimitBytes  int32 = 262144
	DefaultCPULoadPercent       int32 = 100
	DefaultMemoryWorkers        int32 = 1
)

// Default fills the fault's unset optional fields.
func (f *Fault) Default() {
	if f.Target.Role == "" {
		f.Target.Role = RoleBrokers
	}
	if f.Target.Pods == "" {
		f.Target.Pods = PodsAll
	}
	if n := f.Network; n != nil {
		if n.Delay != nil && n.Delay.Distribution == "" {
			n.Delay.Distribution = DistributionNormal
		}
		if b := n.Bandwidth; b != nil {
			if b.BufferBytes == 0 {
				b.BufferBytes = DefaultBandwidthBufferBytes
			}
			if b.LimitBytes == 0 {
				b.LimitBytes = DefaultBandwidthLimitBytes
			}
		}
	}
	if s := f.Stress; s != nil {
		if s.CPU != nil && s.CPU.LoadPercent == 0 {
			s.CPU.LoadPercent = DefaultCPULoadPercent
		}
		if s.Memory != nil && s.Memory.Workers == 0 {
			s.Memory.Workers = DefaultMemoryWorkers
		}
	}
}

// OneShot reports whether the fault acts once (a pod or container kill, a
// consumer joining or leaving) rather than lasting DurationSeconds and being
// undone.
func (f *Fault) OneShot() bool {
	return (f.Pod != nil && f.Pod.Action != PodFailure) || (f.Consumers != nil && f.Consumers.Action != ConsumerPause)
}

// Joiners is how many consumers the trial's fault adds mid-window beside
// Consumers: one for a consumers fault's join (a standby until then), else none.
func (t Trial) Joiners() int32 {
	if f := t.Fault; f != nil && f.Consumers != nil && f.Consumers.Action == ConsumerJoin {
		return 1
	}
	return 0
}
