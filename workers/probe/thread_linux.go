package probe

import "golang.org/x/sys/unix"

// threadCPU is the calling OS thread's CPU time in nanoseconds (0: unknown).
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
