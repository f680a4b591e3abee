package trial

import (
	"reflect"
	"strings"
	"testing"
)

// TestTable: every row is a Settings field of its type with its JSON name, every
// Settings field has a row, and a spec.producer default has the field's type.
func TestTable(t *testing.T) {
	st := reflect.TypeFor[Settings]()
	seen := map[string]bool{}
	for _, r := range Table {
		f, ok := st.FieldByName(r.Field)
		if !ok {
			t.Errorf("row %s: Settings has no such field", r.Field)
			continue
		}
		seen[r.Field] = true
		if got := strings.Split(f.Tag.Get("json"), ",")[0]; got != r.JSON {
			t.Errorf("row %s: JSON %q, the field's tag says %q", r.Field, r.JSON, got)
		}
		if typ := strings.TrimPrefix(r.Type, "trial."); typ != f.Type.Name() {
			t.Errorf("row %s: type %s, the field is %s", r.Field, r.Type, f.Type)
		}
		if r.Spec == "" && reflect.TypeOf(r.Default) != f.Type {
			t.Errorf("row %s: default %#v is not a %s", r.Field, r.Default, f.Type)
		}
		if r.MaxItems > 0 && r.SweepDoc == "" {
			t.Errorf("row %s: a swept setting needs SweepDoc", r.Field)
		}
	}
	for i := range st.NumField() {
		if name := st.Field(i).Name; !seen[name] {
			t.Errorf("Settings.%s has no row in Table", name)
		}
	}
}

// TestExpand: the first sweep varies slowest, empty sweeps are skipped, and Count
// agrees with Expand.
func TestExpand(t *testing.T) {
	lingers, acks := []int32{0, 100}, []Acks{AcksNone, AcksAll}
	sweeps := []Sweep{
		{Field: "LingerMs", Len: len(lingers), Set: func(s *Settings, i int) { s.LingerMs = lingers[i] }},
		{Field: "Mode"},
		{Field: "Acks", Len: len(acks), Set: func(s *Settings, i int) { s.Acks = acks[i] }},
	}
	got := Expand(Settings{BatchSizeBytes: 7}, sweeps)
	want := []Settings{{BatchSizeBytes: 7, Acks: AcksNone}, {BatchSizeBytes: 7, Acks: AcksAll},
		{BatchSizeBytes: 7, LingerMs: 100, Acks: AcksNone}, {BatchSizeBytes: 7, LingerMs: 100, Acks: AcksAll}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if Count(sweeps) != len(got) || Count(nil) != 1 {
		t.Fatalf("Count %d, Expand %d", Count(sweeps), len(got))
	}
}
