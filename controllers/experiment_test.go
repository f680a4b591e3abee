package controllers_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/testing/kubetest"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// experiment returns a small valid experiment: two codecs, 300 records each, so the
// workers' summaries fit in their termination messages.
func experiment(ns, name string, mutate func(*serdebenchv1.SerializationExperiment)) *serdebenchv1.SerializationExperiment {
	records := int64(300)
	x := &serdebenchv1.SerializationExperiment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: serdebenchv1.SerializationExperimentSpec{
			ExperimentSpec: serdebenchv1.ExperimentSpec{
				Codecs:    []trial.Codec{"protobuf", "avro"},
				Payload:   serdebenchv1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}},
				Records:   &records,
				Warmup:    trial.Warmup{Records: 20},
				Consumers: 2,
				PoolSize:  16,
				Producer:  serdebenchv1.ProducerSettings{Acks: "1", LingerMs: ptr(int32(1))},
			},
			Kafka:          serdebenchv1.KafkaSpec{Strimzi: &serdebenchv1.StrimziKafka{ClusterName: standInCluster, BootstrapServers: "127.0.0.1:9092"}},
			TimeoutSeconds: 120,
		},
	}
	if mutate != nil {
		mutate(x)
	}
	return x
}

func ptr[T any](v T) *T { return &v }

func pointerTo[T any](v T) *T { return &v }

func create(t *testing.T, x *serdebenchv1.SerializationExperiment) {
	t.Helper()
	if err := k8s.Create(context.Background(), x); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	kubetest.WaitFor(t, timeout, 100*time.Millisecond, what, cond)
}

func get(t *testing.T, ns, name string) *serdebenchv1.SerializationExperiment {
	t.Helper()
	x := &serdebenchv1.SerializationExperiment{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, x); err != nil {
		t.Fatal(err)
	}
	return x
}

func waitStage(t *testing.T, ns, name string, stage serdebenchv1.Stage, timeout time.Duration) *serdebenchv1.SerializationExperiment {
	t.Helper()
	var x *serdebenchv1.SerializationExperiment
	waitFor(t, timeout, fmt.Sprintf("experiment %s to reach %s", name, stage), func() (bool, error) {
		x = get(t, ns, name)
		if x.Status.Stage == serdebenchv1.StageFailed && stage != serdebenchv1.StageFailed {
			t.Fatalf("experiment failed: %+v", meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed))
		}
		return x.Status.Stage == stage, fmt.Errorf("stage %s", x.Status.Stage)
	})
	// What `serdebench wait` and kstatus read: a finished status at the spec's
	// generation (the operator itself must never change the spec).
	if (stage == serdebenchv1.StageSucceeded || stage == serdebenchv1.StageFailed) && x.Status.ObservedGeneration != x.Generation {
		t.Fatalf("experiment %s %s at observedGeneration %d, generation %d: serdebench wait never sees it end", name, stage, x.Status.ObservedGeneration, x.Generation)
	}
	return x
}

