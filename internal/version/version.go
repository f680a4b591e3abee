// Package version says which build of serdebench is running.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at link time by the image build
// (-ldflags -X github.com/serdebench/serdebench/internal/version.Version=v0.1.0-dev.<commit>).
var Version = ""

// Commit is set at link time beside Version (make build, the image build), for
// builds where Go stamps no VCS revision (-buildvcs=false).
var Commit = ""

// String is Version, else the module version Go stamped into the binary (a pseudo-
// version from the commit, or "(devel)").
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}

// Build describes the running binary, as `serdebench version` prints it.
type Build struct {
	// Version is String().
	Version string `json:"version"`
	// Commit is the VCS revision Go stamped at build time ("" when built outside a
	// git checkout or with -buildvcs=false).
	Commit string `json:"commit,omitempty"`
	// Modified says the checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// CommitTime is the commit's time (RFC 3339).
	CommitTime string `json:"commitTime,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// Get returns the running binary's build.
func Get() Build {
	b := Build{Version: String(), Commit: Commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			case "vcs.time":
				b.CommitTime = s.Value
			}
		}
	}
	return b
}

// String is one line: version, commit, Go version and platform.
func (b Build) String() string {
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	if b.Modified {
		commit += ", modified"
	}
	return fmt.Sprintf("%s (commit %s, %s, %s)", b.Version, commit, b.GoVersion, b.Platform)
}
