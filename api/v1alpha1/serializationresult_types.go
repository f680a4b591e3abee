package v1alpha1

import (
	"github.com/serdebench/serdebench/api/trial"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SerializationResult is what one SerializationExperiment measured: a snapshot of its
// spec, the environment, and every trial's merged metrics. Numbers are integers (or
// decimal strings) with their unit in the field name; percentiles come from merged
// HdrHistograms. It is owned by its experiment and deleted with it.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=sr,categories=serdebench
// +kubebuilder:printcolumn:name="Experiment",type=string,JSONPath=`.experiment.name`
// +kubebuilder:printcolumn:name="Trials",type=integer,JSONPath=`.summary.trials`
// +kubebuilder:printcolumn:name="Best",type=string,JSONPath=`.recommendation.best`,description="Each payload's recommended trial by spec.objective; ? marks one only ahead so far (inconclusive)"
// +kubebuilder:printcolumn:name="Rec/s",type=integer,JSONPath=`.summary.fastestRecordsPerSecond`,description="The highest records/s of any trial"
// +kubebuilder:printcolumn:name="Lost",type=integer,JSONPath=`.summary.lostRecords`
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.comparison.verdict`,description="Against its schedule's baseline: Within, Improved, Suspect, Regressed, EnvironmentShifted or NotJudged"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SerializationResult struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Experiment identifies the experiment and holds its spec as it ran.
	Experiment ExperimentSnapshot `json:"experiment"`

	// Environment is where it ran.
	// +optional
	Environment Environment `json:"environment,omitempty"`

	// Summary is the headline across trials.
	// +optional
	Summary ResultSummary `json:"summary,omitempty"`

	// Trials are the measured trials, in the order they ran; with repetitions
	// each repetition is one (name <trial>-r<k>).
	// +optional
	Trials []TrialResult `json:"trials,omitempty"`

	// Statistics are the repeated trials' figures over their repetitions
	// (spec.repetitions above 1): each the median, a confidence interval of it and
	// the mean (docs/measurement.md).
	// +optional
	Statistics []TrialStatistics `json:"statistics,omitempty"`

	// Comparison is this run against its schedule's baseline; only results of
	// scheduled runs that had a baseline have one.
	// +optional
	Comparison *ResultComparison `json:"comparison,omitempty"`

	// Recommendation is the trial to use by spec.objective for each payload, the
	// trials that cannot be told from it, and how much worse each other is
	// (docs/measurement.md).
	// +optional
	Recommendation *Recommendation `json:"recommendation,omitempty"`

	// Sensitivity says what the table could tell apart: the smallest difference
	// from the baseline trial its corrected test finds with PowerPercent power, at
	// the noise the result's own repetitions showed.
	// +optional
	Sensitivity *Sensitivity `json:"sensitivity,omitempty"`

	// Stopping says whether spec.repeatUntil's target was met, after how many
	// repetitions, and which interval was the widest.
	// +optional
	Stopping *Stopping `json:"stopping,omitempty"`
}

// Stopping is where an experiment with spec.repeatUntil stands.
type Stopping struct {
	// Repetitions is the fewest repetitions any trial has.
	Repetitions int32 `json:"repetitions"`
	// Met says every chosen interval is within the target now; rounds stop at
	// the next round's start once spec.repetitions rounds ran.
	Met bool `json:"met"`
	// Widest names the widest interval, its trial and metric, and its half-width
	// in percent of the median at the level the rule checks (98 %).
	// +optional
	Widest string `json:"widest,omitempty"`
}

// Sensitivity is what an experiment's table can tell apart in records/s.
type Sensitivity struct {
	// Trials and Repetitions (the fewest any trial has) shape the table; Tests
	// is how many its Holm correction covers.
	Trials      int32 `json:"trials"`
	Repetitions int32 `json:"repetitions"`
	Tests       int32 `json:"tests"`
	// NoisePercent is records/s' noise between repetitions (standard deviation
	// of logarithms), and NoiseSource where it comes from.
	NoisePercent string `json:"noisePercent"`
	NoiseSource  string `json:"noiseSource"`
	// DetectablePercent is the smallest difference found with PowerPercent
	// power (empty when none can be).
	// +optional
	DetectablePercent string `json:"detectablePercent,omitempty"`
	PowerPercent      int32  `json:"powerPercent"`
	// NeedsRepetitions is set when no difference can be found: the fewest
	// repetitions each trial needs.
	// +optional
	NeedsRepetitions int32 `json:"needsRepetitions,omitempty"`
}

// Recommendation is a result's answer to "which codec and settings should we
// use?": one choice per payload (schema and size) and what else the team does not
// choose (fault scenario, consumers, offered rate), inconclusive ones first.
// Values are decimal strings (no floats in the API).
type Recommendation struct {
	// Objective says what was optimized, in words.
	Objective string `json:"objective"`
	// Metric is what each best is chosen and compared by, in Unit.
	// +optional
	Metric string `json:"metric,omitempty"`
	// +optional
	Unit string `json:"unit,omitempty"`
	// Tests is how many comparisons the Holm correction covered: every choice's
	// together.
	// +optional
	Tests int32 `json:"tests,omitempty"`
	// Best is each choice's best trial, comma-separated, a trial that is only
	// ahead so far (its choice inconclusive) marked "?": the printer column.
	// +optional
	Best string `json:"best,omitempty"`
	// Advice says what to run when a choice is inconclusive: the repetitions it
	// needs and the time they take.
	// +optional
	Advice string `json:"advice,omitempty"`
	// Choices are the recommendations, one per payload and given settings.
	// +optional
	// +listType=atomic
	Choices []RecommendedChoice `json:"choices,omitempty"`
	// Message says why there is no recommendation (no choices).
	// +optional
	Message string `json:"message,omitempty"`
}

// RecommendedChoice is the recommendation among trials that differ only in what
// a team chooses: codec, client and producer settings.
type RecommendedChoice struct {
	// For names what the trials share: payload schema and size, fault, given
	// settings.
	For string `json:"for"`
	// Best is the recommended trial and Value its median (empty with Message).
	// With NeedsRepetitions it is only the one ahead so far.
	// +optional
	Best string `json:"best,omitempty"`
	// +optional
	Value string `json:"value,omitempty"`
	// Selection says how far to trust Best and Value: the best was picked as the
	// best median from the same repetitions that measure it (the winner's curse).
	// Absent with one candidate, when any candidate has fewer than 2
	// repetitions, or with values at or below zero.
	// +optional
	Selection *Selection `json:"selection,omitempty"`
	// Front is the Pareto front (the default objective), best first.
	// +optional
	Front []string `json:"front,omitempty"`
	// Ties are the trials the corrected test cannot tell from the best.
	// +optional
	Ties []string `json:"ties,omitempty"`
	// Others are the other trials that meet the constraints, against the best:
	// the ties, then the nearest, at most 24 (serdebench recommend lists all).
	// +optional
	Others []RecommendedAlternative `json:"others,omitempty"`
	// OthersOmitted counts the trials further behind that Others leaves out.
	// +optional
	OthersOmitted int32 `json:"othersOmitted,omitempty"`
	// Infeasible are the trials a constraint rules out, with the reason.
	// +optional
	Infeasible []string `json:"infeasible,omitempty"`
	// NeedsRepetitions is set when, with the repetitions the trials have, the
	// corrected test cannot tell any trial from the best: the fewest it needs.
	// The choice is inconclusive.
	// +optional
	NeedsRepetitions int32 `json:"needsRepetitions,omitempty"`
	// Summary is the choice in one line.
	Summary string `json:"summary"`
	// Message says why there is no best (no trial meets the constraints).
	// +optional
	Message string `json:"message,omitempty"`
}

// Selection is a pick's selection bias, measured by splitting every candidate
// trial's repetitions at random into a part that picks and a part that measures
// the pick (docs/measurement.md, "How sure the pick is").
type Selection struct {
	// Splits is how many random splits were made.
	Splits int32 `json:"splits"`
	// PickedAgainPermille is how often, in ‰, the picking part picks the same
	// trial: how stable the pick is.
	PickedAgainPermille int32 `json:"pickedAgainPermille"`
	// ValueApart is the pick's worth measured on repetitions that did not choose
	// it (the geometric mean over the splits), in the recommendation's unit.
	ValueApart string `json:"valueApart"`
	// BiasPercent is how much Value flatters the pick against ValueApart, in
	// percent in the better direction (negative: it undersells it).
	BiasPercent string `json:"biasPercent"`
}

// RecommendedAlternative is a trial against the recommended one.
type RecommendedAlternative struct {
	// Name of the trial.
	Name string `json:"name"`
	// ChangePercent is its change from the best; ChangeLowPercent and
	// ChangeHighPercent bound it at ConfidencePermille (empty with one repetition).
	ChangePercent string `json:"changePercent"`
	// +optional
	ChangeLowPercent string `json:"changeLowPercent,omitempty"`
	// +optional
	ChangeHighPercent string `json:"changeHighPercent,omitempty"`
	// +optional
	ConfidencePermille int32 `json:"confidencePermille,omitempty"`
	// PValue is the Mann-Whitney U test's, Holm-adjusted over every comparison
	// of the recommendation; empty where the test could not decide (too few
	// repetitions).
	// +optional
	PValue string `json:"pValue,omitempty"`
	// Tie says the corrected test cannot tell it from the best: not shown
	// different, which is not shown equivalent.
	Tie bool `json:"tie"`
	// SeparatingRepetitions is, for a tie, the repetitions per trial with which
	// the corrected test would tell it from the best 80 % of the time, if the
	// change is what this run measured less the best's selection bias; absent
	// when none up to 20 (the most spec.repetitions allows) would, or the
	// spread is unknown.
	// +optional
	SeparatingRepetitions int32 `json:"separatingRepetitions,omitempty"`
}

// ResultComparison is a scheduled run's trials against the same trials (codec, schema,
// size and effective settings) of its baseline runs (docs/schedules.md).
type ResultComparison struct {
	// Schedule that ran the experiment.
	Schedule string `json:"schedule"`
	// BaselineKind is how the baseline was chosen.
	BaselineKind BaselineKind `json:"baselineKind"`
	// BaselineResults are the SerializationResults compared against, oldest first.
	BaselineResults []string `json:"baselineResults"`
	// ExcludedResults are baseline results left out as slow together, every trial
	// far below the other runs (a cold broker's first run).
	// +optional
	ExcludedResults []string `json:"excludedResults,omitempty"`
	// Thresholds that were applied.
	Thresholds RegressionThresholds `json:"thresholds"`
	// PersistenceRuns that were applied.
	// +optional
	PersistenceRuns int32 `json:"persistenceRuns,omitempty"`
	// Verdict is the most severe of the trials': NotJudged, Within, Improved,
	// EnvironmentShifted, Suspect or Regressed.
	// +optional
	Verdict ComparisonVerdict `json:"verdict,omitempty"`
	// Regressed says at least one trial regressed.
	Regressed bool `json:"regressed"`
	// Control is the trial whose moves are taken as the environment's.
	// +optional
	Control string `json:"control,omitempty"`
	// Method says how the verdicts were reached, with the number of tests
	// corrected together.
	// +optional
	Method string `json:"method,omitempty"`
	// Trials are the trials that matched a baseline trial, in plan order.
	// +optional
	Trials []TrialComparison `json:"trials,omitempty"`
	// UnmatchedTrials are trials no baseline run has (not compared).
	// +optional
	UnmatchedTrials []string `json:"unmatchedTrials,omitempty"`
	// MissingTrials are baseline trials this run lacks.
	// +optional
	MissingTrials []string `json:"missingTrials,omitempty"`
	// Changes are what changed between the runs compared, besides the spec: the
	// Kafka release, the Kubernetes version, the worker image, a runtime or client
	// library, the machines' CPU or kernel; each says from what to what, and at
	// which run (e.g. "Kafka: 4.3 (metadata.version 4.3-IV0) → 4.4 (metadata.version
	// 4.4-IV2) at this run"). A verdict beside a change may be the change's.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=1024
	Changes []string `json:"changes,omitempty"`
}

// ComparisonVerdict is what a metric, trial or run came to against its baseline.
// +kubebuilder:validation:Enum=NotJudged;Within;Improved;EnvironmentShifted;Suspect;Regressed
type ComparisonVerdict string

// Verdicts, from the least to the most severe.
const (
	// VerdictNotJudged: fewer baseline runs than baseline.minRuns, or no value.
	VerdictNotJudged ComparisonVerdict = "NotJudged"
	// VerdictWithin: no breach, and no lasting improvement.
	VerdictWithin ComparisonVerdict = "Within"
	// VerdictImproved: better than the threshold over persistenceRuns consecutive
	// runs, their mean significantly better (Regressed's mirror); less severe than
	// any worse verdict, so one improved metric never hides another's breach.
	VerdictImproved ComparisonVerdict = "Improved"
	// VerdictEnvironmentShifted: worse beyond the threshold, but together with the
	// control trial, which moved too: the machine or the cluster, not the trial.
	VerdictEnvironmentShifted ComparisonVerdict = "EnvironmentShifted"
	// VerdictSuspect: a breach not yet persistent; shown, not alerted.
	VerdictSuspect ComparisonVerdict = "Suspect"
	// VerdictRegressed: a breach over persistenceRuns consecutive runs.
	VerdictRegressed ComparisonVerdict = "Regressed"
)

// TrialComparison is one trial against the baseline runs.
type TrialComparison struct {
	// Name of the trial.
	Name string `json:"name"`
	// BaselineRuns is how many baseline runs had this trial.
	BaselineRuns int32 `json:"baselineRuns"`
	// Control says this trial is the run's control.
	// +optional
	Control bool `json:"control,omitempty"`
	// Verdict is the most severe of its metrics'.
	// +optional
	Verdict ComparisonVerdict `json:"verdict,omitempty"`
	// Regressed says one of its metrics regressed.
	Regressed bool `json:"regressed"`
	// Metrics compared: recordsPerSecond, endToEndP99 and serialize.
	Metrics []MetricComparison `json:"metrics"`
}

// MetricComparison is one metric of a trial against the baseline runs, each run
// one value (the median of its repetitions). Values are decimal strings in Unit.
type MetricComparison struct {
	// Name of the metric.
	Name string `json:"name"`
	// Unit of the values: records/s, µs or µs/record.
	Unit string `json:"unit"`
	// BaselineRuns is how many baseline runs this metric was judged against.
	// +optional
	BaselineRuns int32 `json:"baselineRuns,omitempty"`
	// Baseline is the baseline runs' center: the geometric mean of their values.
	Baseline string `json:"baseline"`
	// BaselineMin is the lowest baseline run's value.
	BaselineMin string `json:"baselineMin"`
	// BaselineMax is the highest baseline run's value.
	BaselineMax string `json:"baselineMax"`
	// SpreadPercent is the noise between the baseline runs: the standard
	// deviation of their values' logarithms, in percent.
	// +optional
	SpreadPercent string `json:"spreadPercent,omitempty"`
	// Candidate is this run's value: the median of its repetitions (for p99, the
	// median of the per-repetition p99s).
	Candidate string `json:"candidate"`
	// ChangePercent is the candidate's change from the baseline's center.
	ChangePercent string `json:"changePercent"`
	// ChangeLowPercent and ChangeHighPercent bound the change of the level at
	// ChangeConfidencePermille (Student's t over the baseline runs: the interval
	// of one more run).
	// +optional
	ChangeLowPercent string `json:"changeLowPercent,omitempty"`
	// +optional
	ChangeHighPercent string `json:"changeHighPercent,omitempty"`
	// +optional
	ChangeConfidencePermille int32 `json:"changeConfidencePermille,omitempty"`
	// ControlChangePercent is the change relative to the control trial of the
	// same run.
	// +optional
	ControlChangePercent string `json:"controlChangePercent,omitempty"`
	// PValue is the one-sided p-value of "this run is worse than the baseline's
	// level", Holm-adjusted over every metric of the run.
	// +optional
	PValue string `json:"pValue,omitempty"`
	// StreakRuns is persistenceRuns when each of the last persistenceRuns runs
	// was worse than the threshold; StreakChangePercent is then their mean's change
	// and StreakPValue its Holm-adjusted one-sided p-value (Regressed below 0.05).
	// +optional
	StreakRuns int32 `json:"streakRuns,omitempty"`
	// +optional
	StreakChangePercent string `json:"streakChangePercent,omitempty"`
	// +optional
	StreakPValue string `json:"streakPValue,omitempty"`
	// Tested is this run's test as it was made (absent when not judged): one of
	// the intervals the verdict rests on. ChangeLowPercent and ChangeHighPercent
	// are descriptive (two-sided, against the trial's own baseline level).
	// +optional
	Tested *ComparisonTest `json:"tested,omitempty"`
	// Streak is the test of the last persistenceRuns runs' mean, as it was made
	// (absent before that many runs; with persistenceRuns 1, this run alone): what
	// a Regressed verdict rests on.
	// +optional
	Streak *ComparisonTest `json:"streak,omitempty"`
	// Improvement is the test of the same runs' mean in the better direction, its
	// own Holm family (absent where Streak is): what an Improved verdict rests on.
	// Its bound is on the other side of Streak's: the change is at least
	// BoundPercent where higher is better (records/s), at most it where lower is.
	// +optional
	Improvement *ComparisonTest `json:"improvement,omitempty"`
	// Verdict is NotJudged, Within, Improved, EnvironmentShifted, Suspect or
	// Regressed.
	// +optional
	Verdict ComparisonVerdict `json:"verdict,omitempty"`
	// Regressed says the verdict is Regressed.
	Regressed bool `json:"regressed"`
}

// TestedOn is what a comparison's test was made against.
// +kubebuilder:validation:Enum=Control;Baseline
type TestedOn string

// What a comparison's test was made against.
const (
	// TestedOnControl: relative to the control trial of each run.
	TestedOnControl TestedOn = "Control"
	// TestedOnBaseline: against the trial's own baseline level.
	TestedOnBaseline TestedOn = "Baseline"
)

// ComparisonTest is a verdict's test as it was made: the change on the tested
// scale, and its one-sided bound in the direction tested (the worse one; the
// better one for an improvement) at the confidence the Holm-corrected test faced
// (1 − 0.05·p/pHolm), so the bound is beyond zero exactly when the corrected
// test finds the metric worse (better).
type ComparisonTest struct {
	// Runs is how many runs' mean was tested: 1, or persistenceRuns for a streak.
	Runs int32 `json:"runs"`
	// TestedOn is what the change was tested against: Control (relative to the
	// control trial of each run) or Baseline (the trial's own baseline level).
	TestedOn TestedOn `json:"testedOn"`
	// ChangePercent is the tested change.
	ChangePercent string `json:"changePercent"`
	// BoundPercent bounds it at ConfidencePermille, one-sided: in tested and
	// streak, the change is at most this where higher is better (records/s), at
	// least it where lower is; in improvement, the other way round.
	// +optional
	BoundPercent string `json:"boundPercent,omitempty"`
	// ConfidencePermille is the bound's confidence, in ‰.
	ConfidencePermille int32 `json:"confidencePermille"`
	// PValue is the test's one-sided p-value, Holm-adjusted.
	// +optional
	PValue string `json:"pValue,omitempty"`
}

// ExperimentSnapshot identifies the experiment a result belongs to.
type ExperimentSnapshot struct {
	// Name of the experiment.
	Name string `json:"name"`
	// UID of the experiment.
	UID string `json:"uid"`
	// Generation of the experiment's spec that ran.
	Generation int64 `json:"generation"`
	// Spec as it ran.
	Spec SerializationExperimentSpec `json:"spec"`
}

// Environment records what is needed to reproduce a run.
type Environment struct {
	// KafkaRelease is the Kafka release as a broker says it in its API versions
	// answer: the release line of its newest metadata.version and the level the
	// cluster finalized, e.g. "4.4 (metadata.version 4.4-IV2)" (Kafka sends no
	// release; for a broker without features, franz-go's guess, e.g. "at least
	// v4.1"). With Strimzi, when the brokers cannot be asked or name none, the
	// Kafka resource's version, saying so.
	// +optional
	KafkaRelease string `json:"kafkaRelease,omitempty"`
	// KafkaAPIVersions are the brokers' count and their Produce and Fetch API
	// versions (with bootstrapServers).
	// +optional
	KafkaAPIVersions string `json:"kafkaAPIVersions,omitempty"`
	// WorkerImage that ran the trials, as configured (a tag may move).
	// +optional
	WorkerImage string `json:"workerImage,omitempty"`
	// WorkerImageIDs are the image digests the worker containers actually ran, from
	// the pods' status (containerStatuses[].imageID): normally one.
	// +optional
	// +listType=set
	WorkerImageIDs []string `json:"workerImageIDs,omitempty"`
	// OperatorVersion that ran the experiment.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// NodeNames the worker pods ran on.
	// +optional
	NodeNames []string `json:"nodeNames,omitempty"`
	// Clocks are those nodes' clocks against the operator's: the first reading
	// of the experiment (offsetMicros) and the last (endOffsetMicros). Each
	// trial's sync says what they mean for its latencies. At most 24 nodes,
	// the first by name.
	// +optional
	// +listType=map
	// +listMapKey=node
	// +kubebuilder:validation:MaxItems=24
	Clocks []NodeClock `json:"clocks,omitempty"`
	// BrokerCPU says where the trials' brokerCPUNanosPerRecord comes from when the
	// brokers run in pods, or why it could not be read (absent: a local broker's
	// process, or no broker pods to look for).
	// +optional
	BrokerCPU *BrokerCPU `json:"brokerCPU,omitempty"`
	// KubernetesVersion is the API server's version (its /version gitVersion) when
	// the operator wrote the result.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Software are the worker runtimes and Kafka client libraries the trials ran,
	// each with its version, as the workers report them (e.g. go go1.26.1,
	// franz-go v1.22.2, java 17.0.13+11, kafka-clients 4.4.0). At most 16, by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Software []Software `json:"software,omitempty"`
	// Machines are the worker nodes' CPU model and kernel release, as the workers
	// read them. At most 24, the first by node name.
	// +optional
	// +listType=map
	// +listMapKey=node
	// +kubebuilder:validation:MaxItems=24
	Machines []Machine `json:"machines,omitempty"`
}

// Software is a runtime or library the workers ran, with its version.
type Software struct {
	// Name is the runtime's or library's: go, java, franz-go, sarama, librdkafka,
	// kafka-clients.
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// Version is as the runtime or library says it (a Go module's version, the
	// JVM's Runtime.version(), librdkafka's own).
	// +kubebuilder:validation:MaxLength=128
	Version string `json:"version"`
}

// Machine is a worker node as its workers saw it.
type Machine struct {
	// Node is the node's name (a local run's: the host's).
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`
	// CPUModel is the processor's model name (empty where the system names none).
	// +kubebuilder:validation:MaxLength=256
	// +optional
	CPUModel string `json:"cpuModel,omitempty"`
	// Kernel is the kernel's release.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Kernel string `json:"kernel,omitempty"`
}

