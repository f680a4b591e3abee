package controllers_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/golden"
)

// reason is one Reason constant as its source declares it.
type reason struct{ value, where, meaning string }

// reasons reads the Reason constants of the Go files in dirs, with their doc
// comments: "ReasonX (Cond=True, event): meaning." An alias of another package's
// constant (protocol.ReasonTopicFailed) is documented there and skipped here.
func reasons(t *testing.T, dirs ...string) []reason {
	t.Helper()
	var out []reason
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Reason") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok {
							continue // an alias
						}
						value, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						cg := vs.Doc
						if cg == nil && len(gd.Specs) == 1 {
							cg = gd.Doc // const X = "x", its comment on the declaration
						}
						doc := strings.Join(strings.Fields(cg.Text()), " ")
						rest, ok := strings.CutPrefix(doc, name.Name)
						if !ok || rest == "" {
							t.Errorf("%s: %s has no doc comment beginning with its name: docs/api.md's reason table is made of them", fset.Position(name.Pos()), name.Name)
							continue
						}
						r := reason{value: value}
						rest = strings.TrimSpace(rest)
						if strings.HasPrefix(rest, "(") {
							if end := strings.Index(rest, ")"); end > 0 {
								r.where, rest = rest[1:end], rest[end+1:]
							}
						}
						r.meaning = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
						r.meaning = strings.TrimPrefix(r.meaning, "is ")
						out = append(out, r)
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b reason) int { return strings.Compare(a.value, b.value) })
	return out
}

// TestReasonsDoc: docs/api.md's table of condition and event reasons is the
// Reason constants' own doc comments (the operator's and the worker protocol's).
func TestReasonsDoc(t *testing.T) {
	rs := reasons(t, ".", "../workers/protocol")
	var b strings.Builder
	b.WriteString("| reason | where | meaning |\n|---|---|---|\n")
	for i, r := range rs {
		if i > 0 && rs[i-1].value == r.value {
			t.Errorf("reason %q is declared twice", r.value)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.value, r.where, strings.ReplaceAll(r.meaning, "|", `\|`))
	}
	golden.Section(t, "../docs/api.md", "reasons", b.String())
}
