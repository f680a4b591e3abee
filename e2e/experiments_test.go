//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// sample reads a sample experiment from config/samples and points it at the stack's
// broker through bootstrapServers (Strimzi's operator cannot run here).
func sample(t *testing.T, file, name string) *v1alpha1.SerializationExperiment {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repo, "config/samples", file))
	if err != nil {
		t.Fatal(err)
	}
	x := &v1alpha1.SerializationExperiment{}
	if err := yaml.UnmarshalStrict(raw, x); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	x.Name, x.Namespace = name, namespace
	x.Spec.Kafka = v1alpha1.KafkaSpec{BootstrapServers: stack.kafka}
	return x
}

// small is a quick experiment of the given codecs, simple records of 512 B.
func small(name string, records int64, codecs ...trial.Codec) *v1alpha1.SerializationExperiment {
	return &v1alpha1.SerializationExperiment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1alpha1.SerializationExperimentSpec{
			ExperimentSpec: v1alpha1.ExperimentSpec{Codecs: codecs, Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{512}},
				Records: &records, Producers: 1, Consumers: 1},
			Kafka:          v1alpha1.KafkaSpec{BootstrapServers: stack.kafka},
			TimeoutSeconds: 300,
		},
	}
}

func create(t *testing.T, x *v1alpha1.SerializationExperiment) {
	t.Helper()
	_ = k8s.Delete(context.Background(), x.DeepCopy()) // a leftover of an interrupted run
	waitGone(t, x.Name, 2*time.Minute)
	if err := k8s.Create(context.Background(), x); err != nil {
		t.Fatalf("create %s: %v", x.Name, err)
	}
	t.Cleanup(func() {
		// A test that failed before deleting its experiment: show it, and leave it for
		// inspection (the next run deletes it by name first).
		if t.Failed() && k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &v1alpha1.SerializationExperiment{}) == nil {
			dump(t, x.Name)
		}
	})
}

// waitStage polls until the experiment reaches Succeeded or Failed, logging each change.
func waitStage(t *testing.T, name string, timeout time.Duration) *v1alpha1.SerializationExperiment {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		x := &v1alpha1.SerializationExperiment{}
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, x)
		if err == nil {
			now := fmt.Sprintf("%s %d/%d", x.Status.Stage, x.Status.CompletedTrials, x.Status.TrialCount)
			if now != last {
				t.Logf("%s: %s", name, now)
				last = now
			}
			if x.Status.ObservedGeneration == x.Generation && (x.Status.Stage == v1alpha1.StageSucceeded || x.Status.Stage == v1alpha1.StageFailed) {
				return x
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not finished after %s (last: %s, err %v)", name, timeout, last, err)
		}
		time.Sleep(time.Second)
	}
}

func succeeded(t *testing.T, name string, timeout time.Duration) (*v1alpha1.SerializationExperiment, *v1alpha1.SerializationResult) {
	t.Helper()
	x := waitStage(t, name, timeout)
	if x.Status.Stage != v1alpha1.StageSucceeded {
		c := meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed)
		t.Fatalf("%s failed: %+v", name, c)
	}
	// What `serdebench wait` (make demo) and kstatus read: the status at the spec's
	// generation.
	if x.Status.ObservedGeneration != x.Generation {
		t.Fatalf("%s succeeded at observedGeneration %d, generation %d: serdebench wait never sees it end", name, x.Status.ObservedGeneration, x.Generation)
	}
	res := &v1alpha1.SerializationResult{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: x.Status.ResultRef.Name}, res); err != nil {
		t.Fatalf("result: %v", err)
	}
	return x, res
}

