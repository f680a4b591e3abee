package producer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// settingFiles are the files a new producer setting touches, with what it needs
// there: docs/producer-settings.md's list ("Adding a setting").
var settingFiles = []struct{ path, what string }{
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
	var b strings.Builder
	for i, f := range settingFiles {
		if _, err := os.Stat(filepath.Join(root, f.path)); err != nil {
			t.Errorf("the guide lists %s: %v", f.path, err)
		}
		fmt.Fprintf(&b, "%d. `%s`: %s;\n", i+1, f.path, f.what)
	}
	golden.Section(t, filepath.Join(root, "docs/producer-settings.md"), "setting files", b.String())
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(settingFiles, func(s struct{ path, what string }) bool { return s.path == "workers/producer/"+f })
		if adapter.Match(src) && !listed {
			t.Errorf("workers/producer/%s maps trial.Settings but the setting guide does not list it", f)
		}
	}
}

// clientFiles are the files a new Kafka client touches, with what it needs there:
// docs/producer-settings.md's list ("Adding a client"). <client> is the client's
// own file; a client that needs cgo has a _nocgo.go twin that refuses it.
var clientFiles = []struct{ path, what string }{
	{"api/trial/enums.go", "its `Client` constant, in `Clients` and in the type's Enum marker (the matrix's client sweep takes its limit from there)"},
	{"workers/producer/<client>.go", "its producer (the `client` interface, its statistics by the Java client's names) and its settings adapter (`func …(s trial.Settings, …)`)"},
	{"workers/producer/client.go", "its row in `clients`"},
	{"workers/consumer/<client>.go", "its group member (the `member` interface)"},
	{"workers/consumer/consumer.go", "its row in `members`"},
	{"workers/producer/guide_test.go", "its adapter's file in `settingFiles`, so the setting guide names it"},
	{"docs/producer-settings.md", "a `## Producer (<name>)` section: how it maps each setting"},
}

// member finds a function that makes a client's consumer group member.
var member = regexp.MustCompile(`(?m)^func new\w+Member\(`)

// TestClientGuide: the guide's list is clientFiles, its fixed files exist, every
// client the API names has one adapter file here, one member file in the
// consumer and a section in the settings page: a client added without one of
// them fails here, as a client the tables lack fails TestEveryClientHasAProducer.
func TestClientGuide(t *testing.T) {
	root := filepath.Join("..", "..")
	var b strings.Builder
	for i, f := range clientFiles {
		if !strings.Contains(f.path, "<client>") {
			if _, err := os.Stat(filepath.Join(root, f.path)); err != nil {
				t.Errorf("the guide lists %s: %v", f.path, err)
			}
		}
		fmt.Fprintf(&b, "%d. `%s`: %s;\n", i+1, f.path, f.what)
	}
	golden.Section(t, filepath.Join(root, "docs/producer-settings.md"), "client files", b.String())
	count := func(dir string, re *regexp.Regexp, skip func(string) bool) []string {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || skip(filepath.Base(f)) {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if re.Match(src) {
				out = append(out, filepath.Base(f))
			}
		}
		return out
	}
	nocgo := func(f string) bool { return strings.HasSuffix(f, "_nocgo.go") }
	if got := count("workers/producer", adapter, func(f string) bool { return f == "plan.go" || nocgo(f) }); len(got) != len(trial.Clients) {
		t.Errorf("workers/producer has settings adapters in %v, want one file for each of %v", got, trial.Clients)
	}
	if got := count("workers/consumer", member, nocgo); len(got) != len(trial.Clients) {
		t.Errorf("workers/consumer has group members in %v, want one file for each of %v", got, trial.Clients)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs/producer-settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range trial.Clients {
		if !strings.Contains(string(page), "\n## Producer ("+string(c)+")\n") {
			t.Errorf("docs/producer-settings.md has no section \"## Producer (%s)\"", c)
		}
	}
}