// BrokerCPU is the broker pods' CPU as cAdvisor reports it: the kubelet's
// container_cpu_usage_seconds_total series, read through Prometheus.
type BrokerCPU struct {
	// Namespace and Pods are the broker pods read (at most 8 listed, the first by
	// name; all are read).
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxItems=8
	// +listType=set
	// +optional
	Pods []string `json:"pods,omitempty"`
	// NotRead says why no broker's CPU was read, once for the whole experiment
	// (e.g. no pod matches: the brokers run outside the cluster); empty when read.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	NotRead string `json:"notRead,omitempty"`
	// ResolutionSeconds is the longest span between two cAdvisor samples around a
	// window's bound: the CPU at a bound is interpolated between them, so a
	// window should be many times longer.
	ResolutionSeconds int32 `json:"resolutionSeconds"`
}

// ResultSummary is the headline across trials.
type ResultSummary struct {
	// Trials measured.
	Trials int32 `json:"trials"`
	// FastestCodec is the codec of the trial with the highest throughput.
	// +optional
	FastestCodec string `json:"fastestCodec,omitempty"`
	// FastestTrial is that trial's name.
	// +optional
	FastestTrial string `json:"fastestTrial,omitempty"`
	// FastestRecordsPerSecond is that trial's throughput.
	// +optional
	FastestRecordsPerSecond int64 `json:"fastestRecordsPerSecond,omitempty"`
	// LostRecords across all trials.
	LostRecords int64 `json:"lostRecords"`
	// DuplicatedRecords across all trials.
	DuplicatedRecords int64 `json:"duplicatedRecords"`
}

