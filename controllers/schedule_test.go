package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
)

// startScheduler runs only the schedule controller, under the shipped RBAC, on a fake
// clock, watching ns; its gauges go to the returned registry. The runs it starts are
// run only when the test also starts the experiment controller; otherwise tests set
// their outcome themselves.
func startScheduler(t *testing.T, clk *clocktesting.FakeClock, ns string) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	// Only the test's namespace: schedules of earlier tests stay in the API server and
	// would add their series to this registry.
	mgr, err := ctrl.NewManager(managerCfg, ctrl.Options{Scheme: scheme, Cache: controllers.CacheOptions(ns), Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: pointerTo(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controllers.ScheduleReconciler{Client: mgr.GetClient(), Scheme: scheme, Recorder: mgr.GetEventRecorderFor("serdebench"), //nolint:staticcheck // the manager's recorder (cmd/manager)
		Clock: clk, MaxWait: 100 * time.Millisecond, Metrics: controllers.NewScheduleMetrics(reg), APIReader: mgr.GetAPIReader()}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	return reg
}

func newSchedule(ns, name string, mutate func(*serdebenchv1.SerializationScheduleSpec)) *serdebenchv1.SerializationSchedule {
	x := experiment(ns, "template", nil)
	s := &serdebenchv1.SerializationSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: serdebenchv1.SerializationScheduleSpec{Schedule: "*/5 * * * *",
			ExperimentTemplate: serdebenchv1.ExperimentTemplate{Labels: map[string]string{"team": "payments"}, Spec: x.Spec}}}
	if mutate != nil {
		mutate(&s.Spec)
	}
	return s
}

func scheduleRuns(t *testing.T, ns, name string) []serdebenchv1.SerializationExperiment {
	t.Helper()
	list := &serdebenchv1.SerializationExperimentList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{controllers.LabelSchedule: name}); err != nil {
		t.Fatal(err)
	}
	var live []serdebenchv1.SerializationExperiment
	for _, x := range list.Items {
		if x.DeletionTimestamp.IsZero() {
			live = append(live, x)
		}
	}
	return live
}

// missed says whether the schedule has counted want missed runs; its error, the
// status and runs it saw, is what a timed-out wait reports.
func missed(t *testing.T, ns, name string, want int64) (bool, error) {
	t.Helper()
	st := getSchedule(t, ns, name).Status
	var runs []string
	for _, x := range scheduleRuns(t, ns, name) {
		runs = append(runs, fmt.Sprintf("%s (%s, stage %q)", x.Name, x.Annotations[controllers.AnnotationScheduledAt], x.Status.Stage))
	}
	return st.MissedRuns == want, fmt.Errorf("missedRuns %d, lastScheduleTime %v, active %v; runs %v", st.MissedRuns, st.LastScheduleTime, st.Active, runs)
}

