// Command worker is serdebench's producer or consumer worker, as the operator runs it
// in a pod (workers/protocol.Worker lists its arguments):
//
//	worker --role producer|consumer --trial '<trial JSON>' --bootstrap host:port --topic T --group G [...]
//
// It serves /metrics while it runs and after, until every scraper seen has scraped
// once more (at most --metrics-grace), prints its summary
// (JSON, with encoded histograms) on stdout and to --termination-log, and exits 0
// once the trial is complete. On SIGTERM or --timeout it stops sending, waits at
// most --drain-timeout for what is in flight, prints its partial summary marked
// interrupted and exits 3. Errors (an unreachable broker, a bad trial) print to
// stderr and exit 1; invalid arguments exit 2.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/serdebench/serdebench/workers/run"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run.ProcessMain(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
