package main

import (
	"slices"
	"testing"
)

func TestOptions(t *testing.T) {
	got := options("-Dx=1", "-Xmx64m")
	for _, want := range []string{"-Dx=1", "-Xmx64m", "-XX:+ExitOnOutOfMemoryError", "-XX:MaxRAMPercentage=20"} {
		if !slices.Contains(got, want) {
			t.Errorf("options lack %q: %v", want, got)
		}
	}
	// A user's RAM percentage replaces Strimzi's default rather than adding a second one.
	if got := options("", "-XX:MaxRAMPercentage=50"); slices.Contains(got, "-XX:MaxRAMPercentage=20") {
		t.Errorf("default RAM percentage added beside the user's: %v", got)
	}
}
