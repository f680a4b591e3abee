// Package schedule decides when a SerializationSchedule starts a run: the cron
// arithmetic (robfig/cron/v3, in the schedule's time zone), missed runs, the starting
// deadline, suspension and the concurrency policy, as pure functions of the clock the
// controller passes in.
package schedule

import (
	"fmt"
	"time"

	// Time zones without the host's zoneinfo: the operator image is distroless.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// Parse reads a schedule in its time zone (UTC when empty).
func Parse(spec, timeZone string) (cron.Schedule, error) {
	loc := time.UTC
	if timeZone != "" {
		var err error
		if loc, err = time.LoadLocation(timeZone); err != nil {
			return nil, fmt.Errorf("timeZone %q: %w", timeZone, err)
		}
	}
	s, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", spec, err)
	}
	if sp, ok := s.(*cron.SpecSchedule); ok {
		sp.Location = loc
	}
	// robfig returns the zero time for a date that never comes (30 February): such a
	// schedule would never run.
	if s.Next(time.Unix(0, 0)).IsZero() {
		return nil, fmt.Errorf("schedule %q: never due (no such date)", spec)
	}
	return s, nil
}

// maxMissed bounds the count of missed times (a schedule every minute, down for a
// month, has 43,200): past it, the walk jumps to the last day before now and missed
// stays at maxMissed, a lower bound.
const maxMissed = 100_000

// Due is the most recent time the schedule was due after since and at or before now
// (zero: none), how many due times it passed over without a run, and the next due
// time after now (zero: none).
func Due(s cron.Schedule, since, now time.Time) (due time.Time, missed int, next time.Time) {
	for t := s.Next(since); !t.IsZero() && !t.After(now); t = s.Next(t) {
		if !due.IsZero() && missed < maxMissed {
			missed++
		}
		due = t
		if missed >= maxMissed {
			if j := s.Next(now.Add(-24 * time.Hour)); j.After(t) && !j.After(now) {
				t = j
				due = j
			}
		}
	}
	return due, missed, s.Next(now)
}

// Action is what the controller does at a due time.
type Action int

// Actions.
const (
	// Wait: nothing is due.
	Wait Action = iota
	// Start a run.
	Start
	// Skip the due run (suspended, past its starting deadline, or Forbid with a run
	// active).
	Skip
	// Replace the active runs with a new one.
	Replace
)

// Decision is an Action and why.
type Decision struct {
	Action Action
	Reason string
}

// Decide says what to do with a due time (zero: none) at now.
func Decide(spec *v1alpha1.SerializationScheduleSpec, due, now time.Time, active int) Decision {
	switch {
	case due.IsZero():
		return Decision{Wait, "nothing due"}
	case spec.Suspend:
		return Decision{Skip, "suspended"}
	case spec.StartingDeadlineSeconds != nil && now.Sub(due) > time.Duration(*spec.StartingDeadlineSeconds)*time.Second:
		return Decision{Skip, fmt.Sprintf("missed the starting deadline of %ds (due %s)", *spec.StartingDeadlineSeconds, due.UTC().Format(time.RFC3339))}
	case active == 0 || spec.ConcurrencyPolicy == v1alpha1.ConcurrencyAllow:
		return Decision{Start, "due " + due.UTC().Format(time.RFC3339)}
	case spec.ConcurrencyPolicy == v1alpha1.ConcurrencyReplace:
		return Decision{Replace, fmt.Sprintf("due %s; replacing %d active run(s)", due.UTC().Format(time.RFC3339), active)}
	default: // Forbid
		return Decision{Skip, fmt.Sprintf("due %s while %d run(s) active (concurrencyPolicy Forbid)", due.UTC().Format(time.RFC3339), active)}
	}
}
