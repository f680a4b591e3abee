package conformance

import (
	"bufio"
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestContractDoc: docs/worker-contract.md names every flag of the worker, every
// exit code, every summary field and histogram, and every metric a worker serves,
// as the Go types define them; a new one fails here until the page says what it is.
func TestContractDoc(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "worker-contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	missing := func(what, s string) {
		if !strings.Contains(doc, s) {
			t.Errorf("docs/worker-contract.md does not name the %s %s", what, s)
		}
	}
	var usage bytes.Buffer
	_, _ = protocol.Parse([]string{"-h"}, &usage)
	flags := 0
	for sc := bufio.NewScanner(&usage); sc.Scan(); {
		if f := strings.Fields(sc.Text()); len(f) > 0 && strings.HasPrefix(sc.Text(), "  -") {
			missing("flag", "`--"+strings.TrimPrefix(f[0], "-")+"`")
			flags++
		}
	}
	if flags < 20 {
		t.Fatalf("read %d flags from the worker's usage:\n%s", flags, usage.String())
	}
	for _, code := range []int{protocol.ExitOK, protocol.ExitFailed, protocol.ExitUsage, protocol.ExitInterrupted, protocol.ExitInvalidSource} {
		missing("exit code", "| "+strconv.Itoa(code)+" |")
	}
	st := reflect.TypeFor[summary.Summary]()
	for i := range st.NumField() {
		if name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			missing("summary field", "`"+name+"`")
		}
	}
	for _, h := range []string{summary.SerializeNanos, summary.DeserializeNanos, summary.CompressNanos, summary.DecompressNanos,
		summary.AckLatencyMicros, summary.SendDelayMicros, summary.EndToEndMicros, summary.FetchIntervalMicros} {
		missing("histogram", "`"+h+"`")
	}
	rec := httptest.NewRecorder()
	metrics.New(metrics.Labels{Role: protocol.RoleProducer}).Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	series := 0
	for sc := bufio.NewScanner(rec.Body); sc.Scan(); {
		if name, ok := strings.CutPrefix(sc.Text(), "# TYPE "); ok && strings.HasPrefix(name, "serdebench_") {
			missing("metric", "`"+strings.Fields(name)[0]+"`")
			series++
		}
	}
	if series < 5 {
		t.Fatalf("read %d serdebench series from a worker's /metrics", series)
	}
}