func result(t *testing.T, ns, name string) *serdebenchv1.SerializationResult {
	t.Helper()
	r := &serdebenchv1.SerializationResult{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func kafkaTopics(t *testing.T, ns string) []string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(strimziGVK(t, topics.KindKafkaTopic).GroupVersion().WithKind("KafkaTopicList"))
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, kt := range list.Items {
		names = append(names, kt.GetName())
	}
	return names
}

func jobs(t *testing.T, ns string) []batchv1.Job {
	t.Helper()
	list := &batchv1.JobList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func checkResult(t *testing.T, res *serdebenchv1.SerializationResult, trials int) {
	t.Helper()
	if len(res.Trials) != trials || res.Summary.Trials != int32(trials) {
		t.Fatalf("result has %d trials (summary %d), want %d", len(res.Trials), res.Summary.Trials, trials)
	}
	seen := map[string]bool{}
	for _, tr := range res.Trials {
		if seen[tr.Name] {
			t.Fatalf("trial %s recorded twice", tr.Name)
		}
		seen[tr.Name] = true
		if tr.Records != 300 || tr.LostRecords != 0 || tr.DuplicatedRecords != 0 || tr.DeliveredRecords != 320 || tr.EndToEndMicros.Count != 300 {
			t.Fatalf("trial %s: records %d lost %d dup %d delivered %d e2e count %d", tr.Name, tr.Records, tr.LostRecords, tr.DuplicatedRecords, tr.DeliveredRecords, tr.EndToEndMicros.Count)
		}
		if tr.Producers != 1 || tr.Consumers != 2 || tr.RecordsPerSecond <= 0 || tr.EndToEndMicros.P99 <= 0 || tr.SerializedBytesPerRecord <= 0 {
			t.Fatalf("trial %s implausible: %+v", tr.Name, tr)
		}
		// The operator started the producer over HTTP, reading the clocks of the
		// stand-in's pods (this process's clock: 0 within the stated uncertainty).
		if tr.Sync == nil || tr.Sync.StartAt == nil || tr.Sync.ClockUncertaintyMicros != 0 || tr.HeaderBytesPerRecord != 56 {
			t.Fatalf("trial %s: sync %+v, header bytes %d", tr.Name, tr.Sync, tr.HeaderBytesPerRecord)
		}
	}
	if len(res.Environment.Clocks) != 1 {
		t.Fatalf("clocks %+v, want the stand-in's one node", res.Environment.Clocks)
	}
	for _, c := range res.Environment.Clocks {
		if c.OffsetMicros > c.UncertaintyMicros || -c.OffsetMicros > c.UncertaintyMicros {
			t.Fatalf("node %s: offset %d ± %d µs on one clock", c.Node, c.OffsetMicros, c.UncertaintyMicros)
		}
	}
	if res.Summary.FastestCodec == "" || res.Summary.FastestRecordsPerSecond <= 0 || res.Summary.LostRecords != 0 {
		t.Fatalf("summary %+v", res.Summary)
	}
	// The recommendation names one of the result's trials and says how it chose.
	if r := res.Recommendation; r == nil || len(r.Choices) == 0 || r.Objective == "" || r.Best == "" || slices.ContainsFunc(r.Choices, func(c serdebenchv1.RecommendedChoice) bool {
		return c.Summary == "" || !slices.ContainsFunc(res.Trials, func(tr serdebenchv1.TrialResult) bool { return tr.Name == c.Best || tr.Config == c.Best })
	}) {
		t.Fatalf("recommendation %+v", res.Recommendation)
	}
	// And it says what its table could tell apart.
	if sn := res.Sensitivity; sn == nil || sn.Trials < 1 || int(sn.Trials) > trials || sn.NoisePercent == "" || sn.PowerPercent != 80 ||
		(sn.DetectablePercent == "") == (sn.NeedsRepetitions == 0 && sn.Tests > 0) {
		t.Fatalf("sensitivity %+v", res.Sensitivity)
	}
}

// checkStatistics: a result of one trial's two repetitions sums them up in
// statistics: every metric's values are the repetitions' own, in repetition order,
// with their median between the interval's bounds.
func checkStatistics(t *testing.T, res *serdebenchv1.SerializationResult) {
	t.Helper()
	if len(res.Statistics) != 1 || len(res.Statistics[0].Runs) != 2 || res.Statistics[0].Name != "t000-protobuf-256b" {
		t.Fatalf("statistics %+v", res.Statistics)
	}
	byName := map[string]serdebenchv1.TrialResult{}
	for _, tr := range res.Trials {
		if tr.Config != "t000-protobuf-256b" || tr.Name != fmt.Sprintf("%s-r%d", tr.Config, tr.Repetition) || tr.EndToEndMicros.Mean <= 0 {
			t.Fatalf("trial %s: config %q repetition %d, e2e mean %d", tr.Name, tr.Config, tr.Repetition, tr.EndToEndMicros.Mean)
		}
		byName[tr.Name] = tr
	}
	st := res.Statistics[0]
	rps := st.Metrics[0]
	if rps.Name != "recordsPerSecond" || len(rps.Values) != 2 || rps.Low > rps.Median || rps.High < rps.Median || rps.ConfidencePermille != 500 {
		t.Fatalf("recordsPerSecond %+v", rps)
	}
	for i, run := range st.Runs {
		if got := byName[run].RecordsPerSecond; rps.Values[i] != got {
			t.Fatalf("run %s: statistics say %d rec/s, its result %d", run, rps.Values[i], got)
		}
	}
	// The merged percentiles are of both repetitions' records together (kept
	// between them in the histograms ConfigMap, at 1 %): their count is the sum,
	// and a mixture's p99 lies between its parts' p99s.
	m := st.Merged
	if m == nil || m.Runs != 2 || m.ResolutionPermille != 10 {
		t.Fatalf("merged %+v", st.Merged)
	}
	var count, lo, hi int64 = 0, math.MaxInt64, 0
	for _, run := range st.Runs {
		e := byName[run].EndToEndMicros
		count, lo, hi = count+e.Count, min(lo, e.P99), max(hi, e.P99)
	}
	if m.EndToEndMicros.Count != count || float64(m.EndToEndMicros.P99) < 0.99*float64(lo) || float64(m.EndToEndMicros.P99) > 1.01*float64(hi) {
		t.Fatalf("merged e2e %+v: want %d values and a p99 within the repetitions' %d–%d µs (±1 %%)", m.EndToEndMicros, count, lo, hi)
	}
}

// TestStrimzi runs the cases whose topics are Strimzi KafkaTopics against the CRDs
// of the current Strimzi (1.2.0, kafka.strimzi.io/v1 only) and of the previous
// generation (0.45.0, v1beta2): the operator discovers which one is served.
func TestStrimzi(t *testing.T) {
	cases := []struct {
		name string
		run  func(*testing.T)
	}{{"happy path", happyPathStrimzi}, {"topic never ready", trialTimeout}, {"worker failure", workerFailure}, {"deletion mid-run", deletionMidRun},
		{"topic refused", strimziRefused}}
	for _, gen := range []string{strimziCurrent, strimziPrevious} {
		t.Run(gen, func(t *testing.T) {
			if gen != strimziCurrent {
				useStrimzi(t, gen)
			}
			for _, c := range cases {
				t.Run(c.name, c.run)
			}
			if gen == strimziCurrent {
				// The Topic Operator's absence is the same at either API version.
				t.Run("Topic Operator stopped mid-run", strimziStoppedMidRun)
				t.Run("deleted while the Topic Operator is stopped", strimziDeletedWhileStopped)
			}
		})
	}
}

// happyPathStrimzi runs a two-trial experiment with topics as Strimzi KafkaTopics:
// workers really produce and consume through the local broker.
func happyPathStrimzi(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	createKafka(t, ns)
	startManager(t, nil, k)
	create(t, experiment(ns, "happy", nil))
	x := waitStage(t, ns, "happy", serdebenchv1.StageSucceeded, 90*time.Second)
	// GitOps tools wait on kstatus: Current once succeeded.
	if res := kstatusOf(t, x.DeepCopy()); res.Status != status.CurrentStatus {
		t.Errorf("kstatus of a succeeded experiment: %s (%s)", res.Status, res.Message)
	}

	for _, c := range []string{serdebenchv1.ConditionAccepted, serdebenchv1.ConditionTopicsReady, serdebenchv1.ConditionSucceeded} {
		cond := meta.FindStatusCondition(x.Status.Conditions, c)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason == "" || cond.Message == "" || cond.ObservedGeneration != x.Generation {
			t.Errorf("condition %s: %+v", c, cond)
		}
	}
	if x.Status.CompletedTrials != 2 || x.Status.TrialCount != 2 || x.Status.ResultRef == nil || x.Status.StartTime == nil || x.Status.CompletionTime == nil {
		t.Fatalf("status %+v", x.Status)
	}
	res := result(t, ns, x.Status.ResultRef.Name)
	checkResult(t, res, 2)
	if out, err := yaml.Marshal(res.Trials[0]); err == nil {
		t.Logf("first trial of the result (docs/api.md shows one):\n%s", out)
	}
	if !metav1.IsControlledBy(res, x) || res.Experiment.UID != string(x.UID) || res.Environment.WorkerImage == "" || len(res.Environment.NodeNames) != 1 ||
		len(res.Environment.WorkerImageIDs) != 1 || !strings.Contains(res.Environment.WorkerImageIDs[0], "@sha256:") ||
		!strings.HasPrefix(res.Environment.KafkaRelease, kafkatest.Line(t)+" (metadata.version ") {
		// The brokers' own word, not the stand-in Kafka resource's 4.3.1: a resource
		// says what was asked for, the brokers what runs.
		t.Fatalf("result metadata: owner %v, env %+v", res.OwnerReferences, res.Environment)
	}
	// Cleanup policy Delete: every trial's KafkaTopic and Jobs are gone, and each Job
	// ran exactly once.
	if left := kafkaTopics(t, ns); len(left) != 0 {
		t.Fatalf("KafkaTopics left: %v", left)
	}
	if n := k.topicCount(); n != 2 {
		t.Fatalf("saw %d KafkaTopics, want 2", n)
	}
	waitFor(t, 10*time.Second, "jobs deleted", func() (bool, error) { return len(jobs(t, ns)) == 0, nil })
	runs := k.jobRuns()
	for name, n := range runs {
		if n != 1 {
			t.Fatalf("job %s ran %d times", name, n)
		}
	}
	if len(runs) != 4 {
		t.Fatalf("%d jobs ran, want 4 (consumers and producers of 2 trials)", len(runs))
	}
	// Spec is immutable once started.
	x.Spec.Codecs = []trial.Codec{"json"}
	if err := k8s.Update(context.Background(), x); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("spec update after start: %v", err)
	}
}

// TestAppliedAsYAML: an experiment made from a user's YAML, as kubectl applies it
// (no empty objects the Go types would add, such as rate: {}), runs to the end at
// the generation it was accepted at (what serdebench wait and kstatus read), and
// its deletion after the run passes the spec-immutability rule: the operator
// writes its finalizer alone, never the spec back through the Go types.
func TestAppliedAsYAML(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	startManager(t, nil, newKubelet(t, ns, brokers))
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(fmt.Sprintf(`apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata: {name: applied, namespace: %s}
spec:
  codecs: [json]
  payload: {schema: simple, sizesBytes: [256]}
  records: 300
  warmup: {records: 20}
  producer: {acks: "1", lingerMs: 1}
  kafka: {bootstrapServers: %q}
  timeoutSeconds: 120
`, ns, brokers[0])), &u.Object); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	x := waitStage(t, ns, "applied", serdebenchv1.StageSucceeded, 90*time.Second)
	if x.Generation != 1 {
		t.Fatalf("generation %d after the run: the spec changed, and nobody but the operator wrote it", x.Generation)
	}
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "experiment gone (its finalizer removed)", func() (bool, error) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &serdebenchv1.SerializationExperiment{})
		return apierrors.IsNotFound(err), err
	})
}

