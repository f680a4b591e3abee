package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

const tiny = `apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata:
  name: it-cli
spec:
  codecs: [protobuf, raw]
  payload: {schema: nested, sizesBytes: [300]}
  records: 500
  warmup: {records: 50}
  consumers: 2
`

// TestRunOutputs runs the real command against the broker in every output format.
func TestRunOutputs(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	file := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(file, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(format string) string {
		cmd := rootCmd()
		var out, errOut bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs([]string{"run", "-f", file, "--bootstrap", brokers[0], "-o", format, "-q"})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, errOut.String())
		}
		return out.String()
	}

	var rep struct {
		Environment struct {
			BrokerRelease, BrokerAPIVersions, GoVersion string
			CPUs                                        int
		}
		Trials []struct {
			Trial  struct{ Codec string }
			Result struct {
				Records, Lost, Duplicated int64
				EndToEnd                  struct{ Count int64 } `json:"endToEndMicros"`
			}
		}
	}
	if err := json.Unmarshal([]byte(run("json")), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Trials) != 2 || rep.Environment.GoVersion == "" || rep.Environment.CPUs == 0 || !strings.Contains(rep.Environment.BrokerAPIVersions, "broker") || rep.Environment.BrokerRelease == "" {
		t.Fatalf("report: %+v", rep)
	}
	for _, tr := range rep.Trials {
		if tr.Result.Records != 500 || tr.Result.EndToEnd.Count != 500 || tr.Result.Lost != 0 || tr.Result.Duplicated != 0 {
			t.Fatalf("%s: %+v", tr.Trial.Codec, tr.Result)
		}
	}

	rows, err := csv.NewReader(strings.NewReader(run("csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "codec" || rows[1][0] != "protobuf" || rows[2][0] != "raw" {
		t.Fatalf("csv: %v", rows)
	}

	table := run("table")
	if !strings.Contains(table, "p50 ms") || strings.Contains(table, "E2E mean µs") || !strings.Contains(table, "protobuf") || !strings.Contains(table, "raw") ||
		!strings.Contains(table, "Recommendation per payload") {
		t.Fatalf("table:\n%s", table)
	}
	if wide := run("wide"); !strings.Contains(wide, "E2E mean µs") || !strings.Contains(wide, "p50 µs") || !strings.Contains(wide, "Client internals") {
		t.Fatalf("-o wide:\n%s", wide)
	}
}

// TestRunOverSASLAndTLS runs the real command against the broker's SASL and TLS
// listeners with the security flags.
func TestRunOverSASLAndTLS(t *testing.T) {
	kafkatest.Brokers(t)
	file := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(tiny, "codecs: [protobuf, raw]", "codecs: [avro]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, kafkatest.TLSCA(t), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERDEBENCH_SASL_USERNAME", kafkatest.SASLUser)
	t.Setenv("SERDEBENCH_SASL_PASSWORD", kafkatest.SASLPassword)
	for name, args := range map[string][]string{
		"sasl": {"--bootstrap", kafkatest.SASLBrokers(t)[0], "--sasl-mechanism", "PLAIN"},
		"tls":  {"--bootstrap", kafkatest.TLSBrokers(t)[0], "--tls", "--tls-ca-file", caFile},
	} {
		cmd := rootCmd()
		var out, errOut bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(append([]string{"run", "-f", file, "-o", "csv", "-q"}, args...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, errOut.String())
		}
		rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
		if err != nil || len(rows) != 2 || rows[1][0] != "avro" || rows[1][slices.Index(rows[0], "lost")] != "0" {
			t.Fatalf("%s: %v %v", name, rows, err)
		}
	}
}
