// Package cpuload plants a known CPU load for tests that check a measurement
// against it: goroutines spinning in this process, as a noisy neighbour would.
package cpuload

import (
	"sync"
	"sync/atomic"
)

// Spin starts n goroutines that spin until the returned stop is called; stop
// waits for them to end.
func Spin(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := 0; !done.Load(); i++ {
				_ = i * i
			}
		})
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}
