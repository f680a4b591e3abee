package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/testing/dashboard"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
)

// shippedDashboard is the dashboard as the chart ships it: the ConfigMap's JSON.
func shippedDashboard(t *testing.T) dashboard.Dashboard {
	t.Helper()
	d, err := dashboard.Parse(shippedDashboardJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// shippedDashboardJSON is the ConfigMap's JSON as the chart renders it.
func shippedDashboardJSON(t *testing.T) []byte {
	t.Helper()
	out, err := helm(t, "template", "sb", chartDir, "-n", "sb-chart", "--kube-version", kubeVersion(t),
		"--set", "grafanaDashboard.enabled=true", "-s", "templates/dashboard.yaml")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal([]byte(out), &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Fatalf("the ConfigMap lacks the sidecar's label: %v", cm.Labels)
	}
	return []byte(cm.Data["serdebench.json"])
}

// TestDashboardQueries: a scheduled run's real workers (scraped as the PodMonitor
// would) and the operator's gauges (scraped as the ServiceMonitor would) in a real
// Prometheus; every query of the shipped dashboard, its variables' included, parses
// and returns data over the run.
func TestDashboardQueries(t *testing.T) {
	d := shippedDashboard(t)
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	url, addWorker, addOperator := promtest.StartWithOperator(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.metricsTarget = addWorker })
	prom, err := promquery.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, func(r *controllers.ExperimentReconciler) { r.Prometheus = prom; r.WorkerMetricsGrace = 8 * time.Second }, k)
	clk := clocktesting.NewFakeClock(time.Now())
	reg := startScheduler(t, clk, ns)
	ln, err := net.Listen("tcp", promtest.FreeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	addOperator(ln.Addr().String(), "serdebench-system")

	ctx := context.Background()
	begin := time.Now()
	// 10 s at 300 rec/s: long enough for Prometheus to discover and sample the workers.
	s := newSchedule(ns, "live", func(spec *serdebenchv1.SerializationScheduleSpec) {
		x := &spec.ExperimentTemplate.Spec
		x.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
		x.Codecs = []trial.Codec{"avro"}
		x.Records = ptr(int64(3000))
		x.Rate.RecordsPerSecond = 300
	})
	if err := k8s.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	created := getSchedule(t, ns, "live").CreationTimestamp.Time
	clk.SetTime(created.Truncate(5 * time.Minute).Add(5*time.Minute + 30*time.Second))
	waitFor(t, 150*time.Second, "the scheduled run's result", func() (bool, error) {
		s := getSchedule(t, ns, "live")
		return s.Status.LastSuccessfulResult != "", fmt.Errorf("status %+v", s.Status)
	})

	c, err := api.NewClient(api.Config{Address: url})
	if err != nil {
		t.Fatal(err)
	}
	papi := promv1.NewAPI(c)
	// $__rate_interval as Grafana computes it for a 1 s scrape interval: 4 × 1 s.
	vars := strings.NewReplacer(`$namespace`, regexp.QuoteMeta(ns), `$experiment`, ".*", `$__rate_interval`, "4s")
	// query runs a panel's expression over the run, and retries while the operator's
	// last gauges are not scraped yet.
	query := func(what, expr string) model.Matrix {
		t.Helper()
		q := vars.Replace(expr)
		var m model.Matrix
		waitFor(t, 30*time.Second, what, func() (bool, error) {
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			v, _, _, err := papi.QueryRange(qctx, q, promv1.Range{Start: begin, End: time.Now(), Step: time.Second})
			if err != nil {
				var perr *promv1.Error
				if errors.As(err, &perr) && perr.Type == promv1.ErrBadData {
					t.Fatalf("%s: %s does not parse: %v", what, q, err)
				}
				return false, err
			}
			m, _ = v.(model.Matrix)
			for _, series := range m {
				if len(series.Values) > 0 {
					return true, nil
				}
			}
			return false, fmt.Errorf("%s returned no data", q)
		})
		return m
	}
	peak := func(m model.Matrix) float64 {
		top := 0.0
		for _, series := range m {
			for _, v := range series.Values {
				top = max(top, float64(v.Value))
			}
		}
		return top
	}
	n := 0
	for _, p := range d.Panels {
		for i, target := range p.Targets {
			m := query(fmt.Sprintf("panel %q query %d", p.Title, i), target.Expr)
			n++
			// Values, not just presence: the producer sent 300 rec/s, and this Prometheus
			// scrapes every worker twice (two jobs, as two PodMonitors would), so a query
			// that does not count each worker once shows 600.
			if p.Title == "Throughput per trial" && i == 0 {
				if top := peak(m); top < 200 || top > 400 {
					t.Errorf("produced records/s peaks at %.0f, want about 300", top)
				}
			}
			if p.Title == "Consumer lag per trial" {
				if top := peak(m); top > 3000 {
					t.Errorf("consumer lag peaks at %.0f records, more than the trial sent", top)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d panel queries", n)
	}
	// The variables' label_values(SELECTOR, LABEL) read series' labels.
	vs, err := d.Variables()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		query("variable "+v.Name, v.Query())
	}
}
