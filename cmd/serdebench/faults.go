package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/netem/engine"
)

// defaultFaultQueue is the NFQUEUE the local fault engine binds (netns.sh's own
// delay uses 4213).
const defaultFaultQueue = 4214

// localFaults prepares what an experiment's faults need without Kubernetes (nil
// without any): the local rig's engine for network faults on the packets the
// broker sends, as Chaos Mesh's NetworkChaos on the brokers does, and the broker's
// script for kills and failures, as its PodChaos does. What it cannot apply it
// refuses, so no result is ever measured on a healthy system under a fault's name.
// Its errors are usage errors where the spec or the flags ask for what this
// command cannot do here; opening the engine is a runtime one.
func localFaults(x *v1alpha1.SerializationExperiment, iface string, queue uint16, brokerScript string) (*runner.Faults, error) {
	f := x.Spec.Faults
	if f == nil {
		return nil, nil
	}
	var problems []string
	var network, pod bool
	for _, s := range f.Scenarios {
		kind, err := s.Kind()
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case s.Target.Role != "" && s.Target.Role != trial.RoleBrokers:
			problems = append(problems, fmt.Sprintf("scenario %s targets the %s: serdebench run acts on the broker only", s.Name, s.Target.Role))
		case trial.FaultKinds[kind].Local == "":
			problems = append(problems, fmt.Sprintf("scenario %s is a %s fault, which needs a cluster with Chaos Mesh (%s)", s.Name, kind, trial.FaultKinds[kind].Needs))
		}
		network = network || kind == trial.FaultNetwork
		pod = pod || kind == trial.FaultPod
	}
	if len(problems) > 0 {
		var local []string
		for _, k := range trial.FaultKindNames() {
			if how := trial.FaultKinds[k].Local; how != "" {
				local = append(local, fmt.Sprintf("%s faults through %s", k, how))
			}
		}
		return nil, usagef("spec.faults: serdebench run applies %s, and nothing else: %s (docs/faults.md)",
			strings.Join(local, "; "), strings.Join(problems, "; "))
	}
	out := &runner.Faults{Interface: iface, Recovery: f.Recovery}
	if pod {
		if brokerScript == "" {
			return nil, usage(errors.New("spec.faults: serdebench run kills and restarts the broker through its script: name it with --fault-broker-script " +
				"(hack/kafka/kafka.sh for the broker it started; docs/faults.md)"))
		}
		if _, err := os.Stat(brokerScript); err != nil {
			return nil, usage(fmt.Errorf("spec.faults: --fault-broker-script: %w", err))
		}
		out.Broker = &runner.BrokerScript{Path: brokerScript}
	}
	if !network {
		return out, nil
	}
	if iface == "" {
		return nil, usage(errors.New("spec.faults: serdebench run applies network faults with the local rig: run it as root behind hack/calibrate/netns.sh " +
			"and name the rig's interface with --fault-interface (hack/faults.sh does both; docs/faults.md)"))
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("spec.faults: the local rig needs root (iptables NFQUEUE on %s)", iface)
	}
	e, err := engine.Open(iface, queue)
	if err != nil {
		return nil, fmt.Errorf("spec.faults: open the local fault engine on %s: %w", iface, err)
	}
	out.Engine = e
	return out, nil
}