// TrialStatistics are one trial's figures over its repetitions.
type TrialStatistics struct {
	// Name is the trial's: its repetitions' names without -r<k>.
	Name string `json:"name"`
	// Runs are the repetitions measured (trial names), in repetition order.
	Runs []string `json:"runs"`
	// Metrics are the figures, each named by the trial result's field it sums up.
	Metrics []MetricEstimate `json:"metrics"`
	// Merged are the latency percentiles of every repetition's histogram merged:
	// the trial's records over all its repetitions as one distribution. The
	// metrics' endToEndMicros.p99 is the median of the repetitions' own p99s,
	// which says how a typical run's tail looks; this p99 is the tail of all the
	// records together, where one slow repetition weighs in.
	// +optional
	Merged *MergedLatency `json:"merged,omitempty"`
}

// MergedLatency are percentiles of histograms merged across repetitions.
type MergedLatency struct {
	// Runs are the repetitions merged in.
	Runs int32 `json:"runs"`
	// ResolutionPermille is the histograms' relative resolution: a percentile is
	// exact to within this many thousandths of its value (10: 1 %, as the
	// operator stores them between repetitions; 1 in a local run).
	ResolutionPermille int32 `json:"resolutionPermille"`
	// EndToEndMicros and AckMicros are the merged percentiles.
	EndToEndMicros LatencyMicros `json:"endToEndMicros"`
	AckMicros      LatencyMicros `json:"ackMicros"`
}

