package build

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/golden"
	"github.com/serdebench/serdebench/workers/summary"
)

// experiment is a defaulted experiment as the API server stores it.
func experiment(mut func(*serdebenchv1.SerializationExperiment)) *serdebenchv1.SerializationExperiment {
	records := int64(40000)
	x := &serdebenchv1.SerializationExperiment{
		ObjectMeta: metav1.ObjectMeta{Name: "thesis-batch", Namespace: "bench", UID: types.UID("0123abcd-4567-89ef-0123-456789abcdef")},
		Spec: serdebenchv1.SerializationExperimentSpec{
			ExperimentSpec: serdebenchv1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecJSON},
				Payload: serdebenchv1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}}, Records: &records,
				Producers: 2, Consumers: 3},
			Kafka:          serdebenchv1.KafkaSpec{BootstrapServers: "kafka-0.kafka:9092,kafka-1.kafka:9092"},
			TimeoutSeconds: 1800,
		},
	}
	if mut != nil {
		mut(x)
	}
	x.Spec.Default()
	return x
}

var cfg = Config{WorkerImage: "ghcr.io/serdebench/worker:v0.1.0", JVMWorkerImage: "ghcr.io/serdebench/worker-jvm:v0.1.0", PullPolicy: corev1.PullIfNotPresent}

// TestTrialJobsGolden: a trial's Jobs, consumers and producers apart, colocated in
// one pod (with a memory limit), with TLS, SASL and a payload source mounted, and
// with a standby consumer for a join.
func TestTrialJobsGolden(t *testing.T) {
	for name, mut := range map[string]func(*serdebenchv1.SerializationExperiment){
		"jobs-separate": nil,
		"jobs-colocated": func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Workers.Colocate = true
			// A memory limit: GOMEMLIMIT is three quarters of it.
			x.Spec.Workers.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}
		},
		"jobs-secured": func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Kafka.TLS = &serdebenchv1.KafkaTLS{CASecretRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kafka-ca"}, Key: "ca.crt"}}
			x.Spec.Kafka.SASL = &serdebenchv1.KafkaSASL{Mechanism: "SCRAM-SHA-512", SecretRef: corev1.LocalObjectReference{Name: "kafka-user"}}
			x.Spec.Payload = serdebenchv1.PayloadSpec{Source: &serdebenchv1.PayloadSource{Format: "avro",
				ConfigMap: &serdebenchv1.SourceConfigMap{Name: "orders"}}}
			x.Spec.Workers.Resources = corev1.ResourceRequirements{}
		},
		// The Java client: its pods run the JVM worker's image.
		"jobs-java": func(x *serdebenchv1.SerializationExperiment) { x.Spec.Client = trial.ClientJava },
		// Java producers, Go consumers (consumer.client): each job its side's image.
		"jobs-java-to-go": func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Client, x.Spec.Consumer.Client = trial.ClientJava, trial.ClientFranz
		},
		// A consumer joining mid-window: one more consumer pod, a standby until
		// the operator tells it to join.
		"jobs-join": func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr.To(int32(20)), 1
			x.Spec.Warmup = trial.Warmup{DurationSeconds: 2}
			x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr.To(false), Scenarios: []trial.Fault{
				{Name: "join", StartSeconds: 4, Consumers: &trial.ConsumerFault{Action: trial.ConsumerJoin}}}}
		},
	} {
		x := experiment(mut)
		trials, err := plan.Expand(x.Spec.ExperimentSpec)
		if err != nil {
			t.Fatal(err)
		}
		tr := trials[0]
		jobs, err := TrialJobs(cfg, x, tr, TopicName(x, tr, 2), Bootstrap(x), 2)
		if err != nil {
			t.Fatal(err)
		}
		golden.YAML(t, name, jobs)
	}
}

// TestRuntimeImage: a trial runs in its client's runtime's image, the Go workers'
// the experiment's own when it names one; without the JVM worker's image a Java
// trial has no Jobs, and the error says what the operator lacks.
func TestRuntimeImage(t *testing.T) {
	named := experiment(func(x *serdebenchv1.SerializationExperiment) { x.Spec.Workers.Image = "example.com/worker:mine" })
	for c, want := range map[trial.Client]string{trial.ClientFranz: "example.com/worker:mine", trial.ClientJava: cfg.JVMWorkerImage} {
		if got, err := RuntimeImage(cfg, named, c); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", c, got, err, want)
		}
	}
	x := experiment(func(x *serdebenchv1.SerializationExperiment) { x.Spec.Client = trial.ClientJava })
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		t.Fatal(err)
	}
	noJVM := cfg
	noJVM.JVMWorkerImage = ""
	if _, err := TrialJobs(noJVM, x, trials[0], "topic", Bootstrap(x), 1); err == nil || !strings.Contains(err.Error(), "--jvm-worker-image") {
		t.Fatalf("error %v, want one naming the missing JVM worker image", err)
	}
}

