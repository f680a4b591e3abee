package controllers_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestClientsOfTwoRuntimes: one experiment sweeps a Go client and the Java client
// for the producers, with Java consumers (consumer.client) in both trials. The
// operator runs the Java workers' pods from the JVM worker's image (the test
// kubelet runs them as JVM worker processes), each side's from its client's image,
// starts the producers through the same start gate and reads the summaries as it
// reads the Go worker's: both trials deliver every record, and each trial's
// producer settings are its client's own.
func TestClientsOfTwoRuntimes(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	startManager(t, nil, k)
	create(t, experiment(ns, "runtimes", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Codecs = []trial.Codec{trial.CodecAvro}
		x.Spec.Matrix = &serdebenchv1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientJava}, ConsumerClient: []trial.Client{trial.ClientJava}}
	}))
	waitStage(t, ns, "runtimes", serdebenchv1.StageSucceeded, 3*time.Minute)
	res := result(t, ns, "runtimes")
	if len(res.Trials) != 2 {
		t.Fatalf("%d trials, want 2", len(res.Trials))
	}
	for _, tr := range res.Trials {
		c := tr.Settings.Client
		if tr.Settings.ClientOf(trial.SideConsumers) != trial.ClientJava {
			t.Fatalf("%s: consumers' client %s, want java", c, tr.Settings.ClientOf(trial.SideConsumers))
		}
		if tr.Records != 300 || tr.LostRecords != 0 || tr.DeliveredRecords != 320 || tr.EndToEndMicros.Count != 300 || tr.Sync == nil || tr.Sync.StartAt == nil {
			t.Fatalf("%s: records %d lost %d delivered %d e2e count %d sync %+v", c, tr.Records, tr.LostRecords, tr.DeliveredRecords, tr.EndToEndMicros.Count, tr.Sync)
		}
		if tr.ClientSettings["client"] != string(c) {
			t.Fatalf("%s: client settings %v", c, tr.ClientSettings)
		}
	}
}

// TestNoJVMWorkerImage: an operator without the JVM worker's image refuses a Java
// trial at acceptance, saying what it lacks, instead of running it elsewhere.
func TestNoJVMWorkerImage(t *testing.T) {
	ns := newNamespace(t)
	startManager(t, func(r *controllers.ExperimentReconciler) { r.JVMWorkerImage = "" })
	create(t, experiment(ns, "nojvm", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{trial.CodecJSON}
		x.Spec.Client = trial.ClientJava
	}))
	x := waitStage(t, ns, "nojvm", serdebenchv1.StageFailed, 30*time.Second)
	var msg string
	for _, c := range x.Status.Conditions {
		if c.Reason == controllers.ReasonInvalidSpec {
			msg = c.Message
		}
	}
	if !strings.Contains(msg, "client java runs in the JVM worker's image, which this operator was not given") {
		t.Fatalf("conditions %+v, want InvalidSpec saying the JVM image is missing", x.Status.Conditions)
	}
	// Java consumers alone need it too.
	create(t, experiment(ns, "nojvm-consumers", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{trial.CodecJSON}
		x.Spec.Consumer.Client = trial.ClientJava
	}))
	x = waitStage(t, ns, "nojvm-consumers", serdebenchv1.StageFailed, 30*time.Second)
	if c := x.Status.Conditions; !slices.ContainsFunc(c, func(c metav1.Condition) bool {
		return c.Reason == controllers.ReasonInvalidSpec && strings.Contains(c.Message, "client java runs in the JVM worker's image")
	}) {
		t.Fatalf("conditions %+v, want InvalidSpec saying the JVM image is missing", c)
	}
}