// MetricEstimate is one figure over a trial's repetitions, as integers in Unit.
type MetricEstimate struct {
	// Name is the trial result's field, e.g. recordsPerSecond or
	// endToEndMicros.p99.
	Name string `json:"name"`
	// Unit of every value.
	Unit string `json:"unit"`
	// Values are the repetitions' values, in Runs' order.
	Values []int64 `json:"values"`
	// Median of the values: the figure the table shows. Counts of records lost,
	// duplicated or failed are shown as their total instead.
	Median int64 `json:"median"`
	// Mean of the values.
	Mean int64 `json:"mean"`
	// Low and High bound the median's confidence interval: order statistics of
	// the values, valid whatever their distribution.
	Low  int64 `json:"low"`
	High int64 `json:"high"`
	// ConfidencePermille is the interval's confidence: 950 or more from 6
	// repetitions; fewer reach only their range's (750 with 3, 875 with 4, 937
	// with 5).
	ConfidencePermille int32 `json:"confidencePermille"`
}

// LatencyMicros are percentiles of a merged latency histogram, in microseconds.
type LatencyMicros struct {
	// Count of recorded values.
	Count int64 `json:"count"`
	// Mean of the recorded values.
	// +optional
	Mean int64 `json:"mean,omitempty"`
	// P50 is the median.
	P50 int64 `json:"p50"`
	// P75 is the 75th percentile.
	// +optional
	P75 int64 `json:"p75,omitempty"`
	// P90 is the 90th percentile.
	P90 int64 `json:"p90"`
	// P95 is the 95th percentile.
	// +optional
	P95 int64 `json:"p95,omitempty"`
	// P99 is the 99th percentile.
	P99 int64 `json:"p99"`
	// P999 is the 99.9th percentile.
	P999 int64 `json:"p999"`
	// P9999 is the 99.99th percentile.
	// +optional
	P9999 int64 `json:"p9999,omitempty"`
	// Max is the largest value.
	Max int64 `json:"max"`
}

