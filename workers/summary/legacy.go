package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// UnmarshalJSON reads a result, its phases in the model of older versions too:
// reports of `serdebench run -o json` from before the phases were one model held
// them with absolute times and fractional rates, and `compare` and `report` must
// still read such a run as a baseline.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result // without this method
	aux := struct {
		*plain
		Phases json.RawMessage `json:"phases,omitempty"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.Phases = nil
	if len(aux.Phases) == 0 || string(aux.Phases) == "null" {
		return nil
	}
	var shape struct {
		FaultStart *time.Time `json:"faultStart"`
	}
	if err := json.Unmarshal(aux.Phases, &shape); err != nil {
		return fmt.Errorf("result phases: %w", err)
	}
	if shape.FaultStart == nil {
		r.Phases = &trial.Phases{}
		return json.Unmarshal(aux.Phases, r.Phases)
	}
	var old legacyPhases
	if err := json.Unmarshal(aux.Phases, &old); err != nil {
		return fmt.Errorf("result phases (an older version's): %w", err)
	}
	r.Phases = old.model()
	return nil
}

// legacyPhases are a faulted trial's phases as older versions wrote them.
type legacyPhases struct {
	ResolutionSeconds int64          `json:"resolutionSeconds"`
	FaultStart        time.Time      `json:"faultStart"`
	FaultEnd          *time.Time     `json:"faultEnd"`
	Before            *legacyPhase   `json:"before"`
	During            *legacyPhase   `json:"during"`
	After             *legacyPhase   `json:"after"`
	FirstErrorSeconds *float64       `json:"firstErrorSeconds"`
	Band              trial.Recovery `json:"band"`
	RecoverySeconds   *float64       `json:"recoverySeconds"`
	RecoveryFrom      string         `json:"recoveryFrom"`
	RecoveryNote      string         `json:"recoveryNote"`
}

// legacyPhase is one phase as older versions wrote it.
type legacyPhase struct {
	Start                   time.Time   `json:"start"`
	End                     time.Time   `json:"end"`
	Seconds                 float64     `json:"seconds"`
	Records                 int64       `json:"records"`
	OfferedRecordsPerSecond float64     `json:"offeredRecordsPerSecond"`
	Ack                     Percentiles `json:"ackMicros"`
	EndToEnd                Percentiles `json:"endToEndMicros"`
	Failed                  int64       `json:"failed"`
	Lost                    int64       `json:"lost"`
	Duplicated              int64       `json:"duplicated"`
}

// model converts the old phases: their first phase began at the measured
// window's start, the origin of the model's times.
func (l *legacyPhases) model() *trial.Phases {
	first := l.During
	if l.Before != nil {
		first = l.Before
	}
	origin := l.FaultStart
	if first != nil {
		origin = first.Start
	}
	millis := func(s *float64) *int64 {
		if s == nil {
			return nil
		}
		ms := int64(math.Round(*s * 1000))
		return &ms
	}
	// The old phase as a part: its rates were its counts over its seconds, so
	// the part's model gives them again.
	phase := func(p *legacyPhase) *trial.Phase {
		if p == nil {
			return nil
		}
		pt := &part{start: p.Start, end: p.End, seconds: p.Seconds, records: p.Records,
			offered: int64(math.Round(p.OfferedRecordsPerSecond * p.Seconds)), ack: p.Ack, e2e: p.EndToEnd,
			failed: p.Failed, lost: p.Lost, duplicated: p.Duplicated}
		return pt.model(origin)
	}
	out := &trial.Phases{ResolutionSeconds: int32(l.ResolutionSeconds), FaultStartMillis: millisSince(origin, l.FaultStart),
		Before: phase(l.Before), During: phase(l.During), After: phase(l.After),
		FirstErrorMillis: millis(l.FirstErrorSeconds), RecoveryMillis: millis(l.RecoverySeconds),
		RecoveryFrom: trial.RecoveryFrom(l.RecoveryFrom), RecoveryNote: l.RecoveryNote, Band: l.Band}
	if l.FaultEnd != nil {
		ms := millisSince(origin, *l.FaultEnd)
		out.FaultEndMillis = &ms
	}
	return out
}
