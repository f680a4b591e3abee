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

// TestScheduleTemplate: a SerializationSchedule file runs as the experiment one
// of its runs creates (its template, named after it, with its labels); the file
// is admitted as a schedule first, so an error names the schedule's path.
func TestScheduleTemplate(t *testing.T) {
	x, err := Load("../../../config/samples/nightly-schedule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if x.Name != "nightly" || x.Labels["team"] != "payments" || len(x.Spec.Codecs) != 3 || x.Spec.Repetitions != 3 {
		t.Fatalf("name %q labels %v codecs %v repetitions %d", x.Name, x.Labels, x.Spec.Codecs, x.Spec.Repetitions)
	}
	const schedule = "apiVersion: serdebench.io/v1alpha1\nkind: SerializationSchedule\nmetadata: {name: s}\nspec:\n  schedule: \"0 4 * * *\"\n"
	for name, c := range map[string]struct{ doc, want string }{
		"template's field": {schedule + "  experimentTemplate:\n    spec: {codecs: [json], payload: {schema: simple, sizesBytes: [256]}, records: 1, producer: {acks: two}}\n",
			"spec.experimentTemplate.spec.producer.acks: Unsupported value"},
		"template's rule": {schedule + "  experimentTemplate:\n    spec: {codecs: [json], payload: {schema: simple, sizesBytes: [256]}}\n",
			"spec.experimentTemplate.spec: Invalid value: exactly one of records and durationSeconds must be set"},
		"schedule's field": {schedule + "  baseline: {kind: rollingMedain}\n  experimentTemplate:\n    spec: {codecs: [json], payload: {schema: simple, sizesBytes: [256]}, records: 1}\n",
			"spec.baseline.kind: Unsupported value"},
		"unknown field": {schedule + "  experimentTemplate:\n    spec: {codecs: [json], payload: {schema: simple, sizesBytes: [256]}, records: 1}\n  nightly: true\n",
			"spec.nightly: unknown field"},
		"other kind": {"apiVersion: serdebench.io/v1alpha1\nkind: SerializationResult\nmetadata: {name: r}\n",
			`kind: must be "SerializationExperiment" (or "SerializationSchedule", whose template runs), got SerializationResult`},
	} {
		_, err := Parse([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// TestLoadSchedule: a schedule file is admitted with the API's defaults; an
// experiment file is not a schedule.
func TestLoadSchedule(t *testing.T) {
	s, err := LoadSchedule("../../../config/samples/nightly-schedule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Spec.Baseline.Runs != 10 || s.Spec.Baseline.MinRuns != 3 || s.Spec.PersistenceRuns != 2 || s.Spec.Thresholds.ThroughputDropPercent != 5 {
		t.Fatalf("baseline %+v persistence %d thresholds %+v", s.Spec.Baseline, s.Spec.PersistenceRuns, s.Spec.Thresholds)
	}
	if _, err := LoadSchedule("../../../config/samples/thesis-batch.yaml"); err == nil || !strings.Contains(err.Error(), "kind SerializationSchedule") {
		t.Fatalf("an experiment file: %v", err)
	}
}
