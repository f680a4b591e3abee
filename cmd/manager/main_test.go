package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// flagsDoc renders the manager's flags as docs/api.md's table.
func flagsDoc(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("| flag | default | what |\n|---|---|---|\n")
	fs.VisitAll(func(f *flag.Flag) {
		def := "—"
		if f.DefValue != "" {
			def = "`" + f.DefValue + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | %s | %s |\n", f.Name, def, strings.ReplaceAll(f.Usage, "|", `\|`))
	})
	return b.String()
}

// TestFlagsDoc: docs/api.md's manager flag table is the flags' own definitions.
func TestFlagsDoc(t *testing.T) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	bindFlags(fs)
	golden.Section(t, "../../docs/api.md", "manager flags", flagsDoc(fs))
}

// TestFlagsParse: parsed values reach the options (main reads them after Parse).
func TestFlagsParse(t *testing.T) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o := bindFlags(fs)
	if err := fs.Parse([]string{"--worker-image=w@sha256:1", "--max-concurrent-reconciles=9", "--worker-metrics-grace=3s", "--prometheus-auth=azure-workload-identity"}); err != nil {
		t.Fatal(err)
	}
	if o.workerImage != "w@sha256:1" || o.concurrency != 9 || o.metricsGrace.String() != "3s" || o.prometheusAuth != authAzureWorkloadIdentity {
		t.Fatalf("options %+v", o)
	}
}
