// Command pause is the local cluster's pod sandbox: no registry is reachable here,
// so the usual registry.k8s.io/pause image is built from this file instead. It
// blocks until SIGTERM or SIGINT and reaps zombies, its duty as PID 1 when a pod
// shares its process namespace.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range ch {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
