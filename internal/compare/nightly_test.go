package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// noise is a simulated machine. Each metric's value is its truth times
// exp(±(env + between + within)) on the log scale, throughput down when latency and
// serialize time are up:
//   - within: each repetition's own noise;
//   - between: each run's offset of one trial, the same for all its repetitions;
//   - env: each run's offset shared by every trial (the whole machine slower);
//   - tail: the offsets are Student's t with this many degrees of freedom (heavier
//     tails than normal; 0: normal), scaled to the same standard deviation.
//
// Each is a standard deviation of logarithms, per metric (records/s, p99,
// serialize).
type noise struct {
	name                 string
	within, between, env [3]float64
	tail                 float64
}

// Noise levels. "idle" and "busy" were measured on this project's 2-core VM: the
// nightly sample's experiment (1 repetition) run 24 times back to back on an idle
// machine, and 39 times with builds and tests of this repository on both cores
// alongside (docs/schedules.md). Their per-trial spread between runs is split
// evenly (in variance) between a run's offset and each repetition's own noise, and
// the part all trials share is env. "quiet" is a dedicated machine: 3 % within a
// run, as longer trials show.
var noises = []noise{
	{"quiet", [3]float64{0.03, 0.06, 0.03}, [3]float64{0.02, 0.04, 0.02}, [3]float64{0.02, 0.04, 0.02}, 0},
	{"idle", [3]float64{0.064, 0.32, 0.056}, [3]float64{0.064, 0.32, 0.056}, [3]float64{0.10, 0.32, 0.10}, 5},
	{"busy", [3]float64{0.13, 0.20, 0.10}, [3]float64{0.13, 0.20, 0.10}, [3]float64{0.32, 0.40, 0.23}, 5},
}

// sample is the nightly sample's experiment: three trials.
var sample = []struct {
	codec         string
	rps, p99, ser float64
}{{"avro", 80000, 30000, 4.5}, {"protobuf", 110000, 25000, 1.8}, {"json", 45000, 50000, 4}}

type sim struct {
	rng  *rand.Rand
	n    noise
	reps int
	// trials are the experiment's (nil: the sample's three).
	trials []struct {
		codec         string
		rps, p99, ser float64
	}
	// scales multiply trial i's own noise, within and between runs (nil: all 1):
	// trials of unequal noise.
	scales []float64
}

// unequal are the scales of a sample whose trials differ in noise: the control
// half as noisy as the level, the planted trial (protobuf) at it, the third twice;
// noisyControl the other way round, the control twice as noisy (every trial
// beside it is tested relative to it, so its noise is in each of their tests).
var (
	unequal      = []float64{0.5, 1, 2}
	noisyControl = []float64{2, 1, 0.5}
)

func (s *sim) scale(i int) float64 {
	if s.scales == nil {
		return 1
	}
	return s.scales[i%len(s.scales)]
}

func (s *sim) offset(sd float64) float64 {
	if s.n.tail == 0 {
		return sd * s.rng.NormFloat64()
	}
	// Student's t with ν degrees of freedom has variance ν/(ν−2): scaled to sd.
	nu := s.n.tail
	chi := 0.0
	for range int(nu) {
		z := s.rng.NormFloat64()
		chi += z * z
	}
	return sd * s.rng.NormFloat64() / math.Sqrt(chi/nu) * math.Sqrt((nu-2)/nu)
}

// run is one run of the sample: factor[i] multiplies trial i's throughput (a
// planted change; 1 for none).
func (s *sim) run(factor []float64) []report.Row {
	var env, b [3]float64
	for m := range env {
		env[m] = s.offset(s.n.env[m])
	}
	var rows []report.Row
	trials := s.trials
	if trials == nil {
		trials = sample
	}
	for i, t := range trials {
		k := s.scale(i)
		for m := range b {
			b[m] = s.offset(k * s.n.between[m])
		}
		for r := range s.reps {
			v := func(m int) float64 { return math.Exp(env[m] + b[m] + k*s.n.within[m]*s.rng.NormFloat64()) }
			rows = append(rows, report.Row{Name: fmt.Sprintf("t%03d-%s-r%d", i, t.codec, r), Config: fmt.Sprintf("t%03d-%s", i, t.codec),
				Repetition: r + 1, Codec: t.codec, Schema: "business-record", SizeBytes: 1176, Settings: "batch acks=all lz4",
				RecordsPerSecond: t.rps * factor[i] / v(0), P99: int64(t.p99 * v(1)), SerMicros: t.ser * v(2)})
		}
	}
	return rows
}

