package schedule

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDueInTimeZone: "0 2 * * *" in Europe/Stockholm is due at 01:00 UTC in winter
// and 00:00 UTC in summer; a controller that was away for three days sees the last
// due time and counts two missed.
func TestDueInTimeZone(t *testing.T) {
	s, err := Parse("0 2 * * *", "Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	due, missed, next := Due(s, at("2026-01-10T12:00:00Z"), at("2026-01-13T12:00:00Z"))
	if !due.Equal(at("2026-01-13T01:00:00Z")) || missed != 2 || !next.Equal(at("2026-01-14T01:00:00Z")) {
		t.Fatalf("winter: due %s missed %d next %s", due, missed, next)
	}
	due, _, _ = Due(s, at("2026-07-10T12:00:00Z"), at("2026-07-11T12:00:00Z"))
	if !due.Equal(at("2026-07-11T00:00:00Z")) {
		t.Fatalf("summer: due %s", due)
	}
	if due, _, _ := Due(s, at("2026-07-11T00:00:00Z"), at("2026-07-11T12:00:00Z")); !due.IsZero() {
		t.Fatalf("nothing new due, got %s", due)
	}
	if _, err := Parse("0 2 * * *", "Mars/Olympus"); err == nil {
		t.Fatal("unknown time zone accepted")
	}
	if _, err := Parse("61 * * * *", ""); err == nil {
		t.Fatal("minute 61 accepted")
	}
}

func TestDecide(t *testing.T) {
	deadline := int64(60)
	now := at("2026-03-01T10:05:00Z")
	for name, c := range map[string]struct {
		spec   v1alpha1.SerializationScheduleSpec
		due    time.Time
		active int
		want   Action
	}{
		"nothing due":             {v1alpha1.SerializationScheduleSpec{}, time.Time{}, 0, Wait},
		"due, idle":               {v1alpha1.SerializationScheduleSpec{ConcurrencyPolicy: v1alpha1.ConcurrencyForbid}, at("2026-03-01T10:05:00Z"), 0, Start},
		"suspended":               {v1alpha1.SerializationScheduleSpec{Suspend: true}, at("2026-03-01T10:05:00Z"), 0, Skip},
		"past the deadline":       {v1alpha1.SerializationScheduleSpec{StartingDeadlineSeconds: &deadline}, at("2026-03-01T10:00:00Z"), 0, Skip},
		"within the deadline":     {v1alpha1.SerializationScheduleSpec{StartingDeadlineSeconds: &deadline}, at("2026-03-01T10:04:30Z"), 0, Start},
		"forbid with a run":       {v1alpha1.SerializationScheduleSpec{ConcurrencyPolicy: v1alpha1.ConcurrencyForbid}, at("2026-03-01T10:05:00Z"), 1, Skip},
		"replace with a run":      {v1alpha1.SerializationScheduleSpec{ConcurrencyPolicy: v1alpha1.ConcurrencyReplace}, at("2026-03-01T10:05:00Z"), 1, Replace},
		"allow with a run":        {v1alpha1.SerializationScheduleSpec{ConcurrencyPolicy: v1alpha1.ConcurrencyAllow}, at("2026-03-01T10:05:00Z"), 2, Start},
		"default policy (Forbid)": {v1alpha1.SerializationScheduleSpec{}, at("2026-03-01T10:05:00Z"), 1, Skip},
	} {
		if d := Decide(&c.spec, c.due, now, c.active); d.Action != c.want {
			t.Errorf("%s: %v (%s), want %v", name, d.Action, d.Reason, c.want)
		}
	}
}

// TestDaylightSaving pins what robfig/cron (and so Kubernetes CronJobs) does on
// transition days, as docs/schedules.md says: in Europe/Stockholm "0 2 * * *" does
// not run on 29 March 2026 (02:00 does not exist) and runs twice on 25 October 2026
// (02:00 CEST and 02:00 CET). A library change that alters this fails here.
func TestDaylightSaving(t *testing.T) {
	s, err := Parse("0 2 * * *", "Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	walk := func(from, to string) []time.Time {
		var out []time.Time
		for tm := s.Next(at(from)); tm.Before(at(to)); tm = s.Next(tm) {
			out = append(out, tm.UTC())
		}
		return out
	}
	if got := walk("2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z"); len(got) != 1 || !got[0].Equal(at("2026-03-30T00:00:00Z")) {
		t.Errorf("spring forward: %v, want only 2026-03-30T00:00:00Z", got)
	}
	if got := walk("2026-10-24T12:00:00Z", "2026-10-25T12:00:00Z"); len(got) != 2 ||
		!got[0].Equal(at("2026-10-25T00:00:00Z")) || !got[1].Equal(at("2026-10-25T01:00:00Z")) {
		t.Errorf("fall back: %v, want 00:00 and 01:00 UTC", got)
	}
	// 04:00 is clear of both transitions.
	s, _ = Parse("0 4 * * *", "Europe/Stockholm")
	if got := walk("2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z"); len(got) != 2 {
		t.Errorf("04:00 in spring: %v", got)
	}
}

// TestNeverDueAndLongDowntime: a date that never comes is refused (robfig would
// return the zero time and a naive walk would never end), and a schedule every minute
// after 200 days away is walked in bounded time to its latest due time.
func TestNeverDueAndLongDowntime(t *testing.T) {
	for _, spec := range []string{"0 0 30 2 *", "0 0 31 4 *"} {
		if _, err := Parse(spec, ""); err == nil {
			t.Errorf("%s: accepted", spec)
		}
	}
	s, err := Parse("* * * * *", "")
	if err != nil {
		t.Fatal(err)
	}
	now := at("2026-11-22T12:00:30Z")
	due, missed, next := Due(s, now.Add(-200*24*time.Hour), now)
	if !due.Equal(at("2026-11-22T12:00:00Z")) || missed != maxMissed || !next.Equal(at("2026-11-22T12:01:00Z")) {
		t.Fatalf("due %s missed %d next %s", due, missed, next)
	}
}
