//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/kubetest"
	"github.com/serdebench/serdebench/internal/topics"
)

// brokersNamespace is where hack/kafka/brokers.yaml runs them.
const brokersNamespace = "kafka"

// brokerPods are the three brokers running as pods (hack/kafka/brokers.sh), whose
// pods the fault tests have Chaos Mesh act on.
func brokerPods(t *testing.T) []string {
	t.Helper()
	b := os.Getenv("SERDEBENCH_STACK_BROKERS")
	if b == "" {
		t.Fatal("SERDEBENCH_STACK_BROKERS is not set: make test-e2e brings up three brokers as pods and Chaos Mesh (SERDEBENCH_STACK_FAULTS=1 hack/stack/stack.sh up)")
	}
	return strings.Split(b, ",")
}

// ownTopic waits for the brokers to settle after an earlier test's kill, creates
// the test's topic and waits (bounded) until every broker's metadata lists it
// with a leader for each partition: the operator checks an existing topic on
// whichever broker it asks, and a broker just restarted by an earlier kill may not
// have caught up with a topic created a moment ago.
func ownTopic(t *testing.T, brokers []string, spec topics.Spec) {
	t.Helper()
	ctx := context.Background()
	settled(t, brokers)
	admin := &topics.Admin{Brokers: brokers}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), spec.Name) })
	kubetest.WaitFor(t, time.Minute, time.Second, "topic "+spec.Name+" visible", func() (bool, error) {
		ready, err := admin.Ensure(ctx, spec)
		if err != nil {
			t.Fatalf("create topic %s: %v", spec.Name, err)
		}
		return ready, nil
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	all, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("list the brokers: %v", err)
	}
	for _, mb := range all.Brokers {
		b := cl.Broker(int(mb.NodeID))
		kubetest.WaitFor(t, time.Minute, time.Second, fmt.Sprintf("broker %d to list topic %s", mb.NodeID, spec.Name), func() (bool, error) {
			req := kmsg.NewPtrMetadataRequest()
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(spec.Name)
			req.Topics = append(req.Topics, rt)
			reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			resp, err := b.RetriableRequest(reqCtx, req)
			if err != nil {
				return false, err
			}
			if why := listed(resp.(*kmsg.MetadataResponse), spec); why != "" {
				return false, errors.New(why)
			}
			return true, nil
		})
	}
}

// settled waits (bounded) until every partition of every topic, the internal
// ones included, has its replicas on registered brokers, a leader and all its
// replicas in sync: what `kafka-topics --under-replicated-partitions` and Strimzi's
// rolling update wait for. A broker an earlier test killed is back in the
// cluster some seconds after its pod: until then a transactional producer's
// coordinator, or __transaction_state itself (replication factor 3), may not be
// available, and its first sends wait past the time its fault was due.
func settled(t *testing.T, brokers []string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	kubetest.WaitFor(t, 3*time.Minute, 2*time.Second, "the brokers to settle (all registered, every partition fully in sync)", func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl) // no topics: all of them
		if err != nil {
			return false, err
		}
		if why := unsettled(m); why != "" {
			return false, errors.New(why)
		}
		return true, nil
	})
}

// unsettled says why metadata m shows a cluster not settled ("" if it is): a
// replica on a broker the metadata does not list (not registered, or fenced), a
// partition without a leader, or one with replicas out of sync. (The brokers'
// count comes from the partitions, not the bootstrap list, which may name one
// address for all.)
func unsettled(m *kmsg.MetadataResponse) string {
	live := map[int32]bool{}
	for _, b := range m.Brokers {
		live[b.NodeID] = true
	}
	for _, mt := range m.Topics {
		name := ""
		if mt.Topic != nil {
			name = *mt.Topic
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
			return fmt.Sprintf("topic %s: %v", name, err)
		}
		for _, p := range mt.Partitions {
			for _, r := range p.Replicas {
				if !live[r] {
					return fmt.Sprintf("topic %s partition %d: replica broker %d is not registered", name, p.Partition, r)
				}
			}
			switch {
			case p.Leader < 0:
				return fmt.Sprintf("topic %s partition %d has no leader", name, p.Partition)
			case len(p.ISR) < len(p.Replicas) || len(p.OfflineReplicas) > 0:
				return fmt.Sprintf("topic %s partition %d: %d of %d replicas in sync", name, p.Partition, len(p.ISR), len(p.Replicas))
			}
		}
	}
	return ""
}

// listed says what broker metadata lacks of spec's topic ("" if nothing).
func listed(m *kmsg.MetadataResponse, spec topics.Spec) string {
	for _, mt := range m.Topics {
		if mt.Topic == nil || *mt.Topic != spec.Name {
			continue
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
			return err.Error()
		}
		if int32(len(mt.Partitions)) != spec.Partitions {
			return fmt.Sprintf("%d partitions, want %d", len(mt.Partitions), spec.Partitions)
		}
		for _, p := range mt.Partitions {
			if p.Leader < 0 {
				return fmt.Sprintf("partition %d has no leader", p.Partition)
			}
		}
		return ""
	}
	return "not listed"
}

