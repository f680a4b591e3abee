//go:build linux

package producer

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fineTimer sleeps on a timerfd through the runtime's netpoller: the kernel wakes
// the poller within microseconds of the deadline, and the waiting goroutine holds
// no processor meanwhile. (A blocking nanosleep would be as precise but keep its
// processor until the runtime's monitor took it back: with GOMAXPROCS=1 at 20,000
// records/s that starved the client and raised ack p50 from 1.4 to 9 ms.)
type fineTimer struct {
	fd  int
	f   *os.File
	buf [8]byte
}

func newFineTimer() (*fineTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd_create: %w", err)
	}
	// A non-blocking descriptor: os.NewFile registers it with the netpoller.
	return &fineTimer{fd: fd, f: os.NewFile(uintptr(fd), "pacer-timerfd")}, nil
}

// sleep waits d: arm the timer once, read its expiry count when it fires.
func (t *fineTimer) sleep(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(t.fd, 0, &spec, nil); err != nil {
		return fmt.Errorf("timerfd_settime: %w", err)
	}
	if _, err := t.f.Read(t.buf[:]); err != nil {
		return fmt.Errorf("read timerfd: %w", err)
	}
	return nil
}

func (t *fineTimer) close() { _ = t.f.Close() }
