// Command racepkgs splits the module's packages into those where concurrency lives,
// which make test-unit tests with the race detector, and the rest, tested without
// it (the detector multiplies a pure codec's or statistic's run time, and finds
// nothing where only one goroutine runs).
//
// A package is concurrent when any of its files, tests included, starts a
// goroutine, uses a channel, runs tests in parallel or a function after a delay
// (t.Parallel, b.RunParallel, AfterFunc), or imports sync, sync/atomic, errgroup or a library
// that calls it back from goroutines of its own: a Kafka client, controller-runtime
// or client-go, an HTTP server or client. (Linking one through another package is
// not enough: that package is tested on its own.)
//
// The packages come out in go list's order, but those -first names come first, in
// its order: go test starts packages in the order it is given them, two at a time
// on two cores, so the longest started first ends the stage soonest (a long one
// started last runs alone at the end).
//
// Usage: go run ./hack/racepkgs [-race|-norace] [-first pkg,pkg] [packages] (default ./...).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// concurrentCalls mark a package as concurrent when its files or tests call a
// function or method of that name (on any receiver).
var concurrentCalls = []string{"Parallel", "RunParallel", "AfterFunc"}

// concurrentImports mark a package as concurrent when its files or its tests
// import one (the path, or a package below it).
var concurrentImports = []string{
	"sync", "golang.org/x/sync/errgroup",
	"github.com/IBM/sarama", "github.com/twmb/franz-go/pkg/kgo", "github.com/confluentinc/confluent-kafka-go",
	"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "net/http",
}

type pkg struct {
	ImportPath                         string
	Dir                                string
	GoFiles, TestGoFiles, XTestGoFiles []string
	Deps                               []string
}

func main() {
	race := flag.Bool("race", false, "print the concurrent packages")
	norace := flag.Bool("norace", false, "print the others")
	first := flag.String("first", "", "comma-separated packages (as go list takes them) to print first, in this order")
	flag.Parse()
	if *race == *norace {
		fmt.Fprintln(os.Stderr, "racepkgs: give exactly one of -race and -norace")
		os.Exit(2)
	}
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fail(err)
	}
	var order []string
	if *first != "" {
		firsts, err := list(strings.Split(*first, ","))
		if err != nil {
			fail(fmt.Errorf("-first: %w", err))
		}
		for _, p := range firsts {
			order = append(order, p.ImportPath)
		}
	}
	var picked []string
	for _, p := range pkgs {
		if len(p.GoFiles)+len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		c, err := concurrent(p)
		if err != nil {
			fail(fmt.Errorf("%s: %w", p.ImportPath, err))
		}
		if c == *race {
			picked = append(picked, p.ImportPath)
		}
	}
	for _, p := range firstFirst(picked, order) {
		fmt.Println(p)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "racepkgs: %v\n", err)
	os.Exit(1)
}

// list is go list's packages for patterns, in its order.
func list(patterns []string) ([]pkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Stderr = os.Stderr // go list says why it failed
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// firstFirst is pkgs with those named in first moved to the front, in first's
// order; names in first that pkgs lacks are left out.
func firstFirst(pkgs, first []string) []string {
	out := make([]string, 0, len(pkgs))
	for _, f := range first {
		if slices.Contains(pkgs, f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, p := range pkgs {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// concurrent reports whether concurrency lives in p (see the package comment).
func concurrent(p pkg) (bool, error) {
	fset := token.NewFileSet()
	for _, name := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return false, err
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			for _, c := range concurrentImports {
				if path == c || strings.HasPrefix(path, c+"/") {
					return true, nil
				}
			}
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt, *ast.ChanType, *ast.SendStmt, *ast.SelectStmt:
				found = true
			case *ast.SelectorExpr:
				// t.Parallel, b.RunParallel, time.AfterFunc, context.AfterFunc: code
				// run on goroutines of the testing or runtime package's making.
				found = slices.Contains(concurrentCalls, n.Sel.Name)
			}
			return !found
		})
		if found {
			return true, nil
		}
	}
	return false, nil
}
