// Package version says which build of serdebench is running.
package version

import "runtime/debug"

// Version is set at link time by the image build
// (-ldflags -X github.com/serdebench/serdebench/internal/version.Version=v0.1.0-dev.<commit>).
var Version = ""

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