// TestTrialResultGolden: a trial's result from two producers' and a consumer's
// summaries, merged as the operator merges them.
func TestTrialResultGolden(t *testing.T) {
	x := experiment(nil)
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	var sums []*summary.Summary
	for p := range 2 {
		s := &summary.Summary{Role: summary.RoleProducer, Worker: string(rune('0' + p)), WindowStart: start,
			WindowEnd: start.Add(10 * time.Second), Records: 1000, PayloadBytes: 1000 * 1176, SerializedBytes: 1000 * 900, CodecNanos: 1000 * 4000}
		ack := s.Histogram(summary.AckLatencyMicros, summary.NewLatency)
		for i := range 1000 {
			ack.Record(int64(2000 + 10*i + 500*p))
		}
		s.Acked = []summary.Delivery{{Producer: p, Partition: 0, Total: 1000, Intervals: summary.Intervals{{0, 1000}}}}
		sums = append(sums, roundTrip(t, s))
	}
	c := &summary.Summary{Role: summary.RoleConsumer, Worker: "c0", WindowStart: start, WindowEnd: start.Add(11 * time.Second),
		Records: 2000, SerializedBytes: 2000 * 900, CodecNanos: 2000 * 6000}
	e2e := c.Histogram(summary.EndToEndMicros, summary.NewLatency)
	for i := range 2000 {
		e2e.Record(int64(5000 + 7*i))
	}
	c.Received = []summary.Delivery{{Producer: 0, Partition: 0, Total: 1000, Intervals: summary.Intervals{{0, 1000}}},
		{Producer: 1, Partition: 0, Total: 1000, Intervals: summary.Intervals{{0, 1000}}}}
	sums = append(sums, roundTrip(t, c))
	merged, err := summary.Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	golden.YAML(t, "trial-result", TrialResult(trials[0], merged, SeriesPerTrial(1)))

	// The same trial with transactional producers: 10 of 100 records each
	// committed in the window, one aborted transaction of 100 records apiece.
	for p, s := range sums[:2] {
		s.Transactions = &summary.TransactionStats{Committed: 11, Aborted: 1, Measured: 10, MeasuredRecords: 1000, FirstAbort: "1 of its 100 sends failed"}
		commit := s.Histogram(summary.CommitMicros, summary.NewLatency)
		for i := range 10 {
			commit.Record(int64(8000 + 1000*i + 500*p))
		}
		s.Aborted = []summary.Delivery{{Producer: p, Partition: 0, Total: 100, Intervals: summary.Intervals{{1000, 1100}}}}
		sums[p] = roundTrip(t, s)
	}
	if merged, err = summary.Merge(sums); err != nil {
		t.Fatal(err)
	}
	golden.YAML(t, "trial-result-transactions", TrialResult(trials[0], merged, SeriesPerTrial(1)).Transactions)

	// A consumer that paused 2 s on partition 0, and ten more stalls of 0.3 s
	// to 1.2 s on partition 1: the result keeps the eight longest.
	cons := sums[2]
	cons.Segments = []summary.Segment{{Partition: 0, First: start, Last: start.Add(3 * time.Second), FirstIntended: start.UnixNano(), Records: 3000},
		{Partition: 0, First: start.Add(5 * time.Second), Last: start.Add(11 * time.Second), FirstIntended: start.Add(3 * time.Second).UnixNano(),
			Records: 6000, Delayed: 2000, DelayedMaxMicros: 2000000, DelayedSumMicros: 2000 * 1000000}}
	for k := range 11 {
		from := start.Add(time.Duration(k) * 2 * time.Second / 3)
		cons.Segments = append(cons.Segments, summary.Segment{Partition: 1, First: from, Last: from.Add(100 * time.Millisecond),
			FirstIntended: from.Add(-time.Duration(200+100*k) * time.Millisecond).UnixNano(), Records: 10, Delayed: int64(k)})
	}
	sums[2] = roundTrip(t, cons)
	if merged, err = summary.Merge(sums); err != nil {
		t.Fatal(err)
	}
	golden.YAML(t, "trial-result-stalls", TrialResult(trials[0], merged, SeriesPerTrial(1)).Stalls)
}

// roundTrip sends a summary through JSON, as summaries travel from the workers.
func roundTrip(t *testing.T, s *summary.Summary) *summary.Summary {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back summary.Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestSourceCheckJobGolden: the Job that checks a payload source in the worker
// image, with the ConfigMap mounted and nothing of Kafka's.
func TestSourceCheckJobGolden(t *testing.T) {
	x := experiment(func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{trial.CodecAvro, trial.CodecJSON}
		x.Spec.Payload = serdebenchv1.PayloadSpec{Source: &serdebenchv1.PayloadSource{Format: "avro",
			ConfigMap: &serdebenchv1.SourceConfigMap{Name: "orders"}}}
		x.Spec.Kafka.TLS = &serdebenchv1.KafkaTLS{CASecretRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "kafka-ca"}, Key: "ca.crt"}}
	})
	golden.YAML(t, "source-check-job", SourceCheckJob(cfg, x, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"))
}
