package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestGetAndDescribe runs get and describe against a real kube-apiserver (envtest)
// with serdebench's CRDs: the lists carry the CRDs' printer columns as the server
// renders them, describe shows an experiment's stage, conditions, trials, its
// result's recommendation and its own events (not another object's), and a
// missing object is a runtime error.
func TestGetAndDescribe(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		out, err := exec.Command("../../hack/k8s/build.sh").Output()
		if err != nil {
			t.Fatalf("envtest assets (hack/k8s/build.sh): %v", err)
		}
		assets = strings.TrimSpace(string(out))
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start envtest (assets %s): %v", assets, err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "platform-engineer", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "bench"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))

	raw, err := os.ReadFile("../../config/samples/thesis-batch.yaml")
	must(err)
	x := &v1alpha1.SerializationExperiment{}
	must(yaml.Unmarshal(raw, x))
	x.Namespace = ns
	must(k8s.Create(ctx, x))
	started := metav1.NewTime(time.Now().Add(-10 * time.Minute).Truncate(time.Second))
	done := metav1.NewTime(time.Now().Add(-2 * time.Minute).Truncate(time.Second))
	x.Status = v1alpha1.SerializationExperimentStatus{
		ObservedGeneration: x.Generation, Stage: v1alpha1.StageSucceeded, TrialCount: 2, CompletedTrials: 2,
		StartTime: &started, CompletionTime: &done,
		ResultRef: &corev1.LocalObjectReference{Name: "thesis-batch"},
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Succeeded",
			Message: "2 trials measured", LastTransitionTime: done}},
		Trials: []v1alpha1.TrialStatus{
			{Name: "t000-json-1176b", Phase: v1alpha1.TrialSucceeded, Attempt: 1, StartTime: &started, CompletionTime: &done},
			{Name: "t001-protobuf-1176b", Phase: v1alpha1.TrialSucceeded, Attempt: 2, StartTime: &started, CompletionTime: &done,
				Message: "attempt 1 disrupted: pod evicted"},
		},
	}
	must(k8s.Status().Update(ctx, x))
	must(k8s.Create(ctx, &v1alpha1.SerializationResult{
		ObjectMeta: metav1.ObjectMeta{Name: "thesis-batch", Namespace: ns},
		Experiment: v1alpha1.ExperimentSnapshot{Name: x.Name, UID: string(x.UID), Generation: x.Generation, Spec: x.Spec},
		Summary:    v1alpha1.ResultSummary{Trials: 2, FastestRecordsPerSecond: 1234567},
		Recommendation: &v1alpha1.Recommendation{Objective: "the Pareto front's highest records/s", Metric: "recordsPerSecond",
			Unit: "records/s", Best: "t001-protobuf-1176b", Choices: []v1alpha1.RecommendedChoice{{For: "business-record 1176 B", Best: "t001-protobuf-1176b", Value: "101234",
				Summary: "business-record 1176 B: t001-protobuf-1176b, ahead of every other trial"}}},
	}))
	event := func(name, objName string, uid types.UID, reason, msg string) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			InvolvedObject: corev1.ObjectReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "SerializationExperiment",
				Namespace: ns, Name: objName, UID: uid},
			Reason: reason, Message: msg, Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "serdebench"},
			FirstTimestamp: done, LastTimestamp: done, Count: 1}
	}
	must(k8s.Create(ctx, event("thesis-batch.1", x.Name, x.UID, "TrialSucceeded", "trial t001-protobuf-1176b succeeded")))
	must(k8s.Create(ctx, event("other.1", "other", "0b7f4c4e-0000-4000-8000-000000000001", "TrialFailed", "not this experiment's")))
	// An earlier experiment of the same name (deleted and re-created) left this one.
	must(k8s.Create(ctx, event("thesis-batch.0", x.Name, "0b7f4c4e-0000-4000-8000-000000000002", "TrialFailed", "an earlier experiment's")))

	check := func(args []string, wantCode int, want, notWant []string) {
		t.Helper()
		out, err := execute(append(args, "--kubeconfig", kubeconfig, "-n", ns)...)
		code := exitCode(err)
		t.Logf("serdebench %s (exit %d):\n%s", strings.Join(args, " "), code, out)
		if code != wantCode {
			t.Errorf("serdebench %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("serdebench %s: no %q in\n%s", strings.Join(args, " "), w, out)
			}
		}
		for _, w := range notWant {
			if strings.Contains(out, w) {
				t.Errorf("serdebench %s: %q in\n%s", strings.Join(args, " "), w, out)
			}
		}
	}
	// The printer columns of the CRD, rendered by the server; the priority-1
	// Message column only with -o wide.
	check([]string{"get", "experiments"}, exitOK, []string{"NAME", "STAGE", "STATUS", "DONE", "TRIALS", "RESULT", "AGE", "thesis-batch", "Succeeded"},
		[]string{"MESSAGE", "2 trials measured"})
	check([]string{"get", "sx", "thesis-batch", "-o", "wide"}, exitOK, []string{"MESSAGE", "2 trials measured"}, nil)
	check([]string{"get", "results"}, exitOK, []string{"BEST", "VERDICT", "t001-protobuf-1176b", "1234567", "<none>"}, []string{"e+06"})
	check([]string{"get", "schedules"}, exitOK, []string{"No SerializationSchedules in namespace bench"}, nil)
	check([]string{"get", "experiment", "missing"}, exitError, []string{"not found"}, nil)
	check([]string{"get", "experiments", "-o", "yaml"}, exitUsage, nil, nil)
	check([]string{"describe", "experiment", "thesis-batch"}, exitOK, []string{
		"Name:", "thesis-batch", "Stage:", "Succeeded", "Trials:", "2 of 2 done", "took 8m",
		"Ready", "2 trials measured",
		"t001-protobuf-1176b", "attempt 1 disrupted: pod evicted",
		"Recommendation per payload, by the Pareto front's highest records/s:", "business-record 1176 B: t001-protobuf-1176b, ahead of every other trial",
		"TrialSucceeded", "trial t001-protobuf-1176b succeeded",
	}, []string{"not this experiment's", "an earlier experiment's"})
	check([]string{"describe", "experiment", "missing"}, exitError, []string{"not found"}, nil)
}