// faulted is an experiment on the brokers-as-pods with one fault scenario and no
// baseline, on topic (which the test owns, so that it can read it back).
func faulted(name, topic, acks string, brokers []string, f trial.Fault) *v1alpha1.SerializationExperiment {
	x := small(name, 0, trial.CodecProtobuf)
	x.Spec.Records = nil
	x.Spec.DurationSeconds = ptr(int32(30))
	x.Spec.Warmup = trial.Warmup{DurationSeconds: 5}
	x.Spec.IntervalSeconds = 1
	x.Spec.Rate = v1alpha1.Rate{RecordsPerSecond: 1000}
	x.Spec.Client = trial.ClientFranz
	x.Spec.Producer = v1alpha1.ProducerSettings{Acks: trial.Acks(acks)}
	x.Spec.Topic = v1alpha1.TopicSpec{Name: topic, Partitions: 3}
	// The fault finds the brokers' pods through kafka.brokerPods.
	x.Spec.Kafka = v1alpha1.KafkaSpec{BootstrapServers: strings.Join(brokers, ","),
		BrokerPods: &v1alpha1.BrokerPods{MatchLabels: map[string]string{"app.kubernetes.io/name": "kafka"}, Namespace: brokersNamespace}}
	f.Target = trial.FaultTarget{Role: trial.RoleBrokers, Pods: trial.PodsOne}
	x.Spec.Faults = &v1alpha1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{f}}
	return x
}

// TestNetworkFaultNotInjected: this kernel has no netem and the local cluster no
// chaos-daemon, so Chaos Mesh cannot apply a NetworkChaos. The trial must fail
// with FaultNotInjected and Chaos Mesh's own reason, never measure a healthy
// network as a faulted one. (It runs before TestBrokerKill, whose last kill its
// brokers would otherwise wait to settle from.)
func TestNetworkFaultNotInjected(t *testing.T) {
	brokers := brokerPods(t)
	topic := fmt.Sprintf("network-fault-%d", time.Now().Unix())
	ownTopic(t, brokers, topics.Spec{Name: topic, Partitions: 3, Replicas: 3})
	f := trial.Fault{Name: "delay", StartSeconds: 5, DurationSeconds: 10,
		Network: &trial.NetworkFault{Delay: &trial.Delay{LatencyMicroseconds: 10_000}}}
	x := faulted("network-fault", topic, "all", brokers, f)
	create(t, x)
	got := waitStage(t, x.Name, 4*time.Minute)
	c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
	if got.Status.Stage != v1alpha1.StageFailed || c == nil || c.Reason != controllers.ReasonFaultNotInjected || !strings.Contains(c.Message, "cannot find daemonIP") {
		t.Fatalf("stage %s, condition %+v: want Failed with FaultNotInjected and Chaos Mesh's reason (no chaos-daemon)", got.Status.Stage, c)
	}
	t.Logf("failed as it must: %s", c.Message)
	deleteAndCheckClean(t, x, brokers)
	checkNoFaultObjects(t)
}

