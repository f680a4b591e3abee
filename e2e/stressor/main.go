//go:build linux

// Command stressor is the e2e suite's slower machine: CPU stress beside the
// workers, run as a pod on their node. Chaos Mesh's StressChaos does this on a
// cluster with its chaos-daemon, which the local cluster cannot run
// (hack/chaosmesh/deploy.sh says why). It spins -per-cpu busy threads pinned to
// each of the node's CPUs, so every core the workers might run on is shared; how
// much of a core a worker then keeps is set by the pods' CPU requests (the
// kernel's CFS shares), not by how many threads spin. It runs until SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

func main() {
	perCPU := flag.Int("per-cpu", 2, "busy threads pinned to each CPU")
	flag.Parse()
	n := runtime.NumCPU()
	// Each busy goroutine holds its own thread and a P: without enough Ps the
	// runtime would take turns between them instead of spinning them all.
	runtime.GOMAXPROCS(n**perCPU + 1)
	for i := range n * *perCPU {
		go spin(i % n)
	}
	fmt.Printf("stressor: %d busy threads on %d CPUs\n", n**perCPU, n)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	<-ch
}

// spin busy-loops on its own OS thread, pinned to cpu.
func spin(cpu int) {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		fmt.Fprintf(os.Stderr, "stressor: pin to CPU %d: %v (left unpinned)\n", cpu, err)
	}
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			fmt.Println() // never: keeps the loop from being optimised away
		}
	}
}
