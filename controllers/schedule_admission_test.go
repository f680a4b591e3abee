package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
)

// TestScheduleAdmission: the API server rejects malformed schedules with a message
// naming the problem (the CRD's schema and CEL rules, the experiment template's
// included), and applies the documented defaults to a minimal one.
func TestScheduleAdmission(t *testing.T) {
	ns := newNamespace(t)
	const template = `experimentTemplate: {spec: {kafka: {bootstrapServers: "kafka:9092"}, codecs: [json, protobuf], payload: {schema: business-record, sizesBytes: [1176]}, records: 10000}}`
	cases := []struct {
		name, spec, reject string
	}{
		{"minimal", `schedule: "0 2 * * *"`, ""},
		{"descriptor", `schedule: "@daily"`, ""},
		{"every", `schedule: "@every 6h"`, ""},
		{"time zone", `{schedule: "30 1 * * 1-5", timeZone: America/Argentina/Buenos_Aires}`, ""},
		{"pinned baseline", `{schedule: "@hourly", baseline: {kind: pinned, resultName: golden}}`, ""},
		{"empty schedule", `schedule: ""`, "spec.schedule"},
		{"six fields", `schedule: "0 0 2 * * *"`, "five cron fields"},
		{"four fields", `schedule: "0 2 * *"`, "five cron fields"},
		{"TZ in the schedule", `schedule: "CRON_TZ=Europe/Paris 0 2 * * *"`, "use timeZone"},
		{"time zone with spaces", `{schedule: "@daily", timeZone: "Europe/ Paris"}`, "spec.timeZone"},
		{"unknown policy", `{schedule: "@daily", concurrencyPolicy: Sometimes}`, `supported values: "Forbid", "Replace", "Allow"`},
		{"negative deadline", `{schedule: "@daily", startingDeadlineSeconds: -5}`, "spec.startingDeadlineSeconds"},
		{"pinned without a result", `{schedule: "@daily", baseline: {kind: pinned}}`, "baseline.kind pinned needs baseline.resultNames"},
		{"pinned results", `{schedule: "@hourly", baseline: {kind: pinned, resultNames: [r1, r2, r3]}}`, ""},
		{"previous", `{schedule: "@daily", baseline: {kind: previous}}`, "cannot tell a change from the noise between runs"},
		{"judged from more runs than kept", `{schedule: "@daily", baseline: {kind: rollingMedian, runs: 3, minRuns: 4}}`, "baseline.minRuns must not exceed baseline.runs"},
		{"judged from one run", `{schedule: "@daily", baseline: {kind: rollingMedian, minRuns: 1}}`, "spec.baseline.minRuns"},
		{"no persistence", `{schedule: "@daily", persistenceRuns: 0}`, "spec.persistenceRuns"},
		{"rolling median of one", `{schedule: "@daily", baseline: {kind: rollingMedian, runs: 1}}`, "spec.baseline.runs"},
		{"negative threshold", `{schedule: "@daily", thresholds: {throughputDropPercent: -1}}`, "spec.thresholds.throughputDropPercent"},
		{"history too long", `{schedule: "@daily", successfulHistoryLimit: 1000}`, "spec.successfulHistoryLimit"},
		{"every 30 seconds", `schedule: "@every 30s"`, "whole minutes"},
		{"every 0 minutes", `schedule: "@every 0m"`, "whole minutes"},
		{"every 1h30m", `schedule: "@every 1h30m"`, ""},
		{"history shorter than the rolling median", `{schedule: "@daily", successfulHistoryLimit: 3, baseline: {kind: rollingMedian, runs: 5}}`, "successfulHistoryLimit must keep the baseline runs"},
		{"history without the streak's run", `{schedule: "@daily", successfulHistoryLimit: 5, baseline: {kind: rollingMedian, runs: 5}}`, "baseline.runs + persistenceRuns - 1"},
		{"history of the baseline alone, persistence 1", `{schedule: "@daily", successfulHistoryLimit: 5, persistenceRuns: 1, baseline: {kind: rollingMedian, runs: 5}}`, ""},
		{"a 53-character name", `schedule: "@daily"`, "at most 52 characters"},
		{"no history with a pinned baseline", `{schedule: "@daily", successfulHistoryLimit: 0, baseline: {kind: pinned, resultName: golden}}`, ""},
		{"invalid template", `{schedule: "@daily", experimentTemplate: {spec: {kafka: {bootstrapServers: "kafka:9092"}, codecs: [yaml], payload: {schema: business-record, sizesBytes: [1176]}, records: 10000}}}`, "spec.experimentTemplate.spec.codecs"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := map[string]any{}
			if err := yaml.Unmarshal([]byte(template), &spec); err != nil {
				t.Fatal(err)
			}
			extra := map[string]any{}
			text := c.spec
			if !strings.HasPrefix(text, "{") {
				text = "{" + text + "}"
			}
			if err := yaml.Unmarshal([]byte(text), &extra); err != nil {
				t.Fatal(err)
			}
			for k, v := range extra {
				spec[k] = v
			}
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "serdebench.io/v1alpha1", "kind": "SerializationSchedule",
				"metadata": map[string]any{"name": fmt.Sprintf("case-%d", i), "namespace": ns}, "spec": spec}}
			if c.name == "a 53-character name" {
				obj.SetName(strings.Repeat("a", 53))
			}
			err := k8s.Create(context.Background(), obj)
			switch {
			case c.reject == "" && err != nil:
				t.Fatalf("rejected at admission: %v", err)
			case c.reject != "" && err == nil:
				t.Fatalf("accepted at admission, want %q", c.reject)
			case c.reject != "" && !strings.Contains(err.Error(), c.reject):
				t.Fatalf("error does not say %q:\n%v", c.reject, err)
			}
			if c.name != "minimal" {
				return
			}
			s := getSchedule(t, ns, obj.GetName())
			sp := s.Spec
			if sp.ConcurrencyPolicy != serdebenchv1.ConcurrencyForbid || *sp.SuccessfulHistoryLimit != 6 || *sp.FailedHistoryLimit != 3 ||
				sp.Baseline.Kind != serdebenchv1.BaselineRollingMedian || sp.Baseline.Runs != 5 || sp.Baseline.MinRuns != 3 || sp.PersistenceRuns != 2 ||
				sp.Thresholds.ThroughputDropPercent != 10 ||
				sp.Thresholds.P99RisePercent != 20 || sp.Thresholds.SerializeRisePercent != 20 || sp.ExperimentTemplate.Spec.Topic.Partitions != 3 {
				t.Fatalf("defaults not applied: %+v", sp)
			}
		})
	}
}