func getSchedule(t *testing.T, ns, name string) *serdebenchv1.SerializationSchedule {
	t.Helper()
	s := &serdebenchv1.SerializationSchedule{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// updateSchedule changes a schedule's spec, retrying when the controller's status
// writes got in between.
func updateSchedule(t *testing.T, ns, name string, mutate func(*serdebenchv1.SerializationScheduleSpec)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s := getSchedule(t, ns, name)
		mutate(&s.Spec)
		return k8s.Update(context.Background(), s)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// completeRun starts the run of schedule due n×5 minutes after created (its
// clock set there) and finishes it with a result of env and trials, named as
// the run.
func completeRun(t *testing.T, clk *clocktesting.FakeClock, ns, schedule string, created time.Time, n int, env serdebenchv1.Environment,
	trials []serdebenchv1.TrialResult) string {
	t.Helper()
	clk.SetTime(created.Truncate(5 * time.Minute).Add(time.Duration(5*n)*time.Minute + 30*time.Second))
	var x serdebenchv1.SerializationExperiment
	waitFor(t, 10*time.Second, fmt.Sprintf("run %d", n), func() (bool, error) {
		for _, r := range scheduleRuns(t, ns, schedule) {
			if r.Status.Stage == "" {
				x = r
				return true, nil
			}
		}
		return false, nil
	})
	// The scheduler records the run active before it sees it end (below): a later
	// due time it met with the run still active would be skipped (Forbid).
	waitActive(t, ns, schedule, x.Name, true)
	res := &serdebenchv1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: x.Name},
		Experiment: serdebenchv1.ExperimentSnapshot{Name: x.Name, UID: string(x.UID), Spec: x.Spec}, Environment: env, Trials: trials}
	if err := k8s.Create(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	x.Status.ResultRef = &corev1.LocalObjectReference{Name: res.Name}
	finish(t, &x, serdebenchv1.StageSucceeded)
	waitActive(t, ns, schedule, x.Name, false)
	return x.Name
}

// waitActive waits until the schedule's status lists run as active (or no longer
// does). A test moves its fake clock to the next due time only once the scheduler
// has seen the run end: a due time it meets while its cache still shows the
// run active is skipped under Forbid, and on a loaded machine that cache lags.
func waitActive(t *testing.T, ns, schedule, run string, active bool) {
	t.Helper()
	waitFor(t, 10*time.Second, fmt.Sprintf("%s active=%t in %s's status", run, active, schedule), func() (bool, error) {
		got := getSchedule(t, ns, schedule).Status.Active
		return slices.Contains(got, run) == active, fmt.Errorf("active %v", got)
	})
}

// finish sets a run's outcome as the experiment controller would.
func finish(t *testing.T, x *serdebenchv1.SerializationExperiment, stage serdebenchv1.Stage) {
	t.Helper()
	x.Status.Stage = stage
	if err := k8s.Status().Update(context.Background(), x); err != nil {
		t.Fatal(err)
	}
}

// TestSchedule drives one schedule with a fake clock through a due run, Forbid while
// it is active, missed times, the starting deadline, suspension, Replace and history
// pruning.
func TestSchedule(t *testing.T) {
	ns := newNamespace(t)
	clk := clocktesting.NewFakeClock(time.Now())
	startScheduler(t, clk, ns)
	ctx := context.Background()
	s := newSchedule(ns, "nightly", nil)
	if err := k8s.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	created := getSchedule(t, ns, "nightly").CreationTimestamp.Time
	advanceTo := func(minutesAfterCreation int) {
		clk.SetTime(created.Truncate(5 * time.Minute).Add(time.Duration(minutesAfterCreation)*time.Minute + 30*time.Second))
	}
	runs := func(n int, what string) []serdebenchv1.SerializationExperiment {
		t.Helper()
		var got []serdebenchv1.SerializationExperiment
		waitFor(t, 10*time.Second, what, func() (bool, error) {
			got = scheduleRuns(t, ns, "nightly")
			return len(got) == n, fmt.Errorf("%d runs", len(got))
		})
		return got
	}

	advanceTo(5)
	first := runs(1, "the first due run")[0]
	if first.Labels["team"] != "payments" || metav1.GetControllerOf(&first) == nil || first.Annotations[controllers.AnnotationScheduledAt] == "" {
		t.Fatalf("run %s: labels %v, annotations %v", first.Name, first.Labels, first.Annotations)
	}
	waitFor(t, 10*time.Second, "status.active", func() (bool, error) {
		st := getSchedule(t, ns, "nightly").Status
		return len(st.Active) == 1 && st.Active[0] == first.Name && st.LastScheduleTime != nil, fmt.Errorf("%+v", st)
	})

	// Forbid (the default): the next due time passes while the run is active.
	advanceTo(10)
	waitFor(t, 10*time.Second, "a run skipped by Forbid", func() (bool, error) {
		return missed(t, ns, "nightly", 1)
	})
	runs(1, "still one run")

	// Finished, then three due times pass at once: one run, two counted missed.
	finish(t, &first, serdebenchv1.StageSucceeded)
	waitActive(t, ns, "nightly", first.Name, false)
	advanceTo(25)
	runs(2, "the latest due run after missed ones")
	waitFor(t, 10*time.Second, "missed runs counted", func() (bool, error) {
		return missed(t, ns, "nightly", 3)
	})

	// Replace: the active run gives way to the next.
	deadline := int64(60)
	updateSchedule(t, ns, "nightly", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.ConcurrencyPolicy = serdebenchv1.ConcurrencyReplace
		s.StartingDeadlineSeconds = &deadline
	})
	before := runs(2, "two runs")
	advanceTo(30)
	waitFor(t, 10*time.Second, "the active run replaced", func() (bool, error) {
		now := scheduleRuns(t, ns, "nightly")
		names := map[string]bool{}
		for _, x := range now {
			names[x.Name] = true
		}
		return len(now) == 2 && names[first.Name] && !names[before[1].Name], fmt.Errorf("runs %v", names)
	})

	// The starting deadline: the controller sees the due time two minutes late.
	missed := getSchedule(t, ns, "nightly").Status.MissedRuns
	clk.SetTime(created.Truncate(5 * time.Minute).Add(37 * time.Minute))
	waitFor(t, 10*time.Second, "a run past its deadline skipped", func() (bool, error) {
		return getSchedule(t, ns, "nightly").Status.MissedRuns == missed+1, nil
	})
	runs(2, "no run started late")

	// Suspended: due times pass, nothing starts.
	updateSchedule(t, ns, "nightly", func(s *serdebenchv1.SerializationScheduleSpec) { s.Suspend = true })
	waitFor(t, 10*time.Second, "Ready says suspended", func() (bool, error) {
		c := meta.FindStatusCondition(getSchedule(t, ns, "nightly").Status.Conditions, serdebenchv1.ConditionReady)
		return c != nil && c.Reason == controllers.ReasonSuspended, nil
	})
	advanceTo(45)
	time.Sleep(500 * time.Millisecond)
	runs(2, "no run while suspended")

	// History: with one successful run kept, finishing the rest prunes the oldest.
	updateSchedule(t, ns, "nightly", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Suspend = false
		s.SuccessfulHistoryLimit = pointerTo(int32(1))
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselinePinned, ResultName: "a-release"} // the default rolling median needs 5 kept
	})
	for _, x := range scheduleRuns(t, ns, "nightly") {
		if x.Status.Stage == "" {
			finish(t, &x, serdebenchv1.StageSucceeded)
		}
	}
	advanceTo(46) // nothing due: only the pruning
	waitFor(t, 10*time.Second, "history pruned to one run", func() (bool, error) {
		now := scheduleRuns(t, ns, "nightly")
		return len(now) == 1 && now[0].Name != first.Name, fmt.Errorf("%d runs", len(now))
	})
}

