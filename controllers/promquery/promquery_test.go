package promquery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/promtest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestAgainstRealPrometheus: a real Prometheus scrapes a real worker process; the
// queried total equals the worker's own summary, and the rate series shows the
// target rate.
func TestAgainstRealPrometheus(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	bin := filepath.Join(t.TempDir(), "worker")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/worker").CombinedOutput(); err != nil {
		t.Fatalf("build worker: %v\n%s", err, out)
	}
	// 15 s at 2000 rec/s: Prometheus 2.42 applies new targets ~5 s after it starts.
	records := int64(30000)
	trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{"msgpack"},
		Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{300}}, Records: &records,
		Rate: v1alpha1.Rate{RecordsPerSecond: 2000}, Warmup: trial.Warmup{Records: 100}, PoolSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	topic := fmt.Sprintf("serdebench.it-prom.%d", time.Now().UnixNano())
	if err := runner.CreateTopic(brokers, topic, tr); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = runner.DeleteTopic(brokers, topic) }()
	metricsAddr := promtest.FreeAddr(t)
	url := promtest.Start(t, "it-ns", metricsAddr)
	tj, _ := json.Marshal(tr)
	cmd := exec.Command(bin, "--role=producer", "--trial="+string(tj), "--topic="+topic, "--bootstrap="+brokers[0],
		"--experiment=it-prom", "--experiment-uid=uid-1", "--group="+topic+".consumers", "--id=0", "--metrics-addr="+metricsAddr, "--metrics-grace=3s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("worker: %v\n%s", err, stderr.String())
	}
	var sum summary.Summary
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &sum); err != nil {
		t.Fatal(err)
	}
	c, err := promquery.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := promquery.Selector{Namespace: "it-ns", ExperimentUID: "uid-1", Group: topic + ".consumers", Trial: tr.Name, Role: summary.RoleProducer}
	got, err := c.RecordsTotal(context.Background(), sel, sum.WindowStart, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got != sum.Records || got != records {
		t.Fatalf("prometheus counted %d records, the summary %d (want %d)", got, sum.Records, records)
	}
	points, err := c.RecordsRate(context.Background(), sel, sum.WindowStart, sum.WindowEnd.Add(2*time.Second), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var peak float64
	for _, p := range points {
		peak = max(peak, p.Value)
	}
	if len(points) < 3 || peak < 1500 || peak > 2500 {
		t.Fatalf("rate series: %d points, peak %.0f rec/s (target 2000)", len(points), peak)
	}
	// The client's own statistics, per worker, end where the summary's do: the
	// last scrape (in the worker's grace) holds the final counts.
	checkClientSeries(t, url, sel, sum.Client)
	// A selector that matches nothing is an error, not a zero: another namespace or
	// another experiment object of the same name has no series here.
	for _, other := range []promquery.Selector{{Namespace: "other-ns", ExperimentUID: "uid-1", Group: topic + ".consumers", Trial: tr.Name, Role: "producer"},
		{Namespace: "it-ns", ExperimentUID: "uid-2", Group: topic + ".consumers", Trial: tr.Name, Role: "producer"},
		{Namespace: "it-ns", ExperimentUID: "uid-1", Group: topic + ".a2.consumers", Trial: tr.Name, Role: "producer"}} {
		if _, err := c.RecordsTotal(context.Background(), other, sum.WindowStart, time.Now()); err == nil {
			t.Fatalf("want an error for selector %s, which matches no series", other)
		}
	}
}

// checkClientSeries: each client series' last value equals the summary's count.
func checkClientSeries(t *testing.T, url string, sel promquery.Selector, want *summary.ClientStats) {
	t.Helper()
	if want == nil || want.Batches == 0 || want.ProduceRequests == 0 {
		t.Fatalf("the summary has no client statistics: %+v", want)
	}
	c, err := api.NewClient(api.Config{Address: url})
	if err != nil {
		t.Fatal(err)
	}
	prom := promv1.NewAPI(c)
	for name, n := range map[string]int64{
		"serdebench_client_produce_requests_total":           want.ProduceRequests,
		"serdebench_client_batches_total":                    want.Batches,
		"serdebench_client_batch_records_total":              want.BatchRecords,
		"serdebench_client_batch_bytes_total":                want.BatchBytes,
		"serdebench_client_request_latency_seconds_count":    want.RequestLatencyCount,
		"serdebench_client_samples_total":                    want.InFlightSamples,
		"serdebench_client_in_flight_requests_sampled_total": want.InFlightSum,
	} {
		// One value per worker: the test Prometheus scrapes it by two jobs.
		q := fmt.Sprintf("max by (worker) (last_over_time(%s%s[5m]))", name, sel)
		v, _, _, err := prom.Query(context.Background(), q, time.Now())
		if err != nil {
			t.Fatalf("query %s: %v", q, err)
		}
		vec, ok := v.(model.Vector)
		if !ok || len(vec) != 1 || int64(vec[0].Value) != n {
			t.Errorf("%s = %v, the summary says %d", q, v, n)
		}
	}
}
