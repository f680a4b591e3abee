package golden

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Section checks the part of the document at path between the lines
//
//	<!-- generated: NAME; go test PKG -update rewrites it -->
//	<!-- end generated: NAME -->
//
// against got, so that reference docs are generated from the code and a stale one
// fails a test; with -update it rewrites that part.
func Section(t testing.TB, path, name, got string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	begin := "<!-- generated: " + name + ";"
	end := "<!-- end generated: " + name + " -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no section %q (a line starting %q, then %q)", path, name, begin, end)
	}
	i += strings.Index(doc[i:], "\n") + 1 // after the begin line
	if !strings.HasSuffix(got, "\n") {
		got += "\n"
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i]+got+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := doc[i:j]; want != got {
		t.Errorf("%s's section %q is stale (go test -update rewrites it; review the diff), -want +got:\n%s", path, name,
			cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")))
	}
}