// checkTrials asserts what every measured trial must show.
func checkTrials(t *testing.T, res *v1alpha1.SerializationResult, want int) {
	t.Helper()
	if len(res.Trials) != want {
		t.Fatalf("result has %d trials, want %d", len(res.Trials), want)
	}
	for _, tr := range res.Trials {
		e := tr.EndToEndMicros
		switch {
		case tr.RecordsPerSecond <= 0:
			t.Errorf("%s: throughput %d rec/s", tr.Name, tr.RecordsPerSecond)
		case tr.LostRecords != 0 || tr.DeliveredRecords < tr.SentRecords || tr.SentRecords == 0:
			t.Errorf("%s: sent %d delivered %d lost %d", tr.Name, tr.SentRecords, tr.DeliveredRecords, tr.LostRecords)
		case e.Count == 0 || e.P50 > e.P99 || e.P99 > e.P999 || e.P999 > e.Max:
			t.Errorf("%s: end-to-end percentiles out of order: %+v", tr.Name, e)
		case tr.PrometheusRecordsDifference == nil:
			t.Errorf("%s: not cross-checked with Prometheus: %v", tr.Name, tr.Warnings)
		case tr.Resources == nil || tr.Resources.Scope != "workers" || tr.Resources.ProducerCPUNanosPerRecord <= 0 ||
			tr.Resources.ConsumerCPUNanosPerRecord <= 0 || tr.Resources.PeakRSSBytes < 1<<20 || tr.Resources.PeakHeapBytes <= 0:
			// Each worker pod measured its own process.
			t.Errorf("%s: resources %+v", tr.Name, tr.Resources)
		default:
			if d := *tr.PrometheusRecordsDifference; d*100 > tr.Records || -d*100 > tr.Records {
				t.Errorf("%s: Prometheus total differs from the summaries by %d of %d records (> 1%%)", tr.Name, d, tr.Records)
			}
		}
	}
	// The built images' digests: the Go worker's, and the JVM worker's for trials of
	// the Java client; no other image ran.
	digests := map[string]bool{}
	for _, tr := range res.Trials {
		img := stack.workerImage
		if tr.Settings.Client.Runtime() == trial.RuntimeJVM {
			img = stack.jvmWorkerImage
		}
		_, _, digest := splitImage(img)
		digests[digest] = true
	}
	ids := res.Environment.WorkerImageIDs
	ran := map[string]bool{}
	for _, id := range ids {
		_, digest, _ := strings.Cut(id, "@")
		ran[digest] = true
	}
	if len(ids) != len(digests) || !maps.Equal(ran, digests) {
		t.Errorf("result records worker image IDs %v, want the built images' digests %v", ids, slices.Collect(maps.Keys(digests)))
	}
}

// deleteAndCheckClean deletes the experiment and checks that its Jobs, pods, result
// and topics are gone.
func deleteAndCheckClean(t *testing.T, x *v1alpha1.SerializationExperiment, brokers []string) {
	t.Helper()
	var topics []string
	for _, ts := range x.Status.Trials {
		if ts.Topic != "" {
			topics = append(topics, ts.Topic)
		}
	}
	if t.Failed() {
		dump(t, x.Name) // while there is something to see
	}
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitGone(t, x.Name, 2*time.Minute)
	deadline := time.Now().Add(time.Minute)
	for {
		jobs, pods := jobsOf(t, x.Name), podsOf(t, x.Name)
		res := &v1alpha1.SerializationResult{}
		resErr := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: x.Name}, res)
		if len(jobs) == 0 && len(pods) == 0 && apierrors.IsNotFound(resErr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after deletion: %d jobs, %d pods, result err %v", len(jobs), len(pods), resErr)
		}
		time.Sleep(time.Second)
	}
	have := kafkatest.Topics(t, brokers)
	for _, tp := range topics {
		if have[tp] {
			t.Errorf("topic %s still exists after the experiment was deleted", tp)
		}
	}
}

