package kafkatest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// running says whether process pid runs: exists and is not a zombie (an exited
// daemon waits for whichever ancestor reaps it).
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// "pid (comm) state ...": the state follows the last parenthesis.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// TestBrokersStopOnSIGTERM: a test binary killed by SIGTERM (a stopped `make test`)
// stops the private brokers it started, which t.Cleanup would have, before it ends.
// The test runs itself as a child that starts a broker and waits, then terminates it.
func TestBrokersStopOnSIGTERM(t *testing.T) {
	if os.Getenv("KAFKATEST_SIGTERM_CHILD") != "" {
		StartBroker(t, 19196)
		fmt.Println("broker up")
		time.Sleep(2 * time.Minute) // until the parent's SIGTERM
		return
	}
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokersStopOnSIGTERM$", "-test.v")
	cmd.Env = append(os.Environ(), "KAFKATEST_SIGTERM_CHILD=1", "TMPDIR="+state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "broker up" {
				up <- true
			}
		}
		close(up)
	}()
	select {
	case ok := <-up:
		if !ok {
			t.Fatal("the child ended before its broker was up")
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the child's broker was not up within 2 minutes")
	}
	pids, err := filepath.Glob(filepath.Join(state, "*", "*", "kafka", "kafka.pid"))
	if err != nil || len(pids) != 1 {
		_ = cmd.Process.Kill()
		t.Fatalf("the child's broker PID file: %v %v", pids, err)
	}
	pid, err := readPID(pids[0])
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the child did not end within a minute of SIGTERM")
	}
	if running(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("broker pid %d outlived the test binary that started it", pid)
	}
}
