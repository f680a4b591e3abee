package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

const reportExperiment = `apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata:
  name: it-report
spec:
  codecs: [json, protobuf, avro]
  payload: {schema: business-record, sizesBytes: [1176, 4096]}
  records: 3000
  warmup: {records: 500}
  poolSize: 32
  repetitions: 2
`

// TestReportInChromium runs an experiment (2 repetitions of each trial: error
// bars) twice against the broker, writes the HTML
// report of the first run and the comparison of both, and opens each in Debian's
// headless Chromium: no console errors or exceptions, no request leaves the file (it
// opens offline), and every chart holds the data points the report computed. A
// screenshot of each page is kept as an artifact ($SERDEBENCH_ARTIFACTS, default
// .state/artifacts).
func TestReportInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found: run through `make test`, which installs Debian's chromium package")
	}
	brokers := kafkatest.Brokers(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(file, []byte(reportExperiment), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for i := range 2 {
		path := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		if err := os.WriteFile(path, []byte(serdebench(t, "run", "-f", file, "--bootstrap", brokers[0], "-o", "json", "-q")), 0o644); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, path)
	}
	artifacts := os.Getenv("SERDEBENCH_ARTIFACTS")
	if artifacts == "" {
		artifacts = "../../.state/artifacts"
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		runs []string
		// points per chart: 6 trials of 2 repetitions each, per run: a bar and its
		// error bar (a line's 6 points: the bar and two caps), or two series.
		points map[string]int
	}{
		{"report", runs[:1], map[string]int{"throughput": 6 * 7, "size": 6 * 7, "cpu": 6 * 7, "serde-time": 12, "serde-share": 12}},
		{"comparison", runs, map[string]int{"throughput": 12 * 7, "size": 12 * 7, "cpu": 12 * 7, "serde-time": 24, "serde-share": 24}},
	} {
		t.Run(c.name, func(t *testing.T) {
			html := filepath.Join(dir, c.name+".html")
			out := serdebench(t, append(append([]string{"report"}, c.runs...), "-o", html)...)
			if !strings.Contains(out, html) {
				t.Fatalf("report output %q does not name %s", out, html)
			}
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes", html, len(page))
			if strings.Contains(string(page), "<script src") || strings.Contains(string(page), "<link") {
				t.Fatal("the report loads something from outside the file")
			}
			if c.name == "comparison" && !strings.Contains(string(page), "Comparison with the baseline runs") {
				t.Fatal("two runs, and no comparison table")
			}
			points, png := openInChromium(t, chromium, html)
			if err := os.WriteFile(filepath.Join(artifacts, "report-"+c.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"throughput", "size", "serde-time", "serde-share", "cpu", "latency", "over-time", "pareto"} {
				p, ok := points[id]
				if !ok {
					t.Errorf("chart %s was not rendered (charts: %v)", id, points)
					continue
				}
				if p.drawn == 0 || p.drawn != p.computed {
					t.Errorf("chart %s: ECharts holds %d data points, the report computed %d", id, p.drawn, p.computed)
				}
				if want, ok := c.points[id]; ok && p.drawn != want {
					t.Errorf("chart %s: %d data points, want %d", id, p.drawn, want)
				}
			}
			// Latency curves: at least p50, p90, p99, p99.9 and max per trial.
			if n := len(c.runs) * 6; points["latency"].drawn < 5*n {
				t.Errorf("latency chart: %d points for %d trials", points["latency"].drawn, n)
			}
		})
	}
}

type chartPoints struct{ drawn, computed int }

// openInChromium loads the page and returns, per chart element, the data points its
// ECharts instance holds and the count the page declares, plus a full-page
// screenshot. Console errors, exceptions and requests beyond the file fail the test.
func openInChromium(t *testing.T, chromium, path string) (map[string]chartPoints, []byte) {
	t.Helper()
	// chromedp gives the browser 20 s to print its DevTools address; a cold Chromium on
	// two cores shared with the rest of `make test` took longer (CI), so it gets 90.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1300, 900), chromedp.WSURLReadTimeout(90*time.Second))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var problems []string
	pageURL := (&url.URL{Scheme: "file", Path: path}).String()
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; u != pageURL && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "request: "+u)
			}
		}
	})
	var counts map[string][]int
	var png []byte
	err := chromedp.Run(ctx,
		network.Enable(),
		chromedp.Navigate(pageURL),
		chromedp.WaitVisible(`body[data-rendered]`, chromedp.ByQuery),
		chromedp.Evaluate(`(function () {
			var out = {};
			document.querySelectorAll('.chart').forEach(function (el) {
				var chart = echarts.getInstanceByDom(el);
				var n = 0;
				if (chart) {
					chart.getOption().series.forEach(function (s) {
						(s.data || []).forEach(function (d) { if (d !== null && d !== undefined && d !== '-') { n++; } });
					});
				}
				out[el.id] = [chart ? n : -1, parseInt(el.getAttribute('data-points'), 10)];
			});
			return out;
		})()`, &counts),
		chromedp.FullScreenshot(&png, 100),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("the page reported problems:\n%s", strings.Join(problems, "\n"))
	}
	out := map[string]chartPoints{}
	for id, c := range counts {
		if c[0] < 0 {
			t.Errorf("chart %s has no ECharts instance", id)
		}
		out[id] = chartPoints{drawn: c[0], computed: c[1]}
	}
	return out, png
}