// TestAdminAPIPath creates topics through the Kafka Admin API of the real broker.
func TestAdminAPIPath(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	// Summaries go through the pod log here, not the termination message.
	startManager(t, func(r *controllers.ExperimentReconciler) { r.TerminationMessageBytes = 16 }, k)
	create(t, experiment(ns, "admin", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Topic.Config = map[string]string{"retention.ms": "600000"}
		// One trial twice: the result's statistics sum up its repetitions.
		x.Spec.Codecs, x.Spec.Repetitions = []trial.Codec{"protobuf"}, 2
	}))
	// While running, the trial's topic exists in the broker.
	waitFor(t, 30*time.Second, "topic in the broker", func() (bool, error) {
		x := get(t, ns, "admin")
		if len(x.Status.Trials) == 0 {
			return false, nil
		}
		return kafkatest.Topics(t, brokers)[x.Status.Trials[0].Topic], nil
	})
	x := waitStage(t, ns, "admin", serdebenchv1.StageSucceeded, 90*time.Second)
	res := result(t, ns, "admin")
	checkResult(t, res, 2)
	checkStatistics(t, res)
	// The histograms kept between repetitions go with the experiment.
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "admin-histograms"}, cm); err != nil {
		t.Fatal(err)
	}
	if refs := cm.OwnerReferences; len(refs) != 1 || refs[0].UID != x.UID || refs[0].Controller == nil || !*refs[0].Controller {
		t.Fatalf("histograms ConfigMap owned by %+v, want the experiment", refs)
	}
	// Every summary came through the pod log: the termination messages only say so.
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			if msg := cs.State.Terminated.Message; msg != protocol.InLogMarker {
				t.Fatalf("pod %s: termination message %q, want the in-log marker", p.Name, msg)
			}
		}
	}
	if len(pods.Items) != 6 {
		t.Fatalf("%d pods, want 6 (2 trials × (2 consumers + 1 producer))", len(pods.Items))
	}
	// The release is the broker's own word (its newest metadata.version's line):
	// the release the Makefile started.
	if env := res.Environment; !strings.Contains(env.KafkaAPIVersions, "produce v") ||
		!strings.HasPrefix(env.KafkaRelease, kafkatest.Line(t)+" (metadata.version ") {
		t.Fatalf("kafka release %q, API versions %q: want Kafka %s's line and its finalized metadata.version", env.KafkaRelease, env.KafkaAPIVersions, kafkatest.Release(t))
	}
	existing := kafkatest.Topics(t, brokers)
	for _, ts := range x.Status.Trials {
		if existing[ts.Topic] {
			t.Fatalf("topic %s not deleted after the trial", ts.Topic)
		}
	}
}