func waitGone(t *testing.T, name string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, &v1alpha1.SerializationExperiment{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("experiment %s still there after %s (err %v)", name, timeout, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// dump logs the experiment's status, events and the operator's log tail for a failure.
func dump(t *testing.T, name string) {
	out, _ := kubectlIn("", "-n", namespace, "get", "sx", name, "-o", "yaml")
	t.Logf("experiment:\n%s", out)
	out, _ = kubectlIn("", "-n", namespace, "get", "events", "--sort-by=.lastTimestamp")
	t.Logf("events:\n%s", out)
	out, _ = kubectlIn("", "-n", namespace, "logs", "deployment/"+fullname, "--tail=60")
	t.Logf("operator log:\n%s", out)
	out, _ = kubectlIn("", "-n", namespace, "get", "pods,jobs", "-o", "wide")
	t.Logf("pods and jobs:\n%s", out)
}

// waitTrialRunning waits until the experiment's trial i runs and returns a running
// worker pod of the given role.
func waitTrialRunning(t *testing.T, name string, i int, role string) corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		x := &v1alpha1.SerializationExperiment{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, x); err == nil &&
			len(x.Status.Trials) > i && x.Status.Trials[i].Phase == v1alpha1.TrialRunning {
			for _, p := range podsOf(t, name) {
				if p.Labels["serdebench.io/role"] == role && p.Labels["serdebench.io/trial"] == x.Status.Trials[i].Name &&
					p.Status.Phase == corev1.PodRunning {
					return p
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("trial %d of %s never ran a %s pod", i, name, role)
	return corev1.Pod{}
}

// TestThesisBatch runs the thesis's batch test (reduced records) through the chart's
// operator and Strimzi's Topic Operator, and checks the result, the operator's identity and log, the CLI's table,
// and that deleting the experiment leaves nothing behind.
func TestThesisBatch(t *testing.T) {
	start := time.Now()
	// As the sample is: its topics are KafkaTopics of Strimzi cluster my-cluster,
	// made by Strimzi's Topic Operator.
	x := viaStrimzi(sample(t, "thesis-batch.yaml", "thesis-batch"))
	// Records instead of the sample's duration: records and a duration exclude each other.
	x.Spec.Records, x.Spec.DurationSeconds = ptr(int64(2000)), nil
	x.Spec.Warmup = trial.Warmup{Records: 200}
	create(t, x)
	x, res := succeeded(t, x.Name, 10*time.Minute)
	checkTrials(t, res, 12)
	t.Logf("12 trials in %s", time.Since(start).Round(time.Second))
	checkOperator(t)
	// The stack's broker is this machine's, not a pod of my-cluster: said once, in
	// the environment, and in no trial's warnings.
	if b := res.Environment.BrokerCPU; b == nil || !strings.Contains(b.NotRead, "no pod in namespace "+namespace+" matches strimzi.io/") {
		t.Errorf("environment.brokerCPU %+v: want why no broker pod's CPU was read", b)
	}
	// What ran: the API server's version, the workers' runtime and client library,
	// the nodes' kernels, as the cluster and the workers report them (on the local
	// cluster: the version it runs, one node, this host's kernel).
	env := res.Environment
	if env.KubernetesVersion == "" || !hasSoftware(env.Software, "go") || !hasSoftware(env.Software, "sarama") || len(env.Machines) == 0 {
		t.Errorf("environment: kubernetes %q, software %+v, machines %+v: want all recorded", env.KubernetesVersion, env.Software, env.Machines)
	}
	if os.Getenv("SERDEBENCH_STACK_LOCAL_CLUSTER") == "1" {
		uname, err := exec.Command("uname", "-r").Output()
		if k := os.Getenv("SERDEBENCH_K8S_VERSION"); err != nil || env.KubernetesVersion != k || len(env.Machines) != 1 || env.Machines[0].Kernel != strings.TrimSpace(string(uname)) {
			t.Errorf("local cluster: kubernetes %q (want SERDEBENCH_K8S_VERSION %q), machines %+v (want this host's kernel %s)", env.KubernetesVersion, k, env.Machines, uname)
		}
	}
	for _, tr := range res.Trials {
		if hasWarning(tr.Warnings, "broker CPU") {
			t.Errorf("%s warns of the broker CPU, which the environment says once: %v", tr.Name, tr.Warnings)
		}
	}

	// `serdebench get result` prints the same table as `serdebench run`.
	cli := filepath.Join(t.TempDir(), "serdebench")
	if out, err := exec.Command("go", "build", "-o", cli, filepath.Join(repo, "cmd/serdebench")).CombinedOutput(); err != nil {
		t.Fatalf("build CLI: %v\n%s", err, out)
	}
	out, err := exec.Command(cli, "get", "result", res.Name, "-n", namespace, "--kubeconfig", stack.kubeconfig).CombinedOutput()
	// The settings every trial shares said once above the table, a row marked per
	// payload, nothing wider than 120 columns.
	if err != nil || !strings.Contains(string(out), "Every trial: batch acks=1 snappy") || strings.Count(string(out), " acks=1 snappy") != 1 ||
		!strings.Contains(string(out), "p99 ms") || !strings.Contains(string(out), "Broker CPU: not read: no pod in namespace") ||
		!strings.Contains(string(out), "Recommendation per payload") {
		t.Fatalf("serdebench get result: %v\n%s", err, out)
	}
	_, table, _ := strings.Cut(string(out), "Every trial: ")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, l := range strings.Split(table, "\n") {
		if n := utf8.RuneCountInString(l); n > report.Width {
			t.Errorf("serdebench get result: a line of %d characters: %q", n, l)
		}
	}
	t.Logf("serdebench get result:\n%s", out)
	out, err = exec.Command(cli, "get", "result", res.Name, "-n", namespace, "--kubeconfig", stack.kubeconfig, "-o", "wide").CombinedOutput()
	main, internals, _ := strings.Cut(string(out), "Client internals")
	// The client internals' block ends at its first blank line; a stall table or
	// warnings may follow, naming trials by their settings too.
	internals, _, _ = strings.Cut(internals, "\n\n")
	if err != nil || !strings.Contains(main, "E2E mean µs") || strings.Count(main, " acks=1 snappy") != 12 ||
		strings.Count(internals, " acks=1 snappy") != 12 {
		// -o wide: 12 trials in the table, and again in the client internals under it.
		t.Fatalf("serdebench get result -o wide: %v\n%s", err, out)
	}
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestOperatorKilledMidRun kills the operator pod while a trial runs: the new pod
// finishes the experiment, every Job ran once and every trial is recorded once.
func TestOperatorKilledMidRun(t *testing.T) {
	x := small("operator-restart", 4000, "json", "protobuf")
	x.Spec.Rate.RecordsPerSecond = 500 // 8 s per trial: time to kill the operator mid-trial
	x.Spec.CleanupPolicy = v1alpha1.CleanupRetain
	create(t, x)
	waitTrialRunning(t, x.Name, 0, "producers")
	old := operatorPods(t)
	for _, p := range old {
		if err := k8s.Delete(context.Background(), &p, client.GracePeriodSeconds(0)); err != nil {
			t.Fatalf("kill operator pod %s: %v", p.Name, err)
		}
		t.Logf("killed operator pod %s", p.Name)
	}
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 2)
	for _, tr := range res.Trials {
		if tr.Attempts != 1 {
			t.Errorf("%s took %d attempts", tr.Name, tr.Attempts)
		}
	}
	jobs := jobsOf(t, x.Name)
	if len(jobs) != 4 {
		t.Fatalf("%d Jobs, want 2 per trial", len(jobs))
	}
	for _, j := range jobs {
		if j.Labels["serdebench.io/attempt"] != "1" || j.Status.Failed != 0 || j.Status.Succeeded != *j.Spec.Completions {
			t.Errorf("job %s: attempt %s, %d failed, %d of %d succeeded", j.Name, j.Labels["serdebench.io/attempt"], j.Status.Failed, j.Status.Succeeded, *j.Spec.Completions)
		}
	}
	if pods := podsOf(t, x.Name); len(pods) != 4 {
		t.Errorf("%d worker pods, want 4: a Job ran twice", len(pods))
	}
	now := operatorPods(t)
	if len(now) == 0 || now[0].UID == old[0].UID {
		t.Fatalf("operator pod was not replaced")
	}
	checkOperator(t)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestWorkerEvicted evicts a producer pod mid-trial: a disruption, so the trial runs
// again as a second attempt and the experiment succeeds.
func TestWorkerEvicted(t *testing.T) {
	x := small("worker-evicted", 6000, "avro")
	x.Spec.Rate.RecordsPerSecond = 1000
	create(t, x)
	p := waitTrialRunning(t, x.Name, 0, "producers")
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
	if err := clientset.PolicyV1().Evictions(namespace).Evict(context.Background(), ev); err != nil {
		t.Fatalf("evict %s: %v", p.Name, err)
	}
	t.Logf("evicted %s", p.Name)
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 1)
	if res.Trials[0].Attempts != 2 {
		t.Errorf("trial took %d attempts, want 2 (the evicted one and its retry)", res.Trials[0].Attempts)
	}
	checkOperator(t)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestWorkerKilled deletes a producer pod mid-trial: not a disruption the cluster
// reports, so the interrupted worker fails the trial with a reason that says so.
func TestWorkerKilled(t *testing.T) {
	x := small("worker-killed", 6000, "msgpack")
	x.Spec.Rate.RecordsPerSecond = 1000
	create(t, x)
	p := waitTrialRunning(t, x.Name, 0, "producers")
	if err := k8s.Delete(context.Background(), &p); err != nil {
		t.Fatalf("delete %s: %v", p.Name, err)
	}
	x = waitStage(t, x.Name, 3*time.Minute)
	c := meta.FindStatusCondition(x.Status.Conditions, v1alpha1.ConditionFailed)
	if x.Status.Stage != v1alpha1.StageFailed || c == nil || c.Status != metav1.ConditionTrue || c.Reason == "" || !strings.Contains(c.Message, "deleted while it ran") {
		t.Fatalf("stage %s, Failed condition %+v", x.Status.Stage, c)
	}
	t.Logf("failed as it should: %s: %s", c.Reason, c.Message)
	checkOperator(t)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestColocated runs two producers and two consumers in one pod: every container has
// its own metrics port, and Prometheus (through the PodMonitor) scraped them all.
// They speak librdkafka: the worker image's static musl build of it works in a pod.
func TestColocated(t *testing.T) {
	x := small("colocated", 3000, "protobuf")
	x.Spec.Producers, x.Spec.Consumers = 2, 2
	x.Spec.Workers.Colocate = true
	x.Spec.Client = trial.ClientRdkafka
	create(t, x)
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 1)
	if tr := res.Trials[0]; tr.Producers != 2 || tr.Consumers != 2 || tr.ClientSettings["client"] != "librdkafka" || tr.Client == nil {
		t.Errorf("trial ran %d producers, %d consumers with client settings %v, internals %+v", tr.Producers, tr.Consumers, tr.ClientSettings, tr.Client)
	}
	checkOperator(t)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestSecureKafka runs against the broker's SASL (PLAIN) and TLS listeners with the
// credentials and the CA in Secrets, which the operator reads under the chart's
// namespaced RBAC.
func TestSecureKafka(t *testing.T) {
	ca, err := os.ReadFile(stack.kafkaCA)
	if err != nil {
		t.Fatalf("broker CA: %v", err)
	}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "kafka-sasl", Namespace: namespace}, StringData: map[string]string{"username": "serdebench", "password": "serdebench-secret"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "kafka-ca", Namespace: namespace}, Data: map[string][]byte{"ca.crt": ca}},
	} {
		_ = k8s.Delete(context.Background(), s.DeepCopy())
		if err := k8s.Create(context.Background(), s); err != nil {
			t.Fatalf("secret %s: %v", s.Name, err)
		}
	}
	sasl := small("kafka-sasl", 2000, "json")
	sasl.Spec.Kafka = v1alpha1.KafkaSpec{BootstrapServers: stack.kafkaSASL,
		SASL: &v1alpha1.KafkaSASL{Mechanism: "PLAIN", SecretRef: corev1.LocalObjectReference{Name: "kafka-sasl"}}}
	tls := small("kafka-tls", 2000, "json")
	tls.Spec.Kafka = v1alpha1.KafkaSpec{BootstrapServers: stack.kafkaTLS,
		TLS: &v1alpha1.KafkaTLS{CASecretRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "kafka-ca"}, Key: "ca.crt"}}}
	for _, x := range []*v1alpha1.SerializationExperiment{sasl, tls} {
		create(t, x)
		done, res := succeeded(t, x.Name, 5*time.Minute)
		checkTrials(t, res, 1)
		deleteAndCheckClean(t, done, []string{stack.kafka})
	}
	checkOperator(t)
}

func ptr[T any](v T) *T { return &v }

// TestOwnSchema runs config/samples/own-schema in the cluster: the kubelet mounts the
// ConfigMap of the user's Avro schema and samples into the worker pods, and each
// codec sends the user's orders with nothing lost. The kustomize sample's ConfigMap is
// built here from the same files.
func TestOwnSchema(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: namespace}, Data: map[string]string{}}
	for key, file := range map[string]string{"schema": "order.avsc", "samples.jsonl": "orders.jsonl"} {
		b, err := os.ReadFile(filepath.Join(repo, "config/samples/own-schema", file))
		if err != nil {
			t.Fatal(err)
		}
		cm.Data[key] = string(b)
	}
	_ = k8s.Delete(context.Background(), cm.DeepCopy())
	if err := k8s.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), cm) })
	x := sample(t, "own-schema/orders.yaml", "own-schema")
	x.Spec.Records = ptr(int64(2000))
	x.Spec.Warmup = trial.Warmup{Records: 200}
	create(t, x)
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 3)
	for _, tr := range res.Trials {
		if tr.Schema != "source:avro" || tr.SizeBytes < 200 || tr.SizeBytes > 240 || tr.DeliveredRecords != 2200 {
			t.Errorf("%s: schema %q, %d B, delivered %d", tr.Name, tr.Schema, tr.SizeBytes, tr.DeliveredRecords)
		}
	}
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestRegistry runs config/samples/registry.yaml's registry codecs in the cluster
// against the stack's real schema registry: the operator hands each worker pod the
// registry's URL, the producer registers its schema and frames every value, and
// the three consumers read every record back through it. Each worker's client
// asks once (the producer registers, a consumer looks the writer's id up and
// checks it is its own schema's) and serves every later record from its cache.
func TestRegistry(t *testing.T) {
	x := sample(t, "registry.yaml", "registry")
	x.Spec.Kafka.SchemaRegistry = &v1alpha1.SchemaRegistry{URL: stack.registry}
	x.Spec.Codecs = []trial.Codec{trial.CodecAvroRegistry, trial.CodecProtobufRegistry, trial.CodecJSONRegistry}
	x.Spec.DurationSeconds = nil
	x.Spec.Records = ptr(int64(3000))
	x.Spec.Warmup = trial.Warmup{Records: 300}
	create(t, x)
	x, res := succeeded(t, x.Name, 5*time.Minute)
	checkTrials(t, res, 3)
	for _, tr := range res.Trials {
		g := tr.Registry
		switch {
		case g == nil:
			t.Errorf("%s: no registry cost", tr.Name)
		case g.Requests != int64(tr.Producers)+2*int64(tr.Consumers) || g.RequestMicros <= 0:
			t.Errorf("%s: %d registry requests (%d µs), want %d", tr.Name, g.Requests, g.RequestMicros, tr.Producers+2*tr.Consumers)
		case g.SerializeLookupNanosPerRecord <= 0 || g.DeserializeLookupNanosPerRecord <= 0:
			t.Errorf("%s: header times %+v", tr.Name, g)
		default:
			t.Logf("%s: %d requests, %d µs; header %d ns producing, %d ns consuming (serialize %d ns, deserialize %d ns)", tr.Name,
				g.Requests, g.RequestMicros, g.SerializeLookupNanosPerRecord, g.DeserializeLookupNanosPerRecord,
				tr.SerializeNanosPerRecord, tr.DeserializeNanosPerRecord)
		}
	}
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// TestScaleOut runs a trial of 8 producer and 8 consumer pods. The operator starts
// the producers at one instant once all are ready, and each window begins when its
// warmup ends (not with the next record, which a full buffer held back by up to
// 125 ms here): the windows begin within 50 ms of each other (a start message can
// arrive late on 2 shared cores), so the trial's rate (all
// records over the union of the windows) is the sum of the producers' own rates
// less no more than the windows' misfit (summary.UnionRateFloor: they end a drain
// apart, up to the largest ack latency). Every pod here runs on the operator's node, whose clock it shares:
// each clock reading must be 0 within the uncertainty it states, and latency
// carries no clock uncertainty.
func TestScaleOut(t *testing.T) {
	x := small("scale-out", 0, "protobuf")
	x.Spec.Records = nil
	// Ten seconds: the producers' windows also end apart (each when its last
	// record is acknowledged, 0.1-0.2 s apart here), which a short window would
	// weigh too much.
	x.Spec.DurationSeconds = ptr(int32(10))
	x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
	x.Spec.Producers, x.Spec.Consumers = 8, 8
	x.Spec.Topic.Partitions = 8
	create(t, x)
	x, res := succeeded(t, x.Name, 8*time.Minute)
	checkTrials(t, res, 1)
	tr := res.Trials[0]
	if tr.Producers != 8 || tr.Consumers != 8 {
		t.Fatalf("trial ran %d producers, %d consumers", tr.Producers, tr.Consumers)
	}
	s := tr.Sync
	if s == nil || s.StartAt == nil {
		t.Fatalf("the operator did not start the producers: sync %+v", s)
	}
	if s.StartSpreadMicros > 50_000 {
		t.Errorf("measured windows began %d µs apart, want within 50 ms", s.StartSpreadMicros)
	}
	// The rate over the union of the windows is at most the sum of the
	// producers' own rates, and below it by no more than the windows' misfit:
	// they begin within the start spread and end a drain apart (each producer's
	// last acknowledgement, at most the largest ack latency after its stop).
	window := time.Duration(tr.WindowMillis) * time.Millisecond
	ackMax := time.Duration(tr.AckMicros.Max) * time.Microsecond
	floor := summary.UnionRateFloor(window, time.Duration(s.StartSpreadMicros)*time.Microsecond, ackMax)
	share := float64(tr.RecordsPerSecond) / float64(s.ProducerRatesSumPerSecond)
	t.Logf("windows began within %d µs; %d rec/s over their union against a sum of %d (%.3f of it, floor %.3f: largest ack %s in a %s window)",
		s.StartSpreadMicros, tr.RecordsPerSecond, s.ProducerRatesSumPerSecond, share, floor, ackMax, window)
	if share > 1.001 || share < floor-0.005 {
		t.Errorf("trial rate %d rec/s is %.3f of the producers' own rates' sum %d, want between %.3f and 1", tr.RecordsPerSecond, share, s.ProducerRatesSumPerSecond, floor)
	}
	if s.ClockUncertaintyMicros != 0 {
		t.Errorf("one node, yet a clock uncertainty of %d µs", s.ClockUncertaintyMicros)
	}
	clocks := res.Environment.Clocks
	if len(clocks) == 0 {
		t.Fatal("no node clocks in the result")
	}
	for _, c := range clocks {
		if c.UncertaintyMicros <= 0 || c.OffsetMicros > c.UncertaintyMicros || -c.OffsetMicros > c.UncertaintyMicros || c.EndOffsetMicros == nil {
			t.Errorf("node %s: offset %d ± %d µs (end %v), want 0 within its uncertainty on the operator's own clock", c.Node, c.OffsetMicros, c.UncertaintyMicros, c.EndOffsetMicros)
		}
	}
	t.Logf("clocks %+v", clocks)
	deleteAndCheckClean(t, x, []string{stack.kafka})
}

// hasSoftware is whether the result's software names name with a version.
func hasSoftware(sw []v1alpha1.Software, name string) bool {
	return slices.ContainsFunc(sw, func(s v1alpha1.Software) bool { return s.Name == name && s.Version != "" })
}
