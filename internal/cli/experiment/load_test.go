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
// name the field by its path, in the API server's words, never by a Go type.
func TestStrictDecoding(t *testing.T) {
	const ok = "spec:\n  codecs: [json]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: 1\n"
	for name, c := range map[string]struct {
		doc  string
		want []string
	}{
		"unknown field":    {ok + "  recrods: 2\n", []string{"spec.recrods: unknown field"}},
		"misplaced field":  {ok + "  producer: {commit: each}\n", []string{"spec.producer.commit: unknown field"}},
		"unknown in list":  {ok + "  faults: {scenarios: [{name: a, startSeconds: 1, durationSeconds: 2, bogus: 1}]}\n", []string{"spec.faults.scenarios[0].bogus: unknown field"}},
		"unknown metadata": {"spec:\n  codecs: [json]\n", []string{"metadata.labelz: unknown field"}},
		"metadata's case":  {"spec:\n  codecs: [json]\n", []string{"metadata.Name: unknown field"}},
		"nested metadata":  {"spec:\n  codecs: [json]\n", []string{"metadata.ownerReferences[0].bogus: unknown field"}},
		"duplicate key":    {"spec:\n  codecs: [json]\n  codecs: [avro]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: 1\n", []string{`"codecs"`}},
		"wrong type":       {"spec:\n  codecs: [json]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: many\n", []string{"spec.records: Invalid value", "must be of type integer"}},
		"not a boolean":    {ok + "  faults: {baseline: \"yes\", scenarios: [{name: a, startSeconds: 1, durationSeconds: 2, network: {lossPercent: \"1\"}}]}\n", []string{"spec.faults.baseline: Invalid value", "must be of type boolean"}},
	} {
		doc := header + c.doc
		switch name {
		case "unknown metadata":
			doc = strings.Replace(doc, "metadata: {name: x}", "metadata: {name: x, labelz: {a: b}}", 1)
		case "metadata's case":
			doc = strings.Replace(doc, "metadata: {name: x}", "metadata: {Name: x}", 1)
		case "nested metadata":
			doc = strings.Replace(doc, "metadata: {name: x}", "metadata: {name: x, ownerReferences: [{bogus: 1}]}", 1)
		}
		_, err := Parse([]byte(doc))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %q, want it to say %q", name, err, w)
			}
		}
		if strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "json: ") {
			t.Errorf("%s: %q speaks of Go's decoder, not the field", name, err)
		}
	}
}
