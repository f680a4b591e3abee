package controllers

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestEndpoints: workers are found by their container arguments, read as the
// worker reads them, an Indexed Job's index expanded, at the pod's IP and the
// worker's metrics port; pods not running yet are not.
func TestEndpoints(t *testing.T) {
	pod := func(phase corev1.PodPhase, ip, index string, containers ...corev1.Container) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pod-" + index, Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: index}},
			Spec: corev1.PodSpec{NodeName: "n1", Containers: containers}, Status: corev1.PodStatus{Phase: phase, PodIP: ip}}
	}
	c := func(role, id, addr string) corev1.Container {
		args, err := protocol.Worker{Role: role, ID: id, MetricsAddr: addr, Topic: "t", Group: "g",
			Trial: trial.Trial{Name: "t000-json-512b", Codec: "json", Partitions: 3}}.Args()
		if err != nil {
			t.Fatal(err)
		}
		return corev1.Container{Args: args}
	}
	got := endpoints([]corev1.Pod{
		pod(corev1.PodRunning, "10.0.0.5", "3", c("producer", "$(JOB_COMPLETION_INDEX)", ":9090")),
		pod(corev1.PodPending, "", "0", c("consumer", "c$(JOB_COMPLETION_INDEX)", ":9090")),
		pod(corev1.PodRunning, "10.0.0.6", "0", c("consumer", "c0", ":9090"), c("producer", "1", ":9091")),
	})
	want := []endpoint{{"p3", "ns/pod-3", true, false, "n1", "http://10.0.0.5:9090"}, {"c0", "ns/pod-0", false, false, "n1", "http://10.0.0.6:9090"},
		{"p1", "ns/pod-0", true, false, "n1", "http://10.0.0.6:9091"}}
	if len(got) != len(want) {
		t.Fatalf("endpoints %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("endpoint %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestTrialSync: window starts are compared on the operator's clock (each less
// its node's offset), and the end-to-end clock bound is the largest producer-to-
// consumer offset difference plus both uncertainties, at the start or the end;
// workers on one node bend nothing.
func TestTrialSync(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	st := &serdebenchv1.TrialStart{At: ptr.To(metav1.NewMicroTime(at)), Nodes: []serdebenchv1.NodeClock{
		{Node: "a", Workers: []string{"p0", "c0"}, OffsetMicros: 0, UncertaintyMicros: 100, EndOffsetMicros: ptr.To(int64(50)), EndUncertaintyMicros: ptr.To(int64(100))},
		{Node: "b", Workers: []string{"p1", "c1"}, OffsetMicros: 3000, UncertaintyMicros: 200, EndOffsetMicros: ptr.To(int64(4000)), EndUncertaintyMicros: ptr.To(int64(300))},
	}}
	// Node b's clock is 3 ms ahead: its producer's window began 1 ms after a's.
	sums := []*summary.Summary{
		{Role: summary.RoleProducer, Worker: "0", WindowStart: at.Add(2 * time.Second)},
		{Role: summary.RoleProducer, Worker: "1", WindowStart: at.Add(2*time.Second + 4*time.Millisecond)},
		{Role: summary.RoleConsumer, Worker: "c0"}, {Role: summary.RoleConsumer, Worker: "c1"},
	}
	s := trialSync(st, sums, &summary.Result{ProducerRatesSum: 1000.4, WindowStartSpreadMicros: 4000})
	if s.StartSpreadMicros != 1000 {
		t.Errorf("spread %d µs on the operator's clock, want 1000", s.StartSpreadMicros)
	}
	if want := int64(4000 - 50 + 100 + 300); s.ClockUncertaintyMicros != want {
		t.Errorf("clock bound %d µs, want %d (the end readings' gap)", s.ClockUncertaintyMicros, want)
	}
	if s.ProducerRatesSumPerSecond != 1000 || s.StartAt == nil || !s.StartAt.Equal(st.At) {
		t.Errorf("sync %+v", s)
	}
	one := &serdebenchv1.TrialStart{At: st.At, Nodes: []serdebenchv1.NodeClock{{Node: "a", Workers: []string{"p0", "p1", "c0", "c1"}, OffsetMicros: 7000, UncertaintyMicros: 500}}}
	if s := trialSync(one, sums, &summary.Result{}); s.ClockUncertaintyMicros != 0 {
		t.Errorf("one node: clock bound %d µs, want 0", s.ClockUncertaintyMicros)
	}
	if s := trialSync(nil, sums, &summary.Result{WindowStartSpreadMicros: 42}); s.StartAt != nil || s.StartSpreadMicros != 42 {
		t.Errorf("without a start (one clock): %+v", s)
	}
}

// TestMergeClocks: a node keeps its first reading and takes each trial's last
// end reading; a node never read after a start has no end reading.
func TestMergeClocks(t *testing.T) {
	env := mergeClocks(nil, &serdebenchv1.TrialStart{Nodes: []serdebenchv1.NodeClock{{Node: "b", OffsetMicros: 10, UncertaintyMicros: 1}}})
	env = mergeClocks(env, &serdebenchv1.TrialStart{Nodes: []serdebenchv1.NodeClock{
		{Node: "b", OffsetMicros: 20, UncertaintyMicros: 2, EndOffsetMicros: ptr.To(int64(30)), EndUncertaintyMicros: ptr.To(int64(3))},
		{Node: "a", OffsetMicros: 5, UncertaintyMicros: 1},
	}})
	if len(env) != 2 || env[0].Node != "a" || env[1].OffsetMicros != 10 || *env[1].EndOffsetMicros != 30 || env[0].EndOffsetMicros != nil {
		t.Fatalf("clocks %+v: want b's first reading and its last end reading, a without an end reading", env)
	}
}
