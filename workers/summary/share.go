package summary

import "fmt"

// ShareAckMicros is a share-group consumer's acknowledgement time, in
// microseconds, with explicit acknowledgement: from asking the client to send a
// poll's acknowledgements to the broker's every answer (Java's commitSync), a
// wait before the next poll. Implicit acknowledgements are not timed: they ride
// on the next share fetch, which answers them together with its records, and no
// poll waits for them.
const ShareAckMicros = "share_ack_us"

// ShareStats are one share-group consumer's deliveries (nil: a consumer group).
// A delivery is one record of this run handed to the consumer, warmup included,
// the producers' end records excluded.
type ShareStats struct {
	// Acknowledgement is the consumer's acknowledgement mode.
	Acknowledgement string `json:"acknowledgement"`
	// Deliveries counts them; Redelivered those the broker had delivered before
	// (delivery count above 1: released, their lock expired, or their consumer
	// left before acknowledging them).
	Deliveries  int64 `json:"deliveries"`
	Redelivered int64 `json:"redelivered"`
	// Released counts deliveries the consumer released (releaseOneIn), Archived
	// those released on their last allowed delivery, which the broker then
	// archives: never accepted, by design of the setting.
	Released int64 `json:"released,omitempty"`
	Archived int64 `json:"archived,omitempty"`
	// MaxDeliveryCount is the highest delivery count the consumer saw.
	MaxDeliveryCount int32 `json:"maxDeliveryCount"`
	// AckErrors counts the broker's per-partition answers to acknowledgements
	// that carried an error (a record no longer held: its lock expired);
	// FirstAckError says the first.
	AckErrors     int64  `json:"ackErrors,omitempty"`
	FirstAckError string `json:"firstAckError,omitempty"`
	// SettledLag is the lag the broker still reported when this consumer counted
	// the trial complete because the group's offsets had stopped moving (the
	// quiet-time rule that covers Kafka 4.3's stale persisted count); 0 when the
	// lag reached 0, as it does on Kafka 4.4.
	SettledLag int64 `json:"settledLag,omitempty"`
}

// Share are a trial's share-group deliveries, all consumers (nil: consumer
// groups). Share groups deliver at least once: a record delivered again after
// it was processed is a duplicate (Result.Duplicated), counted, not a failure.
type Share struct {
	// Acknowledgement is the consumers' acknowledgement mode.
	Acknowledgement string `json:"acknowledgement"`
	// Deliveries, Redelivered, Released and Archived add up the consumers'
	// (ShareStats). Redelivered is at least Result.Duplicated: every copy a
	// consumer processed again was a redelivery, while a redelivered record
	// its first consumer never processed (released unprocessed when it left) is
	// no duplicate.
	Deliveries  int64 `json:"deliveries"`
	Redelivered int64 `json:"redelivered"`
	Released    int64 `json:"released,omitempty"`
	Archived    int64 `json:"archived,omitempty"`
	// MaxDeliveryCount is the highest delivery count any consumer saw.
	MaxDeliveryCount int32 `json:"maxDeliveryCount"`
	// AckErrors add up the consumers' (ShareStats).
	AckErrors int64 `json:"ackErrors,omitempty"`
	// SettledLag is the highest of the consumers' (ShareStats): above 0, the
	// trial ended by the quiet-time rule with that lag still reported.
	SettledLag int64 `json:"settledLag,omitempty"`
	// Ack is the acknowledgement time, in microseconds, with explicit
	// acknowledgement (ShareAckMicros; empty with implicit).
	Ack Percentiles `json:"ackMicros"`
}

// addShare adds one consumer's deliveries to the trial's.
func addShare(t **Share, s *ShareStats, firstErr *string) {
	if s == nil {
		return
	}
	if *t == nil {
		*t = &Share{Acknowledgement: s.Acknowledgement}
	}
	(*t).Deliveries += s.Deliveries
	(*t).Redelivered += s.Redelivered
	(*t).Released += s.Released
	(*t).Archived += s.Archived
	(*t).AckErrors += s.AckErrors
	(*t).MaxDeliveryCount = max((*t).MaxDeliveryCount, s.MaxDeliveryCount)
	(*t).SettledLag = max((*t).SettledLag, s.SettledLag)
	if *firstErr == "" {
		*firstErr = s.FirstAckError
	}
}

// shareWarning says what at-least-once delivery did in the trial.
func shareWarning(s *Share, duplicated int64) string {
	return fmt.Sprintf("share group: %d of %d deliveries were redeliveries and %d records were processed more than once "+
		"(share groups deliver at least once: duplicates are counted, not failures)", s.Redelivered, s.Deliveries, duplicated)
}
