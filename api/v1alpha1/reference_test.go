package v1alpha1_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// crdRefDocs generates docs/reference.md (Elastic's crd-ref-docs, as the Go
// command builds it: pinned, and cached in Go's module and build caches).
const crdRefDocs = "github.com/elastic/crd-ref-docs@v0.3.0"

// TestReference: docs/reference.md is the API's type reference generated from the
// Go types in api/ (their doc comments and kubebuilder markers, the CEL rules'
// messages included) through hack/refdocs's templates; a stale one fails
// (go test ./api/v1alpha1 -update rewrites it).
func TestReference(t *testing.T) {
	root := filepath.Join("..", "..")
	out := filepath.Join(t.TempDir(), "reference.md")
	cmd := exec.Command("go", "run", crdRefDocs, "--source-path=./api", "--config=hack/refdocs/config.yaml",
		"--renderer=markdown", "--templates-dir=hack/refdocs/templates", "--output-path="+out, "--log-level=ERROR")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "reference.md")
	if golden.Updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./api/v1alpha1 -update writes it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("docs/reference.md is stale (go test ./api/v1alpha1 -update rewrites it); -committed +generated:\n%s", d)
	}
}
