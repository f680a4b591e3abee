package engine

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/serdebench/serdebench/internal/netem"
)

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
	m           netem.Impairment
	r           *rand.Rand
	delay, loss correlated
	// cleared marks the sampler Clear installs: what it passes is no longer
	// the fault's.
	cleared bool
}

func newSampler(m netem.Impairment, seed uint64) *sampler {
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

func newBucket(m netem.Impairment, now int64) *bucket {
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
