// Command pod is the entrypoint of the local cluster's Strimzi Topic Operator image
// (hack/strimzi/build.sh): it does what Strimzi's topic_operator_run.sh and
// launch_java.sh do in Strimzi's own image, then becomes the JVM so SIGTERM reaches
// the Topic Operator directly. The Topic Operator reads its settings from STRIMZI_*
// environment variables (hack/strimzi/deploy.sh sets them).
//
// Environment, as Strimzi's scripts read it: STRIMZI_JAVA_OPTS and
// STRIMZI_JAVA_SYSTEM_PROPERTIES are added to the JVM's options; without a heap
// setting the heap is 15–20 % of the container's memory, Strimzi's default.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

const (
	java      = "/opt/java/bin/java"
	classpath = "/opt/strimzi/lib/*"
	// mainClassFile names the Topic Operator's main class (from its jar's manifest:
	// it differs between Strimzi lines).
	mainClassFile = "/opt/strimzi/main-class"
)

func main() {
	// Files a previous run of this container left (snappy and zstd unpack native
	// libraries into /tmp); errors are ignored, as Strimzi's script does.
	if entries, err := os.ReadDir(os.TempDir()); err == nil {
		for _, e := range entries {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
	mainClass, err := os.ReadFile(mainClassFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "topic operator pod: %v\n", err)
		os.Exit(1)
	}
	args := append([]string{java}, options(os.Getenv("STRIMZI_JAVA_SYSTEM_PROPERTIES"), os.Getenv("STRIMZI_JAVA_OPTS"))...)
	args = append(args, "-classpath", classpath, strings.TrimSpace(string(mainClass)))
	env := append(os.Environ(), "MALLOC_ARENA_MAX=2")
	if err := syscall.Exec(java, args, env); err != nil {
		fmt.Fprintf(os.Stderr, "topic operator pod: exec %s: %v\n", java, err)
		os.Exit(1)
	}
}

// options are the JVM options Strimzi's launch_java.sh builds.
func options(systemProperties, javaOpts string) []string {
	opts := append(strings.Fields(systemProperties), strings.Fields(javaOpts)...)
	opts = append(opts, "-Djava.security.egd=file:/dev/./urandom", "-XX:+ExitOnOutOfMemoryError")
	all := strings.Join(opts, " ")
	if !strings.Contains(all, "MinRAMPercentage") && !strings.Contains(all, "MaxRAMPercentage") {
		opts = append(opts, "-XX:MinRAMPercentage=15", "-XX:MaxRAMPercentage=20")
	}
	return opts
}
