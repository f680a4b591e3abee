package report

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/workers/summary"
)

// TestShareTableSaysSettled: a trial counted complete by the quiet-time rule says so,
// with the lag the broker still reported; one whose lag reached 0 says nothing.
func TestShareTableSaysSettled(t *testing.T) {
	rows := []Row{
		{Codec: "protobuf", SizeBytes: 256, Share: &summary.Share{Acknowledgement: "explicit", Deliveries: 100}},
		{Codec: "avro", SizeBytes: 256, Share: &summary.Share{Acknowledgement: "implicit", Deliveries: 100, SettledLag: 1}},
	}
	var b strings.Builder
	if err := ShareTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "counted complete when the group's offsets stopped moving"); n != 1 {
		t.Fatalf("%d settled notes, want 1 (the avro trial's):\n%s", n, out)
	}
	if !strings.Contains(out, "avro 256 B") || !strings.Contains(out, "a lag of 1 still reported") {
		t.Errorf("the note names no trial or lag:\n%s", out)
	}
}
