package controllers_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

func ownSchemaFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../config/samples/own-schema/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sourceExperiment(ns, name, configMap string) *serdebenchv1.SerializationExperiment {
	return experiment(ns, name, func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: x.Spec.Kafka.Strimzi.BootstrapServers}
		x.Spec.Codecs = []trial.Codec{"avro", "json"}
		x.Spec.Payload = serdebenchv1.PayloadSpec{Source: &serdebenchv1.PayloadSource{Format: "avro",
			ConfigMap: &serdebenchv1.SourceConfigMap{Name: configMap, SchemaKey: "schema", SamplesKey: "samples.jsonl"}}}
	})
}

// TestPayloadSource runs a user's own Avro schema and samples from a ConfigMap: the
// operator waits for a ConfigMap that does not exist yet, then runs the trials with
// the ConfigMap mounted into the workers (as the kubelet mounts it); a ConfigMap
// whose third sample does not fit fails its experiment with the line named, before
// any topic or Job exists.
func TestPayloadSource(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	ctx := context.Background()
	// Experiment "gone" loses its ConfigMap after its first trial, once its second
	// trial's topic exists and before that trial's Jobs do.
	var deleted atomic.Bool
	k := newKubelet(t, ns, brokers)
	startManager(t, func(r *controllers.ExperimentReconciler) {
		r.AfterSideEffect = func(x *serdebenchv1.SerializationExperiment, what string) {
			if x.Name == "gone" && what == "topic ensured" && x.Status.Trials[0].Phase == serdebenchv1.TrialSucceeded && !deleted.Swap(true) {
				if err := k8s.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orders-gone"}}); err != nil {
					t.Errorf("delete ConfigMap: %v", err)
				}
			}
		}
	}, k)
	schema, samples := ownSchemaFile(t, "order.avsc"), ownSchemaFile(t, "orders.jsonl")

	create(t, sourceExperiment(ns, "own", "orders"))
	waitFor(t, 20*time.Second, "the wait for the ConfigMap", func() (bool, error) {
		c := meta.FindStatusCondition(get(t, ns, "own").Status.Conditions, serdebenchv1.ConditionAccepted)
		return c != nil && c.Reason == controllers.ReasonWaitingForSource && strings.Contains(c.Message, "orders not found"), nil
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orders"}, Data: map[string]string{"schema": schema, "samples.jsonl": samples}}
	if err := k8s.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitStage(t, ns, "own", serdebenchv1.StageSucceeded, 90*time.Second)
	res := result(t, ns, "own")
	checkResult(t, res, 2)
	for _, tr := range res.Trials {
		// The 40 orders' mean compact JSON size is 222 B; Avro is far smaller.
		if tr.Schema != "source:avro" || tr.SizeBytes < 200 || tr.SizeBytes > 240 {
			t.Fatalf("trial %s: schema %q size %d B", tr.Name, tr.Schema, tr.SizeBytes)
		}
		if tr.Codec == "avro" && tr.SerializedBytesPerRecord > 100 {
			t.Fatalf("avro orders of %d B", tr.SerializedBytesPerRecord)
		}
	}

	lines := strings.Split(samples, "\n")
	lines[2] = strings.Replace(lines[2], `"paid": `, `"paid": "no", "x": `, 1)
	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad-orders"}, Data: map[string]string{"schema": schema, "samples.jsonl": strings.Join(lines, "\n")}}
	if err := k8s.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	create(t, sourceExperiment(ns, "bad", "bad-orders"))
	x := waitStage(t, ns, "bad", serdebenchv1.StageFailed, 20*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonInvalidPayloadSource || !strings.Contains(c.Message, "samples line 3") || !strings.Contains(c.Message, "bad-orders") {
		t.Fatalf("failed condition %+v", c)
	}
	if n := len(x.Status.Trials); n != 0 {
		t.Fatalf("%d trials planned for an invalid source", n)
	}
	// The worker image found it (the operator links no codec): the check Job ran,
	// no trial's Job did.
	checked := false
	for _, j := range jobs(t, ns) {
		switch {
		case strings.HasPrefix(j.Name, "bad-") && j.Labels[build.LabelRole] == build.RoleCheck:
			checked = true
		case strings.HasPrefix(j.Name, "bad-"):
			t.Fatalf("job %s created for an invalid source", j.Name)
		}
	}
	if !checked {
		t.Fatal("no source check Job for the invalid source")
	}

	// A ConfigMap deleted mid-experiment: the next trial fails before its Jobs
	// exist (the pods would wait for the mount until the trial timeout).
	// failed runs experiment name on a copy of the ConfigMap named configMap, until
	// it fails, and returns it and its Failed condition.
	failed := func(name, configMap string, timeout time.Duration) (*serdebenchv1.SerializationExperiment, *metav1.Condition) {
		t.Helper()
		copied := cm.DeepCopy()
		copied.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: configMap}
		if err := k8s.Create(ctx, copied); err != nil {
			t.Fatal(err)
		}
		create(t, sourceExperiment(ns, name, configMap))
		x := waitStage(t, ns, name, serdebenchv1.StageFailed, timeout)
		return x, meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	}
	x, c = failed("gone", "orders-gone", 90*time.Second)
	if c == nil || c.Reason != controllers.ReasonInvalidPayloadSource || !strings.Contains(c.Message, "orders-gone not found (it was there when the experiment was accepted)") {
		t.Fatalf("failed condition %+v", c)
	}
	if x.Status.Trials[0].Phase != serdebenchv1.TrialSucceeded || x.Status.Trials[1].Phase != serdebenchv1.TrialFailed {
		t.Fatalf("trials %+v", x.Status.Trials)
	}
	waitFor(t, 20*time.Second, "the failed trial's topic removed", func() (bool, error) {
		return !kafkatest.Topics(t, brokers)[x.Status.Trials[1].Topic], nil
	})
	for _, j := range jobs(t, ns) {
		if strings.Contains(j.Name, "gone") && strings.Contains(j.Name, "-t001-") {
			t.Fatalf("job %s created after the ConfigMap was deleted", j.Name)
		}
	}

	// A check that never reached a verdict (the worker crashed before reading the
	// samples) says so in a reason of its own: it is not a verdict on the source.
	k.set(func(k *kubelet) { k.failRole = build.RoleCheck })
	if _, c = failed("crash", "orders-crashed", 20*time.Second); c == nil || c.Reason != controllers.ReasonSourceCheckFailed || !strings.Contains(c.Message, "did not finish: the worker exited with 1") {
		t.Fatalf("failed condition %+v", c)
	}
}
