package kafkatest

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestBrokerDoesNotInheritDescriptors: a broker started by a caller that holds a
// lock (here on descriptor 3, as `flock FILE make test` would) must not keep it:
// the JVM has none of the caller's descriptors above 2, and the lock is free again
// once the script has returned.
func TestBrokerDoesNotInheritDescriptors(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "lock")
	lock, err := os.Create(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Close() }()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	b := NewBroker(t, 19192)
	cmd := b.Command("up")
	cmd.ExtraFiles = []*os.File{lock}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	pid := b.PID()
	fds, err := os.ReadDir(filepath.Join("/proc", itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc", itoa(pid), "fd", fd.Name())); err == nil && target == lockPath {
			t.Fatalf("broker pid %d holds the caller's lock file on descriptor %s", pid, fd.Name())
		}
	}
	// Our descriptor is the only holder: closing it frees the lock for anyone.
	if err := lock.Close(); err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("lock still held after the script returned: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