// trialTimeout: a topic that never becomes ready ends in Failed/TrialTimeout.
func trialTimeout(t *testing.T) {
	ns := newNamespace(t)
	k := newKubelet(t, ns, nil)
	k.set(func(k *kubelet) { k.topicsReady = false })
	startManager(t, nil, k)
	create(t, experiment(ns, "slow", func(x *serdebenchv1.SerializationExperiment) { x.Spec.TimeoutSeconds = 10 }))
	// kstatus: InProgress while the trial waits for its topic, Failed once it timed out.
	waitFor(t, 10*time.Second, "the experiment in progress", func() (bool, error) {
		x := get(t, ns, "slow")
		res := kstatusOf(t, x)
		return x.Status.Stage != "" && res.Status == status.InProgressStatus, fmt.Errorf("stage %q, kstatus %s", x.Status.Stage, res.Status)
	})
	x := waitStage(t, ns, "slow", serdebenchv1.StageFailed, 40*time.Second)
	if res := kstatusOf(t, x.DeepCopy()); res.Status != status.FailedStatus || !strings.Contains(res.Message, "within 10s") {
		t.Errorf("kstatus of a failed experiment: %s (%s)", res.Status, res.Message)
	}
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTrialTimeout || !strings.Contains(c.Message, "within 10s") {
		t.Fatalf("failed condition %+v", c)
	}
	if x.Status.Trials[0].Phase != serdebenchv1.TrialFailed || x.Status.Trials[1].Phase != serdebenchv1.TrialPending {
		t.Fatalf("trials %+v", x.Status.Trials)
	}
	// Its KafkaTopic is removed (cleanupPolicy Delete) and nothing is left running.
	waitFor(t, 10*time.Second, "KafkaTopic deleted", func() (bool, error) { return len(kafkaTopics(t, ns)) == 0, nil })
}