// TrialResult is one trial's merged metrics.
type TrialResult struct {
	// Name of the trial.
	Name string `json:"name"`
	// Config is the name its repetitions share (spec.repetitions above 1).
	// +optional
	Config string `json:"config,omitempty"`
	// Repetition is which repetition it is, from 1 (spec.repetitions above 1).
	// +optional
	Repetition int32 `json:"repetition,omitempty"`
	// Codec of the trial.
	Codec trial.Codec `json:"codec"`
	// Schema of the payload.
	Schema string `json:"schema"`
	// SizeBytes is the payload's target JSON-encoded size; for a payload source, the
	// samples' mean JSON size.
	SizeBytes int32 `json:"sizeBytes"`
	// Settings are the effective producer settings.
	Settings trial.Settings `json:"settings"`
	// Reference says the table compares every other trial with this one
	// (spec.compare.baseline).
	// +optional
	Reference bool `json:"reference,omitempty"`
	// Fault is the fault the trial ran under, as Chaos Mesh applied it (unset for a
	// trial without one).
	// +optional
	Fault *FaultStatus `json:"fault,omitempty"`
	// Phases split a faulted trial at its fault: before, during and after it, the
	// time to the first error and the recovery time (docs/faults.md), in the
	// model the workers' summary and the reports share.
	// +optional
	Phases *trial.Phases `json:"phases,omitempty"`
	// ClientSettings are the producer client's own settings the trial ran with, by
	// the client's names, for the settings whose meaning differs between clients
	// (in-flight requests, batch cap, linger, partitioner; docs/producer-settings.md).
	// +optional
	ClientSettings map[string]string `json:"clientSettings,omitempty"`
	// Producers that reported a summary.
	Producers int32 `json:"producers"`
	// Consumers that reported a summary.
	Consumers int32 `json:"consumers"`
	// WindowMillis is the producers' measured window.
	WindowMillis int64 `json:"windowMillis"`
	// Records acknowledged in the measured window.
	Records int64 `json:"records"`
	// RecordsPerSecond over the window.
	RecordsPerSecond int64 `json:"recordsPerSecond"`
	// SerializedBytesPerSecond is encoded value bytes per second.
	SerializedBytesPerSecond int64 `json:"serializedBytesPerSecond"`
	// SerializedBytesPerRecord is the mean encoded value size.
	SerializedBytesPerRecord int64 `json:"serializedBytesPerRecord"`
	// HeaderBytesPerRecord is the mean size of a record's serdebench headers,
	// keys and values (payload.headers): what each record carries besides its
	// value (0 in results of older versions).
	// +optional
	HeaderBytesPerRecord int64 `json:"headerBytesPerRecord,omitempty"`
	// Commits are the offset commits the consumers sent and waited for, one per
	// record with consumer.commit eachRecord (0 with interval commits, which the
	// clients send in the background).
	// +optional
	Commits int64 `json:"commits,omitempty"`
	// SerializeNanosPerRecord is the mean Marshal time.
	SerializeNanosPerRecord int64 `json:"serializeNanosPerRecord"`
	// DeserializeNanosPerRecord is the mean Unmarshal time.
	DeserializeNanosPerRecord int64 `json:"deserializeNanosPerRecord"`
	// CompressedBytesPerRecord is the mean value size after payload compression: what
	// was sent (payload.compression only).
	// +optional
	CompressedBytesPerRecord int64 `json:"compressedBytesPerRecord,omitempty"`
	// CompressNanosPerRecord is the mean time to compress one value.
	// +optional
	CompressNanosPerRecord int64 `json:"compressNanosPerRecord,omitempty"`
	// DecompressNanosPerRecord is the mean time to decompress one value.
	// +optional
	DecompressNanosPerRecord int64 `json:"decompressNanosPerRecord,omitempty"`
	// SerializeSharePermille is the share of the producers' window spent in Marshal (‰).
	SerializeSharePermille int32 `json:"serializeSharePermille"`
	// DeserializeSharePermille is the share of the consumers' window spent in Unmarshal (‰).
	DeserializeSharePermille int32 `json:"deserializeSharePermille"`
	// EndToEndMicros: consumer receive time minus intended send time.
	EndToEndMicros LatencyMicros `json:"endToEndMicros"`
	// AckMicros: acknowledgement time minus intended send time.
	AckMicros LatencyMicros `json:"ackMicros"`
	// FetchIntervalMicros is the time between a consumer's successive fetch
	// responses with records (franz-go only): with records always waiting, a record
	// waits half of it at the broker on average (docs/measurement.md).
	// +optional
	FetchIntervalMicros *LatencyMicros `json:"fetchIntervalMicros,omitempty"`
	// SendDelayMicros: actual minus intended send time.
	SendDelayMicros LatencyMicros `json:"sendDelayMicros"`
	// Client are the Kafka clients' own statistics, by the Java client's metric
	// names (docs/measurement.md): what explains the trial's batching.
	// +optional
	Client *ClientInternals `json:"client,omitempty"`
	// Resources are what the trial's workers (and broker, where it could be read)
	// spent in the measured window: CPU per record and peak memory (absent: not
	// measured).
	// +optional
	Resources *ResourceUsage `json:"resources,omitempty"`
	// Probe is the first producer's machine, measured without Kafka before the
	// trial's schedule began (its CPU part again after the window): a nightly asks
	// it whether the machine moved when every trial did (absent: not measured).
	// +optional
	Probe *MachineProbe `json:"probe,omitempty"`
	// Registry is what the schema registry cost beside (de)serialization
	// (registry codecs only).
	// +optional
	Registry *RegistryCost `json:"registry,omitempty"`
	// Sync says how together the trial's producers ran and how far the
	// workers' clocks could bend its end-to-end latency (absent in results of
	// older versions).
	// +optional
	Sync *TrialSync `json:"sync,omitempty"`
	// SentRecords acknowledged by the brokers, warmup included.
	SentRecords int64 `json:"sentRecords"`
	// DeliveredRecords received at least once, warmup included.
	DeliveredRecords int64 `json:"deliveredRecords"`
	// LostRecords acknowledged but never received: the set difference acked ∖
	// received, per producer and partition.
	LostRecords int64 `json:"lostRecords"`
	// FailedRecords whose send failed after the client's retries.
	FailedRecords int64 `json:"failedRecords"`
	// UnacknowledgedDeliveredRecords were received although the producer never saw
	// them acknowledged (failed or unanswered sends the broker stored anyway).
	UnacknowledgedDeliveredRecords int64 `json:"unacknowledgedDeliveredRecords"`
	// DuplicatedRecords received more than once (extra copies).
	DuplicatedRecords int64 `json:"duplicatedRecords"`
	// Errors: failed sends plus failed decodes.
	Errors int64 `json:"errors"`
	// Transactions are the transactional producers' transactions
	// (producer.transactions only): with them SentRecords counts committed
	// records alone.
	// +optional
	Transactions *TransactionsResult `json:"transactions,omitempty"`
	// Stalls are the times partitions went unconsumed while their records
	// waited: a rebalance, a member gone or paused (absent: none).
	// +optional
	Stalls *StallsResult `json:"stalls,omitempty"`
	// Share is what the share group's consumers were delivered
	// (consumer.groupType share only): with it DuplicatedRecords counts what
	// at-least-once delivery processed twice, not a failure.
	// +optional
	Share *ShareResult `json:"share,omitempty"`
	// Attempts it took to measure the trial (more than 1 when a disrupted attempt
	// was re-run).
	// +optional
	Attempts int32 `json:"attempts,omitempty"`
	// PrometheusRecordsDifference is Prometheus' count of measured producer records
	// minus the summaries' count over the trial window (0 when they agree; absent
	// when Prometheus could not be queried).
	// +optional
	PrometheusRecordsDifference *int64 `json:"prometheusRecordsDifference,omitempty"`
	// IntervalSeconds is the length of each of Intervals.
	// +optional
	IntervalSeconds int32 `json:"intervalSeconds,omitempty"`
	// Intervals cut the measured window into intervals (spec.intervalSeconds,
	// doubled until few enough remain): throughput, latency percentiles and
	// consumer backlog over time, from the workers' own per-interval histograms.
	// +kubebuilder:validation:MaxItems=60
	// +optional
	Intervals []Interval `json:"intervals,omitempty"`
	// Search is a rate search's outcome (spec.rate.search only).
	// +optional
	Search *SearchResult `json:"search,omitempty"`
	// ThroughputSeries is the producers' measured-record rate over the trial, from
	// Prometheus (absent when Prometheus could not be queried).
	// +optional
	ThroughputSeries *ThroughputSeries `json:"throughputSeries,omitempty"`
	// Warnings say what the numbers cannot be trusted for.
	// +optional
	Warnings []string `json:"warnings,omitempty"`
}