// TestScheduleStartStatusLost: a run exists for a due time but the schedule's
// status does not record it, as when the status write after starting it failed (a
// conflict). The schedule adopts the run and counts as missed only the due times
// that went without one:
//   - the run is the latest due time: the four before it;
//   - a later due time passed too (the next reconcile came late): the three before
//     the run, and the later one, skipped while the run is active (Forbid);
//   - the same with Replace: the run gives way to the later one, which starts.
func TestScheduleStartStatusLost(t *testing.T) {
	for _, c := range []struct {
		name           string
		runAt, clockAt int // minutes past the five-minute mark before creation
		policy         serdebenchv1.ConcurrencyPolicy
		wantRunAt      int
		wantMissed     int64
	}{
		{"latest", 25, 25, serdebenchv1.ConcurrencyForbid, 25, 4},
		{"then-later-one-skipped", 20, 25, serdebenchv1.ConcurrencyForbid, 20, 4},
		{"then-replaced", 20, 25, serdebenchv1.ConcurrencyReplace, 25, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := newNamespace(t)
			ctx := context.Background()
			if err := k8s.Create(ctx, newSchedule(ns, "lost", func(s *serdebenchv1.SerializationScheduleSpec) { s.ConcurrencyPolicy = c.policy })); err != nil {
				t.Fatal(err)
			}
			s := getSchedule(t, ns, "lost")
			mark := s.CreationTimestamp.Truncate(5 * time.Minute)
			minute := func(m int) time.Time { return mark.Add(time.Duration(m) * time.Minute) }
			runName := func(m int) string { return fmt.Sprintf("lost-%d", minute(m).Unix()/60) }
			x := experiment(ns, runName(c.runAt), nil)
			x.Spec = s.Spec.ExperimentTemplate.Spec
			x.Labels = map[string]string{controllers.LabelSchedule: "lost"}
			x.Annotations = map[string]string{controllers.AnnotationScheduledAt: minute(c.runAt).UTC().Format(time.RFC3339)}
			if err := controllerutil.SetControllerReference(s, x, scheme); err != nil {
				t.Fatal(err)
			}
			if err := k8s.Create(ctx, x); err != nil {
				t.Fatal(err)
			}
			startScheduler(t, clocktesting.NewFakeClock(minute(c.clockAt).Add(30*time.Second)), ns)
			last := metav1.NewTime(minute(c.clockAt))
			want := runName(c.wantRunAt)
			waitFor(t, 10*time.Second, "the run adopted", func() (bool, error) {
				st := getSchedule(t, ns, "lost").Status
				return st.LastScheduleTime != nil && st.LastScheduleTime.Equal(&last) && slices.Equal(st.Active, []string{want}), fmt.Errorf("%+v", st)
			})
			// Later reconciles (MaxWait 100 ms) count nothing more.
			time.Sleep(time.Second)
			if st := getSchedule(t, ns, "lost").Status; st.MissedRuns != c.wantMissed {
				t.Fatalf("missed runs %d, want %d", st.MissedRuns, c.wantMissed)
			}
			if names := runNames(scheduleRuns(t, ns, "lost")); !slices.Equal(names, []string{want}) {
				t.Fatalf("runs %v, want only %s", names, want)
			}
		})
	}
}

