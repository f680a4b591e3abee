package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareFiles compares SerializationResult files: a planted 20 % throughput drop
// of one trial is a regression (the error the command exits 3 on), naming it; the
// same run against itself is not.
func TestCompareFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, protobufRate int) string {
		path := filepath.Join(dir, name)
		doc := fmt.Sprintf(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: %s}
trials:
  - {name: t000-json-1176b, codec: json, schema: business-record, sizeBytes: 1176, recordsPerSecond: 40000, serializeNanosPerRecord: 4700, endToEndMicros: {p99: 20000}, settings: {mode: batch, acks: "1"}}
  - {name: t001-protobuf-1176b, codec: protobuf, schema: business-record, sizeBytes: 1176, recordsPerSecond: %d, serializeNanosPerRecord: 1500, endToEndMicros: {p99: 8000}, settings: {mode: batch, acks: "1"}}
`, name, protobufRate)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base, dropped := write("base.yaml", 150000), write("dropped.yaml", 120000)
	run := func(args ...string) (string, error) {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append([]string{"compare"}, args...))
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run(base, dropped)
	if !errors.Is(err, errRegressed) || !strings.Contains(err.Error(), "t001-protobuf-1176b: recordsPerSecond -20.0%") {
		t.Fatalf("got %v\n%s", err, out)
	}
	if strings.Count(out, "REGRESSED") != 1 {
		t.Fatalf("table:\n%s", out)
	}
	if out, err := run(base, base); err != nil {
		t.Fatalf("a run against itself: %v\n%s", err, out)
	}
	// A candidate that matches nothing fails the gate (exit 1), not passes it.
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: other}
trials:
  - {name: t000-json-4096b, codec: json, schema: business-record, sizeBytes: 4096, recordsPerSecond: 10000, settings: {mode: batch, acks: "1"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(base, other); err == nil || errors.Is(err, errRegressed) || !strings.Contains(err.Error(), "nothing compared") {
		t.Fatalf("nothing matched: %v\n%s", err, out)
	}
	if _, err := run(base, filepath.Join(dir, "missing.yaml"), "--kubeconfig", filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("missing file: %v", err)
	}
}
