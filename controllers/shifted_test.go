package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
)

// TestScheduleEnvironmentShifted: a run whose every trial, the control's too, is
// 25 % slower than the steady runs before it moved as a whole. It is not a
// regression (Regressed=False), and it is not silent: EnvironmentShifted=True, a
// Warning event, and the gauge the SerdebenchEnvironmentShifted alert reads.
func TestScheduleEnvironmentShifted(t *testing.T) {
	ns := newNamespace(t)
	clk := clocktesting.NewFakeClock(time.Now())
	reg := startScheduler(t, clk, ns)
	ctx := context.Background()
	if err := k8s.Create(ctx, newSchedule(ns, "moved", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselineRollingMedian, Runs: 5, MinRuns: 3}
		s.PersistenceRuns = 1
	})); err != nil {
		t.Fatal(err)
	}
	created := getSchedule(t, ns, "moved").CreationTimestamp.Time
	run := func(n int, factor float64) string {
		t.Helper()
		settings := trial.Settings{Mode: "batch", Acks: "1", Compression: "none"}
		wobble := 1 + 0.01*float64(n%3)
		return completeRun(t, clk, ns, "moved", created, n, serdebenchv1.Environment{}, []serdebenchv1.TrialResult{
			{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: int64(40000 * wobble * factor), Settings: settings,
				SerializeNanosPerRecord: 4700, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 20000}},
			{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: int64(150000 * wobble * factor), Settings: settings,
				SerializeNanosPerRecord: 1500, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 8000}},
		})
	}
	condition := func(typ string, want metav1.ConditionStatus, reason, runName string) *metav1.Condition {
		t.Helper()
		var c *metav1.Condition
		waitFor(t, 10*time.Second, fmt.Sprintf("%s=%s (%s) for %s", typ, want, reason, runName), func() (bool, error) {
			c = meta.FindStatusCondition(getSchedule(t, ns, "moved").Status.Conditions, typ)
			return c != nil && c.Status == want && c.Reason == reason && strings.Contains(c.Message, runName), fmt.Errorf("%+v", c)
		})
		return c
	}
	first := run(1, 1)
	condition(serdebenchv1.ConditionEnvironmentShifted, metav1.ConditionUnknown, controllers.ReasonNoBaseline, first)
	for n := 2; n <= 4; n++ {
		run(n, 1)
	}
	steady := run(5, 1)
	condition(serdebenchv1.ConditionEnvironmentShifted, metav1.ConditionFalse, controllers.ReasonEnvironmentSteady, steady)
	moved := run(6, 0.75)
	condition(serdebenchv1.ConditionRegressed, metav1.ConditionFalse, controllers.ReasonEnvironmentShifted, moved)
	condition(serdebenchv1.ConditionEnvironmentShifted, metav1.ConditionTrue, controllers.ReasonEnvironmentShifted, moved)
	waitFor(t, 10*time.Second, "an EnvironmentShifted Warning event", func() (bool, error) {
		evs := &corev1.EventList{}
		if err := k8s.List(ctx, evs, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && e.Reason == controllers.ReasonEnvironmentShifted && strings.Contains(e.Message, moved) {
				return true, nil
			}
		}
		return false, nil
	})
	waitFor(t, 10*time.Second, "the environment-shifted gauge", func() (bool, error) {
		err := promtestutil.GatherAndCompare(reg, strings.NewReader(fmt.Sprintf(`
# HELP serdebench_schedule_environment_shifted 1 when the schedule's latest run's trials moved together beyond the thresholds with its control, the machine probe or else the control trial (the machine, cluster or a shared dependency changed), 0 otherwise.
# TYPE serdebench_schedule_environment_shifted gauge
serdebench_schedule_environment_shifted{namespace=%q,schedule="moved"} 1
`, ns)), "serdebench_schedule_environment_shifted")
		return err == nil, err
	})
}

// TestScheduleProbeDecides: with the machine probe in every run, a run whose every
// trial dropped 25 % beside a steady probe, after a broker upgrade, is Regressed
// (not EnvironmentShifted, as the control trial alone would call it): the
// condition says the probe held steady and names the upgrade.
func TestScheduleProbeDecides(t *testing.T) {
	ns := newNamespace(t)
	clk := clocktesting.NewFakeClock(time.Now())
	startScheduler(t, clk, ns)
	ctx := context.Background()
	if err := k8s.Create(ctx, newSchedule(ns, "upgraded", func(s *serdebenchv1.SerializationScheduleSpec) {
		s.Baseline = serdebenchv1.Baseline{Kind: serdebenchv1.BaselineRollingMedian, Runs: 5, MinRuns: 3}
		s.PersistenceRuns = 1
	})); err != nil {
		t.Fatal(err)
	}
	created := getSchedule(t, ns, "upgraded").CreationTimestamp.Time
	run := func(n int, factor float64, kafka string) string {
		t.Helper()
		settings := trial.Settings{Mode: "batch", Acks: "1", Compression: "none"}
		wobble := 1 + 0.01*float64(n%3)
		probe := &serdebenchv1.MachineProbe{CPUNanosPerOp: int64(16000 * wobble), FsyncMicros: int64(2000 * wobble), ConnectMicros: int64(150 * wobble)}
		return completeRun(t, clk, ns, "upgraded", created, n, serdebenchv1.Environment{KafkaRelease: kafka}, []serdebenchv1.TrialResult{
			{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: int64(40000 * wobble * factor), Settings: settings,
				SerializeNanosPerRecord: 4700, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 20000}, Probe: probe},
			{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: int64(150000 * wobble * factor), Settings: settings,
				SerializeNanosPerRecord: 1500, EndToEndMicros: serdebenchv1.LatencyMicros{P99: 8000}, Probe: probe},
		})
	}
	for n := 1; n <= 5; n++ {
		run(n, 1, "4.3 (metadata.version 4.3-IV0)")
	}
	dropped := run(6, 0.75, "4.4 (metadata.version 4.4-IV2)")
	var c *metav1.Condition
	waitFor(t, 10*time.Second, "Regressed=True for "+dropped, func() (bool, error) {
		c = meta.FindStatusCondition(getSchedule(t, ns, "upgraded").Status.Conditions, serdebenchv1.ConditionRegressed)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == controllers.ReasonRegressed && strings.Contains(c.Message, dropped), fmt.Errorf("%+v", c)
	})
	if !strings.Contains(c.Message, "machine probe held steady") || !strings.Contains(c.Message, "4.4") {
		t.Fatalf("Regressed message %q: want the steady probe and the upgrade named", c.Message)
	}
	t.Logf("Regressed: %s", c.Message)
}
