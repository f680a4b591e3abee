package controllers

import (
	"context"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
)

// ScheduleMetrics are the operator's gauges for scheduled runs: each schedule's latest
// successful run, per trial, and its regression state against the baseline. The chart's
// PrometheusRule (SerdebenchRegression) and Grafana dashboard read them.
type ScheduleMetrics struct {
	recordsPerSecond *prometheus.GaugeVec
	p99Seconds       *prometheus.GaugeVec
	trialRegressed   *prometheus.GaugeVec
	regressed        *prometheus.GaugeVec
	shifted          *prometheus.GaugeVec

	mu sync.Mutex
	// shown is the result each schedule's gauges come from, so a result is read once.
	shown map[types.NamespacedName]string
}

// NewScheduleMetrics registers the gauges with reg (the manager passes
// controller-runtime's registry, which its /metrics serves).
func NewScheduleMetrics(reg prometheus.Registerer) *ScheduleMetrics {
	// No result label: a new run's series continue the previous run's, so alerts keep
	// their pending state and graphs their lines.
	trial := []string{"namespace", "schedule", "trial", "codec"}
	m := &ScheduleMetrics{
		recordsPerSecond: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "serdebench_schedule_trial_records_per_second",
			Help: "Records per second of each trial in the schedule's latest successful run (end to end, warmup excluded)."}, trial),
		p99Seconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "serdebench_schedule_trial_e2e_p99_seconds",
			Help: "End-to-end p99 latency of each trial in the schedule's latest successful run, from the merged histogram, in seconds."}, trial),
		trialRegressed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "serdebench_schedule_trial_regressed",
			Help: "1 when the trial regressed against the schedule's baseline in the latest run, 0 when not or when it had no baseline."}, trial),
		regressed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "serdebench_schedule_regressed",
			Help: "1 when the schedule's latest run regressed against its baseline, 0 otherwise."}, []string{"namespace", "schedule"}),
		shifted: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "serdebench_schedule_environment_shifted",
			Help: "1 when the schedule's latest run's trials moved together beyond the thresholds with its control, the machine probe or else the control trial (the machine, cluster or a shared dependency changed), 0 otherwise."},
			[]string{"namespace", "schedule"}),
		shown: map[types.NamespacedName]string{},
	}
	reg.MustRegister(m.recordsPerSecond, m.p99Seconds, m.trialRegressed, m.regressed, m.shifted)
	return m
}

// syncMetrics shows the schedule's latest successful result (and its comparison block)
// in the gauges, once per result; after a restart the first reconcile restores them.
func (r *ScheduleReconciler) syncMetrics(ctx context.Context, s *serdebenchv1.SerializationSchedule) error {
	m := r.Metrics
	name := s.Status.LastSuccessfulResult
	if m == nil || name == "" {
		return nil
	}
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	m.mu.Lock()
	current := m.shown[key] == name
	m.mu.Unlock()
	if current {
		return nil
	}
	res := &serdebenchv1.SerializationResult{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: name}, res); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // pruned (a history limit of 0): nothing to show until the next run
		}
		return fmt.Errorf("get result %s for metrics: %w", name, err)
	}
	m.show(key, res)
	return nil
}

// show replaces the schedule's series with the result's.
func (m *ScheduleMetrics) show(key types.NamespacedName, res *serdebenchv1.SerializationResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleteLocked(key)
	regressed := map[string]bool{}
	if c := res.Comparison; c != nil {
		for _, t := range c.Trials {
			regressed[t.Name] = t.Regressed
		}
	}
	// One series per trial: a repeated trial's median over its repetitions.
	for _, row := range report.Aggregate(report.ResultRows(res)) {
		l := prometheus.Labels{"namespace": key.Namespace, "schedule": key.Name, "trial": row.Name, "codec": row.Codec}
		m.recordsPerSecond.With(l).Set(row.RecordsPerSecond)
		m.p99Seconds.With(l).Set(float64(row.P99) / 1e6)
		m.trialRegressed.With(l).Set(bit(regressed[row.Name]))
	}
	m.regressed.With(prometheus.Labels{"namespace": key.Namespace, "schedule": key.Name}).
		Set(bit(res.Comparison != nil && res.Comparison.Regressed))
	m.shifted.With(prometheus.Labels{"namespace": key.Namespace, "schedule": key.Name}).
		Set(bit(res.Comparison != nil && res.Comparison.Verdict == serdebenchv1.VerdictEnvironmentShifted))
	m.shown[key] = res.Name
}

// forget drops a deleted schedule's series.
func (m *ScheduleMetrics) forget(key types.NamespacedName) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleteLocked(key)
	delete(m.shown, key)
}

func (m *ScheduleMetrics) deleteLocked(key types.NamespacedName) {
	l := prometheus.Labels{"namespace": key.Namespace, "schedule": key.Name}
	for _, g := range []*prometheus.GaugeVec{m.recordsPerSecond, m.p99Seconds, m.trialRegressed, m.regressed, m.shifted} {
		g.DeletePartialMatch(l)
	}
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
