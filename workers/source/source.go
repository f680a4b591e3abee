// Package source loads a user's own payload (payload.source): a schema (.avsc,
// .proto or JSON Schema) and a JSON-lines file of sample records. Every sample is
// checked against the schema when it loads; a record that does not fit is an error
// naming its line. The records become the trial's payload pool, encoded by the
// codecs that can work from the schema at run time (workers/codec).
package source

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/serdebench/serdebench/api/trial"
)

// Schema formats.
const (
	Avro       = "avro"
	Protobuf   = "protobuf"
	JSONSchema = "json-schema"
)

// Limits on what one source may hold; a ConfigMap holds at most 1 MiB anyway.
const (
	MaxSamples     = 100_000
	MaxSampleBytes = 1 << 20
	MaxFileBytes   = 64 << 20
)

// Set is a loaded source: the compiled schema and the sample records.
type Set struct {
	Format string
	// Name is the record's name: the Avro record, protobuf message or JSON Schema
	// title (else "record").
	Name string
	// Avro is the Avro codec for standard JSON (unions without type wrappers), set
	// for the avro format.
	Avro *goavro.Codec
	// Message describes the protobuf message, set for the protobuf format.
	Message protoreflect.MessageDescriptor
	// Schema is the schema file's text, as a registry codec registers it.
	Schema string
	// Records are the samples as generic values (maps, slices, strings, bools, nil,
	// int64 for integers, float64 for other numbers), Lines their line numbers in the
	// samples file and JSON their compact JSON text.
	Records []any
	Lines   []int
	JSON    [][]byte
}

// Load reads and checks the files spec names.
func Load(spec trial.Source) (*Set, error) {
	schema, samples, err := ReadFiles(spec)
	if err != nil {
		return nil, err
	}
	return Parse(spec, schema, samples)
}

// ReadFiles reads the schema and samples files spec names, each at most
// MaxFileBytes.
func ReadFiles(spec trial.Source) (schema, samples []byte, err error) {
	if schema, err = readFile(spec.SchemaFile); err != nil {
		return nil, nil, err
	}
	if samples, err = readFile(spec.SamplesFile); err != nil {
		return nil, nil, err
	}
	return schema, samples, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("payload source: %w", err)
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("payload source: read %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("payload source: %s is larger than %d B", path, MaxFileBytes)
	}
	return b, nil
}

// Parse compiles the schema and checks every sample against it. Errors name the
// samples file's line.
func Parse(spec trial.Source, schema, samples []byte) (*Set, error) {
	var (
		s        *Set
		validate func(line []byte, v any) error
		err      error
	)
	switch spec.Format {
	case Avro:
		s, validate, err = avroSchema(schema)
	case Protobuf:
		s, validate, err = protoSchema(schema, spec.Message)
	case JSONSchema:
		s, validate, err = jsonSchema(schema)
	default:
		return nil, fmt.Errorf("payload source: unknown schema format %q (known: avro, protobuf, json-schema)", spec.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("payload source: schema: %w", err)
	}
	s.Format, s.Schema = spec.Format, string(schema)
	sc := bufio.NewScanner(bytes.NewReader(samples))
	sc.Buffer(make([]byte, 0, 64<<10), MaxSampleBytes+1)
	n := 0 // the line number
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(s.Records) == MaxSamples {
			return nil, fmt.Errorf("payload source: samples: more than %d records", MaxSamples)
		}
		v, compact, err := decode(line)
		if err == nil {
			err = validate(compact, v)
		}
		if err != nil {
			return nil, fmt.Errorf("payload source: samples line %d: %w", n, err)
		}
		s.Records, s.Lines, s.JSON = append(s.Records, v), append(s.Lines, n), append(s.JSON, compact)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("payload source: samples line %d: longer than %d B", n+1, MaxSampleBytes)
		}
		return nil, fmt.Errorf("payload source: samples: %w", err)
	}
	if len(s.Records) == 0 {
		return nil, errors.New("payload source: samples: no records (one JSON object per line)")
	}
	return s, nil
}

// decode parses one JSON object, keeping integers exact.
func decode(line []byte) (any, []byte, error) {
	v, err := DecodeJSON(line)
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, fmt.Errorf("a record must be a JSON object, got %s", strings.SplitN(string(line), " ", 2)[0])
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, line); err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	return v, buf.Bytes(), nil
}

// DecodeJSON reads one JSON value, integers exact, in the form records are compared
// in (Normalize).
func DecodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return Normalize(v), nil
}

// Normalize turns decoded generic values into the forms records are compared in:
// json.Number becomes int64 when it is an integer that fits, else float64; other
// integer and float types widen to int64 and float64; maps with string keys become
// map[string]any. It changes maps and slices in place.
func Normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = Normalize(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = Normalize(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = Normalize(e)
		}
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= 1<<63-1 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	}
	return v
}
