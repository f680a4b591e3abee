package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says what a schedule does when a run is due while one is active.
// +kubebuilder:validation:Enum=Forbid;Replace;Allow
type ConcurrencyPolicy string

// Concurrency policies, as a CronJob's.
const (
	// ConcurrencyForbid skips the due run while one is active.
	ConcurrencyForbid ConcurrencyPolicy = "Forbid"
	// ConcurrencyReplace deletes the active run and starts the due one.
	ConcurrencyReplace ConcurrencyPolicy = "Replace"
	// ConcurrencyAllow starts the due run beside the active one.
	ConcurrencyAllow ConcurrencyPolicy = "Allow"
)

// BaselineKind is what a run is compared with.
// +kubebuilder:validation:Enum=previous;pinned;rollingMedian
type BaselineKind string

// Baselines.
const (
	// BaselinePrevious was the last successful run alone. One run cannot tell a
	// change from the noise between runs: admission refuses it with that reason.
	BaselinePrevious BaselineKind = "previous"
	// BaselinePinned is a fixed set of SerializationResults (e.g. a release's runs).
	BaselinePinned BaselineKind = "pinned"
	// BaselineRollingMedian is the last successful runs, each as one value per
	// trial and metric (its median over its repetitions); their spread is the
	// noise between runs.
	BaselineRollingMedian BaselineKind = "rollingMedian"
)

// Schedule condition types, and the standard ones both kinds carry for kstatus
// (sigs.k8s.io/cli-utils), which Flux, Argo CD's health checks and kubectl wait read.
const (
	// ConditionReady is True while the schedule is valid and runs as planned, and once
	// an experiment succeeded.
	ConditionReady = "Ready"
	// ConditionReconciling is True while an experiment runs (kstatus: InProgress).
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when an experiment failed or a schedule cannot run
	// (kstatus: Failed).
	ConditionStalled = "Stalled"
	// ConditionRegressed is True when the last run regressed against the baseline.
	ConditionRegressed = "Regressed"
	// ConditionWindowTooShort is True when every trial of the last run warned
	// WindowTooShort: its measured windows are too short for the numbers it
	// compares, and the schedule's thresholds sit inside their noise.
	ConditionWindowTooShort = "WindowTooShort"
	// ConditionEnvironmentShifted is True when the last run's trials moved together
	// with the control trial beyond the thresholds: the machine, the cluster or a
	// dependency every trial shares changed, not one trial.
	ConditionEnvironmentShifted = "EnvironmentShifted"
)

// LabelSchedule is the label naming the SerializationSchedule that started an
// experiment (its runs are listed by it).
const LabelSchedule = "serdebench.io/schedule"