// nights runs n nights of the sample through the schedule's rule (Replay's loop)
// and returns each night's verdict; plant(night) is the throughput factor of each
// trial that night.
func (s *sim) nights(n int, o Options, plant func(night int) []float64) []Verdict {
	var history []Run
	out := make([]Verdict, n)
	for night := range n {
		cand := Summarize(s.run(plant(night)))
		out[night] = Judge(history, cand, o).Verdict
		history = append(history, cand)
	}
	return out
}

func unchanged(int) []float64 { return []float64{1, 1, 1} }

// nightly are the nightly sample's options (config/samples/nightly-schedule.yaml).
var nightly = Options{Thresholds: Thresholds{ThroughputDropPercent: 5, P99RisePercent: 50, SerializeRisePercent: 20},
	BaselineRuns: 10, MinRuns: 3, Persistence: 2}

// TestNightlyFalseAlarms simulates years of unchanged nights of the nightly sample
// (three trials, three metrics) at each noise level, with the sample's options and
// the schedule's defaults, 1 and 3 repetitions, and counts the nights that alert
// (Regressed, and EnvironmentShifted, which has its own alert). The budget, in
// docs/schedules.md, is 12 a year (one a month) each, at every level.
func TestNightlyFalseAlarms(t *testing.T) {
	const years = 3
	for _, o := range []struct {
		name string
		Options
	}{{"sample", nightly}, {"defaults", DefaultOptions}} {
		for _, n := range noises {
			for _, reps := range []int{1, 3} {
				for _, scales := range [][]float64{nil, unequal, noisyControl} {
					if scales != nil && o.name != "sample" {
						continue
					}
					s := &sim{rng: rand.New(rand.NewPCG(7, uint64(reps))), n: n, reps: reps, scales: scales}
					counts := map[Verdict]int{}
					for _, v := range s.nights(365*years, o.Options, unchanged)[o.MinRuns:] {
						counts[v]++
					}
					perYear := float64(counts[Regressed]) / years
					t.Logf("%-8s %-5s noise%s, %d repetitions: a year %5.1f Regressed, %5.1f Suspect, %5.1f EnvironmentShifted", o.name, n.name,
						scaled(scales), reps, perYear, float64(counts[Suspect])/years, float64(counts[EnvironmentShifted])/years)
					if perYear > 12 {
						t.Errorf("%s, %s noise%s, %d repetitions: %.1f false alarms a year, budget 12", o.name, n.name, scaled(scales), reps, perYear)
					}
					// EnvironmentShifted alerts too: the same budget.
					if shifts := float64(counts[EnvironmentShifted]) / years; shifts > 12 {
						t.Errorf("%s, %s noise%s, %d repetitions: EnvironmentShifted on %.1f unchanged nights a year, budget 12", o.name, n.name, scaled(scales), reps, shifts)
					}
				}
			}
		}
	}
	// 36 trials (108 tests a night), the sample's options, each noise level, 2 years:
	// the correction holds the budget however many trials a schedule has.
	wide := make([]struct {
		codec         string
		rps, p99, ser float64
	}, 36)
	for i := range wide {
		wide[i] = sample[i%3]
		wide[i].codec = fmt.Sprintf("%s%d", sample[i%3].codec, i)
	}
	for _, c := range []struct {
		n      noise
		scales []float64
	}{{noises[0], nil}, {noises[1], nil}, {noises[2], nil}, {noises[0], unequal}, {noises[1], unequal}, {noises[2], unequal}} {
		n := c.n
		s := &sim{rng: rand.New(rand.NewPCG(9, 9)), n: n, reps: 1, trials: wide, scales: c.scales}
		alarms := 0
		for _, v := range s.nights(365*2, nightly, unchanged36)[nightly.MinRuns:] {
			if v == Regressed {
				alarms++
			}
		}
		t.Logf("36 trials, %-5s noise%s: a year %.1f Regressed", n.name, scaled(s.scales), float64(alarms)/2)
		if float64(alarms)/2 > 12 {
			t.Errorf("36 trials, %s noise%s: %.1f false alarms a year, budget 12", n.name, scaled(s.scales), float64(alarms)/2)
		}
	}
}

// scaled names a sim's unequal noise in a log line ("" for equal).
func scaled(scales []float64) string {
	if scales == nil {
		return ""
	}
	return fmt.Sprintf(" (trials × %v)", scales)
}

func unchanged36(int) []float64 {
	out := make([]float64, 36)
	for i := range out {
		out[i] = 1
	}
	return out
}

