package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/netem"
	"github.com/serdebench/serdebench/workers/protocol"
)

// TestFaultRefusals: a fault serdebench run cannot apply fails its trial with
// FaultNotInjected and says what is missing, before anything runs.
func TestFaultRefusals(t *testing.T) {
	broker := &Faults{Broker: &BrokerScript{Path: "hack/kafka/kafka.sh"}}
	for name, c := range map[string]struct {
		fault trial.Fault
		with  *Faults
		want  string // "" accepted
	}{
		"kill without a script": {trial.Fault{Pod: &trial.PodFault{Action: trial.PodKill}}, nil, "--fault-broker-script"},
		"kill":                  {trial.Fault{Pod: &trial.PodFault{Action: trial.PodKill}}, broker, ""},
		"failure":               {trial.Fault{Pod: &trial.PodFault{Action: trial.PodFailure}, DurationSeconds: 5}, broker, ""},
		"loss without the rig":  {trial.Fault{Network: &trial.NetworkFault{LossPercent: "5"}, DurationSeconds: 5}, broker, "--fault-interface"},
		"stress": {trial.Fault{Stress: &trial.StressFault{CPU: &trial.CPUStress{Workers: 1}}, DurationSeconds: 5}, broker,
			"cannot apply a stress fault: it needs a cluster with Chaos Mesh"},
		"of no kind": {trial.Fault{DurationSeconds: 5}, broker, "sets 0 of"},
		"on the producers": {trial.Fault{Target: trial.FaultTarget{Role: trial.RoleProducers}, Network: &trial.NetworkFault{LossPercent: "5"},
			DurationSeconds: 5}, broker, "not on the producers"},
	} {
		t.Run(name, func(t *testing.T) {
			f := c.fault
			f.Name = "f"
			r, err := newFaultRun(trial.Trial{Name: "t", Producers: 1, Fault: &f}, c.with, []string{"127.0.0.1:9092"})
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.rec.Action != string(f.Pod.Action) || r.rec.Impairment != "" {
					t.Fatalf("record %+v", r.rec)
				}
				return
			}
			var te *TrialError
			if !errors.As(err, &te) || te.Reason != protocol.ReasonFaultNotInjected || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want FaultNotInjected naming %q", err, c.want)
			}
		})
	}
}

// TestRigWarning: the result says which way the engine missed its setting, with
// the kernel's own drop count when it could be read.
func TestRigWarning(t *testing.T) {
	for _, c := range []struct {
		st   *netem.Stats
		want string
	}{
		{nil, ""},
		{&netem.Stats{Packets: 100}, ""},
		{&netem.Stats{Packets: 100, Unheld: 3}, "3 of 100 packets passed on unheld (less delay than set)"},
		{&netem.Stats{Packets: 100, Enobufs: 2, KernelDropped: 40}, "the kernel dropped 40 packets before the engine saw them (more loss than set)"},
		{&netem.Stats{Packets: 100, Enobufs: 2, KernelDropped: -1}, "the kernel dropped queue messages 2 times (ENOBUFS; more loss than set, by how much is unknown"},
	} {
		got := rigWarning(c.st)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}
