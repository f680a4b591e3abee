package controllers_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	experimentfile "github.com/serdebench/serdebench/internal/cli/experiment"
)

// TestAdmissionTable: the API server (the CRD's schema and CEL rules) accepts and
// rejects exactly the cases `serdebench validate` does
// (internal/cli/experiment/cases_test.go runs the same table locally), naming the same
// problem.
func TestAdmissionTable(t *testing.T) {
	ns := newNamespace(t)
	cases, err := experimentfile.Cases("../internal/cli/experiment/testdata/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(c.Doc); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		obj.SetNamespace(ns)
		if !c.OwnName {
			obj.SetName(fmt.Sprintf("case-%d", i))
		}
		err := k8s.Create(context.Background(), obj)
		switch {
		case c.Reject == "" && err != nil:
			t.Errorf("%s: rejected at admission: %v", c.Name, err)
		case c.Reject != "" && err == nil:
			t.Errorf("%s: accepted at admission, want %q", c.Name, c.Reject)
		case c.Reject != "" && !strings.Contains(err.Error(), c.Reject):
			t.Errorf("%s: error does not say %q:\n%v", c.Name, c.Reject, err)
		}
		if err == nil {
			_ = k8s.Delete(context.Background(), obj)
		}
	}
}

// TestDefaultsAgree: every documented default is applied by the API server (so
// `kubectl get -o yaml` shows what will run), and the local parse and Go's Default
// produce the same spec.
func TestDefaultsAgree(t *testing.T) {
	ns := newNamespace(t)
	// Every optional field of every fault kind, unset.
	faults := &serdebenchv1.Faults{Scenarios: []trial.Fault{
		{Name: "net", StartSeconds: 2, DurationSeconds: 2, Network: &trial.NetworkFault{
			Delay: &trial.Delay{LatencyMicroseconds: 1000}, Bandwidth: &trial.Bandwidth{RateKilobitsPerSecond: 1000}}},
		{Name: "stress", StartSeconds: 2, DurationSeconds: 2, Stress: &trial.StressFault{
			CPU: &trial.CPUStress{Workers: 1}, Memory: &trial.MemoryStress{SizeMegabytes: 1}}},
		{Name: "kill", StartSeconds: 2, Pod: &trial.PodFault{Action: trial.PodKill}},
	}}
	for name, c := range map[string]struct {
		payload, extra string
		goSide         serdebenchv1.PayloadSpec
		goFaults       *serdebenchv1.Faults
	}{
		"defaults": {payload: "{schema: simple, sizesBytes: [512]}", goSide: serdebenchv1.PayloadSpec{Schema: "simple", SizesBytes: []int32{512}}},
		"source-defaults": {payload: "{source: {format: avro, configMap: {name: orders}}}",
			goSide: serdebenchv1.PayloadSpec{Source: &serdebenchv1.PayloadSource{Format: "avro", ConfigMap: &serdebenchv1.SourceConfigMap{Name: "orders"}}}},
		"fault-defaults": {payload: "{schema: simple, sizesBytes: [512]}", goSide: serdebenchv1.PayloadSpec{Schema: "simple", SizesBytes: []int32{512}},
			extra: `  faults: {scenarios: [{name: net, startSeconds: 2, durationSeconds: 2, network: {delay: {latencyMicroseconds: 1000}, bandwidth: {rateKilobitsPerSecond: 1000}}},
    {name: stress, startSeconds: 2, durationSeconds: 2, stress: {cpu: {workers: 1}, memory: {sizeMegabytes: 1}}},
    {name: kill, startSeconds: 2, pod: {action: kill}}]}
`, goFaults: faults},
	} {
		window := "  records: 1000\n"
		if c.goFaults != nil {
			window = "  durationSeconds: 10\n  intervalSeconds: 1\n"
		}
		doc := []byte(`apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata: {name: ` + name + `}
spec:
  kafka: {bootstrapServers: "kafka:9092"}
  codecs: [json]
  payload: ` + c.payload + `
` + window + c.extra)
		local, err := experimentfile.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		x := &serdebenchv1.SerializationExperiment{}
		if err := yaml.Unmarshal(doc, x); err != nil {
			t.Fatal(err)
		}
		x.Namespace = ns
		if err := k8s.Create(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		stored := get(t, ns, name)
		if diff := cmp.Diff(local.Spec, stored.Spec); diff != "" {
			t.Fatalf("%s: local parse and the API server default differently (-local +server):\n%s", name, diff)
		}
		goSide := serdebenchv1.ExperimentSpec{Codecs: []trial.Codec{"json"}, Payload: c.goSide, Records: ptr(int64(1000)), Faults: c.goFaults.DeepCopy()}
		if c.goFaults != nil {
			goSide.Records, goSide.DurationSeconds, goSide.IntervalSeconds = nil, ptr(int32(10)), 1
		}
		goSide.Default()
		if diff := cmp.Diff(goSide, stored.Spec.ExperimentSpec); diff != "" {
			t.Fatalf("%s: ExperimentSpec.Default and the CRD's defaults differ (-go +server):\n%s", name, diff)
		}
		if stored.Spec.Retries == nil || *stored.Spec.Retries != serdebenchv1.DefaultRetries || stored.Spec.CleanupPolicy != serdebenchv1.CleanupDelete || stored.Spec.TimeoutSeconds != 1800 {
			t.Fatalf("cluster defaults: retries %v cleanup %q timeout %d", stored.Spec.Retries, stored.Spec.CleanupPolicy, stored.Spec.TimeoutSeconds)
		}
	}
}

// TestSamplesDryRun applies every sample (the cluster set and config/samples/local) with `kubectl apply --dry-run=server` to the
// test apiserver, and the invalid one must be refused with a readable message.
func TestSamplesDryRun(t *testing.T) {
	ns := newNamespace(t)
	kc := adminKubeconfig(t, "sample-tester")
	kubectl := filepath.Join(testEnv.BinaryAssetsDirectory, "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("kubectl (built by hack/k8s/build.sh): %v", err)
	}
	apply := func(file string) (string, error) {
		out, err := exec.Command(kubectl, "--kubeconfig", kc, "-n", ns, "apply", "--dry-run=server", "-f", file).CombinedOutput()
		return string(out), err
	}
	samples, _ := filepath.Glob("../config/samples/*.yaml")
	locals, _ := filepath.Glob("../config/samples/local/*.yaml") // this machine's broker: valid specs all the same
	samples = append(slices.DeleteFunc(samples, func(s string) bool { return filepath.Base(s) == "kustomization.yaml" }), locals...)
	if len(samples) < 3 || len(locals) < 5 {
		t.Fatalf("found %d samples", len(samples))
	}
	for _, s := range samples {
		if out, err := apply(s); err != nil || !strings.Contains(out, "(server dry run)") {
			t.Errorf("%s: %v\n%s", s, err, out)
		}
	}
	out, err := apply("testdata/invalid-experiment.yaml")
	if err == nil {
		t.Fatalf("invalid sample accepted:\n%s", out)
	}
	for _, want := range []string{`spec.producer.acks: Unsupported value: "2"`, "spec.consumers: Invalid value: 100"} {
		if !strings.Contains(out, want) {
			t.Errorf("rejection does not say %q:\n%s", want, out)
		}
	}
	t.Logf("invalid sample rejected:\n%s", out)
}
