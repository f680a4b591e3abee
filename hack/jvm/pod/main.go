// Command pod is the JVM worker image's entrypoint (hack/jvm/build.sh image): it
// becomes the JVM running the worker (workers/jvm) with the container's arguments,
// so SIGTERM reaches the worker directly. The image has no shell. The JVM's flags
// are hack/jvm/build.sh's jvm.options, the same file bin/worker-jvm reads; cmd/pool
// lies beside the jars.
package main

import (
	"fmt"
	"os"
	"syscall"
)

const (
	java      = "/opt/java/bin/java"
	classpath = "/opt/serdebench/lib/worker.jar:/opt/serdebench/lib/*"
	pool      = "/opt/serdebench/bin/pool"
	options   = "@/opt/serdebench/jvm.options"
)

func main() {
	args := append([]string{java, options, "-cp", classpath, "io.serdebench.worker.Main"}, os.Args[1:]...)
	env := append(os.Environ(), "SERDEBENCH_POOL="+pool)
	err := syscall.Exec(java, args, env)
	fmt.Fprintf(os.Stderr, "worker-jvm: exec %s: %v\n", java, err)
	os.Exit(1)
}