// TransactionsResult is what a trial's transactional producers did
// (docs/measurement.md, "Transactions").
type TransactionsResult struct {
	// Committed and Aborted count transactions, all producers (the end records'
	// included).
	Committed int64 `json:"committed"`
	Aborted   int64 `json:"aborted"`
	// CommittedPerSecondMilli is the transactions committed in the measured
	// window per second of it, all producers, in thousandths.
	CommittedPerSecondMilli int64 `json:"committedPerSecondMilli"`
	// RecordsPerTransaction is those transactions' mean record count, rounded.
	RecordsPerTransaction int64 `json:"recordsPerTransaction"`
	// AbortedRecords were sent in aborted transactions: never delivered to a
	// read-committed consumer.
	AbortedRecords int64 `json:"abortedRecords"`
	// AbortedDeliveredRecords are records of aborted transactions the consumers
	// received (an error with readCommitted consumers; readUncommitted ones may
	// read them).
	AbortedDeliveredRecords int64 `json:"abortedDeliveredRecords"`
	// InDoubt counts transactions whose commit was sent and never answered
	// (their records are neither delivered nor lost).
	// +optional
	InDoubt int64 `json:"inDoubt,omitempty"`
	// CommitP50Micros, CommitP99Micros and CommitMaxMicros are the measured
	// commits' times: from asking to commit (the transaction's last record
	// handed to the client) to the coordinator's answer, flushing the
	// transaction's records included.
	CommitP50Micros int64 `json:"commitP50Micros"`
	CommitP99Micros int64 `json:"commitP99Micros"`
	CommitMaxMicros int64 `json:"commitMaxMicros"`
}

// ShareResult is a share group's deliveries (docs/measurement.md, "Share
// groups"). A delivery is one record of the run handed to a consumer, warmup
// included.
type ShareResult struct {
	// Acknowledgement is the consumers' acknowledgement mode.
	Acknowledgement trial.ShareAcknowledgement `json:"acknowledgement"`
	// Deliveries counts them, all consumers; Redelivered those the broker had
	// delivered before (released, lock expired, or their consumer left before
	// acknowledging them): at least DuplicatedRecords.
	Deliveries  int64 `json:"deliveries"`
	Redelivered int64 `json:"redelivered"`
	// Released counts deliveries the consumers released (share.releaseOneIn);
	// Archived those released on their last allowed delivery, which the broker
	// archived.
	// +optional
	Released int64 `json:"released,omitempty"`
	// +optional
	Archived int64 `json:"archived,omitempty"`
	// MaxDeliveryCount is the highest delivery count a consumer saw.
	MaxDeliveryCount int32 `json:"maxDeliveryCount"`
	// AckErrors counts the broker's per-partition answers to acknowledgements
	// that carried an error.
	// +optional
	AckErrors int64 `json:"ackErrors,omitempty"`
	// SettledLag is the lag the broker still reported when a consumer counted
	// the trial complete because the group's offsets had stopped moving for
	// longer than the record lock duration (the rule that covers Kafka 4.3's
	// stale persisted count, docs/producer-settings.md "Consumer (every client)"); absent when the
	// lag reached 0, as it does on Kafka 4.4.
	// +optional
	SettledLag int64 `json:"settledLag,omitempty"`
	// AckP50Micros, AckP99Micros and AckMaxMicros are the explicit
	// acknowledgements' times: from asking to send a poll's acknowledgements to
	// the broker's every answer (absent with implicit acknowledgement, whose
	// acknowledgements ride on the next share fetch).
	// +optional
	AckP50Micros int64 `json:"ackP50Micros,omitempty"`
	// +optional
	AckP99Micros int64 `json:"ackP99Micros,omitempty"`
	// +optional
	AckMaxMicros int64 `json:"ackMaxMicros,omitempty"`
}

