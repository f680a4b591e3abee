// Package protocol is the worker's side of the trial protocol, which the local
// runner and the operator speak to it: how a worker is told what to run (Worker and
// its command-line arguments), how it says how it ended (exit codes) and how its
// summary travels back (stdout, the termination message, or the log when the
// message is too small). Names of topics, groups and Jobs are internal/names'.
package protocol

import (
	"fmt"
	"math"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// Worker exit codes. The operator reads them from terminated containers.
const (
	// ExitOK: the trial is complete and the summary is whole.
	ExitOK = 0
	// ExitFailed: the worker failed (unreachable broker, bad trial, send errors that
	// stopped it).
	ExitFailed = 1
	// ExitUsage: the arguments were invalid.
	ExitUsage = 2
	// ExitInterrupted: the worker was stopped (SIGTERM, its timeout) before the trial
	// was complete; it printed a partial summary marked interrupted.
	ExitInterrupted = 3
	// ExitInvalidSource: a source check (CheckCommand) found a sample that does not
	// fit the schema or does not come back equal through a codec; the termination
	// message says which.
	ExitInvalidSource = 4
)

// Reasons a trial fails, shared by the local runner and the operator's conditions.
const (
	// ReasonWorkerFailed: a worker reported an error.
	ReasonWorkerFailed = "WorkerFailed"
	// ReasonWorkerInterrupted: a worker stopped before the trial was complete
	// (timeout, SIGTERM); its partial numbers are not a result.
	ReasonWorkerInterrupted = "WorkerInterrupted"
	// ReasonTopicFailed: the trial's topic could not be created.
	ReasonTopicFailed = "TopicFailed"
	// ReasonFaultNotInjected: a trial's fault was not applied (by Chaos Mesh, or
	// the local rig): the trial fails, it is never measured as faulted on a
	// healthy system.
	ReasonFaultNotInjected = "FaultNotInjected"
	// ReasonFaultNotRecovered: a fault could not be undone.
	ReasonFaultNotRecovered = "FaultNotRecovered"
)

// Roles of workers.
const (
	RoleProducer = summary.RoleProducer
	RoleConsumer = summary.RoleConsumer
)

// ProducerID is producer i's --id.
func ProducerID(i int) string { return fmt.Sprint(i) }

// ConsumerName is consumer i's --name.
func ConsumerName(i int) string { return fmt.Sprintf("c%d", i) }

// Annotate adds what depends on a trial's settings to its merged result (the merge
// sees only the summaries): the rate search's verdicts and settings' warnings.
func Annotate(t trial.Trial, r *summary.Result) {
	if t.Search != nil {
		r.EvaluateSearch(int64(t.Search.MaxP99Millis) * 1000)
	}
	if w := WindowTooShort(t, r); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if w := JITWarmupShort(t, r); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if w := JITCompiling(r); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if t.Producers > 1 && t.Warmup.Records > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the %d producers started together, but each began measuring after its own %d warmup records: "+
			"their windows began %d µs apart; warmup.durationSeconds starts them together", t.Producers, t.Warmup.Records, r.WindowStartSpreadMicros))
	}
	r.Warnings = append(r.Warnings, trial.Warnings(t.Settings)...)
	if t.Settings.Acks == "0" && r.Lost > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("acks=0: %d records were written to the connection but never stored by the broker; "+
			"with acks=0 the producer cannot know what the broker got", r.Lost))
	}
}

// The shortest measured window worth a result: MinWindowSeconds, and MinPeriods of
// each period that shapes a record's latency (linger.ms, the consumers' measured
// fetch interval); Prometheus' scrape interval is the operator's to check. Fewer periods and the window's edges (a batch cut in half, a fetch
// that straddles the end) weigh as much as its middle.
const (
	MinWindowSeconds = 5
	MinPeriods       = 20
)

// MinJVMWarmupRecords is the warmup each producer of a trial with a JVM worker
// needs before its window: HotSpot runs a method interpreted, then compiles it, the
// second time (C2) after about 10^4 invocations, in the background; Fory writes its
// serializers at first use. docs/measurement.md ("JIT warm-up") has the measurement.
const MinJVMWarmupRecords = 10000

// MinJVMWarmupSeconds is how long that warmup must also last: the compilations
// run in background threads, so at a high rate the records pass before the code
// they asked for is compiled. hack/bench/jit-warmup.sh: at 100 B, 40,000 warmup
// records (under 0.2 s) left the window measurably slow; the medians rose until
// about 0.8 s there and 1.8 s at 10 kB, so 2 s is a precaution above them.
const MinJVMWarmupSeconds = 2

