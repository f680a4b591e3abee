//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/internal/testing/dashboard"
)

// grafanaRateInterval is Grafana's $__rate_interval with kube-prometheus-stack's data
// source: four times its scrape interval, Prometheus' default 30 s.
const grafanaRateInterval = "2m"

// promCall bounds one call to Prometheus' API.
func promCall() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// promAPI is the HTTP API of the Prometheus the stack runs.
func promAPI(t *testing.T) promv1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: stack.prometheus})
	if err != nil {
		t.Fatal(err)
	}
	return promv1.NewAPI(c)
}

// checkSelected: the chart's Prometheus selected the release's PodMonitor (its scrape
// job is in the configuration: worker targets come and go with trials) and its
// ServiceMonitor (the operator's target is up), and loaded its PrometheusRule
// through the rule selector. Each by the chart's own selectors: the release label
// the values file sets.
func checkSelected(t *testing.T) {
	t.Helper()
	p := promAPI(t)
	waitFor(t, 4*time.Minute, "the operator's ServiceMonitor target up", func() bool {
		ctx, cancel := promCall()
		defer cancel()
		tg, err := p.Targets(ctx)
		if err != nil {
			t.Logf("targets: %v", err)
			return false
		}
		for _, a := range tg.Active {
			if strings.HasPrefix(a.ScrapePool, "serviceMonitor/"+namespace+"/"+fullname+"/") && a.Health == promv1.HealthGood {
				return true
			}
		}
		return false
	})
	ctx, cancel := promCall()
	defer cancel()
	cfg, err := p.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.YAML, "job_name: podMonitor/"+namespace+"/"+fullname+"-workers/") {
		t.Fatalf("Prometheus has no scrape job for the release's PodMonitor")
	}
	waitFor(t, 4*time.Minute, "the PrometheusRule's SerdebenchRegression loaded", func() bool {
		ctx, cancel := promCall()
		defer cancel()
		rules, err := p.Rules(ctx, nil)
		if err != nil {
			t.Logf("rules: %v", err)
			return false
		}
		for _, g := range rules.Groups {
			if g.Name != "serdebench-schedules" || !strings.Contains(g.File, namespace+"-"+fullname) {
				continue
			}
			for _, r := range g.Rules {
				if a, ok := r.(promv1.AlertingRule); ok && a.Name == "SerdebenchRegression" && a.Health == promv1.RuleHealthGood {
					return true
				}
			}
		}
		return false
	})
}

// checkDashboard runs every query of the dashboard ConfigMap the release installed
// for the chart's Grafana sidecar, as Grafana would with namespace = this one and
// every experiment, over [begin, now]: each returns data.
func checkDashboard(t *testing.T, begin time.Time) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: fullname + "-dashboard"}, cm); err != nil {
		t.Fatalf("the dashboard ConfigMap for the chart's Grafana sidecar: %v", err)
	}
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Fatalf("the dashboard ConfigMap lacks the sidecar's label: %v", cm.Labels)
	}
	d, err := dashboard.Parse([]byte(cm.Data["serdebench.json"]))
	if err != nil {
		t.Fatal(err)
	}
	p := promAPI(t)
	// query waits until q has data over the runs and returns its series.
	query := func(what, q string) model.Matrix {
		var m model.Matrix
		// The operator's gauges are scraped every 30 s (the ServiceMonitor's default).
		waitFor(t, time.Minute, what+" returns data", func() bool {
			ctx, cancel := promCall()
			defer cancel()
			v, _, _, err := p.QueryRange(ctx, q, promv1.Range{Start: begin, End: time.Now(), Step: 5 * time.Second})
			if err != nil {
				var perr *promv1.Error
				if errors.As(err, &perr) && perr.Type == promv1.ErrBadData {
					t.Fatalf("%s: %s does not parse: %v", what, q, err)
				}
				return false
			}
			m, _ = v.(model.Matrix)
			for _, s := range m {
				if len(s.Values) > 0 {
					return true
				}
			}
			return false
		})
		return m
	}
	vars := strings.NewReplacer(`$namespace`, regexp.QuoteMeta(namespace), `$experiment`, ".*", `$__rate_interval`, grafanaRateInterval)
	// The variables first, as Grafana does (label_values(SELECTOR, LABEL)): the
	// panels then use values they offer.
	vs, err := d.Variables()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string][]string{}
	for _, v := range vs {
		v.Selector = vars.Replace(v.Selector)
		for _, series := range query("variable "+v.Name, v.Query()) {
			values[v.Name] = append(values[v.Name], string(series.Metric[model.LabelName(v.Label)]))
		}
	}
	if !slices.Contains(values["namespace"], namespace) {
		t.Fatalf("variable namespace offers %v, not %s", values["namespace"], namespace)
	}
	n := 0
	for _, panel := range d.Panels {
		for i, target := range panel.Targets {
			query(fmt.Sprintf("panel %q query %d", panel.Title, i), vars.Replace(target.Expr))
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d dashboard queries", n)
	}
	t.Logf("the dashboard's %d variables and %d panel queries returned data", len(values), n)
}

// alertReceiver is a webhook receiver the chart's Alertmanager delivers to, routed by
// an AlertmanagerConfig in this namespace (which the chart's Alertmanager selects).
type alertReceiver struct {
	mu     sync.Mutex
	alerts []map[string]string // the labels of every alert delivered
}

// startAlertReceiver listens on host (an address the cluster's pods reach) and
// creates the AlertmanagerConfig routing SerdebenchRegression there.
func startAlertReceiver(t *testing.T, host string) *alertReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("alert receiver: %v", err)
	}
	r := &alertReceiver{}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		var msg struct {
			Alerts []struct {
				Status string            `json:"status"`
				Labels map[string]string `json:"labels"`
			} `json:"alerts"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, a := range msg.Alerts {
			if a.Status == "firing" {
				r.alerts = append(r.alerts, a.Labels)
			}
		}
		r.mu.Unlock()
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	amc := fmt.Sprintf(`apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata: {name: e2e-regressions, namespace: %s}
spec:
  route:
    receiver: e2e
    groupBy: [alertname, schedule]
    groupWait: 1s
    matchers: [{name: alertname, value: SerdebenchRegression, matchType: "="}]
  receivers:
    - name: e2e
      webhookConfigs: [{url: "http://%s/alerts", sendResolved: false}]
`, namespace, ln.Addr())
	if out, err := kubectlIn(amc, "apply", "-f", "-"); err != nil {
		t.Fatalf("AlertmanagerConfig: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_, _ = kubectlIn("", "-n", namespace, "delete", "alertmanagerconfig", "e2e-regressions", "--ignore-not-found")
	})
	return r
}

// delivered reports whether a firing alert with these labels reached the receiver.
func (r *alertReceiver) delivered(labels map[string]string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
next:
	for _, a := range r.alerts {
		for k, v := range labels {
			if a[k] != v {
				continue next
			}
		}
		return true
	}
	return false
}

// alertFiring reports whether the chart's Prometheus has the alert firing with these
// labels.
func alertFiring(t *testing.T, labels map[string]string) bool {
	t.Helper()
	ctx, cancel := promCall()
	defer cancel()
	res, err := promAPI(t).Alerts(ctx)
	if err != nil {
		t.Logf("alerts: %v", err)
		return false
	}
next:
	for _, a := range res.Alerts {
		if a.State != promv1.AlertStateFiring {
			continue
		}
		for k, v := range labels {
			if string(a.Labels[model.LabelName(k)]) != v {
				continue next
			}
		}
		return true
	}
	return false
}
