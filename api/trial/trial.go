// Package trial defines what one worker is asked to run: a trial's codec, payload
// and fully resolved producer settings. It is the contract between the planner (and
// the operator) above and the workers below.
//
// DeepCopy methods are generated (they import nothing): the API types embed these.
// +kubebuilder:object:generate=true
// The types are part of serdebench.io/v1alpha1 (for docs/reference.md's generator):
// +groupName=serdebench.io
// +versionName=v1alpha1
package trial

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Source is the user's own schema and sample records, as files the worker reads
// (workers/source loads and checks them).
type Source struct {
	// Format is avro, protobuf or json-schema.
	Format string `json:"format"`
	// Message is the protobuf message of each record (needed when the .proto
	// defines more than one top-level message).
	Message string `json:"message,omitempty"`
	// SchemaFile and SamplesFile are paths the worker reads.
	SchemaFile  string `json:"schemaFile"`
	SamplesFile string `json:"samplesFile"`
}

// ConsumerSettings are a trial's effective consumer settings (api/v1alpha1's ConsumerSettings).
type ConsumerSettings struct {
	FetchMinBytes          int32 `json:"fetchMinBytes"`
	FetchMaxWaitMs         int32 `json:"fetchMaxWaitMs"`
	MaxPartitionFetchBytes int32 `json:"maxPartitionFetchBytes"`
	ReceiveBufferBytes     int32 `json:"receiveBufferBytes"`
	SendBufferBytes        int32 `json:"sendBufferBytes"`
	// Commit is when the consumers commit (empty in older plans: interval).
	Commit Commit `json:"commit,omitempty"`
	// Isolation is the consumers' isolation level (empty in older plans:
	// read-uncommitted). The planner copies it from Settings.Isolation, which
	// the matrix sweeps.
	Isolation Isolation `json:"isolation,omitempty"`
	// GroupProtocol is the consumers' group protocol (empty in older plans:
	// classic), copied from Settings.GroupProtocol as Isolation is.
	GroupProtocol GroupProtocol `json:"groupProtocol,omitempty"`
	// GroupType is the consumers' kind of group (empty in older plans: consumer),
	// copied from Settings.GroupType as Isolation is.
	GroupType GroupType `json:"groupType,omitempty"`
	// Share are the share group's settings (set with GroupType share only).
	Share *ShareSettings `json:"share,omitempty"`
}

// ShareSettings are a share group's consumer settings.
type ShareSettings struct {
	// Acknowledgement is how consumers acknowledge records.
	Acknowledgement ShareAcknowledgement `json:"acknowledgement"`
	// DeliveryCountLimit is the group's share.delivery.count.limit: the
	// deliveries after which a record that is never accepted is archived.
	DeliveryCountLimit int32 `json:"deliveryCountLimit"`
	// ReleaseOneIn releases every delivery of one record in this many (by its
	// producer's sequence number on its partition), as a consumer whose processing of it fails does: each
	// such record is delivered DeliveryCountLimit times, then archived (0: none).
	ReleaseOneIn int32 `json:"releaseOneIn,omitempty"`
}

// Trial is one run: a codec and payload size under one set of producer settings.
type Trial struct {
	// Index is the trial's position in the plan, from 0: the order trials run in.
	Index int `json:"index"`
	// Name is short, unique within the experiment and usable in Kafka topic and
	// Kubernetes object names.
	Name string `json:"name"`
	// Config names what the repetitions of one trial share: its name without the
	// repetition's suffix (-r<n>); equal to Name when the spec asks for one.
	Config string `json:"config,omitempty"`
	// Repetition is which repetition of its Config the trial is, from 1 (0: the
	// spec asks for one).
	Repetition int32 `json:"repetition,omitempty"`
	// Codec encodes the records.
	Codec Codec `json:"codec"`
	// Schema is the built-in payload schema (empty with Source).
	Schema string `json:"schema"`
	// Source is the user's own schema and samples, as files the worker reads.
	Source *Source `json:"source,omitempty"`
	// SizeBytes is the payload's target JSON-encoded size.
	SizeBytes int32 `json:"sizeBytes"`
	// Headers is the serdebench header set each record carries (empty in older
	// plans: full).
	Headers Headers `json:"headers,omitempty"`
	// Settings are the effective producer settings.
	Settings Settings `json:"settings"`
	// Consumer are the effective consumer settings.
	Consumer ConsumerSettings `json:"consumer"`
	// Records per producer in the measured window (0 when DurationSeconds is set).
	Records int64 `json:"records,omitempty"`
	// DurationSeconds is the measured window's length (0 when Records is set).
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
	// Warmup precedes the measured window.
	Warmup Warmup `json:"warmup"`
	// IntervalSeconds is the length of the result's intervals (0 in older plans:
	// the default).
	IntervalSeconds int32 `json:"intervalSeconds,omitempty"`
	// Search, if set, raises the rate in steps from Settings.RecordsPerSecond
	// (defaults applied).
	Search *RateSearch `json:"search,omitempty"`
	// Producers and Consumers are the worker counts.
	Producers int32 `json:"producers"`
	Consumers int32 `json:"consumers"`
	// ExistingTopic, if set, is the topic to run on instead of a fresh one: shared
	// with other traffic and trials, never created or deleted.
	ExistingTopic string `json:"existingTopic,omitempty"`
	// Partitions, Replicas and TopicConfig shape the trial's topic.
	Partitions  int32             `json:"partitions"`
	Replicas    int32             `json:"replicas"`
	TopicConfig map[string]string `json:"topicConfig,omitempty"`
	// Fault is the condition the trial runs under (nil: none, the baseline).
	Fault *Fault `json:"fault,omitempty"`
	// Reference says the result's table compares every other trial with this one
	// (spec.compare.baseline; each of its repetitions has it).
	Reference bool `json:"reference,omitempty"`
	// Seed and PoolSize drive payload generation.
	Seed     int64 `json:"seed"`
	PoolSize int32 `json:"poolSize"`
}

