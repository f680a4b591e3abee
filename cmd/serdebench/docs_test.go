package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra/doc"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// TestCLIDocs: docs/cli is cobra's reference for every command, generated from
// their definitions; a stale or extra page fails (go test ./cmd/serdebench
// -update rewrites them).
func TestCLIDocs(t *testing.T) {
	// Flags whose defaults come from the environment document their unset default.
	for _, v := range []string{"SERDEBENCH_KAFKA_VERSION", "SERDEBENCH_FAULT_INTERFACE", "SERDEBENCH_FAULT_BROKER_SCRIPT", "KUBECONFIG"} {
		t.Setenv(v, "")
	}
	root := rootCmd()
	root.DisableAutoGenTag = true // no date: the pages change only with the commands
	dir := filepath.Join("..", "..", "docs", "cli")
	gen := t.TempDir()
	if err := doc.GenMarkdownTree(root, gen); err != nil {
		t.Fatal(err)
	}
	if golden.Updating() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(dir, os.DirFS(gen)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := filepath.Glob(filepath.Join(gen, "*.md"))
	have, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	names := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = filepath.Base(p)
		}
		return out
	}
	if !slices.Equal(names(want), names(have)) {
		t.Fatalf("docs/cli holds %v, the commands make %v (go test ./cmd/serdebench -update)", names(have), names(want))
	}
	for _, p := range want {
		g, _ := os.ReadFile(p)
		h, err := os.ReadFile(filepath.Join(dir, filepath.Base(p)))
		if err != nil || string(g) != string(h) {
			t.Errorf("docs/cli/%s is stale (go test ./cmd/serdebench -update rewrites it)", filepath.Base(p))
		}
	}
}