// workerFailure: a failed consumer pod fails the experiment with its message.
func workerFailure(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.failRole = "consumers" })
	startManager(t, nil, k)
	create(t, experiment(ns, "broken", nil))
	x := waitStage(t, ns, "broken", serdebenchv1.StageFailed, 60*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonWorkerFailed || !strings.Contains(c.Message, "connection refused") || !strings.Contains(c.Message, "BackoffLimitExceeded") {
		t.Fatalf("failed condition %+v", c)
	}
	waitFor(t, 10*time.Second, "jobs and topics cleaned", func() (bool, error) {
		j, kt := jobs(t, ns), kafkaTopics(t, ns)
		var names []string
		for _, job := range j {
			names = append(names, job.Name)
		}
		return len(j) == 0 && len(kt) == 0, fmt.Errorf("jobs %v, KafkaTopics %v", names, kt)
	})
}

// TestPrometheusDown: the summaries suffice, so the experiment succeeds with a
// warning on every trial.
func TestPrometheusDown(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	prom, err := promquery.New("http://127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, func(r *controllers.ExperimentReconciler) { r.Prometheus = prom }, k)
	create(t, experiment(ns, "noprom", nil))
	waitStage(t, ns, "noprom", serdebenchv1.StageSucceeded, 90*time.Second)
	res := result(t, ns, "noprom")
	checkResult(t, res, 2)
	for _, tr := range res.Trials {
		if tr.PrometheusRecordsDifference != nil || len(tr.Warnings) == 0 || !strings.Contains(strings.Join(tr.Warnings, " "), "prometheus cross-check skipped") {
			t.Fatalf("trial %s: difference %v warnings %v", tr.Name, tr.PrometheusRecordsDifference, tr.Warnings)
		}
	}
}

// deletionMidRun: deleting a running experiment removes its topic and Jobs, then
// the experiment itself.
func deletionMidRun(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.hold = true })
	startManager(t, nil, k)
	create(t, experiment(ns, "doomed", nil))
	waitFor(t, 30*time.Second, "jobs created", func() (bool, error) { return len(jobs(t, ns)) == 2, nil })
	if n := len(kafkaTopics(t, ns)); n != 1 {
		t.Fatalf("%d KafkaTopics, want 1", n)
	}
	x := get(t, ns, "doomed")
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "experiment gone", func() (bool, error) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &serdebenchv1.SerializationExperiment{})
		return apierrors.IsNotFound(err), err
	})
	if j, kt := jobs(t, ns), kafkaTopics(t, ns); len(j) != 0 || len(kt) != 0 {
		t.Fatalf("left behind: %d jobs, KafkaTopics %v", len(j), kt)
	}
}

