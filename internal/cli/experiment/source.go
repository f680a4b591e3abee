package experiment

import (
	"errors"
	"path/filepath"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/codec"
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

// CheckSource checks a user's schema and samples for an experiment before a trial
// runs (codec.CheckSamples with the spec's source and codecs).
func CheckSource(spec *v1alpha1.ExperimentSpec, schema, samples []byte) ([]codec.Size, error) {
	src := spec.Payload.Source
	if src == nil {
		return nil, nil
	}
	return codec.CheckSamples(trial.Source{Format: src.Format, Message: src.Message}, spec.Codecs, schema, samples)
}
