package runner

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// BrokerScript kills, stops and starts the local broker a pod fault acts on,
// through a script with hack/kafka/kafka.sh's subcommands: `status` (exit 0 when
// running), `kill` (SIGKILL, failing when not running), `down` (SIGTERM, as the
// kubelet stops a container) and `up` (start, returning once it serves).
type BrokerScript struct {
	// Path is the script (e.g. hack/kafka/kafka.sh).
	Path string
	// Env is its environment (nil: serdebench's own), which names the broker to
	// kafka.sh: KAFKA_PORT, KAFKA_STATE_DIR.
	Env []string
	// Timeout bounds each call (default 2 min: kafka.sh up waits up to 90 s).
	Timeout time.Duration
}

// Addresses are the running broker's client addresses as its script's status
// names them (kafka.sh: "running pid=… bootstrap=HOST:PORT listeners=A,B,C …"),
// 127.0.0.1 also as localhost; an error if it is not running or names none.
func (b *BrokerScript) Addresses(ctx context.Context) ([]string, error) {
	out, err := b.output(ctx, "status")
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, f := range strings.Fields(out) {
		k, v, _ := strings.Cut(f, "=")
		if k != "bootstrap" && k != "listeners" {
			continue
		}
		for _, a := range strings.Split(v, ",") {
			addrs = append(addrs, a)
			if port, ok := strings.CutPrefix(a, "127.0.0.1:"); ok {
				addrs = append(addrs, "localhost:"+port)
			}
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s status names no bootstrap=HOST:PORT: %q", b.Path, strings.TrimSpace(out))
	}
	return addrs, nil
}

// Serves fails unless the broker is running and one of its addresses is among
// brokers: the script acts on the broker the trials use, not another one.
func (b *BrokerScript) Serves(ctx context.Context, brokers []string) error {
	addrs, err := b.Addresses(ctx)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if slices.Contains(brokers, a) {
			return nil
		}
	}
	return fmt.Errorf("%s acts on the broker at %v, which is not among the bootstrap servers %v", b.Path, addrs, brokers)
}

// Kill ends the broker's process at once, as a pod kill does.
func (b *BrokerScript) Kill(ctx context.Context) error { return b.run(ctx, "kill") }

// Stop ends the broker as the kubelet ends a container: SIGTERM, then SIGKILL
// after a grace period (a pod failure).
func (b *BrokerScript) Stop(ctx context.Context) error { return b.run(ctx, "down") }

// Start starts the broker on its existing data and returns once it serves.
func (b *BrokerScript) Start(ctx context.Context) error { return b.run(ctx, "up") }

func (b *BrokerScript) run(ctx context.Context, arg string) error {
	_, err := b.output(ctx, arg)
	return err
}

// output runs the script with arg, in a process group of its own: a Ctrl-C meant
// for serdebench must not end a broker's stop or start half-way, and a start goes
// on if serdebench exits meanwhile.
func (b *BrokerScript) output(ctx context.Context, arg string) (string, error) {
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.Path, arg)
	cmd.Env = b.Env
	detach(cmd)
	// The broker it starts keeps the output pipe open only if it inherits it;
	// kafka.sh redirects the JVM's, but a stray child must not hold us.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 2000 { // its last lines say why
			msg = "…" + msg[len(msg)-2000:]
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("%s %s: not done after %s: %s", b.Path, arg, timeout, msg)
		}
		return "", fmt.Errorf("%s %s: %w: %s", b.Path, arg, err, msg)
	}
	return string(out), nil
}
