//go:build unix

package producer

import (
	"time"

	"golang.org/x/sys/unix"
)

// fineSleep sleeps d in the kernel (nanosleep): late by the thread's timer slack
// (50 µs by default), not by a millisecond. The runtime hands the processor to other
// goroutines while this thread sleeps.
func fineSleep(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	// The runtime's preemption signals interrupt the sleep; ts holds what is left.
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
