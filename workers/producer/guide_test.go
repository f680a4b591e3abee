package producer

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// settingFiles are the files a new producer setting touches, with what it needs
// there: docs/producer-settings.md's list ("Adding a setting").
var settingFiles = []guideFile{
	{"api/trial/settings.go", "its row in `Table` (default, markers, sweep, `Label`) and its field in `Settings`"},
	{"workers/producer/plan.go", "what it means for every client: `NewPlan`, when the clients share a rule"},
	{"workers/producer/sarama_config.go", "its mapping for sarama (`SaramaConfig`)"},
	{"workers/producer/franz.go", "its mapping for franz-go (`FranzOptions`)"},
	{"workers/producer/rdkafka.go", "its mapping for librdkafka (`RdkafkaConfig`)"},
	{"docs/producer-settings.md", "a line in this page's tables"},
}

// adapter finds a function that maps a trial's settings onto a client.
var adapter = regexp.MustCompile(`(?m)^func [A-Z]\w*\(s trial\.Settings,`)

// TestSettingGuide: the guide's list is settingFiles, every file in it exists,
// and every file of this package that maps trial.Settings (a client's adapter, or
// the shared plan) is in it: a client added without its place in the guide fails.
func TestSettingGuide(t *testing.T) {
	root := filepath.Join("..", "..")
	guide(t, root, "setting files", settingFiles)
	for f := range matching(t, ".", adapter, func(string) bool { return false }) {
		if !slices.ContainsFunc(settingFiles, func(s guideFile) bool { return s.path == "workers/producer/"+f }) {
			t.Errorf("workers/producer/%s maps trial.Settings but the setting guide does not list it", f)
		}
	}
}

// clientFiles are the files a new Kafka client touches, with what it needs there:
// docs/producer-settings.md's list ("Adding a client"). <client> is the client's
// own file or package; a client that needs cgo has a _nocgo.go twin that refuses
// it, and a module of its own in go.mod.
var clientFiles = []guideFile{
	{"api/trial/enums.go", "its `Client` constant, in `Clients` and in the type's Enum marker (the matrix's client sweep takes its limit from there)"},
	{"api/trial/support.go", "whether and how it has each feature of `Features` (transactions, isolation, …): the planner refuses what it lacks, with the reason"},
	{"workers/kafkaconn/<client>/", "how it reaches the brokers: TLS, SASL, socket buffers and a bounded dial from the shared `kafkaconn` settings (sarama's are in `kafkaconn` itself)"},
	{"workers/producer/<client>.go", "its producer (the `client` interface) and its settings adapter (`func …(s trial.Settings, …)`; sarama's is `sarama_config.go`)"},
	{"workers/producer/client.go", "its row in `clients`"},
	{"workers/consumer/<client>.go", "its group member (the `member` interface)"},
	{"workers/consumer/consumer.go", "its row in `members`"},
	{"workers/clientstats/<client>.go", "its statistics by the Java client's names, where the client reports them in its own (librdkafka's JSON)"},
	{"workers/producer/guide_test.go", "its adapter's file in `settingFiles`, so the setting guide names it"},
	{"hack/racepkgs/main.go", "its module in `concurrentImports`, so the packages that use it run under the race detector"},
	{"internal/cli/runner/clients_test.go", "its case in `TestClientSecurity` (TLS, SASL, and its words for a wrong password)"},
	{"internal/cli/runner/restart_test.go", "its case in `TestBrokerRestartAccounting`"},
	{"docs/producer-settings.md", "a `## Producer (<name>)` section (how it maps each setting) and a column in the consumer's table"},
}

// member finds a function that makes a client's consumer group member.
var member = regexp.MustCompile(`(?m)^func new\w+Member\(`)

// quoted finds the import paths hack/racepkgs lists.
var quoted = regexp.MustCompile(`"([a-z0-9.]+/[^"]+)"`)

// TestClientGuide: the guide's list is clientFiles, its fixed files exist, and
// every client the API names has one settings adapter here, one member file in
// the consumer, its connection through workers/kafkaconn, its library in
// hack/racepkgs' list and a section in the settings page: a client added
// without one of them fails here, as a client the tables lack fails
// TestEveryClientHasAProducer.
func TestClientGuide(t *testing.T) {
	root := filepath.Join("..", "..")
	guide(t, root, "client files", clientFiles)
	nocgo := func(f string) bool { return strings.HasSuffix(f, "_nocgo.go") }
	adapters := matching(t, filepath.Join(root, "workers/producer"), adapter, func(f string) bool { return f == "plan.go" || nocgo(f) })
	if len(adapters) != len(trial.RuntimeGo.Clients()) {
		t.Errorf("workers/producer has settings adapters in %v, want one file for each of %v", slices.Collect(maps.Keys(adapters)), trial.RuntimeGo.Clients())
	}
	// share.go is franz-go's share-group member, beside its consumer group member.
	others := func(f string) bool { return nocgo(f) || f == "share.go" }
	if got := matching(t, filepath.Join(root, "workers/consumer"), member, others); len(got) != len(trial.RuntimeGo.Clients()) {
		t.Errorf("workers/consumer has group members in %v, want one file for each of %v", slices.Collect(maps.Keys(got)), trial.RuntimeGo.Clients())
	}
	race, err := os.ReadFile(filepath.Join(root, "hack/racepkgs/main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var concurrent []string
	for _, m := range quoted.FindAllSubmatch(race, -1) {
		concurrent = append(concurrent, string(m[1]))
	}
	for name, src := range adapters {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		var conn, library bool
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			conn = conn || strings.HasPrefix(p, "github.com/serdebench/serdebench/workers/kafkaconn")
			library = library || slices.ContainsFunc(concurrent, func(c string) bool { return p == c || strings.HasPrefix(p, c+"/") })
		}
		if !conn {
			t.Errorf("workers/producer/%s does not reach the brokers through workers/kafkaconn", name)
		}
		if !library {
			t.Errorf("workers/producer/%s imports no client library hack/racepkgs lists (%v)", name, concurrent)
		}
	}
	page, err := os.ReadFile(filepath.Join(root, "docs/producer-settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range trial.RuntimeGo.Clients() {
		if !strings.Contains(string(page), "\n## Producer ("+string(c)+")\n") {
			t.Errorf("docs/producer-settings.md has no section \"## Producer (%s)\"", c)
		}
	}
}

// guideFile is a file a guide names, with what a change needs there.
type guideFile struct{ path, what string }

// guide checks that each file the list names exists (a pattern with <client> is
// checked by its caller) and writes the list as docs/producer-settings.md's
// generated section.
func guide(t *testing.T, root, section string, files []guideFile) {
	t.Helper()
	var b strings.Builder
	for i, f := range files {
		if !strings.Contains(f.path, "<client>") {
			if _, err := os.Stat(filepath.Join(root, f.path)); err != nil {
				t.Errorf("the guide lists %s: %v", f.path, err)
			}
		}
		fmt.Fprintf(&b, "%d. `%s`: %s;\n", i+1, f.path, f.what)
	}
	golden.Section(t, filepath.Join(root, "docs/producer-settings.md"), section, b.String())
}

// matching are the non-test Go files of dir that re matches, but for skip's, by
// name, with their source.
func matching(t *testing.T, dir string, re *regexp.Regexp, skip func(string) bool) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") || skip(name) {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if re.Match(src) {
			out[name] = src
		}
	}
	return out
}
