// Package plan expands an experiment spec into its trials: one per combination of
// codec, payload size and matrix value, each with fully resolved settings.
package plan

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/source"
	"github.com/serdebench/serdebench/workers/trial"
)

// Expand defaults a copy of spec and returns its trials in a stable order: codecs
// outermost, then sizes, then matrix dimensions in declaration order.
func Expand(spec v1alpha1.ExperimentSpec) ([]trial.Trial, error) {
	spec = *spec.DeepCopy()
	spec.Default()
	// Admission (the CRD schema and its CEL rules, internal/admission locally) has
	// rejected anything worse; these guard the planner's own assumptions.
	switch {
	case len(spec.Codecs) == 0 || (len(spec.Payload.SizesBytes) == 0) == (spec.Payload.Source == nil):
		return nil, fmt.Errorf("at least one codec, and payload sizes or a payload source, are needed")
	case (spec.Records == nil) == (spec.DurationSeconds == nil):
		return nil, fmt.Errorf("exactly one of records and durationSeconds must be set")
	case spec.TrialCount() > v1alpha1.MaxTrials:
		return nil, fmt.Errorf("the matrix expands to %d trials, more than %d", spec.TrialCount(), v1alpha1.MaxTrials)
	}
	base := trial.Settings{
		Mode:               spec.Mode,
		BatchSizeBytes:     *spec.Producer.BatchSizeBytes,
		LingerMs:           *spec.Producer.LingerMs,
		Acks:               spec.Producer.Acks,
		Compression:        spec.Producer.Compression,
		MaxInFlight:        *spec.Producer.MaxInFlight,
		Idempotent:         *spec.Producer.Idempotent,
		RecordsPerSecond:   spec.Rate.RecordsPerSecond,
		Client:             spec.Client,
		SendBufferBytes:    *spec.Producer.SendBufferBytes,
		ReceiveBufferBytes: *spec.Producer.ReceiveBufferBytes,
		Partitioner:        spec.Producer.Partitioner,
		PayloadCompression: spec.Payload.Compression,
	}
	consumer := trial.ConsumerSettings{
		FetchMinBytes:          *spec.Consumer.FetchMinBytes,
		FetchMaxWaitMs:         *spec.Consumer.FetchMaxWaitMs,
		MaxPartitionFetchBytes: *spec.Consumer.MaxPartitionFetchBytes,
		ReceiveBufferBytes:     *spec.Consumer.ReceiveBufferBytes,
		SendBufferBytes:        *spec.Consumer.SendBufferBytes,
	}
	variants := []trial.Settings{base}
	if m := spec.Matrix; m != nil {
		variants = sweep(variants, m.BatchSizeBytes, func(s *trial.Settings, v int32) { s.BatchSizeBytes = v })
		variants = sweep(variants, m.LingerMs, func(s *trial.Settings, v int32) { s.LingerMs = v })
		variants = sweep(variants, m.Acks, func(s *trial.Settings, v v1alpha1.Acks) { s.Acks = v })
		variants = sweep(variants, m.Compression, func(s *trial.Settings, v v1alpha1.Compression) { s.Compression = v })
		variants = sweep(variants, m.MaxInFlight, func(s *trial.Settings, v int32) { s.MaxInFlight = v })
		variants = sweep(variants, m.Mode, func(s *trial.Settings, v v1alpha1.Mode) { s.Mode = v })
		variants = sweep(variants, m.RecordsPerSecond, func(s *trial.Settings, v int64) { s.RecordsPerSecond = v })
		variants = sweep(variants, m.Client, func(s *trial.Settings, v v1alpha1.Client) { s.Client = v })
		variants = sweep(variants, m.PayloadCompression, func(s *trial.Settings, v v1alpha1.PayloadCompression) { s.PayloadCompression = v })
	}
	sizes := spec.Payload.SizesBytes
	var src *source.Spec
	if s := spec.Payload.Source; s != nil {
		sizes = []int32{0} // the samples' own
		src = &source.Spec{Format: s.Format, Message: s.Message, SchemaFile: s.SchemaPath, SamplesFile: s.SamplesPath}
	}
	var trials []trial.Trial
	for _, codec := range spec.Codecs {
		for _, size := range sizes {
			for _, st := range variants {
				t := trial.Trial{
					Index:           len(trials),
					Codec:           codec,
					Schema:          spec.Payload.Schema,
					Source:          src,
					SizeBytes:       size,
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
				if spec.Records != nil {
					t.Records = *spec.Records
				} else {
					t.DurationSeconds = *spec.DurationSeconds
				}
				if st.Idempotent && (st.Acks != v1alpha1.AcksAll || st.MaxInFlight != 1) {
					return nil, fmt.Errorf("trial %d: idempotent producer needs acks=all and maxInFlight=1, got acks=%s maxInFlight=%d", t.Index, st.Acks, st.MaxInFlight)
				}
				// Names become topic, job and pod names: a variant's slash is a dash.
				payload := fmt.Sprintf("%db", size)
				if src != nil {
					payload = "source"
				}
				t.Name = fmt.Sprintf("t%03d-%s-%s", t.Index, strings.ReplaceAll(string(codec), "/", "-"), payload)
				trials = append(trials, t)
			}
		}
	}
	return trials, nil
}

func sweep[T any](in []trial.Settings, values []T, set func(*trial.Settings, T)) []trial.Settings {
	if len(values) == 0 {
		return in
	}
	out := make([]trial.Settings, 0, len(in)*len(values))
	for _, s := range in {
		for _, v := range values {
			c := s
			set(&c, v)
			out = append(out, c)
		}
	}
	return out
}
