package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/workers/summary"
)

// The caps of a result's software and machines: the API's MaxItems and
// MaxLengths, which a worker's words must not break (a result the API server
// refuses loses the trial).
const (
	maxSoftware     = 16
	maxMachines     = 24
	maxSoftwareName = 64
	maxVersion      = 128
	maxNode         = 253
	maxCPUModel     = 256
	maxKernel       = 128
)

// Software merges into have the runtimes and client libraries the summaries
// name, each with its version, sorted by name; a name already there keeps its
// version (one image, one version), and a summary without a build adds nothing.
func Software(have []v1alpha1.Software, sums ...*summary.Summary) []v1alpha1.Software {
	out := slices.Clone(have)
	add := func(name, version string) {
		if name == "" || version == "" || slices.ContainsFunc(out, func(s v1alpha1.Software) bool { return s.Name == names.Truncate(name, maxSoftwareName) }) {
			return
		}
		out = append(out, v1alpha1.Software{Name: names.Truncate(name, maxSoftwareName), Version: names.Truncate(version, maxVersion)})
	}
	for _, s := range sums {
		if b := s.Build; b != nil {
			add(b.Runtime, b.RuntimeVersion)
			add(b.Client, b.ClientVersion)
		}
	}
	slices.SortFunc(out, func(a, b v1alpha1.Software) int { return strings.Compare(a.Name, b.Name) })
	return out[:min(len(out), maxSoftware)]
}

// Machines merges into have the machine a summary's worker ran on, on node: the
// first by node name, one each.
func Machines(have []v1alpha1.Machine, node string, s *summary.Summary) []v1alpha1.Machine {
	out := slices.Clone(have)
	b := s.Build
	if b == nil || node == "" || (b.CPUModel == "" && b.Kernel == "") || slices.ContainsFunc(out, func(m v1alpha1.Machine) bool { return m.Node == node }) {
		return out
	}
	out = append(out, v1alpha1.Machine{Node: names.Truncate(node, maxNode), CPUModel: names.Truncate(b.CPUModel, maxCPUModel), Kernel: names.Truncate(b.Kernel, maxKernel)})
	slices.SortFunc(out, func(a, b v1alpha1.Machine) int { return strings.Compare(a.Node, b.Node) })
	return out[:min(len(out), maxMachines)]
}

// SoftwareLine is software in a line: "franz-go v1.22.2, go go1.26.1".
func SoftwareLine(sw []v1alpha1.Software) string {
	parts := make([]string, len(sw))
	for i, x := range sw {
		parts[i] = x.Name + " " + x.Version
	}
	return strings.Join(parts, ", ")
}

// MachinesLine is machines in a line: "node-a: Xeon 8370C, kernel 6.8".
func MachinesLine(ms []v1alpha1.Machine) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		cpu, kernel := m.CPUModel, m.Kernel
		if cpu == "" {
			cpu = "CPU model not named"
		}
		if kernel == "" {
			kernel = "not read"
		}
		parts[i] = fmt.Sprintf("%s: %s, kernel %s", m.Node, cpu, kernel)
	}
	return strings.Join(parts, "; ")
}
