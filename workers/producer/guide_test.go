package producer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

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
