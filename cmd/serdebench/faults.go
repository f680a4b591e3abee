package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/netem"
)

// defaultFaultQueue is the NFQUEUE the local fault engine binds (netns.sh's own
// delay uses 4213).
const defaultFaultQueue = 4214

// localFaults opens the local rig's engine for an experiment's faults (nil
// without any). serdebench run applies network faults to the packets the broker
// sends, as Chaos Mesh's NetworkChaos on the brokers does; what it cannot apply
// it refuses, so no result is ever measured on a healthy system under a fault's
// name.
func localFaults(x *v1alpha1.SerializationExperiment, iface string, queue uint16) (*runner.Faults, error) {
	f := x.Spec.Faults
	if f == nil {
		return nil, nil
	}
	var problems []string
	for _, s := range f.Scenarios {
		switch {
		case s.Network == nil:
			problems = append(problems, fmt.Sprintf("scenario %s is a pod or stress fault, which needs a cluster with Chaos Mesh", s.Name))
		case s.Target.Role != "" && s.Target.Role != trial.RoleBrokers:
			problems = append(problems, fmt.Sprintf("scenario %s targets the %s: the local rig impairs the broker's packets only", s.Name, s.Target.Role))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("spec.faults: serdebench run applies network faults on the broker (delay, loss, bandwidth, partition) and nothing else: %s (docs/faults.md)",
			strings.Join(problems, "; "))
	}
	if iface == "" {
		return nil, errors.New("spec.faults: serdebench run applies network faults with the local rig: run it as root behind hack/calibrate/netns.sh " +
			"and name the rig's interface with --fault-interface (hack/faults.sh does both; docs/faults.md)")
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("spec.faults: the local rig needs root (iptables NFQUEUE on %s)", iface)
	}
	e, err := netem.Open(iface, queue)
	if err != nil {
		return nil, fmt.Errorf("spec.faults: open the local fault engine on %s: %w", iface, err)
	}
	return &runner.Faults{Engine: e, Interface: iface, Recovery: f.Recovery}, nil
}