// TestNightlyFindsPlantedDrop plants a lasting throughput drop of one trial
// (protobuf) and counts the nights until the sample's schedule alerts, at each
// noise level with 3 repetitions. docs/schedules.md promises, within 7 nights: at
// quiet noise a 10 % drop in more than half of plantings (the first streak's test
// alone finds it about half the time: 2.5 standard deviations of the ratio to the
// control, against Holm's one-sided 0.05/9 at 9 degrees of freedom) and a 20 % drop
// in 95 %; at the idle VM's a 30 % drop in 80 %. The busy VM's is logged, not
// promised. A 25 % drop of every trial at once, the environment's, must not alert
// more often than the false-alarm budget. Each promise holds too when the trials
// differ in noise with a quiet control (unequal: the planted trial at the level,
// the control at half, the third at twice it); with a noisy control (twice the
// level) the shares are logged, and the environment's move still must not alert.
func TestNightlyFindsPlantedDrop(t *testing.T) {
	const plantings, at, within = 150, 20, 7
	promise := map[string]map[float64]float64{"quiet": {0.9: 0.5, 0.8: 0.95}, "idle": {0.7: 0.8}}
	for _, c := range []struct {
		n      noise
		scales []float64
	}{{noises[0], nil}, {noises[1], nil}, {noises[2], nil}, {noises[0], unequal}, {noises[1], unequal}, {noises[2], unequal},
		{noises[0], noisyControl}, {noises[1], noisyControl}, {noises[2], noisyControl}} {
		n := c.n
		s := &sim{rng: rand.New(rand.NewPCG(11, 13)), n: n, reps: 3, scales: c.scales}
		for _, factor := range []float64{0.9, 0.8, 0.7, 0.6} {
			found, nights := 0, 0
			for range plantings {
				vs := s.nights(at+within, nightly, func(night int) []float64 {
					if night >= at {
						return []float64{1, factor, 1}
					}
					return []float64{1, 1, 1}
				})
				for i, v := range vs[at:] {
					if v == Regressed {
						found, nights = found+1, nights+i+1
						break
					}
				}
			}
			share := float64(found) / plantings
			t.Logf("%-5s noise%s: a %2.0f %% drop alerted within %d nights in %3.0f %% of %d plantings (after %.1f nights on average)", n.name,
				scaled(c.scales), 100*(1-factor), within, 100*share, plantings, float64(nights)/float64(max(found, 1)))
			// The promises are the level's; with a noisy control they are logged (its
			// noise is in every relative test: docs/schedules.md gives the figures).
			if want, ok := promise[n.name][factor]; ok && share < want && !slices.Equal(c.scales, noisyControl) {
				t.Errorf("%s noise%s: a planted %.0f %% drop alerted within %d nights in %.0f %% of plantings, promised %.0f %%", n.name, scaled(c.scales),
					100*(1-factor), within, 100*share, 100*want)
			}
		}
		// The environment: every trial 25 % slower for good.
		alerts := 0
		for range plantings / 4 {
			vs := s.nights(at+within, nightly, func(night int) []float64 {
				if night >= at {
					return []float64{0.75, 0.75, 0.75}
				}
				return []float64{1, 1, 1}
			})
			for _, v := range vs[at:] {
				if v == Regressed {
					alerts++
				}
			}
		}
		t.Logf("%-5s noise%s: every trial 25 %% slower: %d of %d nights alerted", n.name, scaled(c.scales), alerts, plantings/4*within)
		if rate := float64(alerts) / float64(plantings/4*within); rate > 12.0/365 {
			t.Errorf("%s noise%s: a change of the environment alerted on %.1f %% of nights", n.name, scaled(c.scales), 100*rate)
		}
	}
}

// probeNoise is the machine probe's own noise, by part (cpu, fsync, connect): the
// standard deviation of the logarithm of one producer's reading, which a run
// takes the median of over its trials and repetitions. Measured on this VM: one
// reading of the CPU loop in the short nightly replay moved 0.17 (24 trials: the
// core's own speed wanders, idle too, between about 8 and 16 µs/op), and a
// producer reads it twice, about 100 s apart (probe.Recheck, when the second
// reading finds its core quiet): 0.17/√2; fsync and connect, the minimum of 15,
// moved 0.13 and 0.22 on an idle machine beside the broker. make nightly-replay
// measures them in the nightly itself.
var probeNoise = [3]float64{0.12, 0.13, 0.22}

