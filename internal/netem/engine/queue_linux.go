package engine

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"unsafe"
)

// Netlink and nfnetlink_queue constants (linux/netfilter/nfnetlink_queue.h).
const (
	netlinkNetfilter = 12
	subsysQueue      = 3
	msgPacket        = 0
	msgVerdict       = 1
	msgConfig        = 2
	attrPacketHdr    = 1
	attrVerdictHdr   = 2
	attrPayload      = 10
	cfgCmd           = 1
	cfgParams        = 2
	cfgQueueMaxlen   = 3
	cmdBind          = 1
	cmdUnbind        = 2
	copyPacket       = 2
	verdictDrop      = 0
	verdictAccept    = 1
	nlmFRequest      = 1
	nlmFAck          = 4
	nlmsgError       = 2
	clockMonotonic   = 1
	timerAbstime     = 1
	prSetTimerslack  = 29
	// headerBytes is how much of each packet the kernel copies: its IPv4 header,
	// for the total length the bandwidth cap counts.
	headerBytes = 20
)

var be = binary.BigEndian

func monotonicNanos() int64 {
	var ts syscall.Timespec
	_, _, _ = syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// sleepUntil blocks the calling (locked) OS thread on an absolute
// CLOCK_MONOTONIC hrtimer: Go's timers are too coarse for sub-millisecond holds.
func sleepUntil(t int64) {
	ts := syscall.NsecToTimespec(t)
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_CLOCK_NANOSLEEP, clockMonotonic, timerAbstime, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

func nlmsg(typ, flags uint16, queue uint16, attrs []byte) []byte {
	b := make([]byte, 20, 20+len(attrs))
	binary.NativeEndian.PutUint32(b[0:], uint32(20+len(attrs)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	// nfgenmsg: family AF_UNSPEC, version 0, res_id = queue (big endian)
	be.PutUint16(b[18:], queue)
	return append(b, attrs...)
}

func attr(typ uint16, payload []byte) []byte {
	l := 4 + len(payload)
	b := make([]byte, (l+3)&^3)
	binary.NativeEndian.PutUint16(b[0:], uint16(l))
	binary.NativeEndian.PutUint16(b[2:], typ)
	copy(b[4:], payload)
	return b
}

func u32(v uint32) []byte { b := make([]byte, 4); be.PutUint32(b, v); return b }

// queue is a bound NFQUEUE: packets in, verdicts out.
type queue struct {
	fd  int
	num uint16
}

// openQueue binds queue num in the calling process's network namespace; the
// kernel copies each packet's IPv4 header and holds at most maxlen packets.
func openQueue(num uint16, maxlen uint32) (*queue, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, netlinkNetfilter)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("bind netlink socket: %w", err)
	}
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 8<<20) != nil {
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<20)
	}
	q := &queue{fd: fd, num: num}
	params := make([]byte, 5)
	be.PutUint32(params, headerBytes)
	params[4] = copyPacket
	for i, a := range [][]byte{
		attr(cfgCmd, []byte{cmdBind, 0, 0, syscall.AF_INET}),
		attr(cfgParams, params),
		attr(cfgQueueMaxlen, u32(maxlen)),
	} {
		if err := q.config(a); err != nil {
			_ = syscall.Close(fd)
			return nil, fmt.Errorf("configure NFQUEUE %d (step %d; queue busy, or no CAP_NET_ADMIN?): %w", num, i+1, err)
		}
	}
	return q, nil
}

// config sends one configuration message and waits for its acknowledgement.
func (q *queue) config(a []byte) error {
	if err := syscall.Sendto(q.fd, nlmsg(subsysQueue<<8|msgConfig, nlmFRequest|nlmFAck, q.num, a), 0,
		&syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := syscall.Recvfrom(q.fd, buf, 0)
		if err != nil {
			return err
		}
		if n < 20 || binary.NativeEndian.Uint16(buf[4:]) != nlmsgError {
			continue // a packet already queued: the kernel re-queues nothing, so none is lost here before binding completes
		}
		if e := int32(binary.NativeEndian.Uint32(buf[16:])); e != 0 {
			return syscall.Errno(-e)
		}
		return nil
	}
}

// packet is one queued packet: its id and IPv4 total length.
type packet struct {
	id    uint32
	bytes int64
}

// read blocks for the next batch of packets and appends them to out.
func (q *queue) read(buf []byte, out []packet) ([]packet, error) {
	n, _, err := syscall.Recvfrom(q.fd, buf, 0)
	if err != nil {
		return out, err
	}
	for off := 0; off+16 <= n; {
		l := int(binary.NativeEndian.Uint32(buf[off:]))
		typ := binary.NativeEndian.Uint16(buf[off+4:])
		if l < 16 || off+l > n {
			break
		}
		if typ == subsysQueue<<8|msgPacket {
			var p packet
			found := false
			for a := off + 20; a+4 <= off+l; {
				al := int(binary.NativeEndian.Uint16(buf[a:]))
				at := binary.NativeEndian.Uint16(buf[a+2:]) & 0x3fff
				if al < 4 {
					break
				}
				switch {
				case at == attrPacketHdr && al >= 8:
					p.id, found = be.Uint32(buf[a+4:]), true
				case at == attrPayload && al >= 4+4:
					p.bytes = int64(be.Uint16(buf[a+4+2:])) // IPv4 total length
				}
				a += (al + 3) &^ 3
			}
			if found {
				out = append(out, p)
			}
		}
		off += (l + 3) &^ 3
	}
	return out, nil
}

// verdict accepts or drops a packet.
func (q *queue) verdict(id uint32, accept bool) error {
	vh := make([]byte, 8)
	v := uint32(verdictDrop)
	if accept {
		v = verdictAccept
	}
	be.PutUint32(vh[0:], v)
	be.PutUint32(vh[4:], id)
	return syscall.Sendto(q.fd, nlmsg(subsysQueue<<8|msgVerdict, nlmFRequest, q.num, attr(attrVerdictHdr, vh)), 0,
		&syscall.SockaddrNetlink{Family: syscall.AF_NETLINK})
}

// close unbinds the queue: the kernel accepts (with --queue-bypass) or drops
// what is still queued.
func (q *queue) close() error {
	_ = q.config(attr(cfgCmd, []byte{cmdUnbind, 0, 0, syscall.AF_INET}))
	return syscall.Close(q.fd)
}
