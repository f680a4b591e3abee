package experiment

import (
	"strings"
	"testing"
)

const header = "apiVersion: serdebench.io/v1alpha1\nkind: SerializationExperiment\nmetadata: {name: x}\n"

// TestWarmupRecordsWithDurationWindow: a record-count warmup before a timed window
// is valid; warmup.records must not leak into spec.records.
func TestWarmupRecordsWithDurationWindow(t *testing.T) {
	x, err := Parse([]byte(header + `spec:
  codecs: [json]
  payload: {schema: simple, sizesBytes: [256]}
  durationSeconds: 2
  warmup: {records: 100}
`))
	if err != nil {
		t.Fatal(err)
	}
	if x.Spec.Records != nil || x.Spec.DurationSeconds == nil || *x.Spec.DurationSeconds != 2 || x.Spec.Warmup.Records != 100 {
		t.Fatalf("records %v duration %v warmup %+v", x.Spec.Records, x.Spec.DurationSeconds, x.Spec.Warmup)
	}
}

// TestStrictDecoding: unknown fields, duplicate keys and wrong types are errors that
// name the field.
func TestStrictDecoding(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"unknown field": {"spec:\n  codecs: [json]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: 1\n  recrods: 2\n", "recrods"},
		"duplicate key": {"spec:\n  codecs: [json]\n  codecs: [avro]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: 1\n", "codecs"},
		"wrong type":    {"spec:\n  codecs: [json]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: many\n", "records"},
	} {
		_, err := Parse([]byte(header + c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %q", name, err, c.want)
		}
	}
}
