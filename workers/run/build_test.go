package run

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestBuildOf: the runtime is Go's, librdkafka the linked library's, the kernel
// uname's, and each client named. (A test binary carries no module versions: the
// conformance suite checks them in the worker binary.)
func TestBuildOf(t *testing.T) {
	uname, err := exec.Command("uname", "-r").Output()
	if err != nil {
		t.Fatal(err)
	}
	for c, m := range clientModules {
		b := buildOf(c)
		if b.Runtime != "go" || b.RuntimeVersion != runtime.Version() || b.Client != m.name || b.Kernel != strings.TrimSpace(string(uname)) {
			t.Errorf("%s: %+v", c, b)
		}
		if m.module == "" && !strings.HasPrefix(b.ClientVersion, "2.") {
			t.Errorf("%s: librdkafka %q, want 2.x", c, b.ClientVersion)
		}
	}
	if b := buildOf(trial.ClientJava); b.Client != "" || b.ClientVersion != "" {
		t.Errorf("java in the Go worker: %+v, want no client named", b)
	}
}

// TestCPUModel: the first model name, its spaces collapsed; none where the
// kernel names no model (some ARM systems).
func TestCPUModel(t *testing.T) {
	x86 := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModel([]byte(x86)); got != "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz" {
		t.Errorf("x86: %q", got)
	}
	if got := cpuModel([]byte("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n")); got != "" {
		t.Errorf("arm: %q", got)
	}
}
