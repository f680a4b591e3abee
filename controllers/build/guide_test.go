package build

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// faultKindFiles are the files a new kind of fault touches, with what it needs
// there and what in the file shows a kind has it: docs/faults.md's list ("Adding a
// fault kind").
var faultKindFiles = []struct {
	path, what string
	has        func(k trial.FaultKind, row trial.FaultKindInfo) string
	// chaosOnly: only a kind the operator applies through Chaos Mesh needs it.
	chaosOnly bool
}{
	{"api/trial/fault.go", "its field in `Fault` (with its type and markers) and in the rule that admits exactly one kind",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string {
			return fmt.Sprintf("`json:\"%s,omitempty\"`", k)
		}, false},
	{"api/trial/faultkind.go", "its row in `FaultKinds` and its `FaultKind` constant",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string {
			return "\t" + strings.TrimPrefix(kindConst(k), "trial.") + ":"
		}, false},
	{"api/trial/faultkind_test.go", "a fault of the kind in `TestFaultKindTable`",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string {
			return "\t" + strings.TrimPrefix(kindConst(k), "trial.") + ":"
		}, false},
	{"controllers/build/chaos.go", "its builder in `chaosBuilders` (a Chaos Mesh kind)",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string { return kindConst(k) + ":" }, true},
	{"controllers/build/chaos_test.go", "a fault of the kind in `TestChaosBuildersFollowTheTable`, and golden cases in `TestChaosGolden` (a Chaos Mesh kind)",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string { return kindConst(k) + ":" }, true},
	{"controllers/fault.go", "its resource in the `chaos-mesh.org` RBAC marker (a Chaos Mesh kind)",
		func(_ trial.FaultKind, row trial.FaultKindInfo) string { return row.Resource }, true},
	{"hack/crds/fetch.sh", "its resource in `CHAOS_MESH_KINDS`, the Chaos Mesh CRDs envtest installs (a Chaos Mesh kind)",
		func(_ trial.FaultKind, row trial.FaultKindInfo) string { return row.Resource }, true},
	{"docs/faults.md", "its fields in the scenario table, and how it is applied",
		func(k trial.FaultKind, _ trial.FaultKindInfo) string { return "`" + string(k) }, false},
}

// kindConst is the name of the kind's constant in package trial, as code in
// another package writes it.
func kindConst(k trial.FaultKind) string {
	return "trial.Fault" + strings.ToUpper(string(k[:1])) + string(k[1:])
}

// TestFaultKindGuide: the guide's list is faultKindFiles, and every file in it has
// every kind of the table (a kind added without its place in one of them fails).
func TestFaultKindGuide(t *testing.T) {
	root := filepath.Join("..", "..")
	var b strings.Builder
	for i, f := range faultKindFiles {
		src, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Errorf("the guide lists %s: %v", f.path, err)
			continue
		}
		for _, k := range trial.FaultKindNames() {
			if f.chaosOnly && !trial.FaultKinds[k].ChaosMesh() {
				continue
			}
			// The text as a whole word: podchaos is not in podnetworkchaos.
			want := f.has(k, trial.FaultKinds[k])
			if !regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(want) + `($|[^A-Za-z0-9_])`).Match(src) {
				t.Errorf("%s lacks the %s fault (%q): %s", f.path, k, want, f.what)
			}
		}
		fmt.Fprintf(&b, "%d. `%s`: %s;\n", i+1, f.path, f.what)
	}
	golden.Section(t, filepath.Join(root, "docs/faults.md"), "fault kind files", b.String())
}
