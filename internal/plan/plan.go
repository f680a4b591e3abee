// Package plan expands an experiment spec into its trials: one per combination of
// codec, payload size and matrix value, each with fully resolved settings.
package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
)

// Expand defaults a copy of spec and returns its trials in the order they run. One
// repetition is in a stable order: codecs outermost, then sizes, then matrix
// dimensions in declaration order, then the fault scenarios (the baseline first),
// so a setting's faulted trials follow its baseline. With repetitions, see
// Repeat.
func Expand(spec v1alpha1.ExperimentSpec) ([]trial.Trial, error) {
	spec = *spec.DeepCopy()
	spec.Default()
	// Admission (the CRD schema and its CEL rules, internal/cli/admission locally) has
	// rejected anything worse; these guard the planner's own assumptions.
	switch {
	case len(spec.Codecs) == 0 || (len(spec.Payload.SizesBytes) == 0) == (spec.Payload.Source == nil):
		return nil, fmt.Errorf("at least one codec, and payload sizes or a payload source, are needed")
	case (spec.Records == nil) == (spec.DurationSeconds == nil):
		return nil, fmt.Errorf("exactly one of records and durationSeconds must be set")
	case spec.Records == nil && spec.Matrix != nil && len(spec.Matrix.Records) > 0:
		return nil, fmt.Errorf("matrix.records sweeps the measured records: set records, not durationSeconds")
	case spec.TrialCount() > spec.MaxTrials():
		return nil, fmt.Errorf("the matrix expands to %d trials, more than %d", spec.TrialCount(), spec.MaxTrials())
	}
	consumer := trial.ConsumerSettings{
		FetchMinBytes:          *spec.Consumer.FetchMinBytes,
		FetchMaxWaitMs:         *spec.Consumer.FetchMaxWaitMs,
		MaxPartitionFetchBytes: *spec.Consumer.MaxPartitionFetchBytes,
		ReceiveBufferBytes:     *spec.Consumer.ReceiveBufferBytes,
		SendBufferBytes:        *spec.Consumer.SendBufferBytes,
		Commit:                 spec.Consumer.Commit,
	}
	variants := trial.Expand(spec.BaseSettings(), spec.Matrix.Sweeps())
	batch := func(v trial.Settings) bool { return v.Mode == trial.ModeBatch }
	if !slices.ContainsFunc(variants, batch) && batchOnlySet(spec.Matrix, func(f reflect.Value, _ trial.Row) bool { return f.Len() > 0 }) {
		return nil, errors.New(trial.BatchSweepUnused)
	}
	labels := map[string]bool{}
	for _, v := range variants {
		labels[v.Describe()] = true
	}
	for i, p := range spec.Matrix.Included() {
		// What the spec's rules forbid a sweep, they forbid here too.
		switch {
		case p.Records != nil && spec.Records == nil:
			return nil, fmt.Errorf("matrix.include[%d].records sets the measured records: set records, not durationSeconds", i)
		case p.RecordsPerSecond != nil && spec.Rate.Search != nil:
			return nil, fmt.Errorf("matrix.include[%d].recordsPerSecond: rate.search chooses the rates itself", i)
		}
		v := spec.BaseSettings()
		p.Apply(&v)
		if v.Mode == trial.ModeSingle && batchOnlySet(&p, func(f reflect.Value, _ trial.Row) bool { return !f.IsNil() }) {
			return nil, fmt.Errorf("%s (matrix.include[%d])", trial.BatchPointUnused, i)
		}
		if labels[v.Describe()] {
			return nil, fmt.Errorf("matrix.include[%d] (%s) is a combination the matrix already runs", i, v.Describe())
		}
		labels[v.Describe()] = true
		variants = append(variants, v)
	}
	if !slices.ContainsFunc(variants, batch) && // the included points' too, which inherit spec.producer
		batchOnlySet(&spec.Producer, func(f reflect.Value, r trial.Row) bool { return !f.IsNil() && f.Elem().Interface() != r.Default }) {
		return nil, errors.New(trial.BatchSettingsUnused)
	}
	sizes := spec.Payload.SizesBytes
	if spec.Payload.Schema == trial.BytesSchema {
		for _, c := range spec.Codecs {
			if c != trial.CodecRaw {
				return nil, fmt.Errorf("payload.schema %s is an opaque record: only the raw codec applies, not %s", trial.BytesSchema, c)
			}
		}
	}
	for _, size := range sizes {
		if low := trial.MinSizeBytes[spec.Payload.Schema]; size < low {
			return nil, fmt.Errorf("payload.sizesBytes: %d B is below the %s schema's minimum of %d B (its fields alone take about that much)", size, spec.Payload.Schema, low)
		}
	}
	var src *trial.Source
	if s := spec.Payload.Source; s != nil {
		sizes = []int32{0} // the samples' own
		src = &trial.Source{Format: s.Format, Message: s.Message, SchemaFile: s.SchemaPath, SamplesFile: s.SamplesPath}
	}
	var trials []trial.Trial
	for _, codec := range spec.Codecs {
		for _, size := range sizes {
			for _, st := range variants {
				for _, fault := range spec.Faults.Variants() {
					t := trial.Trial{
						Index:           len(trials),
						Codec:           codec,
						Schema:          spec.Payload.Schema,
						Source:          src,
						SizeBytes:       size,
						Headers:         spec.Payload.Headers,
						Settings:        st,
						Consumer:        consumer,
						Warmup:          spec.Warmup,
						IntervalSeconds: spec.IntervalSeconds,
						Search:          spec.Rate.Search,
						Producers:       spec.Producers,
						Consumers:       spec.Consumers,
						Partitions:      spec.Topic.Partitions,
						Replicas:        spec.Topic.Replicas,
						TopicConfig:     spec.Topic.Config,
						ExistingTopic:   spec.Topic.Name,
						Seed:            *spec.Seed,
						PoolSize:        spec.PoolSize,
					}
					t.Consumer.Isolation = st.Isolation.OrDefault() // the spec's, or the matrix's value
					t.Consumer.GroupProtocol = st.GroupProtocol.OrDefault()
					t.Consumer.GroupType = st.GroupType.OrDefault()
					if t.Consumer.GroupType == trial.GroupTypeShare {
						t.Consumer.Share = shareSettings(spec.Consumer.Share)
					}
					// A consumer setting at its default is left out of the trial's
					// settings, which every result carries (empty reads as the
					// default): the largest matrix's result stays under its cap.
					if st.Isolation == trial.IsolationReadUncommitted {
						t.Settings.Isolation = ""
					}
					if st.GroupProtocol == trial.GroupProtocolClassic {
						t.Settings.GroupProtocol = ""
					}
					if st.GroupType == trial.GroupTypeConsumer {
						t.Settings.GroupType = ""
					}
					if st.ConsumerClient.OrDefault() == st.Client.OrDefault() {
						t.Settings.ConsumerClient = "" // the producers' client: no client of their own
					}
					if spec.Records != nil {
						t.Records = st.Records // the spec's, or the matrix's value
					} else {
						t.DurationSeconds = *spec.DurationSeconds
					}
					if st.Idempotent && (st.Acks != trial.AcksAll || st.MaxInFlight != 1) {
						return nil, fmt.Errorf("trial %d: idempotent producer needs acks=all and maxInFlight=1, got acks=%s maxInFlight=%d", t.Index, st.Acks, st.MaxInFlight)
					}
					if st.Transactions.Enabled() && st.Acks != trial.AcksAll {
						return nil, fmt.Errorf("trial %d (%s): a transactional producer needs acks=all, got acks=%s", t.Index, st.Describe(), st.Acks)
					}
					if fault != nil && fault.Consumers != nil && fault.Consumers.Action == trial.ConsumerLeave && spec.Consumers < 2 {
						return nil, fmt.Errorf("fault %s: a consumer leaves, so the trial needs at least 2 consumers (the others finish it); it has %d", fault.Name, spec.Consumers)
					}
					if err := checkShare(t, spec); err != nil {
						return nil, fmt.Errorf("trial %d (%s): %w", t.Index, st.Describe(), err)
					}
					if err := trial.Unsupported(st); err != nil {
						return nil, fmt.Errorf("trial %d (%s): %w", t.Index, st.Describe(), err)
					}
					// Names become topic, job and pod names: a variant's slash is a dash.
					payload := fmt.Sprintf("%db", size)
					if src != nil {
						payload = "source"
					}
					t.Name = fmt.Sprintf("t%03d-%s-%s", t.Index, strings.ReplaceAll(string(codec), "/", "-"), payload)
					if fault != nil {
						f := *fault
						t.Fault = &f
						t.Name += "-" + f.Name
					}
					t.Config = t.Name
					if err := t.RuntimeUnsupported(); err != nil {
						return nil, fmt.Errorf("trial %d (%s): %w", t.Index, st.Describe(), err)
					}
					trials = append(trials, t)
				}
			}
		}
	}
	// A setting no trial uses would be ignored without a word (issue 44).
	if spec.Consumer.Share != nil && !slices.ContainsFunc(trials, func(t trial.Trial) bool { return t.Consumer.GroupType == trial.GroupTypeShare }) {
		return nil, errors.New(ShareUnused)
	}
	if err := recommend.Check(spec.Objective); err != nil {
		return nil, fmt.Errorf("spec.objective: %w", err)
	}
	var sel map[string]string
	if spec.Compare != nil {
		sel = spec.Compare.Baseline
	}
	ref, err := Reference(trials, sel)
	if err != nil {
		return nil, fmt.Errorf("spec.compare.baseline: %w", err)
	}
	trials[ref].Reference = true
	if err := report.CheckRepeatMetrics(spec.RepeatUntil); err != nil {
		return nil, fmt.Errorf("spec.repeatUntil.%w", err)
	}
	// With repeatUntil every round up to the most is planned; the rounds the
	// target makes unnecessary are skipped (NextRound).
	return Repeat(trials, spec.MaxRepetitions(), *spec.Seed), nil
}

