// Package golden compares a builder's output with a file under testdata/, as
// prometheus-operator's golden tests do: `go test ./pkg -update` rewrites the files,
// and the diff is reviewed like code.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the builders return")

// Updating says whether the test run was asked to rewrite its golden files
// (-update), for a test whose golden output is not one file (a directory of
// generated pages).
func Updating() bool { return *update }

// YAML checks v, as YAML, against testdata/<name>.golden.yaml.
func YAML(t testing.TB, name string, v any) {
	t.Helper()
	got, err := yaml.Marshal(v)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	path := filepath.Join("testdata", name+".golden.yaml")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test with -update to write it)", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test -update rewrites it; review the diff), -want +got:\n%s", name, path,
			cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}
