package trial

import (
	"reflect"
	"slices"
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

// TestLabelOrderIsTable: every row of Table has its place in a label, once.
func TestLabelOrderIsTable(t *testing.T) {
	var rows []string
	for _, r := range Table {
		rows = append(rows, r.Field)
		if r.Label.Format == "" {
			t.Errorf("row %s has no Label", r.Field)
		}
	}
	got := slices.Clone(labelOrder)
	slices.Sort(got)
	slices.Sort(rows)
	if !slices.Equal(got, rows) {
		t.Fatalf("labelOrder %v, Table's rows %v", labelOrder, rows)
	}
}

// TestEverySettingChangesTheLabel: two trials that differ in any one setting
// never share a label (the key compare and schedules match trials by), and the
// label of the defaults is what tables have always shown.
func TestEverySettingChangesTheLabel(t *testing.T) {
	base := Settings{Mode: ModeBatch, BatchSizeBytes: 16384, LingerMs: 5, Acks: AcksAll, Compression: CompressionNone, MaxInFlight: 5,
		Client: DefaultClient, SendBufferBytes: DefaultSocketBufferBytes, ReceiveBufferBytes: DefaultSocketBufferBytes,
		Partitioner: PartitionerRoundRobin, PayloadCompression: PayloadCompressionNone}
	if got, want := base.Describe(), "batch acks=all none batch=16384 linger=5ms"; got != want {
		t.Fatalf("defaults' label %q, want %q", got, want)
	}
	other := map[string]any{
		"Mode": ModeSingle, "BatchSizeBytes": int32(1000), "LingerMs": int32(0), "Acks": AcksLeader, "Compression": CompressionZstd,
		"MaxInFlight": int32(1), "Idempotent": true, "RecordsPerSecond": int64(2000), "Client": ClientFranz, "ConsumerClient": ClientJava,
		"Partitioner": PartitionerSticky, "PayloadCompression": PayloadCompressionXZ, "Records": int64(10),
		"SendBufferBytes": int32(131072), "ReceiveBufferBytes": int32(32768),
		"Transactions": Transactions{RecordsPerTransaction: 100}, "Isolation": IsolationReadCommitted, "GroupProtocol": GroupProtocolConsumer, "GroupType": GroupTypeShare,
	}
	for _, r := range Table {
		val, ok := other[r.Field]
		if !ok {
			t.Errorf("row %s: the test has no other value for it", r.Field)
			continue
		}
		s := base
		reflect.ValueOf(&s).Elem().FieldByName(r.Field).Set(reflect.ValueOf(val))
		if s.Mode == ModeSingle && r.Label.When == LabelInBatchMode {
			t.Errorf("row %s: set with the mode changed", r.Field)
		}
		if s.Describe() == base.Describe() {
			t.Errorf("row %s = %v: label %q, the same as the defaults'", r.Field, val, s.Describe())
		}
	}
	// A field older results lack (0 or empty) labels as its default did then.
	old := base
	old.Client, old.SendBufferBytes, old.ReceiveBufferBytes, old.Partitioner, old.PayloadCompression = "", 0, 0, "", ""
	if old.Describe() != base.Describe() {
		t.Fatalf("an older result's label %q, today's defaults' %q: compare would not match them", old.Describe(), base.Describe())
	}
}

// TestGiven: the given part of a label holds the traffic's and consumers'
// settings and none of the producer's, and is empty at their defaults.
func TestGiven(t *testing.T) {
	s := Settings{Mode: ModeBatch, Acks: AcksLeader, Compression: CompressionSnappy, BatchSizeBytes: 100000, LingerMs: 100, Client: ClientFranz,
		ConsumerClient: ClientJava, RecordsPerSecond: 1000}
	if g := s.Given(); g != "consumers=java rate=1000/s" {
		t.Fatalf("given %q", g)
	}
	if d := s.Describe(); !strings.Contains(d, "client=franz-go") || !strings.Contains(d, s.Given()) {
		t.Fatalf("label %q", d)
	}
	s.ConsumerClient, s.RecordsPerSecond = "", 0
	if g := s.Given(); g != "" {
		t.Fatalf("given at defaults %q", g)
	}
}