// Reference is the index of the first trial whose every value sel names matches
// (the first trial with none): the trial the table compares the others with.
func Reference(trials []trial.Trial, sel map[string]string) (int, error) {
	keys := slices.Sorted(maps.Keys(sel))
	known := trial.ReferenceKeys()
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return 0, fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	for i, t := range trials {
		vals, err := valuesOf(t)
		if err != nil {
			return 0, err
		}
		if !slices.ContainsFunc(keys, func(k string) bool { return vals[k] != sel[k] }) {
			return i, nil
		}
	}
	var want []string
	for _, k := range keys {
		want = append(want, k+"="+sel[k])
	}
	return 0, fmt.Errorf("no trial has %s", strings.Join(want, ", "))
}

// referenceKeys are the values a reference can be picked by: the trial's codec,
// schema, size and fault, and every producer setting (api/trial.Table).

// valuesOf are a trial's values by referenceKeys, as a spec writes them.
func valuesOf(t trial.Trial) (map[string]string, error) {
	raw, err := json.Marshal(t.Settings)
	if err != nil {
		return nil, fmt.Errorf("settings of %s: %w", t.Name, err)
	}
	settings := map[string]any{}
	if err := json.Unmarshal(raw, &settings); err != nil {
		return nil, fmt.Errorf("settings of %s: %w", t.Name, err)
	}
	out := map[string]string{"codec": string(t.Codec), "schema": t.PayloadSchema(), "sizeBytes": strconv.Itoa(int(t.SizeBytes)), "fault": "none"}
	if t.Fault != nil {
		out["fault"] = t.Fault.Name
	}
	for k, v := range settings {
		if f, ok := v.(float64); ok {
			out[k] = strconv.FormatFloat(f, 'f', -1, 64) // 1000000, not 1e+06
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	// Left out at their defaults (Expand).
	out["isolation"] = string(t.Settings.Isolation.OrDefault())
	out["groupProtocol"] = string(t.Settings.GroupProtocol.OrDefault())
	out["groupType"] = string(t.Settings.GroupType.OrDefault())
	out["consumerClient"] = string(t.Settings.ClientOf(trial.SideConsumers)) // the producers' when the consumers have none of their own
	return out, nil
}

// Repeat runs every trial n times, interleaved: each round runs every trial once,
// in an order shuffled by seed (a different one each round), so drift over the
// experiment (a warming page cache, a neighbour's load, a growing log) spreads
// over all trials instead of favouring the ones that ran first. Each repetition
// is a trial of its own, named <config>-r<k>, on its own topic; Index is its
// position in the run order. One repetition leaves the plan as it is.
func Repeat(configs []trial.Trial, n int32, seed int64) []trial.Trial {
	if n <= 1 {
		return configs
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5e7de)) // #nosec G404 -- an order, not a secret
	out := make([]trial.Trial, 0, len(configs)*int(n))
	for k := range n {
		for _, i := range rng.Perm(len(configs)) {
			t := configs[i]
			t.Repetition = k + 1
			t.Name = fmt.Sprintf("%s-r%d", t.Config, t.Repetition)
			t.Index = len(out)
			out = append(out, t)
		}
	}
	return out
}

// batchOnlySet says whether set holds for one of the batch-only settings' fields of
// obj (a pointer to a struct with trial.Table's field names: the matrix, a point,
// spec.producer; nil: none).
func batchOnlySet(obj any, set func(f reflect.Value, r trial.Row) bool) bool {
	v := reflect.ValueOf(obj)
	if v.IsNil() {
		return false
	}
	for _, r := range trial.BatchOnly() {
		if set(v.Elem().FieldByName(r.Field), r) {
			return true
		}
	}
	return false
}

// ShareUnused refuses share settings that no trial uses; the CRD's rule says the
// same (api/v1alpha1, ExperimentSpec).
const ShareUnused = "consumer.share applies to share groups, and no trial has one (consumer.groupType, matrix.groupType or matrix.include): set groupType share, or remove consumer.share"

// shareSettings are a share group's effective settings from the spec's
// (defaulted; nil: every default).
func shareSettings(s *v1alpha1.ShareSpec) *trial.ShareSettings {
	var d v1alpha1.ShareSpec
	if s != nil {
		d = *s.DeepCopy() // the spec may be a cache's object: defaulted on a copy
	}
	d.Default()
	return &trial.ShareSettings{Acknowledgement: d.Acknowledgement, DeliveryCountLimit: *d.DeliveryCountLimit, ReleaseOneIn: *d.ReleaseOneIn}
}

// checkShare refuses what a share group cannot measure.
func checkShare(t trial.Trial, spec v1alpha1.ExperimentSpec) error {
	if t.Consumer.GroupType != trial.GroupTypeShare {
		return nil
	}
	switch {
	case spec.Topic.Name != "":
		// Completion is every record up to the topic's end acknowledged, and its
		// last records every producer's end records: other traffic moves both.
		return fmt.Errorf("a share group runs on a topic of its own: topic.name (an existing topic) is for consumer groups")
	case t.Consumer.Commit == trial.CommitEachRecord:
		return fmt.Errorf("a share group acknowledges records instead of committing offsets: for acknowledgements awaited before each poll set consumer.share.acknowledgement: explicit, not consumer.commit: eachRecord")
	}
	return nil
}
