package layout

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/serdebench/serdebench/"

// root is the module's directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// goList runs go list in the module with args and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root(t)
	// The release build's view: cgo on (librdkafka's files are cgo-only), Linux.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	return strings.Fields(string(out))
}

// rule forbids a binary to link packages whose import path starts with one of
// the prefixes, and says why.
type rule struct {
	binary string
	deny   []string
	why    string
}

var rules = []rule{
	{"./cmd/worker", []string{"k8s.io/", "sigs.k8s.io/"},
		"the worker runs anywhere a broker is reachable and speaks to Kubernetes only through its exit code and termination message"},
	{"./cmd/manager", []string{module + "workers/codec", module + "workers/payload", module + "workers/producer", module + "workers/consumer",
		module + "workers/source", "github.com/linkedin/goavro", "github.com/hamba/avro", "github.com/vmihailenco/msgpack", "github.com/tinylib/msgp",
		"capnproto.org/", "github.com/google/flatbuffers", "github.com/apache/thrift", "github.com/goccy/go-json", "github.com/planetscale/vtprotobuf",
		"github.com/bufbuild/protocompile"},
		"the operator has no codec: a user's samples are checked by a Job in the worker image"},
	{"./cmd/manager", []string{module + "internal/netem/engine"},
		"the local fault engine (NFQUEUE) is the CLI's; the operator injects faults through Chaos Mesh"},
	{"./cmd/manager", []string{"github.com/confluentinc/", "github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/sasl"},
		"the operator reaches Kafka through sarama's Admin API only: no client it does not use (franz-go's kversion and kmsg name the broker's release)"},
}

// TestImportRules: each binary links nothing a rule denies it.
func TestImportRules(t *testing.T) {
	deps := map[string][]string{}
	for _, r := range rules {
		if deps[r.binary] == nil {
			deps[r.binary] = goList(t, "-deps", r.binary)
		}
		for _, p := range deps[r.binary] {
			for _, d := range r.deny {
				if strings.HasPrefix(p, d) {
					t.Errorf("%s links %s: %s (go list -deps %s; go mod why -m or go list -f '{{.Imports}}' finds the importer)", r.binary, p, r.why, r.binary)
				}
			}
		}
	}
}

var (
	row  = regexp.MustCompile("^\\| (`[^|]+) \\|")
	path = regexp.MustCompile("`([^`]+)`")
)

// layoutTable returns the paths docs/contributing.md's layout table names, each bare name
// (`promtest` after `internal/testing/kafkatest`) under the previous path's parent.
func layoutTable(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(root(t), "docs", "contributing.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var paths []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| path | audience | what lives there |") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		parent := ""
		for _, p := range path.FindAllStringSubmatch(m[1], -1) {
			name := strings.TrimSuffix(p[1], "/")
			if strings.Contains(name, "/") {
				parent = filepath.Dir(name)
			} else if parent != "" {
				name = parent + "/" + name
			}
			paths = append(paths, name)
		}
	}
	if len(paths) == 0 {
		t.Fatal("docs/contributing.md has no layout table (| path | audience | what lives there |)")
	}
	return paths
}

// TestLayoutTable: every package is in docs/contributing.md's layout table, itself or
// under a listed directory, and every path the table lists exists.
func TestLayoutTable(t *testing.T) {
	listed := layoutTable(t)
	dir := root(t)
	for _, p := range listed {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("docs/contributing.md's layout table lists %s, which does not exist", p)
		}
	}
	for _, pkg := range goList(t, "./...") {
		rel := strings.TrimPrefix(pkg, module)
		covered := slices.ContainsFunc(listed, func(l string) bool { return rel == l || strings.HasPrefix(rel, l+"/") })
		if !covered {
			t.Errorf("package %s is not in docs/contributing.md's layout table", rel)
		}
	}
}
