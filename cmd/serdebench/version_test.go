package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/version"
)

// TestVersion: `serdebench version`, its JSON and `--version` say the same build:
// its version, commit and the Go that built it.
func TestVersion(t *testing.T) {
	text, err := execute("version")
	if err != nil {
		t.Fatal(err)
	}
	flag, err := execute("--version")
	if err != nil {
		t.Fatal(err)
	}
	if text != flag || !strings.HasPrefix(text, "serdebench "+version.String()+" (commit ") || !strings.Contains(text, runtime.Version()) {
		t.Fatalf("version %q, --version %q: want both %q with the commit and %s", text, flag, version.String(), runtime.Version())
	}
	out, err := execute("version", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var b version.Build
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if b.Version != version.String() || b.GoVersion != runtime.Version() || b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Fatalf("version -o json: %+v", b)
	}
	if _, err := execute("version", "-o", "yaml"); err == nil || !strings.Contains(err.Error(), "--output") {
		t.Fatalf("version -o yaml: %v, want an --output error", err)
	}
}

// TestRunHelp: run's help has examples and the exit codes main uses.
func TestRunHelp(t *testing.T) {
	out, err := execute("run", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Examples:", "Exit codes:", "  0  ", "  1  ", "  3  interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --help lacks %q:\n%s", want, out)
		}
	}
}
