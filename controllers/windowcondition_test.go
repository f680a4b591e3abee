package controllers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestWindowCondition: True only when every trial of the run warned
// WindowTooShort, naming the first; one trial long enough, or no trial, is False.
func TestWindowCondition(t *testing.T) {
	s := &serdebenchv1.SerializationSchedule{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	short := func(name string) serdebenchv1.TrialResult {
		return serdebenchv1.TrialResult{Name: name, Warnings: []string{"something else", "WindowTooShort: the measured window was 0.90 s"}}
	}
	all := &serdebenchv1.SerializationResult{Trials: []serdebenchv1.TrialResult{short("t000"), short("t001")}}
	c := windowCondition(s, "nightly-1", all)
	if c.Status != metav1.ConditionTrue || c.Reason != ReasonWindowsTooShort || c.ObservedGeneration != 3 || c.Type != serdebenchv1.ConditionWindowTooShort ||
		!strings.Contains(c.Message, "all 2 trials warned WindowTooShort") || !strings.Contains(c.Message, "First: t000: WindowTooShort: the measured window was 0.90 s") ||
		!strings.Contains(c.Message, "durationSeconds") {
		t.Errorf("all short: %+v", c)
	}
	one := &serdebenchv1.SerializationResult{Trials: []serdebenchv1.TrialResult{short("t000"), {Name: "t001"}}}
	if c := windowCondition(s, "nightly-2", one); c.Status != metav1.ConditionFalse || c.Reason != ReasonWindowsLongEnough || !strings.Contains(c.Message, "nightly-2") {
		t.Errorf("one long enough: %+v", c)
	}
	if c := windowCondition(s, "nightly-3", &serdebenchv1.SerializationResult{}); c.Status != metav1.ConditionFalse {
		t.Errorf("no trials: %+v", c)
	}
}
