package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestStageOf: the stage comes from the object alone, in its order: deletion,
// then a finished trial's cleanup, then the end, acceptance, and the first trial
// not done, whose deadline counts once it started.
func TestStageOf(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	started := metav1.NewTime(now.Add(-10 * time.Second))
	late := metav1.NewTime(now.Add(-time.Hour))
	accepted := []metav1.Condition{{Type: serdebenchv1.ConditionAccepted, Status: metav1.ConditionTrue}}
	x := func(stage serdebenchv1.Stage, trials ...serdebenchv1.TrialStatus) *serdebenchv1.SerializationExperiment {
		e := &serdebenchv1.SerializationExperiment{}
		e.Generation = 1
		e.Spec.TimeoutSeconds = 600
		e.Status.ObservedGeneration = 1
		e.Status.Stage = stage
		e.Status.Conditions = accepted
		if stage != serdebenchv1.StageAccepted {
			e.Status.StartTime = &started
		}
		e.Status.Trials = trials
		return e
	}
	tr := func(name string, phase serdebenchv1.TrialPhase, cleaned bool, start *metav1.Time) serdebenchv1.TrialStatus {
		return serdebenchv1.TrialStatus{Name: name, Phase: phase, CleanedUp: cleaned, StartTime: start}
	}
	deleted := x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialSucceeded, false, &started))
	deleted.DeletionTimestamp = &started
	unaccepted := x(serdebenchv1.StageAccepted, tr("a", serdebenchv1.TrialPending, false, nil))
	unaccepted.Status.Conditions = nil
	changed := x(serdebenchv1.StageAccepted, tr("a", serdebenchv1.TrialPending, false, nil))
	changed.Generation = 2
	startedChanged := x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialRunning, false, &started))
	startedChanged.Generation = 2
	for _, c := range []struct {
		name  string
		x     *serdebenchv1.SerializationExperiment
		stage stage
		trial int
	}{
		{"deleted", deleted, stageDeleting, -1},
		{"a measured trial not cleaned up", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialSucceeded, false, &started), tr("b", serdebenchv1.TrialPending, false, nil)), stageCleaningUp, 0},
		{"a failed trial not cleaned up, experiment ended", x(serdebenchv1.StageFailed, tr("a", serdebenchv1.TrialFailed, false, &started)), stageCleaningUp, 0},
		{"ended", x(serdebenchv1.StageSucceeded, tr("a", serdebenchv1.TrialSucceeded, true, &started)), stageFinished, -1},
		{"never accepted", unaccepted, stageAccepting, -1},
		{"spec changed before any trial started", changed, stageAccepting, -1},
		{"spec changed after a trial started", startedChanged, stageRunning, 0},
		{"a failed trial cleaned up", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialFailed, true, &started), tr("b", serdebenchv1.TrialPending, false, nil)), stageStopping, 0},
		{"first trial pending", x(serdebenchv1.StageAccepted, tr("a", serdebenchv1.TrialPending, false, nil), tr("b", serdebenchv1.TrialPending, false, nil)), stageBeginning, 0},
		{"next trial pending", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialSucceeded, true, &started), tr("b", serdebenchv1.TrialPending, false, nil)), stageBeginning, 1},
		{"skipped trials pass", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialSkipped, true, nil), tr("b", serdebenchv1.TrialCreatingTopic, false, &started)), stageCreatingTopic, 1},
		{"running", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialRunning, false, &started)), stageRunning, 0},
		{"collecting", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialCollecting, false, &started)), stageCollecting, 0},
		{"past the deadline while running", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialRunning, false, &late)), stageTimedOut, 0},
		{"past the deadline while collecting", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialCollecting, false, &late)), stageTimedOut, 0},
		{"all measured or skipped", x(serdebenchv1.StageRunning, tr("a", serdebenchv1.TrialSucceeded, true, &started), tr("b", serdebenchv1.TrialSkipped, true, nil)), stageSucceeding, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, i, err := stageOf(c.x, now)
			if err != nil || s != c.stage || i != c.trial {
				t.Errorf("stageOf = %q, trial %d, %v; want %q, trial %d", s, i, err, c.stage, c.trial)
			}
		})
	}
	if _, _, err := stageOf(x(serdebenchv1.StageRunning, tr("a", "Bogus", false, &started)), now); err == nil {
		t.Error("a trial in an unknown phase: no error")
	}
}
