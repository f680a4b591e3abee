package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/cli/microbench"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

const micro = `apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata:
  name: it-micro
spec:
  codecs: [json, protobuf, capnproto]
  payload: {schema: business-record, sizesBytes: [1176]}
  matrix: {payloadCompression: [none, lz4]}
  records: 2000
  warmup: {records: 100}
  poolSize: 32
`

// serdebench runs the command in process with args and returns its output; an error
// fails the test with the command's stderr.
func serdebench(t *testing.T, args ...string) string {
	t.Helper()
	cmd := rootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// TestMicrobenchBesideEndToEnd runs an experiment against the broker, then the
// microbenchmark of the same file with the run's JSON: every trial gets its
// in-process figures, and each group of codecs is ranked both ways.
func TestMicrobenchBesideEndToEnd(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	dir := t.TempDir()
	file, results := filepath.Join(dir, "x.yaml"), filepath.Join(dir, "results.json")
	if err := os.WriteFile(file, []byte(micro), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(results, []byte(serdebench(t, "run", "-f", file, "--bootstrap", brokers[0], "-o", "json", "-q")), 0o644); err != nil {
		t.Fatal(err)
	}
	var rows []microbench.Row
	if err := json.Unmarshal([]byte(serdebench(t, "microbench", "-f", file, "--e2e", results, "--benchtime", "20ms", "-o", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3 codecs × 2 compressors", len(rows))
	}
	ranks := map[string][]int{}
	for _, r := range rows {
		if r.E2E == nil || r.E2E.Codec != r.Codec || r.E2E.PayloadCompression != r.PayloadCompression || r.E2E.RecordsPerSecond <= 0 {
			t.Fatalf("row %s/%s joined to %+v", r.Codec, r.PayloadCompression, r.E2E)
		}
		if r.Marshal.NsPerOp <= 0 || r.Unmarshal.NsPerOp <= 0 || r.EncodedBytes <= 0 {
			t.Fatalf("row %s/%s: %+v", r.Codec, r.PayloadCompression, r.Result)
		}
		if (r.PayloadCompression == "lz4") != (r.Compress != nil && r.CompressedBytes > 0 && r.CompressedBytes < r.EncodedBytes) {
			t.Fatalf("row %s/%s: compression %+v, %.0f B of %.0f B", r.Codec, r.PayloadCompression, r.Compress, r.CompressedBytes, r.EncodedBytes)
		}
		// Same encoding, same records: the in-process size is the end-to-end one.
		if d := r.EncodedBytes - r.E2E.SerializedBytes; d > 1 || d < -1 {
			t.Fatalf("row %s/%s: %.1f B in process, %.1f B end to end", r.Codec, r.PayloadCompression, r.EncodedBytes, r.E2E.SerializedBytes)
		}
		ranks[r.PayloadCompression+"/micro"] = append(ranks[r.PayloadCompression+"/micro"], r.MicroRank)
		ranks[r.PayloadCompression+"/e2e"] = append(ranks[r.PayloadCompression+"/e2e"], r.E2ERank)
	}
	for group, rs := range ranks {
		seen := map[int]bool{}
		for _, r := range rs {
			seen[r] = true
		}
		if !seen[1] || !seen[2] || !seen[3] {
			t.Fatalf("%s ranks %v, want 1, 2 and 3", group, rs)
		}
	}
	table := serdebench(t, "microbench", "-f", file, "--e2e", results, "--benchtime", "5ms")
	for _, want := range []string{"capnproto", "E2E REC/S", "MICRO RANK", "lz4"} {
		if !strings.Contains(table, want) {
			t.Fatalf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestReadE2E reads a SerializationResult as kubectl prints it, and refuses a file
// that is neither form.
func TestReadE2E(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "result.yaml")
	if err := os.WriteFile(res, []byte(`apiVersion: serdebench.io/v1alpha1
kind: SerializationResult
metadata: {name: x}
trials:
  - {name: t000-json-1176b, codec: json, schema: business-record, sizeBytes: 1176, recordsPerSecond: 5000, settings: {mode: batch, acks: "1", payloadCompression: zstd}}
  - {name: t001-json-source, codec: json, schema: "source:avro", sizeBytes: 222, recordsPerSecond: 7000}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := readRows(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].RecordsPerSecond != 5000 || rows[0].PayloadCompression != "zstd" || rows[0].Source || !rows[1].Source {
		t.Fatalf("rows %+v", rows)
	}
	joined := microbench.Join([]microbench.Result{{Codec: "json", Schema: "business-record", SizeBytes: 1176, PayloadCompression: "zstd"},
		{Codec: "json", Schema: "source:avro", PayloadCompression: "none"},
		{Codec: "json", Schema: "simple", SizeBytes: 1176, PayloadCompression: "zstd"}}, rows)
	if len(joined) != 2 || joined[0].E2E.RecordsPerSecond != 5000 || joined[1].E2E.RecordsPerSecond != 7000 {
		t.Fatalf("joined %+v", joined)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"items": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readRows(other); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("got %v", err)
	}
}
