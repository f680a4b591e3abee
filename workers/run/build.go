package run

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// clientModules are the Go clients' modules, whose versions the binary's build
// information records (librdkafka, a C library, says its own).
var clientModules = map[trial.Client]struct{ name, module string }{
	trial.ClientSarama:  {"sarama", "github.com/IBM/sarama"},
	trial.ClientFranz:   {"franz-go", "github.com/twmb/franz-go"},
	trial.ClientRdkafka: {"librdkafka", ""},
}

// buildOf is what this worker runs on with client c: Go's version, the client
// library's, and the machine's CPU model and kernel.
func buildOf(c trial.Client) *summary.Build {
	b := &summary.Build{Runtime: "go", RuntimeVersion: runtime.Version(), CPUModel: machine().cpu, Kernel: machine().kernel}
	m, ok := clientModules[c.OrDefault()]
	if !ok {
		return b
	}
	b.Client = m.name
	if m.module == "" {
		_, b.ClientVersion = kafka.LibraryVersion()
		return b
	}
	b.ClientVersion = moduleVersion(m.module)
	return b
}

// moduleVersion is the version of module path linked into this binary ("" when
// the binary carries no build information).
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// machine is the node's CPU model and kernel release, read once: a container
// sees the node's.
var machine = sync.OnceValue(func() struct{ cpu, kernel string } {
	var m struct{ cpu, kernel string }
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.cpu = cpuModel(b)
	}
	return m
})

// cpuModel is the first "model name" of a /proc/cpuinfo ("" on systems that
// name no model there, as some ARM kernels do).
func cpuModel(cpuinfo []byte) string {
	for sc := bufio.NewScanner(bytes.NewReader(cpuinfo)); sc.Scan(); {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}
