package controllers

import (
	"strings"
	"testing"
	"time"
)

// TestLoggedLate: a fault is planned from the producers' window start as read
// from their logs; when that read comes after the fault's time and its grace, the
// fault is not applied, and the message says how late the line came.
func TestLoggedLate(t *testing.T) {
	started := time.Date(2026, 11, 30, 8, 46, 0, 0, time.UTC)
	grace := 30 * time.Second
	for _, c := range []struct {
		name     string
		read     time.Duration // after started
		start    int32
		want     string
		wantNone bool
	}{
		{name: "read before due", read: 2 * time.Second, start: 10, wantNone: true},
		{name: "read after due, within grace", read: 39 * time.Second, start: 10, wantNone: true},
		{name: "read at the grace's end", read: 40 * time.Second, start: 10, wantNone: true},
		{name: "read past the grace", read: 58 * time.Second, start: 10, want: "from their logs only 58s later, the fault (due 10s into the window) 48s overdue"},
		{name: "due at the start", read: 31 * time.Second, start: 0, want: "began at 2026-11-30T08:46:00Z"},
	} {
		got := loggedLate(started, started.Add(c.read), c.start, grace)
		if c.wantNone != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q (none: %v)", c.name, got, c.want, c.wantNone)
		}
	}
}