// StallsResult are a trial's partition stalls (docs/measurement.md, "Rebalances
// and stalls"): a partition stalled when a record of it waited at least 200 ms
// after it became available while nothing of the partition was received. The
// stalls one by one are in `serdebench run`'s JSON output.
type StallsResult struct {
	// Count of stalls, all partitions; Partitions how many partitions stalled;
	// Moved how many stalls ended with another consumer taking the partition.
	Count      int32 `json:"count"`
	Partitions int32 `json:"partitions"`
	Moved      int32 `json:"moved"`
	// MaxMicros is the longest stall, TotalMicros their sum (partition-time).
	MaxMicros   int64 `json:"maxMicros"`
	TotalMicros int64 `json:"totalMicros"`
	// DelayedRecords were waiting when consumption resumed, all stalls;
	// DelayedMaxMicros is their largest end-to-end latency.
	DelayedRecords   int64 `json:"delayedRecords"`
	DelayedMaxMicros int64 `json:"delayedMaxMicros"`
	// SlackMicros is how long after its intended send time a record is taken to
	// be available (the ack p99, and a transaction's span and commit p99): a
	// stall may be under-measured by up to that.
	SlackMicros int64 `json:"slackMicros"`
}

// RegistryCost is a trial's schema registry cost. Its clients cache as the
// Confluent serializers do: a schema's id is asked for once per worker, then
// every record's header costs a cache lookup, which serializeNanosPerRecord and
// deserializeNanosPerRecord leave out.
type RegistryCost struct {
	// Requests are the HTTP requests all the workers' registry clients sent over
	// their runs (registrations, lookups by id, retries); RequestMicros is their
	// total time.
	Requests      int64 `json:"requests"`
	RequestMicros int64 `json:"requestMicros"`
	// SerializeLookupNanosPerRecord is the mean time a producer spent on a
	// measured record's header: its schema's id from the client, the header
	// written.
	SerializeLookupNanosPerRecord int64 `json:"serializeLookupNanosPerRecord"`
	// DeserializeLookupNanosPerRecord is the mean time a consumer spent on a
	// measured record's header: read, and its writer's schema looked up by id.
	DeserializeLookupNanosPerRecord int64 `json:"deserializeLookupNanosPerRecord"`
}

// TrialSync is how together a trial's producers ran, and the clocks behind its
// numbers.
type TrialSync struct {
	// StartAt is the instant every producer was given to begin (warmup
	// included), on the operator's clock (absent where the operator did not
	// start them: results of `serdebench run` say so with zero offsets).
	// +optional
	StartAt *metav1.MicroTime `json:"startAt,omitempty"`
	// StartSpreadMicros is the latest producer's measured window start
	// minus the earliest's, on the operator's clock (each corrected by its
	// node's offset).
	StartSpreadMicros int64 `json:"startSpreadMicros"`
	// ProducerRatesSumPerSecond is the sum of each producer's own rate (its
	// records over its own window); recordsPerSecond (all records over the
	// union of the windows) equals it when the windows coincide, and is below it
	// by at most (2 × startSpreadMicros + ackMicros.max) / windowMillis when they
	// begin together and end a drain apart.
	ProducerRatesSumPerSecond int64 `json:"producerRatesSumPerSecond"`
	// ClockUncertaintyMicros bounds how far the nodes' clocks can have
	// moved the end-to-end latencies (a consumer's receive time minus a
	// producer's send time, each on its own node's clock): the largest
	// difference between a producer node's and a consumer node's offsets, plus
	// both readings' uncertainty. 0 when every worker ran on one node.
	ClockUncertaintyMicros int64 `json:"clockUncertaintyMicros"`
}

// ClientInternals are a trial's producer and consumer clients' statistics over
// their whole run (warmup and end markers included). Averages are decimal
// strings.
type ClientInternals struct {
	// BatchSizeAvgBytes (batch-size-avg): bytes per partition batch as sent.
	BatchSizeAvgBytes string `json:"batchSizeAvgBytes"`
	// BatchRecordsAvg: records per partition batch.
	BatchRecordsAvg string `json:"batchRecordsAvg"`
	// RecordsPerRequestAvg (records-per-request-avg) over ProduceRequests.
	RecordsPerRequestAvg string `json:"recordsPerRequestAvg"`
	ProduceRequests      int64  `json:"produceRequests"`
	// CompressionRateAvg (compression-rate-avg): compressed over uncompressed
	// size, mean over batches.
	// +optional
	CompressionRateAvg string `json:"compressionRateAvg,omitempty"`
	// RequestLatencyAvgMicros and RequestLatencyMaxMicros (request-latency-avg,
	// -max): produce requests from written to answered.
	RequestLatencyAvgMicros int64 `json:"requestLatencyAvgMicros"`
	RequestLatencyMaxMicros int64 `json:"requestLatencyMaxMicros"`
	// RecordQueueTimeAvgMicros (record-queue-time-avg), estimated: the mean
	// acknowledgement latency from the actual send less the mean request latency.
	RecordQueueTimeAvgMicros int64 `json:"recordQueueTimeAvgMicros"`
	// RequestsInFlightAvg and RequestsInFlightMax (requests-in-flight), sampled
	// every 100 ms.
	RequestsInFlightAvg string `json:"requestsInFlightAvg"`
	RequestsInFlightMax int64  `json:"requestsInFlightMax"`
	// BufferedBytesMax and BufferedRecordsMax: the most held in the producer
	// client (franz-go: buffer.memory minus buffer-available-bytes).
	// +optional
	BufferedBytesMax int64 `json:"bufferedBytesMax,omitempty"`
	// +optional
	BufferedRecordsMax int64 `json:"bufferedRecordsMax,omitempty"`
	// FetchRequestRate (fetch-rate) per second, all consumers; FetchSizeAvgBytes
	// (fetch-size-avg); RecordsPerFetchAvg (records per fetch response).
	FetchRequestRate   string `json:"fetchRequestRate"`
	FetchSizeAvgBytes  int64  `json:"fetchSizeAvgBytes"`
	RecordsPerFetchAvg string `json:"recordsPerFetchAvg"`
}

