package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileTestLists: every test the Makefile names in a -run list
// (OLDEST_K8S_TESTS, PREVIOUS_KAFKA_TESTS) exists, in the packages the list's
// target runs: a renamed test would otherwise leave a stage that runs nothing and
// passes.
func TestMakefileTestLists(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	where := map[string][]string{} // test name → directories declaring it
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	err = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "../.." || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			dir, _ := filepath.Rel("../..", filepath.Dir(p))
			where[m[1]] = append(where[m[1]], filepath.ToSlash(dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{
		"OLDEST_K8S_TESTS":     {"controllers"},
		"PREVIOUS_KAFKA_TESTS": {"internal/cli/runner", "workers/kafkaconn"},
	}
	for name, dirs := range lists {
		m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*\^\((.*)\)\$\$$`).FindSubmatch(mk)
		if m == nil {
			t.Errorf("Makefile: no %s := ^(A|B)$$ line", name)
			continue
		}
		for _, test := range strings.Split(string(m[1]), "|") {
			got := where[test]
			switch {
			case len(got) == 0:
				t.Errorf("%s names %s: no such test", name, test)
			case !slices.ContainsFunc(got, func(d string) bool { return slices.Contains(dirs, d) }):
				t.Errorf("%s names %s, declared in %v: not in %v, which its target runs", name, test, got, dirs)
			}
		}
	}
}
