package kafkaconn

import (
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/IBM/sarama"
)

// DialTimeout bounds one connection attempt, in every client.
const DialTimeout = 5 * time.Second

// Buffers are a connection's socket buffer sizes in bytes; a value <= 0 leaves the
// buffer to the operating system, which autotunes it.
type Buffers struct {
	Send, Receive int
}

// Dialer dials TCP with the given socket buffers, set before connecting so the TCP
// window scale is negotiated for them (as the Java client does).
func (b Buffers) Dialer() *net.Dialer {
	d := &net.Dialer{Timeout: DialTimeout}
	if b.Send <= 0 && b.Receive <= 0 {
		return d
	}
	d.Control = func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			if b.Send > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, b.Send)
			}
			if serr == nil && b.Receive > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, b.Receive)
			}
		})
		if err != nil {
			return fmt.Errorf("socket buffers: %w", err)
		}
		if serr != nil {
			return fmt.Errorf("socket buffers: %w", serr)
		}
		return nil
	}
	return d
}

// ApplyBuffers makes sarama dial with the given socket buffers (sarama adds TLS on
// top of whatever its dialer returns).
func ApplyBuffers(c *sarama.Config, b Buffers) {
	if b.Send <= 0 && b.Receive <= 0 {
		return
	}
	c.Net.Proxy.Enable = true
	c.Net.Proxy.Dialer = b.Dialer()
}