// SerializationScheduleSpec runs an experiment on a cron schedule and compares each
// run with a baseline.
// +kubebuilder:validation:XValidation:rule="self.baseline.kind != 'pinned' || has(self.baseline.resultName) || has(self.baseline.resultNames)",message="baseline.kind pinned needs baseline.resultNames (or resultName)"
// +kubebuilder:validation:XValidation:rule="self.baseline.kind != 'previous'",message="baseline.kind previous compares with one run, which cannot tell a change from the noise between runs: use rollingMedian (the last runs) or pinned with resultNames"
// +kubebuilder:validation:XValidation:rule="!has(self.successfulHistoryLimit) || self.baseline.kind != 'rollingMedian' || !has(self.baseline.runs) || self.successfulHistoryLimit >= self.baseline.runs + (has(self.persistenceRuns) ? self.persistenceRuns : 2) - 1",message="successfulHistoryLimit must keep the baseline runs and the streak's earlier ones: at least baseline.runs + persistenceRuns - 1 for rollingMedian"
// +kubebuilder:validation:XValidation:rule="self.baseline.kind != 'rollingMedian' || !has(self.baseline.minRuns) || !has(self.baseline.runs) || self.baseline.minRuns <= self.baseline.runs",message="baseline.minRuns must not exceed baseline.runs: the baseline would never be judged"
type SerializationScheduleSpec struct {
	// Schedule is a cron expression (robfig/cron/v3 standard parser: five fields, or
	// a descriptor such as @daily).
	// Field values are checked by the controller (Ready=False, InvalidSchedule).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="TZ= and CRON_TZ= are not supported in schedule: use timeZone"
	// +kubebuilder:validation:XValidation:rule="self.matches('^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|@every ([1-9][0-9]*h([0-9]+m)?|[1-9][0-9]*m)|[^ ]+( +[^ ]+){4})$')",message="schedule must be five cron fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily or @every 6h (whole minutes, at least 1m)"
	Schedule string `json:"schedule"`

	// TimeZone is the IANA time zone the schedule is read in (e.g. Europe/Stockholm).
	// Default UTC. A name the tz database lacks sets Ready=False (InvalidSchedule).
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_+/-]*$`
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// Suspend stops new runs; active runs continue.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// ConcurrencyPolicy is Forbid, Replace or Allow, as a CronJob's. Default Forbid.
	// +kubebuilder:default=Forbid
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// StartingDeadlineSeconds: a run missed by more than this is skipped (counted
	// in the status), not started late. Unset: a missed run starts when the
	// controller sees it.
	// +kubebuilder:validation:Minimum=1
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// ExperimentTemplate is the experiment each run creates.
	ExperimentTemplate ExperimentTemplate `json:"experimentTemplate"`

	// SuccessfulHistoryLimit is how many successful runs to keep; older ones are
	// deleted with their results (a pinned baseline of this schedule's is kept).
	// Default 6; it must cover the baseline runs and the streak's earlier runs
	// (baseline.runs + persistenceRuns − 1).
	// +kubebuilder:default=6
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	SuccessfulHistoryLimit *int32 `json:"successfulHistoryLimit,omitempty"`
	// FailedHistoryLimit is how many failed runs to keep. Default 3.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	FailedHistoryLimit *int32 `json:"failedHistoryLimit,omitempty"`

	// Baseline is what each run is compared with. Default rollingMedian of the last
	// 5 runs: a change must leave their spread, so one noisy run is not an alert
	// (docs/schedules.md).
	// +kubebuilder:default={kind: rollingMedian}
	// +optional
	Baseline Baseline `json:"baseline,omitempty"`

	// Thresholds are the changes that count as a regression; the same changes the
	// other way count as an improvement.
	// +kubebuilder:default={}
	// +optional
	Thresholds RegressionThresholds `json:"thresholds,omitempty"`

	// PersistenceRuns is how many consecutive runs must breach a threshold before
	// the metric is Regressed (and alerted); a first breach is Suspect, shown in
	// the condition and the result but not alerted. 1 alerts at once. Default 2.
	// As many runs better than the threshold make it Improved.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +optional
	PersistenceRuns int32 `json:"persistenceRuns,omitempty"`
}

// ExperimentTemplate is the experiment a schedule creates: labels and spec.
type ExperimentTemplate struct {
	// Labels are added to each run's experiment.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Spec is the SerializationExperiment spec.
	Spec SerializationExperimentSpec `json:"spec"`
}

// Baseline selects the runs a run is compared with.
type Baseline struct {
	// Kind is previous, pinned or rollingMedian. Default rollingMedian.
	// +kubebuilder:default=rollingMedian
	// +optional
	Kind BaselineKind `json:"kind,omitempty"`
	// ResultName is a pinned SerializationResult (kind pinned), before ResultNames.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ResultName string `json:"resultName,omitempty"`
	// ResultNames are the pinned SerializationResults (kind pinned): each is one
	// baseline run. At least MinRuns of them are needed to judge.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	// +optional
	ResultNames []string `json:"resultNames,omitempty"`
	// Runs is how many last successful runs rollingMedian takes. Default 5.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=50
	// +optional
	Runs int32 `json:"runs,omitempty"`
	// MinRuns is the fewest baseline runs a metric is judged with: with fewer the
	// noise between runs is unknown, and the Regressed condition says the schedule
	// is still collecting its baseline. Default 3.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=50
	// +optional
	MinRuns int32 `json:"minRuns,omitempty"`
}

// PinnedResults are the pinned baseline's result names, in order.
func (b Baseline) PinnedResults() []string {
	var out []string
	if b.ResultName != "" {
		out = append(out, b.ResultName)
	}
	for _, n := range b.ResultNames {
		if n != b.ResultName {
			out = append(out, n)
		}
	}
	return out
}

// RegressionThresholds are in percent (integers: no floats in a spec).
type RegressionThresholds struct {
	// ThroughputDropPercent: records/s lower than the baseline by more. Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ThroughputDropPercent int32 `json:"throughputDropPercent,omitempty"`
	// P99RisePercent: end-to-end p99 higher than the baseline by more. Default 20.
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	P99RisePercent int32 `json:"p99RisePercent,omitempty"`
	// SerializeRisePercent: serialize µs per record higher than the baseline by
	// more. Default 20.
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	SerializeRisePercent int32 `json:"serializeRisePercent,omitempty"`
}

// SerializationScheduleStatus is what the schedule did.
type SerializationScheduleStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastScheduleTime is when the last run was due (started or skipped).
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// Active are the runs not finished yet (experiment names).
	// +optional
	Active []string `json:"active,omitempty"`
	// LastSuccessfulResult is the result of the last successful run.
	// +optional
	LastSuccessfulResult string `json:"lastSuccessfulResult,omitempty"`
	// MissedRuns counts runs skipped past their starting deadline or by Forbid.
	// +optional
	MissedRuns int64 `json:"missedRuns,omitempty"`
	// LastComparedRun is the last successful run compared with its baseline.
	// +optional
	LastComparedRun string `json:"lastComparedRun,omitempty"`
	// Conditions: Ready and Regressed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SerializationSchedule runs a SerializationExperiment on a cron schedule, keeps its
// history and flags regressions against a baseline.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ss,categories=serdebench
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Regressed",type=string,JSONPath=`.status.conditions[?(@.type=="Regressed")].status`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="a schedule's name is at most 52 characters: runs are named <schedule>-<minute> and labelled with it"
type SerializationSchedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SerializationScheduleSpec   `json:"spec"`
	Status SerializationScheduleStatus `json:"status,omitempty"`
}

// SerializationScheduleList is a list of SerializationSchedules.
// +kubebuilder:object:root=true
type SerializationScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SerializationSchedule `json:"items"`
}
