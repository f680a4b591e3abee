package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestConcurrent: a package is concurrent by a goroutine, a channel, a sync import
// or a callback library's import, in its files or its tests; a pure one is not.
func TestConcurrent(t *testing.T) {
	for src, want := range map[string]bool{
		"package p\nfunc F(b []byte) int { return len(b) }\n":                                    false,
		"package p\nimport \"strings\"\nfunc F(s string) string { return strings.ToUpper(s) }\n": false,
		"package p\nfunc F() { go func() {}() }\n":                                               true,
		"package p\nfunc F(c chan int) {}\n":                                                     true,
		"package p\nimport \"testing\"\nfunc TestF(t *testing.T) { t.Parallel() }\n":             true,
		"package p\nimport \"time\"\nvar _ = time.AfterFunc\n":                                   true,
		"package p\nimport \"sync\"\nvar mu sync.Mutex\n":                                        true,
		"package p\nimport \"sync/atomic\"\nvar n atomic.Int64\n":                                true,
		"package p\nimport \"net/http/httptest\"\nvar _ = httptest.NewServer\n":                  true,
		"package p\nimport \"github.com/twmb/franz-go/pkg/kgo\"\nvar _ kgo.Opt\n":                true,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := concurrent(pkg{Dir: dir, TestGoFiles: []string{"p_test.go"}})
		if err != nil || got != want {
			t.Errorf("%q: concurrent %v, %v; want %v", src, got, err, want)
		}
	}
}

// TestFirstFirst: the named packages lead, in the order named; the rest keep
// theirs; a name not among them adds nothing.
func TestFirstFirst(t *testing.T) {
	got := firstFirst([]string{"a", "b", "c", "d"}, []string{"d", "x", "b", "d"})
	if want := []string{"d", "b", "a", "c"}; !slices.Equal(got, want) {
		t.Fatalf("firstFirst = %v, want %v", got, want)
	}
}
