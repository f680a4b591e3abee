package experiment

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/source"
)

// ResolveSource makes a local experiment's payload.source paths relative to the
// directory of the experiment file, as the file's reader means them. A ConfigMap
// source is an error: only the operator can read one.
func ResolveSource(x *v1alpha1.SerializationExperiment, dir string) error {
	s := x.Spec.Payload.Source
	if s == nil {
		return nil
	}
	if s.ConfigMap != nil {
		return errors.New("payload.source.configMap is read by the operator in a cluster: for serdebench run, set schemaPath and samplesPath")
	}
	for _, p := range []*string{&s.SchemaPath, &s.SamplesPath} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return nil
}

// CodecSize is one codec's mean encoded size of a source's records.
type CodecSize struct {
	Codec     trial.Codec
	MeanBytes float64
}

// CheckSource checks a user's schema and samples for an experiment before a trial
// runs: every sample must fit the schema and come back equal through every codec of
// the spec. Errors name the samples file's line.
func CheckSource(spec *v1alpha1.ExperimentSpec, schema, samples []byte) ([]CodecSize, error) {
	src := spec.Payload.Source
	if src == nil {
		return nil, nil
	}
	set, err := source.Parse(trial.Source{Format: src.Format, Message: src.Message}, schema, samples)
	if err != nil {
		return nil, err
	}
	out := make([]CodecSize, 0, len(spec.Codecs))
	for _, c := range spec.Codecs {
		mean, err := codec.CheckSource(string(c), set)
		if err != nil {
			return nil, fmt.Errorf("payload source: codec %s: %w", c, err)
		}
		out = append(out, CodecSize{Codec: c, MeanBytes: mean})
	}
	return out, nil
}
