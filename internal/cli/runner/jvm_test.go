package runner_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/jvmtest"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/registrytest"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestClientMatrixAcrossRuntimes: one experiment sweeps a Go client and the Java
// client for the producers and for the consumers (consumer.client); the local
// runner runs the Java workers as processes of the JVM worker, producers started
// together through their start gates. The codec is protobuf/registry, whose header
// the two runtimes write differently (docs/formats.md, "Schema registry"), on one
// real registry: every trial delivers what it sent (a value a consumer could not
// read, or whose schema id was not its own, fails the trial), every worker says
// what its registry requests cost and the result adds them up, each side's workers
// are its client's, the Java client's settings are its own, a Java
// trial's usage is the workers' own processes' (the runner measures only itself),
// and a trial of both runtimes has none and says why.
func TestClientMatrixAcrossRuntimes(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	records := int64(3000)
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobufRegistry},
		Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}}, Records: &records,
		Warmup: trial.Warmup{Records: 200}, Rate: v1alpha1.Rate{RecordsPerSecond: 1000}, Producers: 2, Consumers: 2, PoolSize: 32,
		Matrix: &v1alpha1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientJava}, ConsumerClient: []trial.Client{trial.ClientFranz, trial.ClientJava}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := runner.Run(ctx, trials, runner.Options{Brokers: brokers, Experiment: "it-runtimes", SchemaRegistry: registrytest.URL(t),
		Workers: map[trial.Runtime][]string{trial.RuntimeJVM: jvmtest.Worker(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	for _, r := range res {
		c, cc := r.Trial.Settings.ClientOf(trial.SideProducers), r.Trial.Settings.ClientOf(trial.SideConsumers)
		var requests int64
		// A JVM worker is a process of its own, which measures its usage; a Go one
		// runs in this process, which the runner measures.
		for _, s := range r.Summaries {
			want := c
			if s.Role == protocol.RoleConsumer {
				want = cc
			}
			if jvm := s.Usage != nil; jvm != (want == trial.ClientJava) {
				t.Fatalf("%s→%s: %s %s ran in a process of its own: %v", c, cc, s.Role, s.Worker, jvm)
			}
			// Every worker asked the registry (a producer registers, a consumer looks
			// its id up) and says what that cost. A JVM worker's own requests are two
			// (producer: register, look up its version) or one (consumer: its id);
			// more are its serdes' (the version's id; the writer's schema).
			least := int64(1)
			if jvm := s.Usage != nil; jvm && s.Role == protocol.RoleProducer {
				least = 3
			} else if jvm {
				least = 2
			}
			if s.Registry == nil || s.Registry.Requests < least || s.Registry.RequestNanos <= 0 {
				t.Fatalf("%s→%s: %s %s: registry %+v, want its requests (at least %d) and their time", c, cc, s.Role, s.Worker, s.Registry, least)
			}
			requests += s.Registry.Requests
		}
		if r.Result.Registry == nil || r.Result.Registry.Requests != requests {
			t.Fatalf("%s→%s: the result's registry cost %+v, the workers' requests %d", c, cc, r.Result.Registry, requests)
		}
		if r.Result.Lost != 0 || r.Result.Sent != 2*(records+200) || r.Result.Delivered != r.Result.Sent {
			t.Fatalf("%s: sent %d, delivered %d, lost %d", c, r.Result.Sent, r.Result.Delivered, r.Result.Lost)
		}
		if got := r.Result.ClientSettings["client"]; got != string(c) {
			t.Fatalf("%s: the result's client is %q", c, got)
		}
		if c == trial.ClientJava && r.Result.ClientSettings["kafka-clients"] != os.Getenv("KAFKA_CLIENT_VERSION") {
			t.Fatalf("java: kafka-clients %q, want %q (KAFKA_CLIENT_VERSION, which the Makefile sets)", r.Result.ClientSettings["kafka-clients"], os.Getenv("KAFKA_CLIENT_VERSION"))
		}
		if c == trial.ClientJava && r.Result.ClientSettings["batch.size"] != "16384" {
			t.Fatalf("java: settings %v: want the Java client's names", r.Result.ClientSettings)
		}
		switch {
		case c == trial.ClientJava && cc == trial.ClientJava && (r.Result.Usage == nil || r.Result.Usage.Scope != summary.ScopeWorkers):
			t.Fatalf("%s→%s: usage %+v: want the workers' own", c, cc, r.Result.Usage)
		case c != cc && (r.Result.Usage != nil || !slices.ContainsFunc(r.Result.Warnings, func(w string) bool { return strings.HasPrefix(w, "no CPU or memory usage") })):
			t.Fatalf("%s→%s: usage %+v, warnings %q: half the workers ran in the runner, half not: none, and say why", c, cc, r.Result.Usage, r.Result.Warnings)
		}
		t.Logf("%s→%s: %.0f rec/s, ack p50 %d µs, e2e p50 %d µs, %d registry requests taking %.1f ms", c, cc, r.Result.RecordsPerSecond,
			r.Result.Ack.P50, r.Result.EndToEnd.P50, requests, r.Result.Registry.RequestMillis)
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
