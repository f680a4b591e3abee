//go:build !unix

package producer

import "time"

// fineSleep falls back to the runtime's timer where nanosleep is not available.
func fineSleep(d time.Duration) { time.Sleep(d) }
