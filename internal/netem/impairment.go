// Package netem impairs the packets a broker sends, as Linux's netem and tbf
// queueing disciplines would: delay with jitter (uniform, or a normal
// distribution), correlation, random loss and a token-bucket bandwidth cap. It is
// `serdebench run`'s local stand-in for Chaos Mesh's NetworkChaos on a kernel
// without netem: an iptables NFQUEUE rule hands it the packets arriving from the
// broker's network namespace (hack/calibrate/netns.sh), and it holds, drops or
// releases each one. make test calibrates it (e2e/calibration, docs/faults.md).
package netem

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// correlated is a correlated uniform source: with chance ρ a draw repeats the
// previous one, else it is fresh. That keeps the distribution (a 5 % loss stays
// 5 %); netem's own blend, (1-ρ) of a fresh draw and ρ of the previous one,
// narrows it, so its correlated losses come out far rarer than asked
// (docs/faults.md).
type correlated struct {
	rho, last float64
	started   bool
}

func (c *correlated) next(r *rand.Rand) float64 {
	if c.started && c.rho > 0 && r.Float64() < c.rho {
		return c.last
	}
	c.last, c.started = r.Float64(), true
	return c.last
}

// sampler draws each packet's fate under one impairment.
type sampler struct {
	m           Impairment
	r           *rand.Rand
	delay, loss correlated
	// cleared marks the sampler Clear installs: what it passes is no longer
	// the fault's.
	cleared bool
}

func newSampler(m Impairment, seed uint64) *sampler {
	return &sampler{m: m, r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		delay: correlated{rho: m.Correlation}, loss: correlated{rho: m.LossCorrelation}}
}

// drop draws whether a packet is lost.
func (s *sampler) drop() bool {
	return s.m.Loss > 0 && (s.m.Loss >= 1 || s.loss.next(s.r) < s.m.Loss)
}

// hold draws a packet's added delay.
func (s *sampler) hold() time.Duration {
	if s.m.Jitter == 0 {
		return s.m.Delay
	}
	u := s.delay.next(s.r)
	var d float64
	if s.m.Normal {
		// The normal quantile of u (u in (0, 1)); netem uses a table of it.
		u = math.Min(math.Max(u, 1e-12), 1-1e-12)
		d = float64(s.m.Delay) + float64(s.m.Jitter)*math.Sqrt2*math.Erfinv(2*u-1)
	} else {
		d = float64(s.m.Delay) + float64(s.m.Jitter)*(2*u-1)
	}
	return time.Duration(max(d, 0))
}

// bucket is a token bucket (tbf): packets leave in order, each once the bucket
// holds its length in bytes.
type bucket struct {
	rate, buffer, limit int64 // bytes/s, bytes, bytes
	tokens              float64
	at                  int64 // when tokens was computed, ns
	last                int64 // the previous packet's departure, ns
	backlog             []departure
}

type departure struct{ at, bytes int64 }

func newBucket(m Impairment, now int64) *bucket {
	return &bucket{rate: m.RateBytesPerSecond, buffer: max(m.BufferBytes, 1), limit: m.LimitBytes, tokens: float64(max(m.BufferBytes, 1)), at: now}
}

// admit returns when a packet of n bytes ready at now leaves, or false if the
// bytes waiting exceed the limit (tbf drops it).
func (b *bucket) admit(now, n int64) (int64, bool) {
	waiting := int64(0)
	kept := b.backlog[:0]
	for _, d := range b.backlog {
		if d.at > now {
			kept = append(kept, d)
			waiting += d.bytes
		}
	}
	b.backlog = kept
	if b.limit > 0 && waiting+n > b.limit {
		return 0, false
	}
	t := max(now, b.last)
	capacity := float64(max(b.buffer, n)) // a packet larger than the bucket still passes, alone
	tok := math.Min(capacity, b.tokens+float64(t-b.at)*float64(b.rate)/1e9)
	if tok < float64(n) {
		t += int64(math.Ceil((float64(n) - tok) * 1e9 / float64(b.rate)))
		tok = float64(n)
	}
	b.tokens, b.at, b.last = tok-float64(n), t, t
	b.backlog = append(b.backlog, departure{at: t, bytes: n})
	return t, true
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

	n         int64 // Welford's running mean and sum of squares, µs
	mean, m2  float64
	maxLateNs int64
	late      *lateness
}

// lateness counts release lateness in 10 µs buckets up to 100 ms.
type lateness struct {
	n     int64
	sumNs int64
	b     [10001]int64
}

func (l *lateness) add(ns int64) {
	l.n++
	l.sumNs += ns
	l.b[min(max(ns, 0)/10_000, int64(len(l.b)-1))]++
}

// summary returns the mean, median and 99th percentile in µs.
func (l *lateness) summary() (mean, p50, p99 float64) {
	if l == nil || l.n == 0 {
		return 0, 0, 0
	}
	q := func(f float64) float64 {
		want := int64(math.Ceil(f * float64(l.n)))
		var c int64
		for i, v := range l.b {
			if c += v; c >= want {
				return float64(i * 10)
			}
		}
		return float64((len(l.b) - 1) * 10)
	}
	return float64(l.sumNs) / float64(l.n) / 1e3, q(0.5), q(0.99)
}
