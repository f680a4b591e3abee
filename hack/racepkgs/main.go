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
// Usage: go run ./hack/racepkgs [-race|-norace] [packages] (default ./...).
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
	flag.Parse()
	if *race == *norace {
		fmt.Fprintln(os.Stderr, "racepkgs: give exactly one of -race and -norace")
		os.Exit(2)
	}
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Stderr = os.Stderr // go list says why it failed
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "racepkgs: go list: %v\n", err)
		os.Exit(1)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			fmt.Fprintf(os.Stderr, "racepkgs: %v\n", err)
			os.Exit(1)
		}
		if len(p.GoFiles)+len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		c, err := concurrent(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "racepkgs: %s: %v\n", p.ImportPath, err)
			os.Exit(1)
		}
		if c == *race {
			fmt.Println(p.ImportPath)
		}
	}
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
