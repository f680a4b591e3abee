package topics

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// Pool shares admin clients between calls to the same Kafka cluster with the same
// credentials. Opening a client costs a connection and a metadata read; at 1,000
// experiments accepted at once, one per call was most of the operator's acceptance
// time. A client is retired after a call that failed other than by Kafka's answer
// (a connection error, a timeout) and at once when a caller gives up on a call (it
// may hold the shared connection), after MaxIdle unused, and after MaxAge in any
// case, so a client that went bad unnoticed lives a bounded time; a retired client
// is closed when its last call ends. Safe for concurrent use, as sarama's admin
// client is (it keeps only its Client, which is).
type Pool struct {
	// MaxIdle and MaxAge bound a client's life (defaults 30 s and 2 min).
	MaxIdle, MaxAge time.Duration
	// now is the clock (tests).
	now func() time.Time

	mu      sync.Mutex
	clients map[[sha256.Size]byte]*pooled
	closed  bool
}

type pooled struct {
	admin           sarama.ClusterAdmin
	opened, used    time.Time
	users           int
	retired, closed bool
}

// poolKey identifies a cluster and credentials: the brokers and every security field.
func poolKey(brokers []string, s kafkaconn.Security) [sha256.Size]byte {
	h := sha256.New()
	field := func(b []byte) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(b)))
		h.Write(b)
	}
	field([]byte(strings.Join(brokers, ",")))
	flags := []byte{0, 0}
	if s.TLS {
		flags[0] = 1
	}
	if s.InsecureSkipVerify {
		flags[1] = 1
	}
	field(flags)
	field(s.CAPEM)
	field([]byte(s.SASLMechanism))
	field([]byte(s.Username))
	field([]byte(s.Password))
	var k [sha256.Size]byte
	copy(k[:], h.Sum(nil))
	return k
}

func (p *Pool) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

func (p *Pool) limits() (idle, age time.Duration) {
	idle, age = p.MaxIdle, p.MaxAge
	if idle <= 0 {
		idle = 30 * time.Second
	}
	if age <= 0 {
		age = 2 * time.Minute
	}
	return idle, age
}

// lease is one call's use of a client.
type lease struct {
	admin sarama.ClusterAdmin
	// done ends the call; healthy false retires a pooled client.
	done func(healthy bool)
	// abandon retires a pooled client at once, while the call may still use it (a
	// call its caller gave up on: it may have stalled the shared connection).
	abandon func()
}

// get returns a lease on a client for the key, opening one with open if none is
// usable. Clients past their limits are closed here, once no call uses them; after
// Close, every call gets a client of its own, closed after it.
func (p *Pool) get(key [sha256.Size]byte, open func() (sarama.ClusterAdmin, error)) (lease, error) {
	idle, age := p.limits()
	now := p.clock()
	p.mu.Lock()
	if p.clients == nil {
		p.clients = map[[sha256.Size]byte]*pooled{}
	}
	for k, c := range p.clients {
		if now.Sub(c.opened) > age || (c.users == 0 && now.Sub(c.used) > idle) {
			p.retire(k, c)
		}
	}
	if c := p.clients[key]; c != nil {
		c.users++ // under the lock that found it: nothing closes it from here
		c.used = now
		p.mu.Unlock()
		return p.leaseOf(key, c), nil
	}
	p.mu.Unlock()
	// Opened outside the lock: a slow or unreachable cluster must not stall calls to
	// others.
	ad, err := open()
	if err != nil {
		return lease{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.clients[key] != nil {
		// Closed meanwhile, or another call opened one first: this one is the
		// call's own.
		return lease{admin: ad, done: func(bool) { _ = ad.Close() }, abandon: func() {}}, nil
	}
	c := &pooled{admin: ad, opened: now, used: now, users: 1}
	p.clients[key] = c
	return p.leaseOf(key, c), nil
}

func (p *Pool) leaseOf(key [sha256.Size]byte, c *pooled) lease {
	var once sync.Once
	return lease{admin: c.admin,
		done: func(healthy bool) { once.Do(func() { p.release(key, c, healthy) }) },
		abandon: func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.retire(key, c)
		}}
}

// retire removes c from the pool (p.mu held); it is closed once no call uses it.
func (p *Pool) retire(k [sha256.Size]byte, c *pooled) {
	if p.clients[k] == c {
		delete(p.clients, k)
	}
	c.retired = true
	p.closeIfUnused(c)
}

// closeIfUnused closes a retired client no call uses (p.mu held), in the background:
// sarama's Close waits on its connections.
func (p *Pool) closeIfUnused(c *pooled) {
	if c.retired && c.users == 0 && !c.closed {
		c.closed = true
		go func() { _ = c.admin.Close() }()
	}
}

func (p *Pool) release(k [sha256.Size]byte, c *pooled, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.users--
	c.used = p.clock()
	if !ok {
		p.retire(k, c)
	}
	p.closeIfUnused(c)
}

// Close closes every client not in use and retires the rest; later calls get a
// client of their own each (reconciles may still run while a manager stops).
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k, c := range p.clients {
		p.retire(k, c)
	}
}
