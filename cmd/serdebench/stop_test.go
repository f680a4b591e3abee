package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// runJSON runs `serdebench run -o json` in-process and returns the report's topics
// and its environment.
func runJSON(t *testing.T, doc string, args ...string) (topics []string, env report.Environment) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := rootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"run", "-f", file, "-o", "json", "-q"}, args...))
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep struct {
		Environment report.Environment
		Trials      []struct{ Topic string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Trials {
		topics = append(topics, tr.Topic)
	}
	return topics, rep.Environment
}

// TestCleanupPolicyLocally: topics go after each trial by default; cleanupPolicy
// Retain and --keep-topics keep them. The environment names the broker's release
// and protocol levels.
func TestCleanupPolicyLocally(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	base := strings.Replace(tiny, "codecs: [protobuf, raw]", "codecs: [raw]", 1)
	line := kafkatest.Line(t)
	for name, c := range map[string]struct {
		doc  string
		args []string
		keep bool
	}{
		"default":       {doc: base},
		"Retain":        {doc: base + "  cleanupPolicy: Retain\n", keep: true},
		"--keep-topics": {doc: base, args: []string{"--keep-topics"}, keep: true},
	} {
		topics, broker := runJSON(t, c.doc, append([]string{"--bootstrap", brokers[0], "--broker-version", "3.9.0"}, c.args...)...)
		if len(topics) != 1 {
			t.Fatalf("%s: topics %v", name, topics)
		}
		if got := kafkatest.Topics(t, brokers)[topics[0]]; got != c.keep {
			t.Errorf("%s: topic %s exists after the run: %v, want %v", name, topics[0], got, c.keep)
		}
		// The broker's own word, not the flag's (which names a broker that says nothing).
		if !strings.HasPrefix(broker.BrokerRelease, line+" (metadata.version ") || !strings.HasPrefix(broker.BrokerAPIVersions, "1 broker(s), produce v") {
			t.Errorf("%s: broker release %q, API versions %q", name, broker.BrokerRelease, broker.BrokerAPIVersions)
		}
		if c.keep {
			a, err := sarama.NewClusterAdmin(brokers, sarama.NewConfig())
			if err != nil {
				t.Fatal(err)
			}
			_ = a.DeleteTopic(topics[0])
			_ = a.Close()
		}
	}
	// Without --broker-version the release is the broker's word all the same.
	if _, broker := runJSON(t, base, "--bootstrap", brokers[0], "--broker-version", ""); !strings.HasPrefix(broker.BrokerRelease, line+" (metadata.version ") {
		t.Errorf("broker release without --broker-version: %q, want Kafka %s's line", broker.BrokerRelease, line)
	}
}

// TestSIGTERMStopsRunWithinSeconds: SIGTERM during a long trial ends `serdebench run`
// within seconds, with a clear message and exit code 3 — not a hang, not success —
// whether its workers speak sarama or librdkafka (C threads of its own, which must
// stop too).
func TestSIGTERMStopsRunWithinSeconds(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	bin := filepath.Join(t.TempDir(), "serdebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, client := range []string{"sarama", "librdkafka"} {
		t.Run(client, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.yaml")
			long := strings.Replace(tiny, "records: 500", "records: 100000000", 1) + "  producer: {lingerMs: 0, batchSizeBytes: 65536}\n  client: " + client + "\n"
			if err := os.WriteFile(file, []byte(long), 0o644); err != nil {
				t.Fatal(err)
			}
			stopsWithinSeconds(t, bin, file, brokers)
		})
	}
}

func stopsWithinSeconds(t *testing.T, bin, file string, brokers []string) {
	t.Helper()
	before := kafkatest.Topics(t, brokers)
	cmd := exec.Command(bin, "run", "-f", file, "--bootstrap", brokers[0], "-q")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails before its signal must not leave the run writing to the
	// shared broker.
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // ErrProcessDone once waited for
	// Well into the trial: its measured records are on the broker.
	kafkatest.WaitForRecords(t, brokers, before, "sx.it-cli.", 1000, time.Minute)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("serdebench run still running 30 s after SIGTERM\n%s", stderr.String())
	}
	took := time.Since(signalled)
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit code %d, want %d\n%s", code, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "WorkerInterrupted") {
		t.Fatalf("unclear message:\n%s", stderr.String())
	}
	t.Logf("stopped %s after SIGTERM: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
}
