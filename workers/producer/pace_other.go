//go:build !linux

package producer

import "time"

// fineTimer falls back to the runtime's timer where there is no timerfd: records
// may start up to a millisecond late (send delay reports by how much).
type fineTimer struct{}

func newFineTimer() (*fineTimer, error) { return &fineTimer{}, nil }

func (*fineTimer) sleep(d time.Duration) error { time.Sleep(d); return nil }

func (*fineTimer) close() {}
