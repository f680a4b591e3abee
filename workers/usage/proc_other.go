//go:build !linux

package usage

import (
	"errors"
	"runtime"
)

var errNotLinux = errors.New("reading a process's CPU time and resident set needs Linux's /proc and getrusage, not " + runtime.GOOS)

// Self reads this process: Linux only.
func Self() Reader { return func() (Reading, error) { return Reading{}, errNotLinux } }

// Process reads another process: Linux only.
func Process(int) Reader { return func() (Reading, error) { return Reading{}, errNotLinux } }

// Command names a process: Linux only.
func Command(int) (string, error) { return "", errNotLinux }

// ListeningPID finds a listening process: Linux only.
func ListeningPID(int) (int, error) { return 0, errNotLinux }
