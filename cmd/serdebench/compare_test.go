package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompareFiles judges SerializationResult files, oldest first: with fewer
// earlier runs than --min-runs nothing is judged (exitNotJudged, saying why); a
// planted 20 % throughput drop of one trial is Suspect on its first run (exit 0)
// and a regression on its second (exitRegressed), naming it; with
// --persistence 1 its first run regresses; steady runs do not.
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
	var steady []string
	for i, rate := range []int{150000, 147000, 153000, 149000} {
		steady = append(steady, write(fmt.Sprintf("run%d.yaml", i), rate))
	}
	dropped, again := write("dropped.yaml", 120000), write("again.yaml", 121000)
	run := func(args ...string) (string, error) { return execute(append([]string{"compare"}, args...)...) }
	if out, err := run(steady[0], dropped); exitCode(err) != exitNotJudged || !strings.Contains(err.Error(), "not judged") {
		t.Fatalf("one earlier run: %v\n%s", err, out)
	}
	out, err := run(append(slices.Clone(steady), dropped)...)
	if err != nil || !strings.Contains(out, "Suspect") || strings.Contains(out, "Regressed\n") {
		t.Fatalf("first run of the drop: %v\n%s", err, out)
	}
	out, err = run(append(slices.Clone(steady), dropped, again)...)
	// The error names the test the verdict rests on: the streak's, relative to the control.
	if exitCode(err) != exitRegressed || !strings.Contains(err.Error(), "t001-protobuf-1176b: recordsPerSecond -19.") ||
		!strings.Contains(err.Error(), "last 2 runs' mean vs the control, ≤ -") {
		t.Fatalf("got %v\n%s", err, out)
	}
	regressedRows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "t00") && strings.HasSuffix(strings.TrimSpace(l), "Regressed") {
			regressedRows++
		}
	}
	if regressedRows != 1 || !strings.Contains(out, "95 % CI") || !strings.Contains(out, "Holm") || !strings.Contains(out, "TESTED ON") ||
		!strings.Contains(out, "t000-json-1176b (control)") {
		t.Fatalf("table:\n%s", out)
	}
	if _, err := run(append(slices.Clone(steady), dropped, "--persistence", "1")...); exitCode(err) != exitRegressed {
		t.Fatalf("--persistence 1: %v", err)
	}
	if out, err := run(append(slices.Clone(steady), steady[1])...); err != nil {
		t.Fatalf("steady runs: %v\n%s", err, out)
	}
	if out, err := run(append(slices.Clone(steady), dropped, "-o", "json")...); err != nil || !strings.Contains(out, `"verdict": "Suspect"`) ||
		!strings.Contains(out, `"streakP": null`) {
		t.Fatalf("json: %v\n%s", err, out)
	}
	base := steady[0]
	// A candidate that matches nothing fails the gate (nothing judged), not passes it.
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: other}
trials:
  - {name: t000-json-4096b, codec: json, schema: business-record, sizeBytes: 4096, recordsPerSecond: 10000, settings: {mode: batch, acks: "1"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(base, other); exitCode(err) != exitNotJudged || !strings.Contains(err.Error(), "nothing compared") {
		t.Fatalf("nothing matched: %v\n%s", err, out)
	}
	if _, err := run(base, filepath.Join(dir, "missing.yaml"), "--kubeconfig", filepath.Join(dir, "none")); exitCode(err) != exitError || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestCompareNamesChanges: results whose environments differ (the Kafka release
// and kafka-clients at the fourth run, the kernel at the fifth) print each change
// beside the table, at the run it happened, and in the JSON; an older result
// that recorded nothing changes nothing.
func TestCompareNamesChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, kafka, clients, kernel string) string {
		env := ""
		if kafka != "" {
			env = fmt.Sprintf(`environment:
  kafkaRelease: %q
  software: [{name: kafka-clients, version: %q}, {name: java, version: "17.0.13+11"}]
  machines: [{node: n1, cpuModel: Xeon, kernel: %q}]
`, kafka, clients, kernel)
		}
		doc := fmt.Sprintf(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: %s}
%strials:
  - {name: t000-json-1176b, codec: json, schema: business-record, sizeBytes: 1176, recordsPerSecond: 40000, serializeNanosPerRecord: 4700, endToEndMicros: {p99: 20000}, settings: {mode: batch, acks: "1"}}
`, name, env)
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runs := []string{write("r0", "4.3", "4.3.1", "6.8"), write("r1", "", "", ""), write("r2", "4.3", "4.3.1", "6.8"),
		write("r3", "4.4", "4.4.0", "6.8"), write("r4", "4.4", "4.4.0", "6.11")}
	out, err := execute(append([]string{"compare"}, runs...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"changed: Kafka: 4.3 → 4.4 at " + runs[3], "changed: kafka-clients: 4.3.1 → 4.4.0 at " + runs[3], "changed: kernel: 6.8 → 6.11 at " + runs[4]} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "changed: "); n != 3 {
		t.Errorf("%d changes, want 3:\n%s", n, out)
	}
	out, err = execute(append([]string{"compare", "-o", "json"}, runs...)...)
	if err != nil || !strings.Contains(out, `"changes": [`) || !strings.Contains(out, "kernel: 6.8 → 6.11 at "+runs[4]) {
		t.Fatalf("json: %v\n%s", err, out)
	}
}

// TestCompareEnvironmentShifted: every trial 25 % slower, the control too, is the
// environment's move once it persists (at once for a gate): its own exit code and
// message, never exit 0 (a gate would read that as a pass) nor a trial's
// regression.
func TestCompareEnvironmentShifted(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, factor float64) string {
		return writeTwoTrials(t, dir, name, int(40000*factor), int(150000*factor))
	}
	var runs []string
	for i, f := range []float64{1, 0.99, 1.01, 1.0, 0.995} {
		runs = append(runs, write(fmt.Sprintf("run%d", i), f))
	}
	runs = append(runs, write("slow", 0.75))
	// A gate (--persistence 1) sees it at once; a nightly once it persists: the
	// first night is Suspect, as a trial's fall is.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{append([]string{"compare", "--persistence", "1"}, runs...), exitEnvironmentShifted, "EnvironmentShifted"},
		{append([]string{"compare"}, runs...), exitOK, "Suspect"},
		{append([]string{"compare"}, append(runs, write("slow-again", 0.76))...), exitEnvironmentShifted, "EnvironmentShifted"},
	} {
		out, err := execute(c.args...)
		if exitCode(err) != c.code || !strings.Contains(out, c.want) || (c.code == exitEnvironmentShifted && !strings.Contains(err.Error(), "environment shifted")) {
			t.Fatalf("%v: exit %d (%v), want %d and %s\n%s", c.args[1:3], exitCode(err), err, c.code, c.want, out)
		}
	}
}

// TestCompareImproved: one trial 25 % faster on two runs in a row, relative to
// the control, is Improved: exit 0 (a gate passes), the row says so beside the
// improvement's own test (its bound on the better side), and the JSON carries
// that test.
func TestCompareImproved(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, protobufRate int) string { return writeTwoTrials(t, dir, name, 40000, protobufRate) }
	var runs []string
	for i, rate := range []int{150000, 147000, 153000, 149000, 151000} {
		runs = append(runs, write(fmt.Sprintf("run%d", i), rate))
	}
	runs = append(runs, write("faster", 187000), write("again", 188000))
	out, err := execute(append([]string{"compare"}, runs...)...)
	if err != nil {
		t.Fatalf("exit %d: %v\n%s", exitCode(err), err, out)
	}
	improved := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "t001-protobuf-1176b") && strings.HasSuffix(strings.TrimSpace(l), "Improved") {
			improved++
			if !strings.Contains(l, "(≥ +") {
				t.Errorf("the Improved row does not print the improvement's bound: %s", l)
			}
		}
	}
	if improved != 1 || !strings.Contains(out, "Improved: each of them better than the threshold") {
		t.Fatalf("table:\n%s", out)
	}
	out, err = execute(append([]string{"compare", "-o", "json"}, runs...)...)
	if err != nil || !strings.Contains(out, `"verdict": "Improved"`) || !strings.Contains(out, `"improvement": {`) {
		t.Fatalf("json: %v\n%s", err, out)
	}
	// --schedule judges with the schedule's options (the sample's: 10 baseline
	// runs, throughput −5 %); a flag set explicitly overrides its one.
	const sample = "../../config/samples/nightly-schedule.yaml"
	for args, want := range map[string]string{"": "tested against up to 10 earlier runs", "--baseline-runs=4": "tested against up to 4 earlier runs"} {
		cmd := append([]string{"compare", "--schedule", sample, "-o", "json"}, runs...)
		if args != "" {
			cmd = append(cmd, args)
		}
		out, err := execute(cmd...)
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, `"verdict": "Improved"`) {
			t.Fatalf("--schedule %s: %v, want %q\n%s", args, err, want, out)
		}
	}
	if _, err := execute(append([]string{"compare", "--schedule", "../../config/samples/thesis-batch.yaml"}, runs...)...); exitCode(err) != exitUsage {
		t.Fatalf("--schedule of an experiment file: exit %d (%v), want a usage error", exitCode(err), err)
	}
}

// writeTwoTrials writes a SerializationResult of two trials (json, protobuf) at
// the records/s given into dir and returns its path.
func writeTwoTrials(t *testing.T, dir, name string, jsonRate, protobufRate int) string {
	t.Helper()
	doc := fmt.Sprintf(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: %s}
trials:
  - {name: t000-json-1176b, codec: json, schema: business-record, sizeBytes: 1176, recordsPerSecond: %d, serializeNanosPerRecord: 4700, endToEndMicros: {p99: 20000}, settings: {mode: batch, acks: "1"}}
  - {name: t001-protobuf-1176b, codec: protobuf, schema: business-record, sizeBytes: 1176, recordsPerSecond: %d, serializeNanosPerRecord: 1500, endToEndMicros: {p99: 8000}, settings: {mode: batch, acks: "1"}}
`, name, jsonRate, protobufRate)
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
