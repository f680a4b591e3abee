package engine

import (
	"math"
	"testing"
	"time"

	"github.com/aclements/go-moremath/stats"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/netem"
)

// TestDelayDistributions: the IoV paper's N(69.5 ms, 5.6 ms) and a uniform jitter
// have the mean and spread they claim (uniform over ±j: sd j/√3), with and
// without correlation.
func TestDelayDistributions(t *testing.T) {
	for _, c := range []struct {
		name     string
		m        netem.Impairment
		mean, sd float64 // ms
	}{
		{"normal", netem.Impairment{Delay: 69500 * time.Microsecond, Jitter: 5600 * time.Microsecond, Normal: true}, 69.5, 5.6},
		{"uniform", netem.Impairment{Delay: 20 * time.Millisecond, Jitter: 6 * time.Millisecond}, 20, 6 / math.Sqrt(3)},
		{"fixed", netem.Impairment{Delay: 25 * time.Millisecond}, 25, 0},
	} {
		s := newSampler(c.m, 7)
		xs := make([]float64, 200_000)
		for i := range xs {
			xs[i] = float64(s.hold()) / 1e6
		}
		mean, sd := stats.Mean(xs), stats.StdDev(xs)
		if math.Abs(mean-c.mean) > 0.05 || math.Abs(sd-c.sd) > 0.05 {
			t.Errorf("%s: mean %.3f ms sd %.3f ms, want %.3f and %.3f", c.name, mean, sd, c.mean, c.sd)
		}
	}
}

// TestLoss: the share dropped is the setting, correlated or not, at several
// settings and seeds, within 4 standard errors of the binomial (inflated by
// (1+ρ)/(1−ρ) for correlated draws): at 400,000 draws a 0.2-point bias at 3 %
// is 7 of them. A partition drops everything.
func TestLoss(t *testing.T) {
	for _, c := range []struct {
		loss, corr float64
	}{{0.01, 0}, {0.03, 0}, {0.05, 0}, {0.10, 0}, {0.25, 0}, {0.03, 0.25}, {0.05, 0.25}, {0.005, 0.25}, {1, 0}} {
		for _, seed := range []uint64{11, 3000, 5000, 10000} {
			s := newSampler(netem.Impairment{Loss: c.loss, LossCorrelation: c.corr}, seed)
			n, lost := 400_000, 0
			for range n {
				if s.drop() {
					lost++
				}
			}
			se := math.Sqrt(c.loss * (1 - c.loss) / float64(n) * (1 + c.corr) / (1 - c.corr))
			if got := float64(lost) / float64(n); math.Abs(got-c.loss) > 4*se+1e-12 {
				t.Errorf("loss %.3f correlation %.2f seed %d: dropped %.4f, want within %.4f", c.loss, c.corr, seed, got, 4*se)
			}
		}
	}
	m, err := netem.FromFault(&trial.NetworkFault{Partition: true})
	if err != nil || m.Loss != 1 {
		t.Fatalf("partition: %+v %v", m, err)
	}
}

// TestBucket: a burst passes at the bucket's size, then one packet per
// length/rate; beyond the limit packets are dropped, as tbf does.
func TestBucket(t *testing.T) {
	m := netem.Impairment{RateBytesPerSecond: 100_000, BufferBytes: 10_000, LimitBytes: 50_000}
	b := newBucket(m, 0)
	var deps []int64
	dropped := 0
	for range 100 {
		at, ok := b.admit(0, 1000)
		if !ok {
			dropped++
			continue
		}
		deps = append(deps, at)
	}
	// 10 leave at once (10,000 B of tokens), then one each 10 ms; the limit holds
	// 50,000 B waiting, so 60 pass and 40 are dropped.
	if len(deps) != 60 || dropped != 40 {
		t.Fatalf("%d admitted, %d dropped; want 60 and 40", len(deps), dropped)
	}
	if deps[9] != 0 || deps[10] != int64(10*time.Millisecond) || deps[59] != int64(500*time.Millisecond) {
		t.Fatalf("departures: 10th %d, 11th %d, 60th %d ns", deps[9], deps[10], deps[59])
	}
	// Over a long run the rate is the cap.
	b = newBucket(netem.Impairment{RateBytesPerSecond: 625_000, BufferBytes: 10_000}, 0)
	var last int64
	for i := range 10_000 {
		last, _ = b.admit(int64(i)*int64(time.Millisecond), 1500) // offered 1.5 MB/s
	}
	if rate := 1500 * 10_000 / (float64(last) / 1e9); math.Abs(rate/625_000-1) > 0.01 {
		t.Fatalf("long-run rate %.0f B/s, want 625000", rate)
	}
}

// TestLossCorrelation: correlated losses come in runs: the chance a packet after
// a lost one is lost too is ρ + (1-ρ)p.
func TestLossCorrelation(t *testing.T) {
	s := newSampler(netem.Impairment{Loss: 0.05, LossCorrelation: 0.25}, 3)
	var after, lostAfter int
	prev := false
	for range 400_000 {
		l := s.drop()
		if prev {
			after++
			if l {
				lostAfter++
			}
		}
		prev = l
	}
	if got, want := float64(lostAfter)/float64(after), 0.25+0.75*0.05; math.Abs(got-want) > 0.02 {
		t.Fatalf("P(lost | previous lost) = %.3f, want %.3f", got, want)
	}
}