// TestScheduleRegression: each finished run is compared once with the runs before
// it (rollingMedian of 5, minRuns 3, persistence 2: judged once 4 runs came
// before). The first runs say the baseline is being collected; a run inside the noise is within; a planted 20 %
// throughput drop of one trial is Suspect on its first run (shown, no event) and
// Regressed on its second, naming it, with a Warning event, the result's
// comparison block and the gauges; a run back at the old rate clears it. Pinned
// results: a missing one says so, three of them judge each run at once.
func TestScheduleRegression(t *testing.T) {
	ns := newNamespace(t)
	clk := clocktesting.NewFakeClock(time.Now())
	reg := startScheduler(t, clk, ns)
	ctx := context.Background()
	if err := k8s.Create(ctx, newSchedule(ns, "watch", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselineRollingMedian, Runs: 5, MinRuns: 3}
	})); err != nil {
		t.Fatal(err)
	}
	created := getSchedule(t, ns, "watch").CreationTimestamp.Time
	// run starts the run due n×5 minutes after creation and finishes it with a
	// result whose protobuf trial reaches rate records/s.
	run := func(n int, rate int64) string {
		t.Helper()
		settings := trial.Settings{Mode: "batch", Acks: "1", Compression: "none"}
		// The drop comes with an upgrade of the broker: the verdict names it.
		kafka := "4.3 (metadata.version 4.3-IV0)"
		if n >= 8 {
			kafka = "4.4 (metadata.version 4.4-IV2)"
		}
		return completeRun(t, clk, ns, "watch", created, n, serdebenchv1.Environment{KafkaRelease: kafka}, []serdebenchv1.TrialResult{
			{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: 40000 + int64(n%3)*400, Settings: settings,
				SerializeNanosPerRecord: 4700, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 20000 + int64(n%2)*500}},
			{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: rate, Settings: settings,
				SerializeNanosPerRecord: 1500, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 8000 + int64(n%2)*300}},
		})
	}
	regressed := func(want metav1.ConditionStatus, reason, runName string) *metav1.Condition {
		t.Helper()
		var c *metav1.Condition
		waitFor(t, 10*time.Second, fmt.Sprintf("Regressed=%s (%s) for %s", want, reason, runName), func() (bool, error) {
			s := getSchedule(t, ns, "watch")
			c = meta.FindStatusCondition(s.Status.Conditions, serdebenchv1.ConditionRegressed)
			return c != nil && c.Status == want && c.Reason == reason && strings.Contains(c.Message, runName), fmt.Errorf("%+v", c)
		})
		return c
	}
	warned := func() bool {
		evs := &corev1.EventList{}
		if err := k8s.List(ctx, evs, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && e.Reason == controllers.ReasonRegressed && strings.Contains(e.Message, "t001-protobuf") {
				return true
			}
		}
		return false
	}
	first := run(1, 150000)
	regressed(metav1.ConditionUnknown, controllers.ReasonNoBaseline, first)
	// Its trials warned of no short window: the schedule says so beside the verdict.
	if c := meta.FindStatusCondition(getSchedule(t, ns, "watch").Status.Conditions, serdebenchv1.ConditionWindowTooShort); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != controllers.ReasonWindowsLongEnough || !strings.Contains(c.Message, first) {
		t.Fatalf("WindowTooShort condition %+v", c)
	}
	for n, rate := range []int64{148000, 152000, 150500} { // runs 2, 3 and 4
		regressed(metav1.ConditionUnknown, controllers.ReasonCollectingBaseline, run(n+2, rate))
	}
	fifth := run(5, 149000)
	regressed(metav1.ConditionFalse, controllers.ReasonNoRegressed, fifth)
	sixth := run(6, 151500)
	regressed(metav1.ConditionFalse, controllers.ReasonNoRegressed, sixth)
	seventh := run(7, 150000)
	regressed(metav1.ConditionFalse, controllers.ReasonNoRegressed, seventh)
	// The drop's first run: Suspect, not alerted.
	eighth := run(8, 120000)
	upgrade := "changed: Kafka: 4.3 (metadata.version 4.3-IV0) → 4.4 (metadata.version 4.4-IV2) at "
	if c := regressed(metav1.ConditionFalse, controllers.ReasonSuspect, eighth); !strings.Contains(c.Message, "t001-protobuf-1176b: recordsPerSecond -20.") ||
		strings.Contains(c.Message, "t000-json") || !strings.Contains(c.Message, upgrade+"this run") {
		t.Fatalf("condition %+v", c)
	}
	if warned() {
		t.Fatal("a Suspect run raised a Warning event")
	}
	// Its second: Regressed.
	ninth := run(9, 120500)
	c := regressed(metav1.ConditionTrue, controllers.ReasonRegressed, ninth)
	if !strings.Contains(c.Message, "t001-protobuf-1176b: recordsPerSecond -") || strings.Contains(c.Message, "t000-json") ||
		!strings.Contains(c.Message, upgrade+"run "+eighth) {
		t.Fatalf("condition %+v", c)
	}
	waitFor(t, 10*time.Second, "a Warning event", func() (bool, error) { return warned(), nil })
	// The result says what it was compared with, and the gauges show the regression.
	res := &serdebenchv1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: ninth}, res); err != nil {
		t.Fatal(err)
	}
	cmp := res.Comparison
	if cmp == nil || !cmp.Regressed || cmp.Verdict != serdebenchv1.VerdictRegressed || cmp.Schedule != "watch" || cmp.PersistenceRuns != 2 ||
		len(cmp.BaselineResults) != 6 || cmp.BaselineResults[5] != eighth || cmp.BaselineResults[2] != fifth || len(cmp.Trials) != 2 ||
		cmp.Control != "t000-json-1176b" || !strings.Contains(cmp.Method, "Holm") || len(cmp.Changes) != 1 || "changed: "+cmp.Changes[0] != upgrade+"run "+eighth {
		t.Fatalf("comparison %+v", cmp)
	}
	for _, tc := range cmp.Trials {
		rps := tc.Metrics[0]
		wantRegressed := tc.Name == "t001-protobuf-1176b"
		if tc.Regressed != wantRegressed || rps.Name != "recordsPerSecond" || rps.Regressed != wantRegressed || rps.BaselineRuns != 5 {
			t.Fatalf("trial comparison %+v", tc)
		}
		if wantRegressed && (rps.Candidate != "120500.00" || rps.StreakRuns != 2 || rps.StreakPValue == "" || rps.ChangeConfidencePermille != 950 ||
			rps.Verdict != serdebenchv1.VerdictRegressed || (!strings.HasPrefix(rps.ChangePercent, "-19.") && !strings.HasPrefix(rps.ChangePercent, "-20."))) {
			t.Fatalf("records/s comparison %+v", rps)
		}
		// The verdict's tests, as made: the streak's bound beyond zero, relative to the control.
		if st := rps.Streak; wantRegressed && (st == nil || st.Runs != 2 || st.TestedOn != serdebenchv1.TestedOnControl || !strings.HasPrefix(st.BoundPercent, "-") ||
			st.ConfidencePermille < 950 || st.PValue != rps.StreakPValue || rps.Tested == nil) {
			t.Fatalf("records/s tests %+v %+v", rps.Tested, rps.Streak)
		}
	}
	gauges := func(want string) {
		t.Helper()
		waitFor(t, 10*time.Second, "gauges", func() (bool, error) {
			err := promtestutil.GatherAndCompare(reg, strings.NewReader(want), "serdebench_schedule_regressed", "serdebench_schedule_trial_regressed", "serdebench_schedule_trial_records_per_second")
			return err == nil, err
		})
	}
	gauges(fmt.Sprintf(`
# HELP serdebench_schedule_regressed 1 when the schedule's latest run regressed against its baseline, 0 otherwise.
# TYPE serdebench_schedule_regressed gauge
serdebench_schedule_regressed{namespace=%[1]q,schedule="watch"} 1
# HELP serdebench_schedule_trial_records_per_second Records per second of each trial in the schedule's latest successful run (end to end, warmup excluded).
# TYPE serdebench_schedule_trial_records_per_second gauge
serdebench_schedule_trial_records_per_second{codec="json",namespace=%[1]q,schedule="watch",trial="t000-json-1176b"} 40000
serdebench_schedule_trial_records_per_second{codec="protobuf",namespace=%[1]q,schedule="watch",trial="t001-protobuf-1176b"} 120500
# HELP serdebench_schedule_trial_regressed 1 when the trial regressed against the schedule's baseline in the latest run, 0 when not or when it had no baseline.
# TYPE serdebench_schedule_trial_regressed gauge
serdebench_schedule_trial_regressed{codec="json",namespace=%[1]q,schedule="watch",trial="t000-json-1176b"} 0
serdebench_schedule_trial_regressed{codec="protobuf",namespace=%[1]q,schedule="watch",trial="t001-protobuf-1176b"} 1
`, ns))
	tenth := run(10, 151000) // back at the old rate
	if c := regressed(metav1.ConditionFalse, controllers.ReasonNoRegressed, tenth); c == nil {
		t.Fatal("no condition")
	}
	waitFor(t, 10*time.Second, "regression gauge back to 0", func() (bool, error) {
		err := promtestutil.GatherAndCompare(reg, strings.NewReader(fmt.Sprintf(`
# HELP serdebench_schedule_regressed 1 when the schedule's latest run regressed against its baseline, 0 otherwise.
# TYPE serdebench_schedule_regressed gauge
serdebench_schedule_regressed{namespace=%q,schedule="watch"} 0
`, ns)), "serdebench_schedule_regressed")
		return err == nil, err
	})
	// A pinned baseline that does not exist: Unknown with a reason and a Warning, and
	// the schedule keeps running.
	updateSchedule(t, ns, "watch", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselinePinned, ResultNames: []string{sixth, "no-such-result"}, Runs: 5, MinRuns: 3}
	})
	eleventh := run(11, 150000)
	if c := regressed(metav1.ConditionUnknown, controllers.ReasonBaselineMissing, eleventh); !strings.Contains(c.Message, "no-such-result") {
		t.Fatalf("condition %+v", c)
	}
	twelfth := run(12, 149500) // a new run started: the missing baseline did not stop the schedule

	// Pinned to four of the schedule's own steady results, with no history kept:
	// they are never pruned nor compared with themselves, and a pinned baseline
	// judges each run at once (nothing to persist against).
	pinned := []string{seventh, tenth, eleventh, twelfth}
	updateSchedule(t, ns, "watch", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselinePinned, ResultName: sixth, ResultNames: pinned, Runs: 5, MinRuns: 3}
		s.SuccessfulHistoryLimit = pointerTo(int32(0))
	})
	pinned = append(pinned, sixth)
	last := run(13, 120000)
	regressed(metav1.ConditionTrue, controllers.ReasonRegressed, last)
	waitFor(t, 10*time.Second, "the last run pruned", func() (bool, error) {
		names := runNames(scheduleRuns(t, ns, "watch"))
		for _, pinned := range pinned {
			if !slices.Contains(names, pinned) {
				return false, fmt.Errorf("the pinned %s was pruned: runs kept %v", pinned, names)
			}
		}
		return !slices.Contains(names, last), nil
	})
	// Reconciles after the pruning (MaxWait 100 ms) neither compare again nor prune
	// the pinned runs.
	time.Sleep(time.Second)
	if c := meta.FindStatusCondition(getSchedule(t, ns, "watch").Status.Conditions, serdebenchv1.ConditionRegressed); c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, last) {
		t.Fatalf("after pruning: %+v", c)
	}
	if names := runNames(scheduleRuns(t, ns, "watch")); !slices.Contains(names, sixth) || slices.Contains(names, last) {
		t.Fatalf("runs kept: %v (want the pinned %s, not %s)", names, sixth, last)
	}
	// A deleted schedule's series go.
	if err := k8s.Delete(ctx, getSchedule(t, ns, "watch")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "series of the deleted schedule gone", func() (bool, error) {
		n, err := promtestutil.GatherAndCount(reg)
		return n == 0, err
	})
}

func runNames(runs []serdebenchv1.SerializationExperiment) []string {
	var out []string
	for _, x := range runs {
		out = append(out, x.Name)
	}
	return out
}
