package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestRepeatUntil: with spec.repeatUntil the operator stops adding rounds once
// every chosen interval is within the target. Bytes per record are the same in
// every repetition (one seed, one pool), so the target is met as soon as the 98 %
// interval exists, after 7 rounds: the eighth is skipped — no topic, no pod — and
// the experiment, its condition and the result's stopping say so.
func TestRepeatUntil(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	startManager(t, nil, k)
	create(t, experiment(ns, "until", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Codecs, x.Spec.Consumers = []trial.Codec{"protobuf"}, 1
		x.Spec.RepeatUntil = &serdebenchv1.RepeatUntil{TargetHalfWidthPercent: 1, MaxRepetitions: 8, Metrics: []string{"serializedBytesPerRecord"}}
	}))
	x := waitStage(t, ns, "until", serdebenchv1.StageSucceeded, 4*time.Minute)
	if len(x.Status.Trials) != 8 {
		t.Fatalf("%d trials planned, want 8 (the most rounds)", len(x.Status.Trials))
	}
	for i, ts := range x.Status.Trials {
		want := serdebenchv1.TrialSucceeded
		if i == 7 {
			want = serdebenchv1.TrialSkipped
		}
		if ts.Phase != want {
			t.Fatalf("trial %s: phase %s, want %s (%s)", ts.Name, ts.Phase, want, ts.Message)
		}
	}
	skipped := x.Status.Trials[7]
	if !strings.Contains(skipped.Message, "target met after 7 repetitions") {
		t.Fatalf("skipped trial's message %q", skipped.Message)
	}
	if c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionSucceeded); c == nil || c.Reason != controllers.ReasonTargetMet ||
		!strings.Contains(c.Message, "7 trials measured, 1 not needed") {
		t.Fatalf("succeeded condition %+v", c)
	}
	res := result(t, ns, "until")
	if len(res.Trials) != 7 || len(res.Statistics) != 1 || len(res.Statistics[0].Runs) != 7 {
		t.Fatalf("result: %d trials, statistics %d", len(res.Trials), len(res.Statistics))
	}
	if s := res.Stopping; s == nil || !s.Met || s.Repetitions != 7 || !strings.Contains(s.Widest, "serializedBytesPerRecord ±0.0 %") {
		t.Fatalf("stopping %+v", res.Stopping)
	}
	// The skipped round never reached Kafka or the kubelet.
	if kafkatest.Topics(t, brokers)[skipped.Topic] {
		t.Fatalf("topic %s of the skipped trial exists", skipped.Topic)
	}
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, p := range pods.Items {
		ran[p.Labels[build.LabelTrial]] = true
	}
	if len(ran) != 7 || ran[skipped.Name] {
		t.Fatalf("pods of trials %v, want the 7 measured ones", ran)
	}
}