// Describe is a trial's label: its settings as Table's Labels show them, in
// labelOrder (e.g. "batch acks=1 snappy batch=100000 linger=100ms"). It names the
// table's rows and is the key compare and schedules match trials by, so every
// setting is in it when it differs from its default.
func (s Settings) Describe() string { return s.label(func(Label) bool { return true }) }

// Given is the part of the label that describes the traffic and consumers a team
// has rather than a producer choice (Label.Given): "" when every such setting is
// its default. A recommendation ranks trials that share it.
func (s Settings) Given() string { return s.label(func(l Label) bool { return l.Given }) }

// label is the label of the settings whose Label keep accepts.
func (s Settings) label(keep func(Label) bool) string {
	v := reflect.ValueOf(s)
	parts := make([]string, 0, len(labelOrder))
	for _, field := range labelOrder {
		r := rowOf(field)
		if !keep(r.Label) {
			continue
		}
		val := v.FieldByName(field).Interface()
		switch r.Label.When {
		case LabelInBatchMode:
			if s.Mode != ModeBatch {
				continue
			}
		case LabelNotDefault:
			if val == r.Default || slices.Contains(r.Label.Hide, val) {
				continue
			}
		}
		if strings.Contains(r.Label.Format, "%") {
			parts = append(parts, fmt.Sprintf(r.Label.Format, val))
		} else {
			parts = append(parts, r.Label.Format) // a flag: idempotent
		}
	}
	return strings.Join(parts, " ")
}

// rowOf is field's row of Table.
func rowOf(field string) Row {
	for _, r := range Table {
		if r.Field == field {
			return r
		}
	}
	panic("trial: no row " + field + " in Table") // labelOrder names rows only (TestLabelOrderIsTable)
}

// SourceSchemaPrefix starts the schema name results give a trial of the user's own
// records: source:<format>.
const SourceSchemaPrefix = "source:"

// PayloadSchema is the schema results name: the built-in schema, or source:<format>
// for the user's own records.
func (t Trial) PayloadSchema() string {
	if t.Source != nil {
		return SourceSchemaPrefix + t.Source.Format
	}
	return t.Schema
}

// IntervalSecondsOrDefault is the length of the result's intervals, the default
// for plans that do not say.
func (t Trial) IntervalSecondsOrDefault() int32 {
	if t.IntervalSeconds <= 0 {
		return DefaultIntervalSeconds
	}
	return t.IntervalSeconds
}

// Warmup is excluded from the measured window: by record count or by time.
type Warmup struct {
	// Records sent per producer before measuring starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1099511627776
	// +optional
	Records int64 `json:"records,omitempty"`
	// DurationSeconds of sending before measuring starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
}

// RateSearch raises the rate in steps within one trial (docs/measurement.md,
// "Finding the maximum sustainable rate"). Latency is measured from the intended
// send time, so a producer, broker or consumer that cannot keep up shows as growing
// latency (and growing consumer backlog, which by Little's law is rate × latency).
// A step is sustained when every producer sent all of it, none of its sends
// failed, every acknowledged record arrived, and its acknowledgement and
// end-to-end p99 stay within maxP99Millis. A producer ends the search when a send
// fails, when more than 1% of a step's acknowledgements exceed the bound, or when it
// falls a whole step behind its schedule; otherwise the search runs until
// maxRecordsPerSecond or durationSeconds (the consumers' side cannot stop it).
type RateSearch struct {
	// StepPercent is how much each step raises the rate. Default 25.
	// +kubebuilder:default=25
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	StepPercent int32 `json:"stepPercent,omitempty"`
	// StepSeconds is each step's length. Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	StepSeconds int32 `json:"stepSeconds,omitempty"`
	// MaxRecordsPerSecond per producer ends the search there. Default: no cap but
	// the trial's duration.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	// +optional
	MaxRecordsPerSecond int64 `json:"maxRecordsPerSecond,omitempty"`
	// MaxP99Millis bounds a sustained step's acknowledgement and end-to-end p99.
	// Default 100.
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600000
	// +optional
	MaxP99Millis int32 `json:"maxP99Millis,omitempty"`
}

// BytesSchema is the opaque payload schema: a record of exactly its size, which
// only the raw codec sends.
const BytesSchema = "bytes"

// MinSizeBytes is the smallest payload size each built-in schema can fill: below
// it the record's fields alone are larger (workers/payload tests that every seed's
// pool fills at it). The planner rejects smaller sizes.
var MinSizeBytes = map[string]int32{
	"bytes":           2,
	"business-record": 960,
	"simple":          84,
	"nested":          144,
	"complex":         64,
}