// probedRun is s.run with the machine probe on every row: each reading sees the
// run's shared offset of throughput (the whole machine slower) and its own noise;
// machine multiplies the CPU part (a planted slower machine).
func (s *sim) probedRun(factor []float64, machine float64) []report.Row {
	rows := s.run(factor)
	// The shared offset of this run is in every row's throughput; recover it from
	// the first trial's truth would mix in its own noise, so draw the probe's view
	// of the machine from the rows' mean log ratio to their truths.
	trials := s.trials
	if trials == nil {
		trials = sample
	}
	var sum float64
	for i, r := range rows {
		t := trials[(i/s.reps)%len(trials)]
		sum += math.Log(t.rps * factor[(i/s.reps)%len(trials)] / r.RecordsPerSecond)
	}
	env := sum / float64(len(rows))
	read := func(typical float64, part int) int64 {
		return int64(typical * math.Exp(probeNoise[part]*s.rng.NormFloat64()))
	}
	for i := range rows {
		rows[i].Probe = &summary.Probe{CPUNanosPerOp: read(16000*machine*math.Exp(env), 0), FsyncMicros: read(150, 1), ConnectMicros: read(85, 2)}
	}
	return rows
}

// TestNightlyWithProbe runs the nightly sample with the machine probe as its
// control, at each noise level with 3 repetitions: unchanged nights stay within
// the false-alarm budget (12 a year); a 25 % drop of every trial beside a steady
// machine (an upgrade) is Regressed within 7 nights in at least 80 % of plantings
// at the quiet level (logged at the others, with the share that was
// EnvironmentShifted instead: a probe as noisy as the machine cannot show it
// steady); the same drop on a machine 25 % slower, which the probe sees, is
// Regressed no more often than the budget allows.
func TestNightlyWithProbe(t *testing.T) {
	const years, plantings, at, within = 2, 60, 20, 7
	for _, n := range noises {
		s := &sim{rng: rand.New(rand.NewPCG(17, 19)), n: n, reps: 3}
		nights := func(count int, plant func(night int) ([]float64, float64)) []Verdict {
			var history []Run
			out := make([]Verdict, count)
			for night := range count {
				f, m := plant(night)
				cand := Summarize(s.probedRun(f, m))
				out[night] = Judge(history, cand, nightly).Verdict
				history = append(history, cand)
			}
			return out
		}
		alarms, shifts := 0, 0
		for _, v := range nights(365*years, func(int) ([]float64, float64) { return []float64{1, 1, 1}, 1 })[nightly.MinRuns:] {
			switch v {
			case Regressed:
				alarms++
			case EnvironmentShifted:
				shifts++
			}
		}
		perYear := float64(alarms) / years
		if perYear > 12 {
			t.Errorf("%s noise, probe: %.1f false alarms a year, budget 12", n.name, perYear)
		}
		// EnvironmentShifted alerts too (SerdebenchEnvironmentShifted): unchanged
		// nights hold the same budget.
		if shiftsPerYear := float64(shifts) / years; shiftsPerYear > 12 {
			t.Errorf("%s noise, probe: EnvironmentShifted on %.1f unchanged nights a year, budget 12", n.name, shiftsPerYear)
		}
		// plant returns the plantings Regressed within the horizon, those shown
		// EnvironmentShifted on some night but never Regressed, and the Regressed
		// nights.
		plant := func(machine float64) (found, shifted, alerts int) {
			for range plantings {
				vs := nights(at+within, func(night int) ([]float64, float64) {
					if night >= at {
						return []float64{0.75, 0.75, 0.75}, machine
					}
					return []float64{1, 1, 1}, 1
				})
				for _, v := range vs[at:] {
					if v == Regressed {
						alerts++
					}
				}
				switch {
				case slices.Contains(vs[at:], Regressed):
					found++
				case slices.Contains(vs[at:], EnvironmentShifted):
					shifted++
				}
			}
			return found, shifted, alerts
		}
		upgrade, upgradeShifted, _ := plant(1)
		_, _, machineAlerts := plant(1 / 0.75)
		t.Logf("%-5s noise, probe: a year %.1f false alarms, %.1f false EnvironmentShifted; every trial 25 %% slower, machine steady: Regressed within %d nights in %.0f %% of %d plantings, "+
			"only EnvironmentShifted in %.0f %%; machine 25 %% slower with them: %d Regressed nights of %d", n.name, perYear, float64(shifts)/years, within, 100*float64(upgrade)/plantings,
			plantings, 100*float64(upgradeShifted)/plantings, machineAlerts, plantings*within)
		if n.name == "quiet" && float64(upgrade)/plantings < 0.8 {
			t.Errorf("quiet noise, probe: a 25 %% drop of every trial beside a steady machine Regressed in %.0f %% of plantings, want 80 %%", 100*float64(upgrade)/plantings)
		}
		if rate := float64(machineAlerts) / float64(plantings*within); rate > 12.0/365 {
			t.Errorf("%s noise, probe: a slower machine alerted on %.1f %% of nights", n.name, 100*rate)
		}
	}
}
