package build

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// faultExperiment is a defaulted experiment on a Strimzi cluster whose trials run
// under the given faults.
func faultExperiment(faults ...trial.Fault) *serdebenchv1.SerializationExperiment {
	return experiment(func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Records, x.Spec.DurationSeconds = nil, ptr.To(int32(60))
		x.Spec.Kafka = serdebenchv1.KafkaSpec{Strimzi: &serdebenchv1.StrimziKafka{ClusterName: "my-cluster", Namespace: "kafka"}}
		x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr.To(false), Scenarios: faults}
	})
}

// TestChaosGolden: each fault kind becomes the Chaos Mesh objects that apply it, on
// the pods it names, for as long as it lasts.
func TestChaosGolden(t *testing.T) {
	for name, f := range map[string]trial.Fault{
		// A jittered delay (uniform: what netem draws without a table) and 5 % loss,
		// one object.
		"chaos-netem": {Name: "iov-loss-5", StartSeconds: 10, DurationSeconds: 30, Network: &trial.NetworkFault{
			Delay:       &trial.Delay{LatencyMicroseconds: 69500, JitterMicroseconds: 5600, Distribution: trial.DistributionUniform},
			LossPercent: "5", LossCorrelationPercent: 25}},
		// A bandwidth cap beside a delay: two objects, Chaos Mesh has one action each.
		"chaos-bandwidth": {Name: "lte", StartSeconds: 10, DurationSeconds: 30, Network: &trial.NetworkFault{
			Delay:     &trial.Delay{LatencyMicroseconds: 20000, CorrelationPercent: 10},
			Bandwidth: &trial.Bandwidth{RateKilobitsPerSecond: 5000}}},
		"chaos-partition": {Name: "cut", StartSeconds: 10, DurationSeconds: 5, Network: &trial.NetworkFault{Partition: true}},
		"chaos-partition-producers": {Name: "cut-producers", StartSeconds: 10, DurationSeconds: 5,
			Target: trial.FaultTarget{Role: trial.RoleProducers}, Network: &trial.NetworkFault{Partition: true}},
		"chaos-broker-kill": {Name: "kill-one", StartSeconds: 20, Target: trial.FaultTarget{Pods: trial.PodsOne},
			Pod: &trial.PodFault{Action: trial.PodKill}},
		"chaos-pod-failure-labels": {Name: "fail", StartSeconds: 20, DurationSeconds: 10,
			Target: trial.FaultTarget{MatchLabels: map[string]string{"app": "kafka"}, Namespace: "streaming"},
			Pod:    &trial.PodFault{Action: trial.PodFailure}},
		"chaos-container-kill": {Name: "ck", StartSeconds: 20, Pod: &trial.PodFault{Action: trial.ContainerKill, ContainerNames: []string{"kafka"}}},
		"chaos-stress-producers": {Name: "squeeze", StartSeconds: 10, DurationSeconds: 20, Target: trial.FaultTarget{Role: trial.RoleProducers},
			Stress: &trial.StressFault{CPU: &trial.CPUStress{Workers: 2, LoadPercent: 80}, Memory: &trial.MemoryStress{SizeMegabytes: 256}}},
	} {
		x := faultExperiment(f)
		trials, err := plan.Expand(x.Spec.ExperimentSpec)
		if err != nil {
			t.Fatal(err)
		}
		if len(trials) != 1 || trials[0].Fault == nil || trials[0].Fault.Name != f.Name || !strings.HasSuffix(trials[0].Name, "-"+f.Name) {
			t.Fatalf("%s: trials %+v", name, trials)
		}
		objs, err := Chaos(x, trials[0], 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden.YAML(t, name, objs)
	}
}

// TestChaosRefuses: a fault Chaos Mesh cannot apply to this experiment is an error
// before anything is created, naming what to change.
func TestChaosRefuses(t *testing.T) {
	delay := trial.Fault{Name: "d", StartSeconds: 1, DurationSeconds: 1, Network: &trial.NetworkFault{Delay: &trial.Delay{LatencyMicroseconds: 1000}}}
	for name, c := range map[string]struct {
		mut  func(x *serdebenchv1.SerializationExperiment)
		want string
	}{
		"normal jitter": {func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Faults.Scenarios[0].Network.Delay.JitterMicroseconds = 500
		}, "cannot give a delay's jitter a normal distribution"},
		"brokers behind a bootstrap address": {func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "kafka:9092"}
		}, "kafka.brokerPods (or target.matchLabels)"},
		"producers partitioned from brokers behind a bootstrap address": {func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: "kafka:9092"}
			x.Spec.Faults.Scenarios[0].Target.Role = trial.RoleProducers
			x.Spec.Faults.Scenarios[0].Network = &trial.NetworkFault{Partition: true}
		}, "needs the brokers' pods: a Strimzi cluster"},
		"producers in colocated pods": {func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Workers.Colocate = true
			x.Spec.Faults.Scenarios[0].Target.Role = trial.RoleConsumers
		}, "workers.colocate runs producers and consumers in one pod"},
	} {
		f := delay
		d := *f.Network.Delay
		f.Network = &trial.NetworkFault{Delay: &d}
		x := faultExperiment(f)
		c.mut(x)
		trials, err := plan.Expand(x.Spec.ExperimentSpec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Chaos(x, trials[0], 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	// A trial without a fault has no chaos.
	x := experiment(nil)
	trials, _ := plan.Expand(x.Spec.ExperimentSpec)
	if objs, err := Chaos(x, trials[0], 1); err != nil || objs != nil {
		t.Errorf("baseline: %v, %v", objs, err)
	}
}

// TestChaosBuildersFollowTheTable: every kind of the fault-kind table has a
// builder, no builder is for another kind, and each kind's fault becomes objects of
// its row's Chaos Mesh kind; a fault of no kind is an error, not an empty list.
func TestChaosBuildersFollowTheTable(t *testing.T) {
	if len(chaosBuilders) != len(trial.ChaosKindNames()) {
		t.Fatalf("%d builders for %d Chaos Mesh kinds", len(chaosBuilders), len(trial.ChaosKindNames()))
	}
	one := map[trial.FaultKind]trial.Fault{
		trial.FaultNetwork: {Name: "n", StartSeconds: 1, DurationSeconds: 1, Network: &trial.NetworkFault{Partition: true}},
		trial.FaultPod:     {Name: "p", StartSeconds: 1, Pod: &trial.PodFault{Action: trial.PodKill}},
		trial.FaultStress:  {Name: "s", StartSeconds: 1, DurationSeconds: 1, Stress: &trial.StressFault{CPU: &trial.CPUStress{Workers: 1}}},
	}
	for _, k := range trial.ChaosKindNames() {
		if _, ok := chaosBuilders[k]; !ok {
			t.Errorf("no builder for %s", k)
			continue
		}
		f, ok := one[k]
		if !ok {
			t.Errorf("no example %s fault in this test", k)
			continue
		}
		x := faultExperiment(f)
		trials, err := plan.Expand(x.Spec.ExperimentSpec)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := Chaos(x, trials[0], 1)
		if err != nil || len(objs) == 0 {
			t.Fatalf("%s: %d objects, %v", k, len(objs), err)
		}
		for _, o := range objs {
			if o.GroupVersionKind() != ChaosKind(k) || o.GetKind() != trial.FaultKinds[k].Chaos {
				t.Errorf("%s: a %s", k, o.GroupVersionKind())
			}
		}
	}
	x := faultExperiment(one[trial.FaultPod])
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		t.Fatal(err)
	}
	trials[0].Fault = &trial.Fault{Name: "none", StartSeconds: 1}
	if objs, err := Chaos(x, trials[0], 1); err == nil {
		t.Errorf("a fault of no kind: %d objects, no error", len(objs))
	}
}
