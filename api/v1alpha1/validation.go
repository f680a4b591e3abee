package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	codecs       = []string{string(CodecJSON), string(CodecAvro), string(CodecProtobuf), string(CodecMsgpack), string(CodecRaw)}
	schemas      = []string{"business-record", "simple", "complex", "nested"}
	modes        = []string{string(ModeBatch), string(ModeSingle)}
	acks         = []string{string(AcksNone), string(AcksLeader), string(AcksAll)}
	compressions = []string{string(CompressionNone), string(CompressionGzip), string(CompressionSnappy), string(CompressionLZ4), string(CompressionZstd)}
)

// Limits on payload sizes: below the smallest record of any schema, above Kafka's
// default max.message.bytes.
const (
	MinSizeBytes = 64
	MaxSizeBytes = 1 << 20
)

// Validate checks a defaulted spec and returns every problem with its field path.
func (s *ExperimentSpec) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.Codecs) == 0 {
		errs = append(errs, field.Required(path.Child("codecs"), "at least one codec"))
	}
	for i, c := range s.Codecs {
		errs = append(errs, oneOf(path.Child("codecs").Index(i), string(c), codecs)...)
	}
	errs = append(errs, oneOf(path.Child("payload", "schema"), s.Payload.Schema, schemas)...)
	if len(s.Payload.SizesBytes) == 0 {
		errs = append(errs, field.Required(path.Child("payload", "sizesBytes"), "at least one size"))
	}
	for i, n := range s.Payload.SizesBytes {
		errs = append(errs, inRange(path.Child("payload", "sizesBytes").Index(i), int64(n), MinSizeBytes, MaxSizeBytes)...)
	}
	errs = append(errs, oneOf(path.Child("mode"), string(s.Mode), modes)...)
	errs = append(errs, s.Producer.validate(path.Child("producer"))...)
	if s.Matrix != nil {
		errs = append(errs, s.Matrix.validate(path.Child("matrix"))...)
	}
	switch {
	case s.Records == nil && s.DurationSeconds == nil:
		errs = append(errs, field.Required(path.Child("records"), "set records or durationSeconds"))
	case s.Records != nil && s.DurationSeconds != nil:
		errs = append(errs, field.Forbidden(path.Child("durationSeconds"), "records and durationSeconds are mutually exclusive"))
	case s.Records != nil:
		errs = append(errs, inRange(path.Child("records"), *s.Records, 1, 1<<40)...)
	default:
		errs = append(errs, inRange(path.Child("durationSeconds"), int64(*s.DurationSeconds), 1, 86400)...)
	}
	if s.Warmup.Records != 0 && s.Warmup.DurationSeconds != 0 {
		errs = append(errs, field.Forbidden(path.Child("warmup", "durationSeconds"), "warmup.records and warmup.durationSeconds are mutually exclusive"))
	}
	errs = append(errs, inRange(path.Child("warmup", "records"), s.Warmup.Records, 0, 1<<40)...)
	errs = append(errs, inRange(path.Child("warmup", "durationSeconds"), int64(s.Warmup.DurationSeconds), 0, 3600)...)
	errs = append(errs, inRange(path.Child("rate", "recordsPerSecond"), s.Rate.RecordsPerSecond, 0, 10_000_000)...)
	errs = append(errs, inRange(path.Child("producers"), int64(s.Producers), 1, 64)...)
	errs = append(errs, inRange(path.Child("consumers"), int64(s.Consumers), 1, 64)...)
	errs = append(errs, inRange(path.Child("topic", "partitions"), int64(s.Topic.Partitions), 1, 1024)...)
	errs = append(errs, inRange(path.Child("topic", "replicas"), int64(s.Topic.Replicas), 1, 16)...)
	errs = append(errs, inRange(path.Child("poolSize"), int64(s.PoolSize), 1, 1<<20)...)
	if n := s.TrialCount(); n > MaxTrials {
		errs = append(errs, field.TooMany(path.Child("matrix"), n, MaxTrials))
	}
	return errs
}

func (p *ProducerSettings) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.BatchSizeBytes != nil {
		errs = append(errs, inRange(path.Child("batchSizeBytes"), int64(*p.BatchSizeBytes), 0, 64<<20)...)
	}
	if p.LingerMs != nil {
		errs = append(errs, inRange(path.Child("lingerMs"), int64(*p.LingerMs), 0, 60000)...)
	}
	if p.Acks != "" {
		errs = append(errs, oneOf(path.Child("acks"), string(p.Acks), acks)...)
	}
	if p.Compression != "" {
		errs = append(errs, oneOf(path.Child("compression"), string(p.Compression), compressions)...)
	}
	if p.MaxInFlight != nil {
		errs = append(errs, inRange(path.Child("maxInFlight"), int64(*p.MaxInFlight), 1, 64)...)
	}
	if p.Idempotent != nil && *p.Idempotent {
		if p.Acks != "" && p.Acks != AcksAll {
			errs = append(errs, field.Invalid(path.Child("acks"), p.Acks, "idempotent producers need acks=all"))
		}
		if p.MaxInFlight != nil && *p.MaxInFlight != 1 {
			errs = append(errs, field.Invalid(path.Child("maxInFlight"), *p.MaxInFlight, "idempotent producers need maxInFlight=1 with sarama"))
		}
	}
	return errs
}

func (m *Matrix) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range m.BatchSizeBytes {
		errs = append(errs, inRange(path.Child("batchSizeBytes").Index(i), int64(v), 0, 64<<20)...)
	}
	for i, v := range m.LingerMs {
		errs = append(errs, inRange(path.Child("lingerMs").Index(i), int64(v), 0, 60000)...)
	}
	for i, v := range m.Acks {
		errs = append(errs, oneOf(path.Child("acks").Index(i), string(v), acks)...)
	}
	for i, v := range m.Compression {
		errs = append(errs, oneOf(path.Child("compression").Index(i), string(v), compressions)...)
	}
	for i, v := range m.MaxInFlight {
		errs = append(errs, inRange(path.Child("maxInFlight").Index(i), int64(v), 1, 64)...)
	}
	for i, v := range m.Mode {
		errs = append(errs, oneOf(path.Child("mode").Index(i), string(v), modes)...)
	}
	for i, v := range m.RecordsPerSecond {
		errs = append(errs, inRange(path.Child("recordsPerSecond").Index(i), v, 0, 10_000_000)...)
	}
	return errs
}

// TrialCount is the number of trials the spec expands into.
func (s *ExperimentSpec) TrialCount() int {
	n := len(s.Codecs) * len(s.Payload.SizesBytes)
	if m := s.Matrix; m != nil {
		for _, l := range []int{len(m.BatchSizeBytes), len(m.LingerMs), len(m.Acks), len(m.Compression), len(m.MaxInFlight), len(m.Mode), len(m.RecordsPerSecond)} {
			if l > 0 {
				n *= l
			}
		}
	}
	return n
}

func oneOf(p *field.Path, v string, allowed []string) field.ErrorList {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p, v, allowed)}
}

func inRange(p *field.Path, v, lo, hi int64) field.ErrorList {
	if v < lo || v > hi {
		return field.ErrorList{field.Invalid(p, v, fmt.Sprintf("must be between %d and %d", lo, hi))}
	}
	return nil
}
