// Package payload holds serdebench's built-in record schemas and their seeded,
// deterministic generators. A record is a pointer to a Go struct: the logical record
// that every codec encodes. Sizes are the size of the record's JSON encoding.
package payload

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/source"
)

// Type is one concrete record type.
type Type struct {
	// Name is the Go struct and protobuf message name.
	Name string
	// New returns a new zero record (a pointer to the struct).
	New func() any
	// Proto returns a new empty protobuf message of the same shape.
	Proto func() proto.Message
	// Source is set for a user's own records (payload.source): the records are
	// generic values and only codecs that work from a schema at run time apply.
	Source *source.Set
}

// Schema is a built-in schema with a size knob.
type Schema struct {
	// Name is the name used in experiment specs.
	Name string
	// TypeFor returns the record type used for a target size.
	TypeFor func(sizeBytes int) Type
	// fill sets rec's fields from rng so that its JSON encoding is near sizeBytes.
	fill func(rng *rand.Rand, rec any, sizeBytes int) error
	// samples are a source's records, used in turn instead of generated ones.
	samples []any
	// opaque marks a record without fields (the bytes schema), which only the raw
	// codec sends.
	opaque bool
}

// FromSource is the schema of a user's own records: every size is the records' own,
// and the pool is the records in file order (the producer cycles through it).
func FromSource(s *source.Set) Schema {
	t := Type{Name: s.Name, Source: s}
	return Schema{Name: "source", TypeFor: func(int) Type { return t }, samples: s.Records}
}

var schemas = map[string]Schema{}

func register(s Schema) { schemas[s.Name] = s }

// Lookup returns the named schema.
func Lookup(name string) (Schema, error) {
	s, ok := schemas[name]
	if !ok {
		return Schema{}, fmt.Errorf("unknown payload schema %q (known: %v)", name, Names())
	}
	return s, nil
}

// Open returns the built-in schema named, or, with src, the user's own records,
// loaded and checked against their schema.
func Open(name string, src *trial.Source) (Schema, error) {
	if src == nil {
		return Lookup(name)
	}
	s, err := source.Load(*src)
	if err != nil {
		return Schema{}, err
	}
	return FromSource(s), nil
}

// Names lists the built-in schemas.
func Names() []string {
	var out []string
	for n := range schemas {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Structured lists the built-in schemas whose records have fields: the ones
// every codec encodes.
func Structured() []string {
	var out []string
	for _, n := range Names() {
		if !schemas[n].opaque {
			out = append(out, n)
		}
	}
	return out
}

// Types lists every record type of the built-in schemas, nested types first: the
// types the generated schemas of the other formats describe (hack/genformats).
func Types() []Type {
	return append(append([]Type(nil), sikeTypes...), businessTypes...)
}

// Generate returns one record of the schema for the target size.
func (s Schema) Generate(rng *rand.Rand, sizeBytes int) (any, error) {
	rec := s.TypeFor(sizeBytes).New()
	if err := s.fill(rng, rec, sizeBytes); err != nil {
		return nil, fmt.Errorf("generate %s record of %d B: %w", s.Name, sizeBytes, err)
	}
	return rec, nil
}

// Pool generates n distinct records deterministically from seed; the same arguments
// always give the same records. Workers build their pool before the measured window.
func (s Schema) Pool(seed uint64, sizeBytes, n int) ([]any, error) {
	if s.samples != nil {
		return s.samples, nil // a source's records, whatever n says
	}
	rng := rand.New(rand.NewPCG(seed, uint64(sizeBytes)))
	out := make([]any, n)
	for i := range out {
		rec, err := s.Generate(rng, sizeBytes)
		if err != nil {
			return nil, err
		}
		out[i] = rec
	}
	return out, nil
}

// ProducerSeed is the seed of producer id's pool in a trial seeded with seed: each
// producer of a trial sends records of its own.
func ProducerSeed(seed int64, id int) uint64 { return uint64(seed) + uint64(id)<<32 }

// JSONSize is the size of rec's encoding/json encoding: the unit of payload sizes.
func JSONSize(rec any) int {
	b, err := json.Marshal(rec)
	if err != nil {
		panic(fmt.Sprintf("payload record does not encode as JSON: %v", err))
	}
	return len(b)
}
