package compare

import (
	"reflect"
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestVersionsOf: a result's environment as named versions: the digest that
// ran, each runtime and library, the machines' CPU models and kernels distinct
// and sorted; nothing for what it did not record.
func TestVersionsOf(t *testing.T) {
	got := VersionsOf(v1alpha1.Environment{KafkaRelease: "4.4 (metadata.version 4.4-IV2)", WorkerImageIDs: []string{"w@sha256:1"},
		Software: []v1alpha1.Software{{Name: "go", Version: "go1.26.1"}, {Name: "franz-go", Version: "v1.22.2"}},
		Machines: []v1alpha1.Machine{{Node: "b", CPUModel: "Xeon 8370C", Kernel: "6.8"}, {Node: "a", CPUModel: "EPYC 7763", Kernel: "6.8"}}})
	want := Versions{"Kafka": "4.4 (metadata.version 4.4-IV2)", "worker image": "w@sha256:1", "go": "go1.26.1", "franz-go": "v1.22.2",
		"CPU": "EPYC 7763; Xeon 8370C", "kernel": "6.8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("VersionsOf = %v, want %v", got, want)
	}
}

// TestChanges: each change once, at the first run that has it, against the last
// value recorded before (a run that did not record one neither hides a change nor
// makes one).
func TestChanges(t *testing.T) {
	h := []Versions{
		{"Kafka": "4.3", "franz-go": "v1.22.2"},
		{"Kafka": "4.3", "franz-go": "v1.22.2"},
		{"franz-go": "v1.22.2"}, // an older result: no Kafka recorded
		{"Kafka": "4.4", "franz-go": "v1.22.2", "kernel": "6.8"},
		{"Kafka": "4.4", "franz-go": "v1.23.0", "kernel": "6.8"},
	}
	got := Changes(h)
	want := []Change{{What: "Kafka", From: "4.3", To: "4.4", At: 3, Since: 1}, {What: "franz-go", From: "v1.22.2", To: "v1.23.0", At: 4, Since: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes = %+v, want %+v", got, want)
	}
	// Night 3 recorded no Kafka: the change is placed between the nights that did.
	if s := got[0].String("night-4", "night-2"); s != "Kafka: 4.3 → 4.4 between night-2 and night-4" {
		t.Errorf("String = %q", s)
	}
	if s := got[1].String("night-5", "night-4"); s != "franz-go: v1.22.2 → v1.23.0 at night-5" {
		t.Errorf("String = %q", s)
	}
	if c := Changes(h[:3]); len(c) != 0 {
		t.Errorf("no change, got %+v", c)
	}
}
