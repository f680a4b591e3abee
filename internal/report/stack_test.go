package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestStack: software merged by name, sorted, the first version kept; machines
// one per node, sorted; summaries without a build add nothing.
func TestStack(t *testing.T) {
	goW := &summary.Summary{Build: &summary.Build{Runtime: "go", RuntimeVersion: "go1.26.1", Client: "franz-go", ClientVersion: "v1.22.2", CPUModel: "Xeon", Kernel: "6.8"}}
	jvm := &summary.Summary{Build: &summary.Build{Runtime: "java", RuntimeVersion: "17.0.13+11", Client: "kafka-clients", ClientVersion: "4.4.0", Kernel: "6.8"}}
	old := &summary.Summary{}
	sw := Software(nil, goW, old, jvm)
	sw = Software(sw, &summary.Summary{Build: &summary.Build{Runtime: "go", RuntimeVersion: "go1.27"}})
	want := []v1alpha1.Software{{Name: "franz-go", Version: "v1.22.2"}, {Name: "go", Version: "go1.26.1"}, {Name: "java", Version: "17.0.13+11"},
		{Name: "kafka-clients", Version: "4.4.0"}}
	if !reflect.DeepEqual(sw, want) {
		t.Errorf("Software = %+v, want %+v", sw, want)
	}
	var ms []v1alpha1.Machine
	ms = Machines(ms, "b", goW)
	ms = Machines(ms, "a", jvm)
	ms = Machines(ms, "b", jvm) // b is known
	ms = Machines(ms, "c", old) // no build
	ms = Machines(ms, "", goW)  // no node
	wantM := []v1alpha1.Machine{{Node: "a", Kernel: "6.8"}, {Node: "b", CPUModel: "Xeon", Kernel: "6.8"}}
	if !reflect.DeepEqual(ms, wantM) {
		t.Errorf("Machines = %+v, want %+v", ms, wantM)
	}
	// A worker's words never break the API's limits (the result would be refused).
	long := &summary.Summary{Build: &summary.Build{Runtime: strings.Repeat("r", 100), RuntimeVersion: strings.Repeat("v", 300), CPUModel: strings.Repeat("c", 400), Kernel: "6.8"}}
	if sw := Software(nil, long); len(sw) != 1 || len(sw[0].Name) != 64 || len(sw[0].Version) != 128 {
		t.Errorf("long software: %+v", sw)
	}
	if ms := Machines(nil, strings.Repeat("n", 300), long); len(ms) != 1 || len(ms[0].CPUModel) != 256 || len(ms[0].Node) != 253 {
		t.Errorf("long machine: %+v", ms)
	}
}
