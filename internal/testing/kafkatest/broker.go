package kafkatest

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Broker is a private broker a test starts with the project's own script
// (hack/kafka/kafka.sh), on its own ports and state directory, so it can restart or
// stop it without disturbing the shared one.
type Broker struct {
	t     testing.TB
	env   []string
	state string
	// Bootstrap is its PLAINTEXT listener.
	Bootstrap []string
}

// StartBroker starts a broker on port (and the next three) with its state under the
// test's temporary directory; it is stopped when the test ends.
func StartBroker(t testing.TB, port int) *Broker {
	t.Helper()
	b := NewBroker(t, port)
	if out, err := b.Script("up"); err != nil {
		t.Fatalf("start test broker on %d: %v\n%s", port, err, out)
	}
	return b
}

// NewBroker prepares a private broker without starting it (Script("up") or Command
// does); whatever starts it, it is stopped when the test ends.
func NewBroker(t testing.TB, port int) *Broker {
	t.Helper()
	state := filepath.Join(t.TempDir(), "kafka")
	b := &Broker{t: t, state: state, Bootstrap: []string{"127.0.0.1:" + strconv.Itoa(port)},
		env: append(os.Environ(), fmt.Sprintf("KAFKA_PORT=%d", port), "KAFKA_STATE_DIR="+state, "KAFKA_HEAP=512m")}
	track(b)
	t.Cleanup(func() {
		if out, err := b.Script("down"); err != nil {
			t.Errorf("stop test broker: %v\n%s", err, out)
		}
		untrack(b)
	})
	return b
}

// live are the private brokers of this test binary not yet stopped. The script
// leaves a broker running as a daemon and t.Cleanup does not run when the binary is
// killed, so on SIGTERM or SIGINT it stops them itself, then dies of the signal.
var live = struct {
	sync.Mutex
	brokers map[*Broker]bool
	once    sync.Once
}{brokers: map[*Broker]bool{}}

func track(b *Broker) {
	live.once.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
		go func() {
			sig := <-ch
			live.Lock() // held: no broker starts or stops after this
			for b := range live.brokers {
				_ = b.Command("down").Run()
			}
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		}()
	})
	live.Lock()
	defer live.Unlock()
	live.brokers[b] = true
}

func untrack(b *Broker) {
	live.Lock()
	defer live.Unlock()
	delete(live.brokers, b)
}

// Script runs hack/kafka/kafka.sh with the broker's environment.
func (b *Broker) Script(args ...string) (string, error) {
	out, err := b.Command(args...).CombinedOutput()
	return string(out), err
}

// ScriptPath is hack/kafka/kafka.sh's path, for code that runs the script itself.
func (b *Broker) ScriptPath() string {
	return filepath.Join(repoRoot(b.t), "hack", "kafka", "kafka.sh")
}

// Environ is the script's environment for this broker (see ScriptPath).
func (b *Broker) Environ() []string { return slices.Clone(b.env) }

// Command is the script invocation, for tests that wrap it (flock).
func (b *Broker) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(b.ScriptPath(), args...)
	cmd.Env = b.env
	return cmd
}

// PID is the broker JVM's process ID, from the script's PID file.
func (b *Broker) PID() int {
	b.t.Helper()
	pid, err := readPID(filepath.Join(b.state, "kafka.pid"))
	if err != nil {
		b.t.Fatal(err)
	}
	return pid
}

// readPID is the first field of a PID file the script writes ("PID STARTTIME",
// hack/lib/daemon.sh).
func readPID(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(raw))
	if len(fields) != 2 {
		return 0, fmt.Errorf("PID file %q: want \"PID STARTTIME\"", raw)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, fmt.Errorf("PID file %q: %w", raw, err)
	}
	return pid, nil
}
