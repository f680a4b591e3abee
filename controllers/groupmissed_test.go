package controllers

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestGroupEventMissed: a leave the operator asked for counts only if the last
// consumer's summary says it left; other faults and events are not judged here.
func TestGroupEventMissed(t *testing.T) {
	leave := trial.Trial{Consumers: 2, Fault: &trial.Fault{Name: "leave", Consumers: &trial.ConsumerFault{Action: trial.ConsumerLeave}}}
	cons := func(name string, left bool) *summary.Summary {
		return &summary.Summary{Role: summary.RoleConsumer, Worker: name, Left: left}
	}
	for _, c := range []struct {
		name string
		t    trial.Trial
		sums []*summary.Summary
		want string
	}{
		{"left", leave, []*summary.Summary{cons("c0", false), cons("c1", true)}, ""},
		{"stayed", leave, []*summary.Summary{cons("c0", false), cons("c1", false)}, "stayed to the end"},
		{"the wrong one left", leave, []*summary.Summary{cons("c0", true), cons("c1", false)}, "consumer c1 was told to leave"},
		{"no summary", leave, []*summary.Summary{cons("c0", false)}, "no summary of consumer c1"},
		{"a pause", trial.Trial{Consumers: 2, Fault: &trial.Fault{Consumers: &trial.ConsumerFault{Action: trial.ConsumerPause}}}, nil, ""},
		{"no fault", trial.Trial{Consumers: 2}, nil, ""},
	} {
		got := groupEventMissed(c.t, c.sums)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
