package source_test

import (
	"os"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/source"
)

const dir = "../../config/samples/own-schema/"

func specs() map[string]trial.Source {
	return map[string]trial.Source{
		source.Avro:       {Format: source.Avro, SchemaFile: dir + "order.avsc", SamplesFile: dir + "orders.jsonl"},
		source.Protobuf:   {Format: source.Protobuf, Message: "Order", SchemaFile: dir + "order.proto", SamplesFile: dir + "orders.jsonl"},
		source.JSONSchema: {Format: source.JSONSchema, SchemaFile: dir + "order.schema.json", SamplesFile: dir + "orders.jsonl"},
	}
}

// TestLoadSamples: the example's 40 orders fit each of its three schemas.
func TestLoadSamples(t *testing.T) {
	for format, spec := range specs() {
		s, err := source.Load(spec)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(s.Records) != 40 || s.Lines[39] != 40 || s.Name != "Order" {
			t.Fatalf("%s: %d records, last line %d, name %q", format, len(s.Records), s.Lines[len(s.Lines)-1], s.Name)
		}
		rec := s.Records[0].(map[string]any)
		if id, ok := rec["order_id"].(int64); !ok || id != 9_000_000_000 {
			t.Fatalf("%s: order_id %#v, want int64 9000000000", format, rec["order_id"])
		}
	}
}

// TestBadLineNamed: a record that does not fit is an error naming its line, for
// every schema format, whatever else is wrong around it.
func TestBadLineNamed(t *testing.T) {
	good, err := os.ReadFile(dir + "orders.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	cases := map[string]struct {
		line string
		want string // in every format's error
	}{
		"bool as a string":  {strings.Replace(lines[6], `"paid": true`, `"paid": "yes"`, 1), "samples line 7:"},
		"not JSON":          {`{"order_id": 1,`, "samples line 7: not JSON"},
		"an array":          {`[1, 2]`, "samples line 7: a record must be a JSON object"},
		"a missing field":   {strings.Replace(lines[6], `"customer": `, `"customer_name": `, 1), "samples line 7:"},
		"qty not a number":  {strings.Replace(lines[6], `"qty": `, `"qty": "x`, 1), "samples line 7:"},
		"unknown enum name": {strings.Replace(lines[6], `"currency": "`, `"currency": "X`, 1), "samples line 7:"},
	}
	for name, c := range cases {
		bad := append(append(append([]string{}, lines[:6]...), c.line), lines[7:]...)
		// A blank line before the bad one still counts as a line.
		text := strings.Join(bad[:3], "\n") + "\n\n" + strings.Join(bad[3:], "\n")
		c.want = strings.Replace(c.want, "line 7", "line 8", 1)
		for format, spec := range specs() {
			schema, err := os.ReadFile(spec.SchemaFile)
			if err != nil {
				t.Fatal(err)
			}
			_, err = source.Parse(spec, schema, []byte(text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: got %v, want an error containing %q", name, format, err, c.want)
			}
		}
	}
}

// TestLongLineNamed: a line over the limit is named by its number, blank lines
// counted.
func TestLongLineNamed(t *testing.T) {
	spec := trial.Source{Format: source.JSONSchema}
	samples := "{\"a\": 1}\n\n\n{\"a\": \"" + strings.Repeat("x", source.MaxSampleBytes) + "\"}\n"
	if _, err := source.Parse(spec, []byte(`{}`), []byte(samples)); err == nil || !strings.Contains(err.Error(), "samples line 4: longer than") {
		t.Fatalf("got %v", err)
	}
}

func TestSchemaErrors(t *testing.T) {
	samples := []byte(`{"a": 1}` + "\n")
	for name, c := range map[string]struct {
		spec   trial.Source
		schema string
		want   string
	}{
		"avro syntax":        {trial.Source{Format: source.Avro}, `{"type": "record", "name": "X", "fields": [{"name": "a"}]}`, "schema:"},
		"proto syntax":       {trial.Source{Format: source.Protobuf}, `message X { int64 a = 1 }`, "schema:"},
		"proto two messages": {trial.Source{Format: source.Protobuf}, `syntax = "proto3"; message X { int64 a = 1; } message Y {}`, "set payload.source.message"},
		"proto no message":   {trial.Source{Format: source.Protobuf, Message: "Z"}, `syntax = "proto3"; message X { int64 a = 1; }`, `no message "Z"`},
		"json schema ref":    {trial.Source{Format: source.JSONSchema}, `{"$ref": "https://example.com/x.json"}`, "self-contained"},
		"unknown format":     {trial.Source{Format: "xsd"}, `x`, `unknown schema format "xsd"`},
	} {
		if _, err := source.Parse(c.spec, []byte(c.schema), samples); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
	if _, err := source.Parse(specs()[source.JSONSchema], []byte(`{}`), []byte("\n\n")); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("empty samples: got %v", err)
	}
	if _, err := source.Load(trial.Source{Format: source.Avro, SchemaFile: "testdata/missing.avsc"}); err == nil || !strings.Contains(err.Error(), "missing.avsc") {
		t.Errorf("missing file: got %v", err)
	}
}
