package trial

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/crdtest"
)

// TestFaultKindTable: every kind a Fault can set (a pointer field of a *Fault type)
// has a row, and no row names another; each row's Set sees exactly its own field;
// Kind refuses a fault of no kind and of two; the admission rule "exactly one of"
// lists every kind.
func TestFaultKindTable(t *testing.T) {
	ft := reflect.TypeFor[Fault]()
	var fields []FaultKind
	for i := range ft.NumField() {
		f := ft.Field(i)
		if f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Fault") {
			fields = append(fields, FaultKind(strings.Split(f.Tag.Get("json"), ",")[0]))
		}
	}
	slices.Sort(fields)
	if !slices.Equal(fields, FaultKindNames()) {
		t.Fatalf("Fault's kinds %v, the table's %v", fields, FaultKindNames())
	}
	one := map[FaultKind]*Fault{
		FaultNetwork:   {Name: "n", Network: &NetworkFault{Partition: true}},
		FaultPod:       {Name: "p", Pod: &PodFault{Action: PodKill}},
		FaultStress:    {Name: "s", Stress: &StressFault{CPU: &CPUStress{Workers: 1}}},
		FaultConsumers: {Name: "c", Consumers: &ConsumerFault{Action: ConsumerPause}},
	}
	if len(one) != len(FaultKinds) {
		t.Fatalf("a fault of each kind: %d for %d kinds", len(one), len(FaultKinds))
	}
	for k, f := range one {
		got, err := f.Kind()
		if err != nil || got != k {
			t.Errorf("Kind of a %s fault: %q, %v", k, got, err)
		}
		for other, row := range FaultKinds {
			if row.Set(f) != (other == k) {
				t.Errorf("%s's Set on a %s fault: %v", other, k, row.Set(f))
			}
		}
		row := FaultKinds[k]
		if row.Resource != strings.ToLower(row.Chaos) || row.Needs == "" || (!row.ChaosMesh() && row.Local == "") {
			t.Errorf("%s: incomplete row %+v (a kind the operator does not apply through Chaos Mesh needs a local way)", k, row)
		}
	}
	if _, err := (&Fault{Name: "none"}).Kind(); err == nil {
		t.Error("a fault of no kind: no error")
	}
	if _, err := (&Fault{Name: "two", Network: &NetworkFault{Partition: true}, Pod: &PodFault{Action: PodKill}}).Kind(); err == nil {
		t.Error("a fault of two kinds: no error")
	}
	rule := faultKindRule(t)
	for _, k := range FaultKindNames() {
		if !strings.Contains(rule, "has(self."+string(k)+")") {
			t.Errorf("the CRD's one-kind rule %q does not count %s", rule, k)
		}
	}
}

// faultKindRule is the CEL rule on spec.faults.scenarios[] that admits one kind.
func faultKindRule(t *testing.T) string {
	t.Helper()
	for _, r := range crdtest.At(t, "faults.scenarios[]").XValidations {
		if strings.Contains(r.Message, "exactly one of") {
			return r.Rule
		}
	}
	t.Fatal("spec.faults.scenarios[] has no rule admitting exactly one kind")
	return ""
}
