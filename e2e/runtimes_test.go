//go:build e2e

package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestRuntimes: one experiment through Strimzi sweeps a Go client and the Java
// client for the producers and for the consumers (consumer.client), so two of its
// trials write in one runtime and read in the other. The operator runs the Java
// workers' pods from the JVM worker's image (the chart's workerImage.jvm) beside the
// Go worker's, each side's from its own client's: every trial delivers what it sent
// (a worker given another runtime's client exits 2, failing its trial), is
// cross-checked with the chart's Prometheus (the JVM worker serves the same series),
// and its pods measured themselves; the Java producers' settings are the Java
// client's own, at the broker's version.
func TestRuntimes(t *testing.T) {
	x := viaStrimzi(small("runtimes", 3000, trial.CodecProtobuf))
	x.Spec.Producers, x.Spec.Consumers = 2, 2
	x.Spec.Matrix = &v1alpha1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientJava}, ConsumerClient: []trial.Client{trial.ClientFranz, trial.ClientJava}}
	create(t, x)
	x, res := succeeded(t, x.Name, 10*time.Minute)
	checkTrials(t, res, 4)
	java, mixed := 0, 0
	for _, tr := range res.Trials {
		if tr.Settings.ClientOf(trial.SideProducers).Runtime() != tr.Settings.ClientOf(trial.SideConsumers).Runtime() {
			mixed++
		}
		if tr.Settings.Client != trial.ClientJava {
			continue
		}
		java++
		if tr.ClientSettings["client"] != "java" || tr.ClientSettings["kafka-clients"] != os.Getenv("KAFKA_CLIENT_VERSION") || tr.ClientSettings["batch.size"] == "" {
			t.Errorf("%s: client settings %v, want the Java client's, kafka-clients %q (KAFKA_CLIENT_VERSION, which the Makefile sets)", tr.Name, tr.ClientSettings, os.Getenv("KAFKA_CLIENT_VERSION"))
		}
	}
	if java != 2 || mixed != 2 {
		t.Fatalf("%d trials of Java producers and %d across runtimes, want 2 and 2", java, mixed)
	}
	if ids := res.Environment.WorkerImageIDs; len(ids) != 2 {
		t.Errorf("worker image IDs %v, want the Go worker's and the JVM worker's", ids)
	}
	checkOperator(t)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}