// TestRestartMidRun: an operator stopped while a trial runs is replaced by a new one
// that finishes the experiment without repeating or losing a trial.
func TestRestartMidRun(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	stop := startManager(t, nil, k)
	create(t, experiment(ns, "restart", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{"protobuf", "avro", "json"}
	}))
	// Let the first trial finish, then hold the second one's Jobs and stop.
	waitFor(t, 60*time.Second, "first trial measured", func() (bool, error) {
		x := get(t, ns, "restart")
		if x.Status.CompletedTrials >= 1 {
			k.set(func(k *kubelet) { k.hold = true })
			return true, nil
		}
		return false, nil
	})
	waitFor(t, 30*time.Second, "second trial running", func() (bool, error) {
		x := get(t, ns, "restart")
		return len(x.Status.Trials) == 3 && x.Status.Trials[1].Phase == serdebenchv1.TrialRunning && len(jobs(t, ns)) == 2, nil
	})
	stop()
	k.set(func(k *kubelet) { k.hold = false })
	startManager(t, nil, k)
	waitStage(t, ns, "restart", serdebenchv1.StageSucceeded, 90*time.Second)
	res := result(t, ns, "restart")
	checkResult(t, res, 3)
	runs := k.jobRuns()
	for name, n := range runs {
		if n != 1 {
			t.Fatalf("job %s ran %d times", name, n)
		}
	}
	if len(runs) != 6 {
		t.Fatalf("%d jobs ran, want 6", len(runs))
	}
}

// TestColocated runs producers and consumers as containers of one pod (one clock).
func TestColocated(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	startManager(t, nil, k)
	create(t, experiment(ns, "together", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Workers.Colocate = true
		x.Spec.Codecs = []trial.Codec{"msgpack"}
	}))
	waitStage(t, ns, "together", serdebenchv1.StageSucceeded, 90*time.Second)
	checkResult(t, result(t, ns, "together"), 1)
	if runs := k.jobRuns(); len(runs) != 1 {
		t.Fatalf("want one colocated Job, ran %v", runs)
	}
}

// TestPrometheusCrossCheck: a real Prometheus scrapes the trial's real workers; the
// operator's cross-check finds the same record count as the summaries and stores
// the throughput series.
func TestPrometheusCrossCheck(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	url, addTarget := promtest.StartDiscovering(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.metricsTarget = addTarget })
	prom, err := promquery.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, func(r *controllers.ExperimentReconciler) { r.Prometheus = prom; r.WorkerMetricsGrace = 8 * time.Second }, k)
	// 10 s at 300 rec/s: long enough for Prometheus to discover and sample it.
	create(t, experiment(ns, "scraped", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Codecs = []trial.Codec{"avro"}
		x.Spec.Records = ptr(int64(3000))
		x.Spec.Rate.RecordsPerSecond = 300
	}))
	waitStage(t, ns, "scraped", serdebenchv1.StageSucceeded, 120*time.Second)
	tr := result(t, ns, "scraped").Trials[0]
	if tr.Records != 3000 || tr.LostRecords != 0 {
		t.Fatalf("records %d lost %d", tr.Records, tr.LostRecords)
	}
	if d := tr.PrometheusRecordsDifference; d == nil || *d != 0 {
		t.Fatalf("cross-check: difference %v, warnings %v", d, tr.Warnings)
	}
	// sarama's warning always; a slipped rate exactly when the records went out a
	// mean 1 ms or more late (make test's load can do that at 300 rec/s); no other.
	want := []string{summary.SaramaInFlightWarning}
	if tr.SendDelayMicros.Mean >= summary.SlippedSendDelayMicros {
		want = append(want, summary.SlippedWarning)
	}
	if len(tr.Warnings) != len(want) || !strings.HasPrefix(tr.Warnings[0], want[0]) || !strings.HasPrefix(tr.Warnings[len(want)-1], want[len(want)-1]) {
		t.Fatalf("warnings %q, want ones beginning %q (send delay mean %d µs)", tr.Warnings, want, tr.SendDelayMicros.Mean)
	}
	s := tr.ThroughputSeries
	if s == nil || len(s.RecordsPerSecond) < 2 || s.StepSeconds < 1 {
		t.Fatalf("throughput series %+v", s)
	}
	var peak int64
	for _, v := range s.RecordsPerSecond {
		peak = max(peak, v)
	}
	if peak < 200 || peak > 400 {
		t.Fatalf("series peak %d rec/s, target 300: %v", peak, s.RecordsPerSecond)
	}
}

