package controllers_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestInvalidSpecsRejected: the CRD schema and its CEL rules reject bad specs at
// admission with a message naming the problem.
func TestInvalidSpecsRejected(t *testing.T) {
	ns := newNamespace(t)
	type X = serdebenchv1.SerializationExperiment
	cases := map[string]struct {
		mutate func(*X)
		want   string
	}{
		"no codecs":                    {func(x *X) { x.Spec.Codecs = nil }, "spec.codecs"},
		"unknown codec":                {func(x *X) { x.Spec.Codecs = []serdebenchv1.Codec{"xml"} }, `Unsupported value: "xml"`},
		"duplicate codec":              {func(x *X) { x.Spec.Codecs = []serdebenchv1.Codec{"json", "json"} }, "Duplicate value"},
		"unknown schema":               {func(x *X) { x.Spec.Payload.Schema = "csv" }, `spec.payload.schema: Unsupported value: "csv"`},
		"tiny size":                    {func(x *X) { x.Spec.Payload.SizesBytes = []int32{10} }, "spec.payload.sizesBytes[0]: Invalid value: 10: spec.payload.sizesBytes[0] in body should be greater than or equal to 64"},
		"records and duration":         {func(x *X) { x.Spec.DurationSeconds = ptr(int32(10)) }, "exactly one of records and durationSeconds must be set"},
		"neither records nor duration": {func(x *X) { x.Spec.Records = nil }, "exactly one of records and durationSeconds must be set"},
		"acks 2":                       {func(x *X) { x.Spec.Producer.Acks = "2" }, `spec.producer.acks: Unsupported value: "2"`},
		"unknown compression":          {func(x *X) { x.Spec.Producer.Compression = "brotli" }, `spec.producer.compression: Unsupported value: "brotli"`},
		"negative batch size":          {func(x *X) { x.Spec.Producer.BatchSizeBytes = ptr(int32(-1)) }, "spec.producer.batchSizeBytes"},
		"linger too long":              {func(x *X) { x.Spec.Producer.LingerMs = ptr(int32(70000)) }, "spec.producer.lingerMs: Invalid value: 70000"},
		"idempotent with acks 1":       {func(x *X) { x.Spec.Producer.Idempotent = ptr(true) }, "idempotent producers need acks: all and maxInFlight: 1"},
		"matrix too large": {func(x *X) {
			x.Spec.Payload.SizesBytes = []int32{100, 200, 300, 400, 500, 600, 700, 800}
			x.Spec.Matrix = &serdebenchv1.Matrix{LingerMs: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, Acks: []serdebenchv1.Acks{"1", "all"}}
		}, "the matrix expands to more than 256 trials"},
		"matrix value out of range": {func(x *X) { x.Spec.Matrix = &serdebenchv1.Matrix{LingerMs: []int32{-5}} }, "spec.matrix.lingerMs[0]"},
		"strimzi and bootstrap":     {func(x *X) { x.Spec.Kafka.BootstrapServers = "kafka:9092" }, "kafka: set exactly one of strimzi and bootstrapServers"},
		"no kafka":                  {func(x *X) { x.Spec.Kafka = serdebenchv1.KafkaSpec{} }, "kafka: set exactly one of strimzi and bootstrapServers"},
		"bad bootstrap":             {func(x *X) { x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "not a host"} }, "spec.kafka.bootstrapServers"},
		"unknown cleanup policy":    {func(x *X) { x.Spec.CleanupPolicy = "Keep" }, `spec.cleanupPolicy: Unsupported value: "Keep"`},
		"timeout too short":         {func(x *X) { x.Spec.TimeoutSeconds = 5 }, "spec.timeoutSeconds: Invalid value: 5"},
		"both warmups":              {func(x *X) { x.Spec.Warmup = serdebenchv1.Warmup{Records: 5, DurationSeconds: 5} }, "warmup.records and warmup.durationSeconds are mutually exclusive"},
		"unknown mode":              {func(x *X) { x.Spec.Mode = "stream" }, `spec.mode: Unsupported value: "stream"`},
		"too many consumers":        {func(x *X) { x.Spec.Consumers = 100 }, "spec.consumers: Invalid value: 100"},
		"zero partitions":           {func(x *X) { x.Spec.Topic.Partitions = -1 }, "spec.topic.partitions"},
		"unknown SASL mechanism": {func(x *X) {
			x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "kafka:9092", SASL: &serdebenchv1.KafkaSASL{Mechanism: "GSSAPI"}}
		}, `spec.kafka.sasl.mechanism: Unsupported value: "GSSAPI"`},
	}
	if len(cases) < 15 {
		t.Fatalf("only %d cases", len(cases))
	}
	for name, c := range cases {
		x := experiment(ns, "invalid", c.mutate)
		err := k8s.Create(context.Background(), x)
		if err == nil {
			_ = k8s.Delete(context.Background(), x)
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error does not say %q:\n%v", name, c.want, err)
		}
	}
}

// TestSamplesDryRun applies every sample with `kubectl apply --dry-run=server` to the
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
	if len(samples) < 3 {
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
