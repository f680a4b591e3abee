// Package promtest starts a real Prometheus server for tests, scraping the given
// targets every second. The binary comes from Debian's prometheus package, which
// `make test` installs (pinned); without it the test fails, never skips.
package promtest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary is the Prometheus server binary.
const Binary = "/usr/bin/prometheus"

// Start runs Prometheus scraping targets (host:port) at /metrics every second and
// returns its URL; it stops when the test ends. Every target gets the namespace
// target label, as a PodMonitor gives it the scraped pod's namespace.
func Start(t testing.TB, namespace string, targets ...string) string {
	t.Helper()
	url, _ := start(t, namespace, targets)
	return url
}

// StartDiscovering runs Prometheus with file-based discovery: add registers a
// target with its namespace target label while it runs (Prometheus applies new
// targets within about 5 s).
func StartDiscovering(t testing.TB) (url string, add func(target, namespace string)) {
	t.Helper()
	url, add, _ = StartWithOperator(t)
	return url, add
}

// StartWithOperator is StartDiscovering plus addOperator, which registers an
// operator's /metrics in a job that honors the scraped labels, as the chart's
// ServiceMonitor does (honorLabels: true): the schedule gauges keep their own
// namespace label.
func StartWithOperator(t testing.TB) (url string, addWorker func(target, namespace string), addOperator func(target, namespace string)) {
	t.Helper()
	url, sdFile := start(t, "", nil)
	return url, sdWriter(sdFile), sdWriter(operatorSD(sdFile))
}

// sdWriter adds targets to a file-discovery file.
func sdWriter(sdFile string) func(target, namespace string) {
	var mu sync.Mutex
	var groups []string
	return func(target, namespace string) {
		mu.Lock()
		defer mu.Unlock()
		groups = append(groups, fmt.Sprintf(`{"targets": [%q], "labels": {"namespace": %q}}`, target, namespace))
		content := "[" + strings.Join(groups, ", ") + "]"
		tmp := sdFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err == nil {
			_ = os.Rename(tmp, sdFile) // atomic, so Prometheus never reads half a file
		}
	}
}

func operatorSD(sdFile string) string { return strings.TrimSuffix(sdFile, ".json") + "-operator.json" }

func start(t testing.TB, namespace string, targets []string) (string, string) {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Fatalf("prometheus server not installed at %s (`make test` installs Debian's prometheus): %v", Binary, err)
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = fmt.Sprintf("%q", tg)
	}
	sdFile := filepath.Join(dir, "targets.json")
	for _, f := range []string{sdFile, operatorSD(sdFile)} {
		if err := os.WriteFile(f, []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
	// The same targets twice, as when two PodMonitors select one worker: queries must
	// count each worker once.
	for _, job := range []string{"serdebench-workers", "serdebench-workers-again"} {
		cfg += fmt.Sprintf(`  - job_name: %s
    static_configs:
      - targets: [%s]
        labels: {namespace: %q}
    file_sd_configs:
      - files: [%q]
        refresh_interval: 1s
`, job, strings.Join(quoted, ", "), namespace, sdFile)
	}
	cfg += fmt.Sprintf(`  - job_name: serdebench-operator
    honor_labels: true
    file_sd_configs:
      - files: [%q]
        refresh_interval: 1s
`, operatorSD(sdFile))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := FreeAddr(t)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Binary, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = logf.Close()
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/-/ready")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, sdFile
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("prometheus not ready after 30s:\n%s", log)
	return "", ""
}

// FreeAddr returns a loopback address with a port nothing listens on.
func FreeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}