// TestWorkersTimeout: workers that never finish end the trial in TrialTimeout and
// are deleted, not left running.
func TestWorkersTimeout(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.hold = true })
	startManager(t, nil, k)
	create(t, experiment(ns, "stuck", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.TimeoutSeconds = 10
	}))
	x := waitStage(t, ns, "stuck", serdebenchv1.StageFailed, 40*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTrialTimeout || !strings.Contains(c.Message, "phase Running") {
		t.Fatalf("failed condition %+v", c)
	}
	// The outcome is recorded first; cleanup follows and says when it is done.
	waitFor(t, 20*time.Second, "trial cleaned up", func() (bool, error) { return get(t, ns, "stuck").Status.Trials[0].CleanedUp, nil })
	if n := len(jobs(t, ns)); n != 0 {
		t.Fatalf("%d jobs left", n)
	}
	// Kafka deletes a topic asynchronously: its metadata may list it for a moment.
	waitFor(t, 10*time.Second, "topic gone from the broker", func() (bool, error) {
		return !kafkatest.Topics(t, brokers)[x.Status.Trials[0].Topic], fmt.Errorf("topic %s left in the broker", x.Status.Trials[0].Topic)
	})
}

// TestUnreachableKafka: an Admin-API cluster that cannot be reached ends in
// TrialTimeout, and the status says why while it waits.
func TestUnreachableKafka(t *testing.T) {
	ns := newNamespace(t)
	startManager(t, nil)
	create(t, experiment(ns, "nokafka", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "127.0.0.1:1"}
		x.Spec.TimeoutSeconds = 10
	}))
	waitFor(t, 20*time.Second, "the reason in the status", func() (bool, error) {
		x := get(t, ns, "nokafka")
		c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionTopicsReady)
		return c != nil && strings.Contains(c.Message, "connect to Kafka"), fmt.Errorf("%+v", c)
	})
	// ... and so does Ready, which `kubectl get sx` shows (the Status column).
	waitFor(t, 20*time.Second, "Ready waiting for Kafka", func() (bool, error) {
		c := meta.FindStatusCondition(get(t, ns, "nokafka").Status.Conditions, serdebenchv1.ConditionReady)
		return c != nil && c.Reason == controllers.ReasonWaitingForKafka && strings.Contains(c.Message, "connect to Kafka"), fmt.Errorf("%+v", c)
	})
	x := waitStage(t, ns, "nokafka", serdebenchv1.StageFailed, 40*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTrialTimeout {
		t.Fatalf("failed condition %+v", c)
	}
	// Its topic was never requested (Kafka was never reached), so deleting it does
	// not wait out the finalizer's give-up retrying a topic that cannot exist.
	if x.Status.Trials[0].TopicRequested == nil || *x.Status.Trials[0].TopicRequested {
		t.Fatalf("trial %+v: want topicRequested false", x.Status.Trials[0])
	}
	if err := k8s.Delete(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the experiment gone", func() (bool, error) {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(x), &serdebenchv1.SerializationExperiment{})
		return apierrors.IsNotFound(err), err
	})
}

