package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/jvmtest"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestClientMatrixAcrossRuntimes: one experiment sweeps a Go client and the Java
// client; the local runner runs the Java trials' workers as processes of the JVM
// worker, started together through their start gates. Every trial delivers what it
// sent, the Java client's settings are its own, and its usage is the workers'
// own processes' (the runner measures only itself).
func TestClientMatrixAcrossRuntimes(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	records := int64(3000)
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecAvro},
		Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}}, Records: &records,
		Warmup: trial.Warmup{Records: 200}, Rate: v1alpha1.Rate{RecordsPerSecond: 1000}, Producers: 2, Consumers: 2, PoolSize: 32,
		Matrix: &v1alpha1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientJava}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := runner.Run(ctx, trials, runner.Options{Brokers: brokers, Experiment: "it-runtimes",
		Workers: map[trial.Runtime][]string{trial.RuntimeJVM: jvmtest.Worker(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for _, r := range res {
		c := r.Trial.Settings.Client
		if r.Result.Lost != 0 || r.Result.Sent != 2*(records+200) || r.Result.Delivered != r.Result.Sent {
			t.Fatalf("%s: sent %d, delivered %d, lost %d", c, r.Result.Sent, r.Result.Delivered, r.Result.Lost)
		}
		if got := r.Result.ClientSettings["client"]; got != string(c) {
			t.Fatalf("%s: the result's client is %q", c, got)
		}
		if c == trial.ClientJava {
			if r.Result.ClientSettings["batch.size"] != "16384" || r.Result.Usage == nil || r.Result.Usage.Scope == summary.ScopeProcess {
				t.Fatalf("java: settings %v, usage %+v: want the Java client's names and the workers' own usage", r.Result.ClientSettings, r.Result.Usage)
			}
		}
		t.Logf("%s: %.0f rec/s, ack p50 %d µs, e2e p50 %d µs", c, r.Result.RecordsPerSecond, r.Result.Ack.P50, r.Result.EndToEnd.P50)
	}
}

// TestJVMWorkerMissing: a Java trial without the JVM worker fails with what to do.
func TestJVMWorkerMissing(t *testing.T) {
	t.Setenv(runner.JVMWorkerEnv, "")
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecJSON}, Client: trial.ClientJava,
		Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{200}}, Records: ptr(int64(10))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: []string{"127.0.0.1:1"}, Experiment: "it-missing"})
	if err == nil || !strings.Contains(err.Error(), "make worker-jvm") {
		t.Fatalf("error %v, want one saying how to build the JVM worker", err)
	}
}
