package controllers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/testing/kubetest"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
)

// kstatusOf reads an object from the API server and computes its status as kstatus
// (sigs.k8s.io/cli-utils, what Flux and kubectl's wait logic use) does.
func kstatusOf(t *testing.T, obj client.Object) *status.Result {
	t.Helper()
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	return kubetest.Kstatus(t, k8s, obj, gvks[0])
}

// waitKstatus waits until the controller has observed the schedule's generation and
// kstatus reads want. (Without a status, kstatus reads any custom resource as Current:
// that alone would prove nothing.)
func waitKstatus(t *testing.T, s *serdebenchv1.SerializationSchedule, want status.Status, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, fmt.Sprintf("kstatus %s of %s", want, s.Name), func() (bool, error) {
		res := kstatusOf(t, s)
		observed := s.Status.ObservedGeneration == s.Generation && meta.FindStatusCondition(s.Status.Conditions, serdebenchv1.ConditionReady) != nil
		return observed && res.Status == want, fmt.Errorf("observed generation %d of %d, kstatus %s: %s", s.Status.ObservedGeneration, s.Generation, res.Status, res.Message)
	})
}

// TestScheduleTimeZoneAndKstatus: a schedule runs at its cron time in its time zone
// (on a fake clock), reads Current once scheduled, and Failed for a time zone that
// does not exist, until it is fixed.
func TestScheduleTimeZoneAndKstatus(t *testing.T) {
	ns := newNamespace(t)
	// 20:29 UTC is 01:59 in Kolkata (UTC+05:30, no daylight saving).
	base := time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(base)
	startScheduler(t, clk, ns)
	ctx := context.Background()
	s := newSchedule(ns, "kolkata", func(spec *serdebenchv1.SerializationScheduleSpec) {
		spec.Schedule, spec.TimeZone = "0 2 * * *", "Asia/Kolkata"
	})
	if err := k8s.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	waitKstatus(t, s, status.CurrentStatus, 10*time.Second)
	if r := getSchedule(t, ns, "kolkata"); meta.IsStatusConditionTrue(r.Status.Conditions, serdebenchv1.ConditionStalled) {
		t.Fatalf("conditions %+v", r.Status.Conditions)
	}
	// The creation timestamp is real time; runs are due after it, so the fake clock
	// moves to the first 02:00 Kolkata after creation.
	created := getSchedule(t, ns, "kolkata").CreationTimestamp.Time
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	c := created.In(kolkata)
	due := time.Date(c.Year(), c.Month(), c.Day(), 2, 0, 0, 0, kolkata)
	if !due.After(created) {
		due = due.AddDate(0, 0, 1)
	}
	clk.SetTime(due.Add(-time.Minute))
	time.Sleep(500 * time.Millisecond) // several reconciles (MaxWait 100ms): nothing due yet
	if runs := scheduleRuns(t, ns, "kolkata"); len(runs) != 0 {
		t.Fatalf("a run before 02:00 Kolkata: %s", runs[0].Annotations[controllers.AnnotationScheduledAt])
	}
	clk.SetTime(due.Add(time.Minute))
	waitFor(t, 10*time.Second, "the 02:00 Kolkata run", func() (bool, error) {
		runs := scheduleRuns(t, ns, "kolkata")
		if len(runs) != 1 {
			return false, fmt.Errorf("%d runs", len(runs))
		}
		at := runs[0].Annotations[controllers.AnnotationScheduledAt]
		return at == due.UTC().Format(time.RFC3339), fmt.Errorf("scheduled at %s, want %s (20:30 UTC)", at, due.UTC().Format(time.RFC3339))
	})

	// A time zone no tz database has: Ready=False and Stalled=True, so kstatus reads
	// Failed and a GitOps sync reports it.
	bad := newSchedule(ns, "mars", func(spec *serdebenchv1.SerializationScheduleSpec) { spec.TimeZone = "Mars/Olympus_Mons" })
	if err := k8s.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	waitKstatus(t, bad, status.FailedStatus, 10*time.Second)
	r := getSchedule(t, ns, "mars")
	if c := meta.FindStatusCondition(r.Status.Conditions, serdebenchv1.ConditionReady); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != controllers.ReasonInvalidSchedule {
		t.Fatalf("Ready %+v", c)
	}
	// Fixed: Current again, and Stalled is gone.
	updateSchedule(t, ns, "mars", func(s *serdebenchv1.SerializationScheduleSpec) { s.TimeZone = "Europe/Stockholm" })
	waitKstatus(t, bad, status.CurrentStatus, 10*time.Second)
}
