// Command pod is the JVM worker image's entrypoint (hack/jvm/build.sh image): it
// becomes the JVM running the worker (workers/jvm) with the container's arguments,
// so SIGTERM reaches the worker directly. The image has no shell; the flags live
// here: no perf data file (the root is read-only), the heap at three quarters of the
// container's memory limit, Unsafe's memory access allowed (msgpack-java and
// Kafka's client use it; Java 23+ warns otherwise), and cmd/pool beside the jars.
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
)

func main() {
	args := append([]string{java, "-XX:-UsePerfData", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError",
		"--sun-misc-unsafe-memory-access=allow", "-cp", classpath, "io.serdebench.worker.Main"}, os.Args[1:]...)
	env := append(os.Environ(), "SERDEBENCH_POOL="+pool)
	err := syscall.Exec(java, args, env)
	fmt.Fprintf(os.Stderr, "worker-jvm: exec %s: %v\n", java, err)
	os.Exit(1)
}
