// Command worker is serdebench's producer or consumer worker, as the operator runs it
// in a pod:
//
//	worker --role producer|consumer --trial '<plan.Trial JSON>' --bootstrap host:port --topic T [...]
//
// It serves /metrics while it runs and for --metrics-grace after, prints its summary
// (JSON, with encoded histograms) on stdout and to --summary-file, and exits 0. On
// SIGTERM it stops sending, flushes, reports what it measured and exits 0. Errors
// (an unreachable broker, a bad trial) print to stderr and exit 1.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/serdebench/serdebench/internal/workercmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := workercmd.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
