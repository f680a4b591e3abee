// Package netem describes a local network fault: the impairment a trial's network
// fault asks for (delay with jitter, correlation, loss, a bandwidth cap, a
// partition; FromFault) and what the engine did to the packets (Stats), which a
// run's report records. The engine itself, which needs Linux's NFQUEUE, is
// internal/netem/engine: reports and the operator link none of it.
package netem

import (
	"fmt"
	"strconv"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// Impairment is what happens to each packet. The zero value passes them on.
type Impairment struct {
	// Delay is the mean added delay; Jitter spreads it: uniformly over
	// [Delay-Jitter, Delay+Jitter], or with Normal as the standard deviation of a
	// normal distribution (cut at zero). Correlation (0..1) is the chance a
	// packet's random draw repeats the previous one's.
	Delay, Jitter time.Duration
	Normal        bool
	Correlation   float64
	// Loss (0..1) is the chance a packet is dropped; LossCorrelation the chance
	// a packet shares the previous one's fate.
	Loss, LossCorrelation float64
	// RateBytesPerSecond caps the bandwidth (0: none), with a bucket of
	// BufferBytes and at most LimitBytes waiting for tokens (more are dropped).
	RateBytesPerSecond, BufferBytes, LimitBytes int64
	// Partition drops every packet both ways: the broker's (Loss 1) and, with a
	// second rule, those sent to it, as Chaos Mesh's partition (direction both).
	Partition bool
}

// FromFault is the impairment a network fault describes (a partition drops every
// packet).
func FromFault(n *trial.NetworkFault) (Impairment, error) {
	var imp Impairment
	if n == nil {
		return imp, fmt.Errorf("not a network fault")
	}
	if n.Partition {
		imp.Loss, imp.Partition = 1, true
		return imp, nil
	}
	if d := n.Delay; d != nil {
		imp.Delay = time.Duration(d.LatencyMicroseconds) * time.Microsecond
		imp.Jitter = time.Duration(d.JitterMicroseconds) * time.Microsecond
		imp.Normal = d.Distribution == trial.DistributionNormal
		imp.Correlation = float64(d.CorrelationPercent) / 100
	}
	if n.LossPercent != "" {
		p, err := strconv.ParseFloat(n.LossPercent, 64)
		if err != nil || p < 0 || p > 100 {
			return imp, fmt.Errorf("lossPercent %q: want a number from 0 to 100", n.LossPercent)
		}
		imp.Loss = p / 100
		imp.LossCorrelation = float64(n.LossCorrelationPercent) / 100
	}
	if b := n.Bandwidth; b != nil {
		imp.RateBytesPerSecond = int64(b.RateKilobitsPerSecond) * 1000 / 8
		imp.BufferBytes, imp.LimitBytes = int64(b.BufferBytes), int64(b.LimitBytes)
	}
	return imp, nil
}

// String describes the impairment in netem's terms.
func (m Impairment) String() string {
	if m.Partition {
		return "partition (every packet, both ways)"
	}
	s := ""
	if m.Delay > 0 || m.Jitter > 0 {
		s += fmt.Sprintf("delay %s", m.Delay)
		if m.Jitter > 0 {
			dist := "uniform"
			if m.Normal {
				dist = "normal"
			}
			s += fmt.Sprintf(" %s %.0f%% distribution %s", m.Jitter, 100*m.Correlation, dist)
		}
	}
	if m.Loss > 0 {
		s += fmt.Sprintf(" loss %g%% %.0f%%", 100*m.Loss, 100*m.LossCorrelation)
	}
	if m.RateBytesPerSecond > 0 {
		s += fmt.Sprintf(" rate %dbps buffer %d limit %d", m.RateBytesPerSecond*8, m.BufferBytes, m.LimitBytes)
	}
	if s == "" {
		return "none"
	}
	return s
}

// Stats count what the engine did since Apply.
type Stats struct {
	// Packets the rule handed over; Lost dropped at random; Overlimit dropped
	// because the bandwidth cap's queue was full; Released passed on.
	Packets int64 `json:"packets"`
	// Impaired are the Packets the fault's impairment decided (not those read
	// after Clear): the loss share is Lost / Impaired.
	Impaired  int64 `json:"impaired"`
	Lost      int64 `json:"lost"`
	Overlimit int64 `json:"overlimit"`
	Released  int64 `json:"released"`
	// ReleasedBytes is their IPv4 length.
	ReleasedBytes int64 `json:"releasedBytes"`
	// DelayMeanMicros and DelayStdDevMicros describe the time each released
	// packet was held, and LateMaxMicros how much later than planned the latest
	// release was.
	DelayMeanMicros   float64 `json:"delayMeanMicros"`
	DelayStdDevMicros float64 `json:"delayStdDevMicros"`
	// LateMeanMicros, LateP50Micros, LateP99Micros and LateMaxMicros are how
	// much later than planned packets were released (10 µs buckets).
	LateMeanMicros float64 `json:"lateMeanMicros"`
	LateP50Micros  float64 `json:"lateP50Micros"`
	LateP99Micros  float64 `json:"lateP99Micros"`
	LateMaxMicros  float64 `json:"lateMaxMicros"`
	// Enobufs counts queue messages the kernel dropped (their packets with them:
	// extra loss), Unheld packets passed on at once because the releaser's queue
	// was full (less delay): either means the engine could not keep up and the
	// fault differed from its setting.
	Enobufs int64 `json:"enobufs"`
	Unheld  int64 `json:"unheld"`
	// KernelDropped is what the kernel itself dropped of the queue's packets
	// between Apply and Clear (its queue full, or a message it could not send:
	// what Enobufs notices, exactly): extra loss the engine never saw (-1: the
	// kernel's counters were unreadable).
	KernelDropped int64 `json:"kernelDropped"`
	// Flushed packets were still held when Clear removed the rule and were let
	// through at once (not in the delay statistics).
	Flushed      int64 `json:"flushed"`
	FlushedBytes int64 `json:"flushedBytes"`
	// Removed is when Clear deleted the rule: the fault's end (zero: not yet).
	Removed time.Time `json:"removed,omitzero"`
	// ReadError is why the engine stopped reading packets early (empty: it did
	// not). Packets queued after that waited for nothing: the fault is void.
	ReadError string `json:"readError,omitempty"`
	// First and Last are when the first and last packet arrived (zero: none).
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}
