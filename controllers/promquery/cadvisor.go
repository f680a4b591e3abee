package promquery

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/serdebench/serdebench/workers/usage"
)

// ErrNotYet says Prometheus has no cAdvisor sample after the window's end yet:
// the kubelet's cAdvisor refreshes a container's stats every 10–20 s (a jittered
// 10 s housekeeping; up to 30 s for an idle container), and Prometheus scrapes
// them after that.
var ErrNotYet = errors.New("no cAdvisor sample after the window's end yet")

// lookBack is how far before a window the query reaches for the sample before its
// start: cAdvisor's longest housekeeping interval plus scrape intervals.
const lookBack = 2 * time.Minute

// ContainerCPU is the CPU seconds the containers of the named pods spent in [from,
// to], from cAdvisor's container_cpu_usage_seconds_total as Prometheus scraped it
// from the kubelets: each container's counter is interpolated linearly at both
// bounds between the samples around them. resolution is the longest span of
// those samples: the figure is exact to about the CPU the pods spend in it.
// ErrNotYet (wrapped) until every container has a sample at or after to.
func (c *Client) ContainerCPU(ctx context.Context, namespace string, pods []string, from, to, now time.Time) (cpuSeconds float64, resolution time.Duration, err error) {
	if len(pods) == 0 {
		return 0, 0, fmt.Errorf("no pods")
	}
	quoted := make([]string, len(pods))
	for i, p := range pods {
		quoted[i] = regexp.QuoteMeta(p)
	}
	// container="" is the pod's own cgroup (the sum of its containers), "POD" the
	// sandbox's pause container: both would count twice.
	sel := fmt.Sprintf(`{namespace=%s,pod=~%s,container!="",container!="POD"}`, strconv.Quote(namespace), strconv.Quote(strings.Join(quoted, "|")))
	span := now.Sub(from) + lookBack
	q := fmt.Sprintf(`container_cpu_usage_seconds_total%s[%ds]`, sel, int64(span.Seconds()))
	v, _, _, err := c.api.Query(ctx, q, now)
	if err != nil {
		return 0, 0, fmt.Errorf("query %s: %w", q, err)
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return 0, 0, fmt.Errorf("query %s: unexpected result type %s", q, v.Type())
	}
	return containerCPU(m, namespace, pods, from, to)
}

// containerCPU sums the containers' CPU in [from, to] from their series in m.
func containerCPU(m model.Matrix, namespace string, pods []string, from, to time.Time) (cpuSeconds float64, resolution time.Duration, err error) {
	// A kubelet scraped by two jobs gives two copies of a container's series (its
	// cgroup, label id, is the same): the longer is kept. A restarted container is
	// another cgroup, whose counter starts again at zero.
	byContainer := map[string]map[model.LabelValue]*model.SampleStream{}
	seen := map[string]bool{}
	for _, s := range m {
		if len(s.Values) == 0 {
			continue
		}
		pod := string(s.Metric["pod"])
		seen[pod] = true
		key := pod + "/" + string(s.Metric["container"])
		if byContainer[key] == nil {
			byContainer[key] = map[model.LabelValue]*model.SampleStream{}
		}
		id := s.Metric["id"]
		if prev := byContainer[key][id]; prev == nil || len(s.Values) > len(prev.Values) {
			byContainer[key][id] = s
		}
	}
	for _, p := range pods {
		if !seen[p] {
			return 0, 0, fmt.Errorf("no cAdvisor series for pod %s/%s in Prometheus (does it scrape the kubelets' /metrics/cadvisor?)", namespace, p)
		}
	}
	keys := make([]string, 0, len(byContainer))
	for k := range byContainer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		series, err := windowLife(byContainer[k], from, to)
		if err != nil {
			return 0, 0, fmt.Errorf("container %s %w", k, err)
		}
		samples := make([]usage.Reading, len(series.Values))
		for i, p := range series.Values {
			samples[i] = usage.Reading{At: p.Timestamp.Time(), CPUSeconds: float64(p.Value)}
			if i > 0 && samples[i].CPUSeconds < samples[i-1].CPUSeconds {
				return 0, 0, fmt.Errorf("container %s restarted between %s and %s: its CPU counter was reset", k, samples[i-1].At.Format(time.RFC3339), samples[i].At.Format(time.RFC3339))
			}
		}
		if samples[len(samples)-1].At.Before(to) {
			return 0, 0, fmt.Errorf("container %s: %w", k, ErrNotYet)
		}
		w, ok := usage.Cut(samples, from, to)
		if !ok {
			return 0, 0, fmt.Errorf("container %s: samples do not cover the window", k)
		}
		cpuSeconds += w.CPUSeconds
		resolution = max(resolution, around(samples, from), around(samples, to))
	}
	return cpuSeconds, resolution, nil
}

// windowLife picks, of a container's lives (one cgroup each: a restart begins a
// new one), the one that ran through [from, to]: the latest to begin by from. A
// later life that began within the window, or an earlier one that ended in it
// and was replaced, means the container restarted there; a life that began after
// the window is another trial's.
func windowLife(lives map[model.LabelValue]*model.SampleStream, from, to time.Time) (*model.SampleStream, error) {
	sorted := make([]*model.SampleStream, 0, len(lives))
	for _, s := range lives {
		sorted = append(sorted, s)
	}
	first := func(s *model.SampleStream) time.Time { return s.Values[0].Timestamp.Time() }
	last := func(s *model.SampleStream) time.Time { return s.Values[len(s.Values)-1].Timestamp.Time() }
	sort.Slice(sorted, func(i, j int) bool { return first(sorted[i]).Before(first(sorted[j])) })
	at := -1
	for i, s := range sorted {
		if !first(s).After(from) {
			at = i
		}
	}
	restarted := fmt.Errorf("restarted in the window (%d cgroups): its CPU is not one counter", len(sorted))
	switch {
	case at < 0 && len(sorted) > 1 && !first(sorted[1]).After(to):
		return nil, restarted
	case at < 0:
		return nil, fmt.Errorf("has no cAdvisor sample before the window's start (it started later, or Prometheus keeps too little)")
	case at+1 < len(sorted) && (!first(sorted[at+1]).After(to) || last(sorted[at]).Before(to)):
		return nil, restarted
	}
	return sorted[at], nil
}

// around is the span between the two samples around t.
func around(samples []usage.Reading, t time.Time) time.Duration {
	for i := 1; i < len(samples); i++ {
		if !t.After(samples[i].At) {
			return samples[i].At.Sub(samples[i-1].At)
		}
	}
	return 0
}
