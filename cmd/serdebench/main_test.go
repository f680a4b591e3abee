package main

import (
	"bytes"
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
		"../../config/samples/iov-network.yaml": 36, "../../config/samples/broker-failure.yaml": 2,
		"../../config/samples/broker-restart.yaml": 4} {
		cmd := rootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"validate", "-f", f})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n := strings.Count(out.String(), "\n"); n != trials {
			t.Fatalf("%s: %d trials, want %d:\n%s", f, n, trials, out.String())
		}
	}
}
