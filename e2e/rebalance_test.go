//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// TestRebalance runs the rebalance sample's consumer group events through the
// operator, which tells the consumer pods over their metrics port (no Chaos
// Mesh): a standby consumer pod joins a classic group, and a consumer leaves a
// consumer-protocol group, whose remaining member learns of it at its next
// heartbeat (the broker's 5 s interval), so its partitions stall for about a
// second or more, and move.
func TestRebalance(t *testing.T) {
	x := sample(t, "local/rebalance.yaml", "rebalance")
	x.Spec.DurationSeconds = ptr(int32(10))
	x.Spec.TimeoutSeconds = 300
	create(t, x)
	x, res := succeeded(t, x.Name, 8*time.Minute)
	// Both protocols (the sample's matrix), each under both events.
	if len(res.Trials) != 4 {
		t.Fatalf("%d trials, want 4", len(res.Trials))
	}
	for _, tr := range res.Trials {
		fs := tr.Fault
		if fs == nil || fs.InjectedTime == nil || len(fs.Objects) != 0 || len(fs.Targets) != 1 || !strings.Contains(fs.Targets[0], "-consumers-") {
			t.Fatalf("%s: fault %+v: want one consumer pod told, no Chaos Mesh object", tr.Name, fs)
		}
		if tr.LostRecords != 0 || tr.Phases == nil {
			t.Errorf("%s: lost %d, phases %+v", tr.Name, tr.LostRecords, tr.Phases)
		}
		consumerProtocol := tr.Settings.GroupProtocol == trial.GroupProtocolConsumer
		st := tr.Stalls
		switch fs.Name {
		case "join":
			if tr.Consumers != 3 {
				t.Errorf("%s: %d consumers reported: want the 2 and the standby that joined", tr.Name, tr.Consumers)
			}
		case "leave":
			if tr.Consumers != 2 || (consumerProtocol && (st == nil || st.Moved < 1 || st.MaxMicros < 1_000_000)) {
				t.Errorf("%s: %d consumers, stalls %+v: want a stall of a second or more that moved (the consumer protocol)", tr.Name, tr.Consumers, st)
			}
		}
		var longest float64
		if st != nil {
			longest = float64(st.MaxMicros) / 1e6
		}
		t.Logf("%s (%s, group protocol %s): %d consumers, longest stall %.2f s, e2e p99 %d µs", tr.Name, fs.Name, tr.Settings.GroupProtocol.OrDefault(), tr.Consumers, longest, tr.EndToEndMicros.P99)
	}
	deleteAndCheckClean(t, x, []string{stack.kafka})
}
