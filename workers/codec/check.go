package codec

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/registry"
	"github.com/serdebench/serdebench/workers/source"
)

// CheckSource encodes and decodes every record of a user's source with the named
// codec before a trial runs: each must come back equal. It returns the mean encoded
// size; errors name the samples file's line.
func CheckSource(name string, s *source.Set) (meanBytes float64, err error) {
	if format, ok := strings.CutSuffix(name, RegistrySuffix); ok {
		// The registry variant's records are its format's behind the header.
		_, schema, path, err := registered(format, payload.Type{Name: s.Name, Source: s})
		if err != nil {
			return 0, err
		}
		header := registry.HeaderBytes
		if schema.Type == registry.Protobuf {
			header += len(registry.MessageIndexes(path))
		}
		mean, err := CheckSource(format, s)
		return mean + float64(header), err
	}
	c, err := newDynamic(name, s)
	if err != nil {
		return 0, err
	}
	total := 0
	for i, rec := range s.Records {
		line := s.Lines[i]
		native, err := c.Native(rec)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		b, err := c.Marshal(nil, native)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		total += len(b)
		back, err := c.Unmarshal(b, c.NewNative())
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		want, err := c.Record(native)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		got, err := c.Record(back)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		if !reflect.DeepEqual(want, got) {
			return 0, fmt.Errorf("samples line %d: %s does not give the record back: wrote %v, read %v", line, name, want, got)
		}
	}
	return float64(total) / float64(len(s.Records)), nil
}

// Size is one codec's mean encoded size of a source's records.
type Size struct {
	Codec     trial.Codec
	MeanBytes float64
}

// CheckSamples checks a user's schema and samples before a trial runs: every
// sample must fit the schema and come back equal through every codec. Errors name
// the samples file's line.
func CheckSamples(src trial.Source, codecs []trial.Codec, schema, samples []byte) ([]Size, error) {
	set, err := source.Parse(src, schema, samples)
	if err != nil {
		return nil, err
	}
	out := make([]Size, 0, len(codecs))
	for _, c := range codecs {
		mean, err := CheckSource(string(c), set)
		if err != nil {
			return nil, fmt.Errorf("payload source: codec %s: %w", c, err)
		}
		out = append(out, Size{Codec: c, MeanBytes: mean})
	}
	return out, nil
}
