package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInvalidFileNamesTheField runs the real command on invalid files: it must fail
// and say which field is wrong, before touching any broker.
func TestInvalidFileNamesTheField(t *testing.T) {
	t.Setenv("SERDEBENCH_FAULT_INTERFACE", "")
	t.Setenv("SERDEBENCH_FAULT_BROKER_SCRIPT", "")
	for file, field := range map[string]string{
		"testdata/bad-acks.yaml": "spec.producer.acks",
		"testdata/typo.yaml":     "lingerMillis",
		"testdata/missing.yaml":  "no such file",
		// A sample that does not fit its schema is named by line.
		"testdata/bad-source.yaml": "bad-orders.jsonl: payload source: samples line 3",
		// Valid, but not applied without the local rig, or not at all locally:
		// refused, never run without its fault.
		"testdata/faults.yaml":        "name the rig's interface with --fault-interface",
		"testdata/faults-kill.yaml":   "name it with --fault-broker-script",
		"testdata/faults-stress.yaml": "scenario cpu is a stress fault, which needs a cluster with Chaos Mesh",
	} {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs([]string{"run", "-f", file, "--bootstrap", "127.0.0.1:1"})
		err := cmd.Execute()
		if err == nil {
			t.Errorf("%s: accepted", file)
			continue
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %q does not name %s", file, err, field)
		}
	}
}

func TestSamplesAreValid(t *testing.T) {
	for f, trials := range map[string]int{"../../config/samples/thesis-batch.yaml": 12, "../../config/samples/thesis-single.yaml": 12,
		"../../config/samples/max-rate.yaml": 2, "../../config/samples/own-schema/local.yaml": 5 + 5,
		"../../config/samples/all-codecs.yaml": 16, "../../config/samples/compression-grid.yaml": 24,
		"../../config/samples/local/iov-network.yaml": 36, "../../config/samples/broker-failure.yaml": 2,
		"../../config/samples/local/broker-restart.yaml": 4, "../../config/samples/local/exactly-once.yaml": 9, "../../config/samples/local/rebalance.yaml": 4,
		"../../config/samples/tune-producer.yaml": 18 * 6} {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"validate", "-f", f})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		n := len(slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
			return strings.HasPrefix(l, "planning: ") || strings.HasPrefix(l, "payload source: ")
		}))
		if want := trials - strings.Count(out.String(), "payload source: "); n != want {
			t.Fatalf("%s: %d trials, want %d:\n%s", f, n, want, out.String())
		}
		// Each says what it can tell apart, and exactly one trial is the baseline.
		if !strings.Contains(out.String(), "planning: ") || strings.Count(out.String(), "(baseline)") < 1 {
			t.Fatalf("%s: no planning or no baseline trial:\n%s", f, out.String())
		}
	}
}

// TestValidatePlans: validate states the smallest difference the spec can find
// at 80 % power, from the default noise or a previous result's repetitions, and
// how many repetitions a table needs before it can find any.
func TestValidatePlans(t *testing.T) {
	dir := t.TempDir()
	spec := func(reps int) string {
		path := filepath.Join(dir, fmt.Sprintf("x%d.yaml", reps))
		doc := fmt.Sprintf(`apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata: {name: x}
spec:
  codecs: [json, avro, protobuf]
  payload: {schema: business-record, sizesBytes: [1176]}
  records: 1000
  repetitions: %d
  compare: {baseline: {codec: avro}}
`, reps)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	validate := func(args ...string) (string, error) { return execute(append([]string{"validate"}, args...)...) }
	out, err := validate("-f", spec(5))
	if err != nil || !strings.Contains(out, "Holm-corrected over 2 test(s): the smallest difference found with 80 % power is 14.") ||
		strings.Count(out, "(baseline)") != 5 || !strings.Contains(out, "t001-avro-1176b-r1\tbatch") {
		t.Fatalf("5 repetitions: %v\n%s", err, out)
	}
	if out, err := validate("-f", spec(3)); err != nil || !strings.Contains(out, "no difference can be found with 3 repetition(s); needs ≥ 5") {
		t.Fatalf("3 repetitions: %v\n%s", err, out)
	}
	// A previous result's repetitions: 10 % noise between them.
	prev := filepath.Join(dir, "prev.yaml")
	doc := "apiVersion: serdebench.io/v1alpha1\nkind: SerializationResult\nmetadata: {name: prev}\ntrials:\n"
	for k, rps := range []int{100000, 110000, 90000, 105000} {
		doc += fmt.Sprintf("  - {name: t000-json-1176b-r%d, config: t000-json-1176b, repetition: %d, codec: json, schema: business-record, sizeBytes: 1176, recordsPerSecond: %d, settings: {mode: batch, acks: \"1\"}}\n", k+1, k+1, rps)
	}
	if err := os.WriteFile(prev, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := validate("-f", spec(5), "--noise-from", prev); err != nil || !strings.Contains(out, "noise 8.") || !strings.Contains(out, "3 degrees of freedom") {
		t.Fatalf("--noise-from: %v\n%s", err, out)
	}
}

// execute runs the command line with args in process and returns what it wrote.
func execute(args ...string) (string, error) {
	cmd := rootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}
