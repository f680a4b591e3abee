package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

func buildWorker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "worker")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build worker: %v\n%s", err, out)
	}
	return bin
}

func trialJSON(t *testing.T, records int64) (trial.Trial, string) {
	t.Helper()
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{"json"},
		Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{512}}, Records: &records, PoolSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(trials[0])
	return trials[0], string(b)
}

func TestUnreachableBrokerFailsFast(t *testing.T) {
	bin := buildWorker(t)
	_, tj := trialJSON(t, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--role", "producer", "--trial", tj, "--topic", "nowhere", "--group", "g", "--id", "0",
		"--bootstrap", promtest.FreeAddr(t), "--metrics-addr", "")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatal("worker did not give up on an unreachable broker within 60 s")
	}
	if err == nil {
		t.Fatal("worker exited 0 with no broker")
	}
	if !strings.Contains(stderr.String(), "connect to Kafka") {
		t.Fatalf("unclear error: %s", stderr.String())
	}
	t.Logf("failed after %s: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr.String()))
}

// TestSIGTERMReportsPartialAndExitsInterrupted: a producer stopped mid-run drains
// what is in flight, prints its summary marked interrupted and exits 3 (not 0: a
// partial run is not a result) within a few seconds; its /metrics carry the run's
// labels.
func TestSIGTERMReportsPartialAndExitsInterrupted(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	bin := buildWorker(t)
	tr, tj := trialJSON(t, 100_000_000)
	topic := fmt.Sprintf("serdebench.it-worker.%d", time.Now().UnixNano())
	if err := runner.CreateTopic(brokers, topic, tr); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = runner.DeleteTopic(brokers, topic) }()
	metricsAddr := promtest.FreeAddr(t)
	cmd := exec.Command(bin, "--role", "producer", "--id", "0", "--trial", tj, "--topic", topic, "--group", topic+".consumers", "--bootstrap", brokers[0],
		"--experiment", "it-worker", "--experiment-uid", "u1", "--metrics-addr", metricsAddr, "--metrics-grace", "1s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var body string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			body = string(b)
			if strings.Contains(body, "serdebench_records_total{") && !strings.Contains(body, `serdebench_records_total{codec="json",experiment="it-worker",experiment_uid="u1",group="`+topic+`.consumers",role="producer",topic="`+topic+`",trial="`+tr.Name+`",worker="0"} 0`) {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(body, `experiment="it-worker"`) || !strings.Contains(body, `role="producer"`) || !strings.Contains(body, `codec="json"`) {
		t.Fatalf("metrics lack labels or records:\n%s", body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if code := cmd.ProcessState.ExitCode(); code != protocol.ExitInterrupted {
			t.Fatalf("exit code %d after SIGTERM, want %d\n%s", code, protocol.ExitInterrupted, stderr.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("worker did not exit within 30 s of SIGTERM (drain timeout 5 s, metrics grace 1 s)")
	}
	t.Logf("exited %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	var s summary.Summary
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &s); err != nil {
		t.Fatalf("summary on stdout: %v\n%s", err, stdout.String())
	}
	if !s.Interrupted || s.Records == 0 || s.Histograms[summary.AckLatencyMicros].Count() != s.Records {
		t.Fatalf("summary: interrupted %v, records %d", s.Interrupted, s.Records)
	}
}

// TestCheckSource: `worker check-source` passes the sample schema's records through
// every codec (exit 0, the codecs and sizes in the termination log) and refuses a
// sample that does not fit the schema (exit 4, the samples line in the log), as the
// operator runs it in the worker image before a trial.
func TestCheckSource(t *testing.T) {
	bin := buildWorker(t)
	for _, c := range []struct {
		name, samples string
		code          int
		want          string
	}{
		{"valid", "../../config/samples/own-schema/orders.jsonl", protocol.ExitOK, "avro "},
		{"invalid", "../serdebench/testdata/bad-orders.jsonl", protocol.ExitInvalidSource, "samples line 3"},
	} {
		term := filepath.Join(t.TempDir(), "termination-log")
		check := protocol.SourceCheck{Source: trial.Source{Format: "avro", SchemaFile: "../../config/samples/own-schema/order.avsc",
			SamplesFile: c.samples}, Codecs: []trial.Codec{"json", "avro", "msgpack"}, TerminationLog: term}
		cmd := exec.Command(bin, check.Args()...)
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		msg, rerr := os.ReadFile(term)
		if code != c.code || rerr != nil || !strings.Contains(string(msg), c.want) {
			t.Errorf("%s: exit %d (want %d), termination log %q (want %q), %v", c.name, code, c.code, msg, c.want, rerr)
		}
	}
}