// TestSASLAdminAPI: topics through the Admin API and workers authenticate with SASL
// credentials from a Secret, on the broker's SASL listener.
func TestSASLAdminAPI(t *testing.T) {
	kafkatest.Brokers(t)
	sasl := kafkatest.SASLBrokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, sasl)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kafka-user"},
		Data: map[string][]byte{"username": []byte(kafkatest.SASLUser), "password": []byte(kafkatest.SASLPassword)}}
	if err := k8s.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	startManager(t, nil, k)
	create(t, experiment(ns, "sasl", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: sasl[0],
			SASL: &serdebenchv1.KafkaSASL{Mechanism: "PLAIN", SecretRef: corev1.LocalObjectReference{Name: "kafka-user"}}}
		x.Spec.Codecs = []trial.Codec{"json"}
	}))
	waitStage(t, ns, "sasl", serdebenchv1.StageSucceeded, 90*time.Second)
	checkResult(t, result(t, ns, "sasl"), 1)
}

// TestTLSAdminAPI: the operator and the workers trust the broker's CA from a Secret
// (mounted into the worker pods) on the broker's TLS listener.
func TestTLSAdminAPI(t *testing.T) {
	kafkatest.Brokers(t)
	tlsBrokers := kafkatest.TLSBrokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, tlsBrokers)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kafka-ca"},
		Data: map[string][]byte{"ca.crt": kafkatest.TLSCA(t)}}
	if err := k8s.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	startManager(t, nil, k)
	create(t, experiment(ns, "tls", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: tlsBrokers[0], TLS: &serdebenchv1.KafkaTLS{
			CASecretRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "kafka-ca"}, Key: "ca.crt"}}}
		x.Spec.Codecs = []trial.Codec{"raw"}
	}))
	waitStage(t, ns, "tls", serdebenchv1.StageSucceeded, 90*time.Second)
	checkResult(t, result(t, ns, "tls"), 1)
}

// TestExistingTopic: with topic.name the operator runs every trial on that topic,
// checks it instead of creating it, counts only its own records (the topic already
// holds an earlier experiment's), and never deletes it — not after a trial, not when
// the experiment is deleted.
func TestExistingTopic(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	k := newKubelet(t, ns, brokers)
	topic := fmt.Sprintf("it-existing-op-%d", time.Now().UnixNano())
	admin := &topics.Admin{Brokers: brokers}
	if _, err := admin.Ensure(context.Background(), topics.Spec{Name: topic, Partitions: 3, Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Delete(context.Background(), topic) }()
	startManager(t, nil, k)
	for _, name := range []string{"shared-1", "shared-2"} {
		create(t, experiment(ns, name, func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
			x.Spec.Topic.Name = topic
		}))
		x := waitStage(t, ns, name, serdebenchv1.StageSucceeded, 90*time.Second)
		checkResult(t, result(t, ns, name), 2)
		for _, ts := range x.Status.Trials {
			if ts.Topic != topic || !ts.CleanedUp {
				t.Fatalf("trial %+v: want topic %s, cleaned up", ts, topic)
			}
		}
		if !kafkatest.Topics(t, brokers)[topic] {
			t.Fatalf("%s: the existing topic was deleted", name)
		}
	}
	for _, name := range []string{"shared-1", "shared-2"} {
		if err := k8s.Delete(context.Background(), get(t, ns, name)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, name+" gone", func() (bool, error) {
			err := k8s.Get(context.Background(), keyOf(ns, name), &serdebenchv1.SerializationExperiment{})
			return apierrors.IsNotFound(err), err
		})
	}
	if !kafkatest.Topics(t, brokers)[topic] {
		t.Fatal("deleting the experiments deleted the existing topic")
	}
	// Their consumer groups did go: they would linger on someone else's topic.
	groups := kafkatest.Groups(t, brokers)
	for g := range groups {
		if strings.HasPrefix(g, "sx.shared-") {
			t.Errorf("consumer group %s left behind", g)
		}
	}
	// A topic that is not there fails the experiment at once, saying so.
	start := time.Now()
	create(t, experiment(ns, "no-such-topic", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Spec.Topic.Name = topic + "-missing"
	}))
	x := waitStage(t, ns, "no-such-topic", serdebenchv1.StageFailed, 30*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonTopicFailed || !strings.Contains(c.Message, "does not exist") {
		t.Fatalf("failed condition %+v", c)
	}
	t.Logf("missing topic failed the experiment after %s (timeout %ds)", time.Since(start).Round(time.Millisecond), x.Spec.TimeoutSeconds)
}
