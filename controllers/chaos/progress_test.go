package chaos

import (
	"os"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestRead: each stage of a chaos object's status reads as what it says about the
// fault — not selected, failing on one pod (with Chaos Mesh's message), applied to
// all (from the last pod's last successful apply), recovered, killed once, never
// applied anywhere (its rules pending in the pod's PodNetworkChaos), and that once
// Chaos Mesh has seen its deletion.
func TestRead(t *testing.T) {
	raw, err := os.ReadFile("testdata/statuses.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var statuses map[string]map[string]any
	if err := yaml.Unmarshal(raw, &statuses); err != nil {
		t.Fatal(err)
	}
	brokers := []string{"kafka/my-cluster-broker-0", "kafka/my-cluster-broker-1"}
	for name, want := range map[string]Progress{
		"created": {Untouched: true},
		"partly": {Selected: true, Targets: brokers, Applied: true,
			ApplyFailure: "kafka/my-cluster-broker-1: rpc error: code = Unknown desc = error code: Error: Specified qdisc kind is unknown."},
		"injected": {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:03Z"), Targets: brokers, Applied: true},
		// Applied and undone between two reads: still applied, at its time.
		"recovered": {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:03Z"), Recovered: true, RecoveredAt: at("2026-11-24T10:00:33Z") /* recorded 10:00:32, rounded up to the end of that second */, Targets: brokers, Applied: true, Stopping: true, Untouched: true},
		"killed":    {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:20Z"), Targets: []string{"kafka/my-cluster-broker-2"}, Applied: true},
		// Never applied anywhere, but its rules wait in the pod's PodNetworkChaos:
		// pending, not nothing.
		"unapplied": {Selected: true, Targets: []string{"kafka/kafka-0"}, ApplyFailure: "kafka/kafka-0: cannot find daemonIP on node vm",
			Untouched: true, Pending: []string{"kafka/kafka-0"}},
		"unapplied-deleted": {Selected: true, Targets: []string{"kafka/kafka-0"}, ApplyFailure: "kafka/kafka-0: cannot find daemonIP on node vm",
			Untouched: true, Pending: []string{"kafka/kafka-0"}, Stopping: true},
	} {
		st, ok := statuses[name]
		if !ok {
			t.Fatalf("no status %q in testdata", name)
		}
		got := Read(&unstructured.Unstructured{Object: map[string]any{"kind": "NetworkChaos", "status": st}})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// TestWithdrawRules: only the source's rules leave a PodNetworkChaos; another
// NetworkChaos's stay.
func TestWithdrawRules(t *testing.T) {
	pnc := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"ipsets":   []any{map[string]any{"name": "a", "source": "ns/mine"}, map[string]any{"name": "b", "source": "ns/other"}},
		"iptables": []any{map[string]any{"name": "c", "source": "ns/mine"}},
		"tcs":      []any{map[string]any{"type": "netem", "source": "ns/other"}},
	}}}
	if !WithdrawRules(pnc, "ns/mine") {
		t.Fatal("nothing withdrawn")
	}
	want := map[string]any{
		"ipsets":   []any{map[string]any{"name": "b", "source": "ns/other"}},
		"iptables": []any{},
		"tcs":      []any{map[string]any{"type": "netem", "source": "ns/other"}},
	}
	if !reflect.DeepEqual(pnc.Object["spec"], want) {
		t.Fatalf("spec %v, want %v", pnc.Object["spec"], want)
	}
	if WithdrawRules(pnc, "ns/mine") {
		t.Fatal("withdrawn twice")
	}
}

// TestSynced: rules chaos-daemon applied (the PodNetworkChaos observed the
// generation the NetworkChaos committed, without failure) are Chaos Mesh's to undo.
func TestSynced(t *testing.T) {
	nc := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"instances": map[string]any{"kafka/kafka-0": int64(3)}}}}
	pnc := func(observed int64, failed string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"observedGeneration": observed, "failedMessage": failed}}}
	}
	for _, c := range []struct {
		pnc  *unstructured.Unstructured
		id   string
		want bool
	}{
		{pnc(3, ""), "kafka/kafka-0", true},
		{pnc(4, ""), "kafka/kafka-0", true},
		{pnc(2, ""), "kafka/kafka-0", false},
		{pnc(3, "cannot find daemonIP on node vm"), "kafka/kafka-0", false},
		{pnc(3, ""), "kafka/kafka-1", false},
	} {
		if got := Synced(nc, c.pnc, c.id); got != c.want {
			t.Errorf("%v %s: %v, want %v", c.pnc.Object, c.id, got, c.want)
		}
	}
}