// JITWarmupShort is the trial's JITWarmupShort warning, or "" when no worker of it
// runs on the JVM or its warmup is long enough, in records and in time: about how
// many records each producer warmed up with and for how long (a timed warmup at
// the trial's rate, or the window's for a closed loop), and what to raise.
func JITWarmupShort(t trial.Trial, r *summary.Result) string {
	if t.Settings.ClientOf(trial.SideProducers).Runtime() != trial.RuntimeJVM && t.Settings.ClientOf(trial.SideConsumers).Runtime() != trial.RuntimeJVM {
		return ""
	}
	rate := float64(t.Settings.RecordsPerSecond)
	if rate == 0 && t.Producers > 0 {
		rate = r.RecordsPerSecond / float64(t.Producers) // a closed loop's, as it ran in the window
	}
	warm, secs := t.Warmup.Records, float64(t.Warmup.DurationSeconds)
	if secs > 0 {
		warm = max(warm, int64(secs*rate))
	}
	if rate > 0 {
		secs = max(secs, float64(t.Warmup.Records)/rate)
	}
	// Without a rate (a closed loop with no window yet) a warmup of records has no
	// known length: only its count is checked.
	timed := t.Warmup.DurationSeconds > 0 || rate > 0
	if warm >= MinJVMWarmupRecords && (!timed || secs >= MinJVMWarmupSeconds) {
		return ""
	}
	took := ""
	if timed {
		took = fmt.Sprintf(" over %.1f s", secs)
	}
	return fmt.Sprintf("JITWarmupShort: a JVM worker compiles its hot path over its first ~%d records and %d s, and each producer warmed up with about %d records%s: "+
		"the window measures part of the compilation; raise the warmup to at least %d records and %d s (warmup.durationSeconds, or warmup.records at the rate)",
		MinJVMWarmupRecords, MinJVMWarmupSeconds, warm, took, MinJVMWarmupRecords, MinJVMWarmupSeconds)
}

// MaxJITShare is the largest share of a JVM worker's measured window its finished
// JIT compilations may take (elapsed, summed over the compiler threads: JITShares)
// before the window is said to hold the JIT's warm-up. Measured on 2 cores
// (docs/measurement.md, "JIT warm-up"): 0.74–0.97 at 20,000 rec/s after a 5 s
// warmup, whose ack p50 was 1.4–1.6 times the Java probe's, 0.10–0.18 after 20 s
// (1.04 times). A short run never reaches 0, as colder methods keep crossing the
// compile thresholds.
const MaxJITShare = 0.25

// JITCompiling is the trial's JITCompiling warning, or "" when no worker's JIT
// compilations took more than MaxJITShare of its window (a Go worker has none):
// measured, where JITWarmupShort can only count the warmup.
func JITCompiling(r *summary.Result) string {
	var busy []string
	for _, side := range []struct {
		role  string
		share float64
	}{{"producer", r.JITShares.Producers}, {"consumer", r.JITShares.Consumers}} {
		if side.share > MaxJITShare {
			busy = append(busy, fmt.Sprintf("a %s's for %.0f %%", side.role, side.share*100))
		}
	}
	if len(busy) == 0 {
		return ""
	}
	return fmt.Sprintf("JITCompiling: JIT compilations that finished inside the measured window took %s of it "+
		"(elapsed time, summed over the JVM's compiler threads; more than %.0f %% means the window still holds the JIT's warm-up): "+
		"code ran unoptimized in it, and the compilers took CPU from the rest; a longer warmup (warmup.durationSeconds) moves them out",
		strings.Join(busy, " and "), MaxJITShare*100)
}

// WindowTooShort is the trial's WindowTooShort warning, or "" when its measured
// window is long enough: what was too short, and what to raise.
func WindowTooShort(t trial.Trial, r *summary.Result) string {
	w := r.WindowSeconds
	if w <= 0 || t.Search != nil {
		return "" // a rate search's steps have their own length
	}
	need, why := float64(MinWindowSeconds), fmt.Sprintf("under %d s", MinWindowSeconds)
	if t.Settings.Mode == trial.ModeBatch && t.Settings.LingerMs > 0 {
		if p := float64(MinPeriods*t.Settings.LingerMs) / 1000; p > need {
			need, why = p, fmt.Sprintf("under %d linger.ms periods of %d ms", MinPeriods, t.Settings.LingerMs)
		}
	}
	// The fetch interval as measured (franz-go's consumers): fetch.max.wait.ms
	// bounds it only while no records wait, so it says nothing of a busy stream.
	if f := r.FetchInterval; f.Count > 0 {
		if p := float64(MinPeriods*f.P50) / 1e6; p > need {
			need, why = p, fmt.Sprintf("under %d fetch intervals (their p50, %.0f ms)", MinPeriods, float64(f.P50)/1e3)
		}
	}
	if w >= need {
		return ""
	}
	raise := fmt.Sprintf("set durationSeconds to at least %.0f", math.Ceil(need))
	if t.Records > 0 {
		raise = fmt.Sprintf("raise records to at least %d per producer (or set durationSeconds to at least %.0f)",
			int64(math.Ceil(float64(t.Records)*need/w)), math.Ceil(need))
	}
	return fmt.Sprintf("WindowTooShort: the measured window was %.2f s, %s: its edges weigh as much as its middle; %s", w, why, raise)
}