// TestBrokerKill: Chaos Mesh's PodChaos kills one of three brokers 10 s into the
// measured window, on a topic replicated three times with min.insync.replicas 2.
// With acks=all nothing acknowledged is lost; with acks=1 whatever was lost is
// exactly what a read-back of the topic lacks. With a transactional producer and
// read-committed consumers (the broker killed mid-transaction: one commits every
// 100 ms), the committed records are exactly what a read-committed read-back
// finds, and no consumer received a record of an aborted transaction. All record
// the kill, the phases and the recovery.
func TestBrokerKill(t *testing.T) {
	brokers := brokerPods(t)
	for _, c := range []struct{ name, acks string }{{"all", "all"}, {"one", "1"}, {"txn", "all"}} {
		acks, txn := c.acks, c.name == "txn"
		t.Run(c.name, func(t *testing.T) {
			name := "broker-kill-" + c.name
			topic := fmt.Sprintf("%s-%d", name, time.Now().Unix())
			ownTopic(t, brokers, topics.Spec{Name: topic, Partitions: 3, Replicas: 3, Config: map[string]string{"min.insync.replicas": "2"}})
			x := faulted(name, topic, acks, brokers, trial.Fault{Name: "kill-one", StartSeconds: 10, Pod: &trial.PodFault{Action: trial.PodKill}})
			if txn {
				x.Spec.Producer.Transactions = &trial.Transactions{TransactionMillis: 100}
				x.Spec.Consumer.Isolation = trial.IsolationReadCommitted
			}
			create(t, x)
			_, res := succeeded(t, name, 6*time.Minute)
			if len(res.Trials) != 1 {
				t.Fatalf("%d trials, want 1", len(res.Trials))
			}
			tr := res.Trials[0]
			if tr.Fault == nil || tr.Fault.InjectedTime == nil || tr.Fault.TargetCount != 1 || len(tr.Fault.Targets) != 1 || !strings.HasPrefix(tr.Fault.Targets[0], "kafka/kafka-") {
				t.Fatalf("fault %+v: want one broker pod killed, with its time", tr.Fault)
			}
			ph := tr.Phases
			if ph == nil || ph.Before == nil || ph.During == nil || ph.RecoveryFrom != "Kill" {
				t.Fatalf("phases %+v: want before and during a kill", ph)
			}
			if ph.RecoveryMillis == nil && ph.RecoveryNote == "" {
				t.Errorf("no recovery time and no note saying why")
			}
			// The killed broker's pod is a new container: its CPU counter starts
			// again, and the brokers' CPU is not summed across it.
			if tr.Resources == nil || tr.Resources.BrokerCPUNanosPerRecord != 0 || !hasWarning(tr.Warnings, "restarted") {
				t.Errorf("resources %+v, warnings %v: want the brokers' CPU not read, saying a container restarted", tr.Resources, tr.Warnings)
			}
			if tr.Attempts > 1 {
				t.Fatalf("trial ran %d attempts: the read-back cannot tell them apart", tr.Attempts)
			}
			distinct := readBack(t, brokers, topic, txn)
			if txn {
				x := tr.Transactions
				// A transaction in doubt (its commit unanswered at the kill) may have
				// committed: then the topic holds more than the producer counted.
				if x == nil || x.CommitP50Micros == 0 || x.AbortedDeliveredRecords != 0 || tr.DeliveredRecords != distinct ||
					tr.SentRecords > distinct || (x.InDoubt == 0 && tr.SentRecords != distinct) {
					t.Fatalf("transactions %+v: sent (committed) %d, delivered %d, read committed %d: want all equal (sent fewer only with a transaction in doubt), nothing aborted delivered",
						x, tr.SentRecords, tr.DeliveredRecords, distinct)
				}
				t.Logf("txn: %d committed, %d aborted (%d records), commit p50 %d µs, p99 %d µs", x.Committed, x.Aborted, x.AbortedRecords, x.CommitP50Micros, x.CommitP99Micros)
			}
			// Every record the consumer received is in the topic, and nothing else
			// put there is the trial's, so acknowledged-and-absent is
			// acknowledged − (in the topic − received without acknowledgement).
			want := tr.SentRecords - (distinct - tr.UnacknowledgedDeliveredRecords)
			t.Logf("acks=%s: killed %s; sent %d (acknowledged), failed %d, lost %d, duplicated %d; the topic holds %d distinct records; first error %v ms, recovery %v ms (%s)",
				acks, tr.Fault.Targets[0], tr.SentRecords, tr.FailedRecords, tr.LostRecords, tr.DuplicatedRecords, distinct, deref64(ph.FirstErrorMillis), deref64(ph.RecoveryMillis), ph.RecoveryNote)
			if txn {
				want = 0 // committed records: the read-back holds them all (above)
			}
			if tr.LostRecords != want {
				t.Errorf("lost %d, but the topic lacks %d acknowledged records (sent %d, %d distinct in the topic, %d received unacknowledged)",
					tr.LostRecords, want, tr.SentRecords, distinct, tr.UnacknowledgedDeliveredRecords)
			}
			if acks == "all" && tr.LostRecords != 0 {
				t.Errorf("acks=all with min.insync.replicas 2 lost %d acknowledged records", tr.LostRecords)
			}
			deleteAndCheckClean(t, x, brokers)
			checkNoFaultObjects(t)
		})
	}
}

// checkNoFaultObjects: the operator leaves no Chaos Mesh object behind.
func checkNoFaultObjects(t *testing.T) {
	t.Helper()
	out, err := kubectlIn("", "-n", namespace, "get", "podchaos,networkchaos,stresschaos", "-o", "name")
	if err != nil {
		t.Fatalf("list fault objects: %v: %s", err, out)
	}
	if strings.Contains(out, ".chaos-mesh.org/") { // kind.group/name; "No resources found" otherwise
		t.Errorf("fault objects left after the experiment was deleted:\n%s", out)
	}
	// Nor rules of theirs waiting for a chaos-daemon in the brokers' PodNetworkChaos
	// (each names its source, namespace/name).
	out, err = kubectlIn("", "get", "podnetworkchaos", "-A", "-o", "jsonpath={.items[*].spec.*[*].source}")
	if err != nil {
		t.Fatalf("list PodNetworkChaos: %v: %s", err, out)
	}
	if strings.Contains(out, namespace+"/") {
		t.Errorf("rules of deleted fault objects left in PodNetworkChaos: %s", out)
	}
}

// readBack counts the distinct data records (producer, partition, sequence) in
// topic's three partitions, committed records only when readCommitted.
func readBack(t *testing.T, brokers []string, topic string, readCommitted bool) int64 {
	t.Helper()
	var n int64
	for _, l := range kafkatest.ReadBack(t, brokers, topic, 3, readCommitted) {
		n += l.Set.Size()
	}
	return n
}

func deref64(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func hasWarning(warnings []string, part string) bool {
	for _, w := range warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
