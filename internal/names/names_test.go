package names

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestLimits: a Job name stays a valid label value (≤ 63) and a topic name a valid
// Kafka topic (≤ 249) for the longest experiment names, attempts and indexes; a
// truncated name never ends with a dash or dot.
func TestLimits(t *testing.T) {
	long := strings.Repeat("a-", 126) + "b" // 253, the longest object name
	uid := "0123abcd-4567-89ef-0123-456789abcdef"
	tr := trial.Trial{Index: 255, Name: "t255-protobuf-vtproto-1048576b"}
	if j := Job(long, uid, tr.Index, "consumers", 99); len(j) > 63 || strings.Contains(j, "--") {
		t.Fatalf("job name %q (%d)", j, len(j))
	}
	if n := Group(long, UIDPrefix(uid, 8), tr, 99); len(n) > 249 {
		t.Fatalf("group name %q (%d)", n, len(n))
	}
	if got := Truncate("ab-.cd", 4); got != "ab" {
		t.Fatalf("Truncate: %q", got)
	}
	if Topic("x", "u", trial.Trial{ExistingTopic: "orders"}, 2) != "orders" {
		t.Fatal("an existing topic keeps its name")
	}
}
