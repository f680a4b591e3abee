package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// Versions are what shaped a run's numbers besides its spec, each by what it is:
// "Kafka", "Kubernetes", "worker image", each runtime and client library by its
// name, "CPU" and "kernel". A run that recorded none of one has no entry.
type Versions map[string]string

// VersionsOf reads a result's environment.
func VersionsOf(env v1alpha1.Environment) Versions {
	v := Versions{}
	set := func(k, val string) {
		if val != "" {
			v[k] = val
		}
	}
	set("Kafka", env.KafkaRelease)
	set("Kubernetes", env.KubernetesVersion)
	// The digest is what ran; a tag may move.
	set("worker image", strings.Join(env.WorkerImageIDs, ", "))
	for _, s := range env.Software {
		set(s.Name, s.Version)
	}
	set("CPU", distinct(env.Machines, func(m v1alpha1.Machine) string { return m.CPUModel }))
	set("kernel", distinct(env.Machines, func(m v1alpha1.Machine) string { return m.Kernel }))
	return v
}

// distinct is the machines' sorted, distinct values of f, joined.
func distinct(ms []v1alpha1.Machine, f func(v1alpha1.Machine) string) string {
	var out []string
	for _, m := range ms {
		if s := f(m); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// Change is one of a history's Versions that changed.
type Change struct {
	// What changed, From and To its values; At is the index of the first run
	// with To, Since the last run before it that recorded From (At − 1 unless runs
	// between recorded none).
	What, From, To string
	At, Since      int
}

// String says the change in a line: at naming the run at At, since the run at
// Since (used only when runs between them recorded nothing: the change happened
// somewhere after it).
func (c Change) String(at, since string) string {
	if c.Since < c.At-1 {
		return fmt.Sprintf("%s: %s → %s between %s and %s", c.What, c.From, c.To, since, at)
	}
	return fmt.Sprintf("%s: %s → %s at %s", c.What, c.From, c.To, at)
}

// Changes lists every change in a history (oldest first), in run order and then
// by what changed: each run's value against the last one recorded before it. A
// value a run did not record is no change (older results say less, and that is
// not an upgrade).
func Changes(history []Versions) []Change {
	var out []Change
	last := Versions{}
	lastAt := map[string]int{}
	for i, cur := range history {
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			if prev := last[k]; prev != "" && prev != cur[k] {
				out = append(out, Change{What: k, From: prev, To: cur[k], At: i, Since: lastAt[k]})
			}
			last[k], lastAt[k] = cur[k], i
		}
	}
	return out
}
