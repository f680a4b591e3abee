package summary

import (
	"strings"
	"testing"
)

func step(k int, target int64, complete bool, records int64, lat int64) Step {
	s := Step{Index: k, TargetPerSecond: target, Complete: complete}
	for range records {
		s.Add(lat)
	}
	return s
}

// TestSearchVerdicts: two producers and a consumer; the maximum is the last step of
// the sustained run that begins the search, and each failing step says why.
func TestSearchVerdicts(t *testing.T) {
	p0 := &Summary{Role: RoleProducer, Worker: "0", Steps: []Step{
		step(0, 100, true, 100, 2000), step(1, 125, true, 125, 3000), step(2, 156, true, 156, 90_000), step(3, 195, false, 50, 2000)}}
	p1 := &Summary{Role: RoleProducer, Worker: "1", Steps: []Step{
		step(0, 100, true, 100, 2000), step(1, 125, true, 125, 3000), step(2, 156, true, 156, 2000), step(3, 195, true, 195, 2000),
		step(4, 244, false, 0, 0)}, // opened, then stopped on its first record: no step
		SearchStop: "producer 1 fell a whole step behind its schedule in step 3 (195 records/s)"}
	c := &Summary{Role: RoleConsumer, Worker: "c", Steps: []Step{
		step(0, 0, false, 200, 4000), step(1, 0, false, 249, 5000), step(2, 0, false, 312, 6000), step(3, 0, false, 245, 6000)}}
	r := &Result{summaries: []*Summary{p0, p1, c}, Producers: 2}
	r.EvaluateSearch(50_000)
	s := r.Search
	if s == nil || len(s.Steps) != 4 {
		t.Fatalf("search %+v", s)
	}
	if s.MaxSustainedRecordsPerSecond != 200 {
		t.Errorf("max sustained %d, want 200 (step 0: step 1 lost a record)", s.MaxSustainedRecordsPerSecond)
	}
	want := []struct {
		sustained bool
		reason    string
	}{{true, ""}, {false, "249 of 250 acknowledged records arrived"}, {false, "ack p99"}, {false, "1 of 2 producers sent the whole step"}}
	for k, w := range want {
		got := s.Steps[k]
		if got.Sustained != w.sustained || !strings.Contains(got.Reason, w.reason) {
			t.Errorf("step %d: sustained %v reason %q; want %v %q", k, got.Sustained, got.Reason, w.sustained, w.reason)
		}
	}
	if s.Steps[2].TargetRecordsPerSecond != 312 || s.Steps[2].Records != 312 || s.Steps[2].Ack.Count != 312 {
		t.Errorf("step 2 merged: %+v", s.Steps[2])
	}
	if !strings.Contains(s.Stopped, "behind") {
		t.Errorf("stopped %q", s.Stopped)
	}
	// No steps: no search.
	r = &Result{summaries: []*Summary{{Role: RoleProducer}}, Producers: 1}
	if r.EvaluateSearch(1); r.Search != nil {
		t.Errorf("a trial without steps has a search: %+v", r.Search)
	}
}
