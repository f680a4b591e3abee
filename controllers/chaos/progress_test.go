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
// applied anywhere.
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
		"created": {},
		"partly": {Selected: true, Targets: brokers, Applied: true,
			ApplyFailure: "kafka/my-cluster-broker-1: rpc error: code = Unknown desc = error code: Error: Specified qdisc kind is unknown."},
		"injected": {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:03Z"), Targets: brokers, Applied: true},
		// Applied and undone between two reads: still applied, at its time.
		"recovered": {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:03Z"), Recovered: true, RecoveredAt: at("2026-11-24T10:00:33Z") /* recorded 10:00:32, rounded up to the end of that second */, Targets: brokers, Applied: true},
		"killed":    {Selected: true, Injected: true, InjectedAt: at("2026-11-24T10:00:20Z"), Targets: []string{"kafka/my-cluster-broker-2"}, Applied: true},
		// Never applied anywhere: nothing to undo, so its finalizer may go.
		"unapplied": {Selected: true, Targets: []string{"kafka/kafka-0"}, ApplyFailure: "kafka/kafka-0: cannot find daemonIP on node vm"},
	} {
		st, ok := statuses[name]
		if !ok {
			t.Fatalf("no status %q in testdata", name)
		}
		got := Read(&unstructured.Unstructured{Object: map[string]any{"status": st}})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}