// ResourceUsage is what a trial's processes spent in its measured window, from
// each process's CPU time (user + system) and memory sampled every 100 ms.
type ResourceUsage struct {
	// Scope is workers (each worker measured its own process: a pod's container)
	// or process (every worker ran in one process, `serdebench run`: its
	// producers' and consumers' shares cannot be told apart).
	Scope string `json:"scope"`
	// WorkerCPUNanosPerRecord is the workers' CPU time, producers and consumers,
	// per measured record; ProducerCPUNanosPerRecord and ConsumerCPUNanosPerRecord
	// split it (scope workers).
	WorkerCPUNanosPerRecord int64 `json:"workerCPUNanosPerRecord"`
	// +optional
	ProducerCPUNanosPerRecord int64 `json:"producerCPUNanosPerRecord,omitempty"`
	// +optional
	ConsumerCPUNanosPerRecord int64 `json:"consumerCPUNanosPerRecord,omitempty"`
	// RecordsPerCPUSecond is measured records per second of the workers' CPU.
	RecordsPerCPUSecond int64 `json:"recordsPerCPUSecond"`
	// PeakRSSBytes and PeakHeapBytes are the largest resident set and Go heap of
	// one worker's process (scope workers: the larger of a producer's and a
	// consumer's; scope process: the shared process's).
	PeakRSSBytes  int64 `json:"peakRSSBytes"`
	PeakHeapBytes int64 `json:"peakHeapBytes"`
	// BrokerCPUNanosPerRecord is the brokers' CPU time per measured record (a
	// local broker's process, or the broker pods' containers as cAdvisor reports
	// them: environment.brokerCPU; absent: not read).
	// +optional
	BrokerCPUNanosPerRecord int64 `json:"brokerCPUNanosPerRecord,omitempty"`
}

// Interval is one slice of a trial's measured window.
type Interval struct {
	// StartTime of the interval (aligned to multiples of its length).
	StartTime metav1.Time `json:"startTime"`
	// WindowMillis is how much of the interval lies in the measured window (the
	// first and last are usually partial).
	WindowMillis int64 `json:"windowMillis"`
	// Records is the measured records acknowledged during the interval, and
	// RecordsPerSecond that over WindowMillis: the throughput achieved.
	Records          int64 `json:"records"`
	RecordsPerSecond int64 `json:"recordsPerSecond"`
	// OfferedRecordsPerSecond is the measured records due in the interval over
	// WindowMillis: the load offered (above the achieved rate, producers fall
	// behind).
	OfferedRecordsPerSecond int64 `json:"offeredRecordsPerSecond"`
	// ConsumedRecordsPerSecond is the measured records first received during the
	// interval over WindowMillis.
	ConsumedRecordsPerSecond int64 `json:"consumedRecordsPerSecond"`
	// AckP50Micros and AckP99Micros are the acknowledgement latency percentiles of
	// the records due in the interval (1% precision).
	AckP50Micros int64 `json:"ackP50Micros"`
	AckP99Micros int64 `json:"ackP99Micros"`
	// EndToEndP50Micros and EndToEndP99Micros are their end-to-end latency
	// percentiles (1% precision).
	EndToEndP50Micros int64 `json:"endToEndP50Micros"`
	EndToEndP99Micros int64 `json:"endToEndP99Micros"`
	// BacklogRecords is, at the interval's end, the records acknowledged and not yet
	// received by the consumers.
	BacklogRecords int64 `json:"backlogRecords"`
}

// SearchResult is what a rate search found.
type SearchResult struct {
	// MaxSustainedRecordsPerSecond is the producers' combined target rate in the
	// last of the sustained steps that began the search (0: not even the first).
	MaxSustainedRecordsPerSecond int64 `json:"maxSustainedRecordsPerSecond"`
	// Stopped says why the search ended before its duration, if it did.
	// +optional
	Stopped string `json:"stopped,omitempty"`
	// Steps in order: the last sustained ones and the first that was not (at most
	// 64, fewer in results of many trials; the local JSON result has all).
	// +kubebuilder:validation:MaxItems=64
	Steps []SearchStep `json:"steps"`
}

// SearchStep is one step of a rate search.
type SearchStep struct {
	// Index of the step, from 0.
	Index int32 `json:"index"`
	// TargetRecordsPerSecond is the producers' combined rate in the step.
	TargetRecordsPerSecond int64 `json:"targetRecordsPerSecond"`
	// Records of the step acknowledged, and Received of them.
	Records  int64 `json:"records"`
	Received int64 `json:"received"`
	// AckP99Micros and EndToEndP99Micros are the step's p99 latencies (1%
	// precision), from the intended send time.
	AckP99Micros      int64 `json:"ackP99Micros"`
	EndToEndP99Micros int64 `json:"endToEndP99Micros"`
	// Sustained: every producer sent the whole step, nothing failed or went
	// missing, and both p99s are within spec.rate.search.maxP99Millis.
	Sustained bool `json:"sustained"`
	// Reason the step was not sustained.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// ThroughputSeries is a rate sampled at a fixed step.
type ThroughputSeries struct {
	// StartTime of the first sample.
	StartTime metav1.Time `json:"startTime"`
	// StepSeconds between samples.
	StepSeconds int32 `json:"stepSeconds"`
	// RecordsPerSecond at each step (at most 60 samples).
	// +kubebuilder:validation:MaxItems=60
	RecordsPerSecond []int64 `json:"recordsPerSecond"`
}

// SerializationResultList is a list of results.
// +kubebuilder:object:root=true
type SerializationResultList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the results.
	Items []SerializationResult `json:"items"`
}

// MachineProbe is a measurement of a worker's machine that Kafka takes no part
// in; absent is not measured.
type MachineProbe struct {
	// CPUNanosPerOp is a fixed serialization loop's time per operation (JSON
	// encoding and decoding of one fixed record: Go's encoding/json, or the JVM
	// worker's Jackson; on one thread, in blocks long enough to span the
	// schedulers' time slices): the median of its blocks, read before the window
	// and after it, the geometric mean of both readings (a core's speed wanders
	// over seconds). Each runtime's figure is its own.
	// +optional
	CPUNanosPerOp int64 `json:"cpuNanosPerOp,omitempty"`
	// FsyncMicros is a 4 KiB write and its fsync in the worker's temporary
	// directory (an emptyDir on the node's disk): the minimum of 15.
	// +optional
	FsyncMicros int64 `json:"fsyncMicros,omitempty"`
	// ConnectMicros is a TCP connection's set-up to the first bootstrap address,
	// without a Kafka request: the minimum of 15.
	// +optional
	ConnectMicros int64 `json:"connectMicros,omitempty"`
}
