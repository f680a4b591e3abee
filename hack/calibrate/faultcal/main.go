// faultcal measures the local fault engine (internal/netem) from outside it, on
// hack/calibrate/netns.sh's rig: the engine impairs the packets leaving the
// broker's network namespace, and faultcal sends its own traffic that way and
// measures what arrives (docs/faults.md, "Calibration"):
//   - delay: UDP echoes from a server in the namespace, every 4 ms; the round trip
//     minus the unimpaired one is each reply's added delay;
//   - loss: a paced TCP stream from the namespace; the share of packets the engine
//     dropped, the sender's retransmitted share of its transmissions
//     (RetransSegs / (OutSegs + RetransSegs) of the namespace's /proc/net/snmp:
//     OutSegs leaves retransmissions out), and how many of those the receiver
//     reported by D-SACK as needless (TCPDSACKRecvSegs);
//   - bandwidth: an unpaced TCP stream; the receiver's goodput in IP bytes (full
//     segments: 1500 B per 1448 B of payload) and the engine's released bytes.
//
// Run as netns.sh's command (it sets SERDEBENCH_FAULT_INTERFACE and NS_PID):
//
//	netns.sh 0 -- faultcal -o faults.json
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/sys/unix"

	"github.com/serdebench/serdebench/internal/netem"
	"github.com/serdebench/serdebench/internal/netem/engine"
)

// Delay is one delay distribution's measurement, in ms.
type Delay struct {
	Setting      string  `json:"setting"`
	WantMean     float64 `json:"wantMean"`
	WantStdDev   float64 `json:"wantStdDev"`
	Mean         float64 `json:"mean"`
	StdDev       float64 `json:"stdDev"`
	Samples      int     `json:"samples"`
	EngineMean   float64 `json:"engineMean"`
	EngineStdDev float64 `json:"engineStdDev"`
}

// Loss is one loss setting's measurement, in percent.
type Loss struct {
	SettingPercent float64 `json:"settingPercent"`
	// RigPercent is the engine's drops over the packets the fault decided
	// (netem.Stats.Impaired, RigPackets), drawn with Seed.
	RigPercent        float64 `json:"rigPercent"`
	RigPackets        int64   `json:"rigPackets"`
	Seed              uint64  `json:"seed"`
	RetransmitPercent float64 `json:"retransmitPercent"`
	OutSegs           int64   `json:"outSegs"`
	Retrans           int64   `json:"retransSegs"`
	// Needless is how many of the retransmitted segments the receiver got twice
	// (D-SACK): a tail loss probe or a timeout that fired while the original was
	// on its way. Retrans - Needless are the retransmissions a loss called for.
	Needless           int64   `json:"needlessSegs"`
	ReceivedMegabytes  float64 `json:"receivedMegabytes"`
	EngineLostPackets  int64   `json:"engineLostPackets"`
	EngineOverlimit    int64   `json:"engineOverlimit"`
	EngineEnobufs      int64   `json:"engineEnobufs"`
	KernelDropped      int64   `json:"kernelDropped"`
	EngineLateP99Micro float64 `json:"engineLateP99Micros"`
}

// Bandwidth is the bandwidth cap's measurement, in bytes per second (IP).
type Bandwidth struct {
	SettingBytesPerSecond int64   `json:"settingBytesPerSecond"`
	ReceiverBytesPerSec   float64 `json:"receiverBytesPerSecond"`
	EngineBytesPerSec     float64 `json:"engineBytesPerSecond"`
	Overlimit             int64   `json:"overlimit"`
}

// Result is everything faultcal measured.
type Result struct {
	BaseRTTMillis float64   `json:"baseRTTMillis"`
	Delays        []Delay   `json:"delays"`
	Losses        []Loss    `json:"losses"`
	Bandwidth     Bandwidth `json:"bandwidth"`
	Started       time.Time `json:"started"`
	Seconds       float64   `json:"seconds"`
	Kernel        string    `json:"kernel"`
	CongestionCtl string    `json:"congestionControl"`
	engine        *engine.Engine
	nsPID         string
	hostIP, nsIP  net.IP
}

func main() {
	out := flag.String("o", "faults.json", "where the measurements go (JSON)")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "faultcal:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	iface, nsPID := os.Getenv("SERDEBENCH_FAULT_INTERFACE"), os.Getenv("NS_PID")
	if iface == "" || nsPID == "" {
		return errors.New("run under hack/calibrate/netns.sh (SERDEBENCH_FAULT_INTERFACE, NS_PID)")
	}
	r := &Result{Started: time.Now().UTC(), nsPID: nsPID}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		r.Kernel = strings.TrimSpace(string(b))
	}
	// The receiver (here, on the host) must report duplicates by D-SACK, or the
	// needless resends are not counted and the loss check cannot hold.
	dsack, err := os.ReadFile("/proc/sys/net/ipv4/tcp_dsack")
	if err != nil {
		return fmt.Errorf("net.ipv4.tcp_dsack: %w", err)
	}
	if v := strings.TrimSpace(string(dsack)); v != "1" {
		return fmt.Errorf("net.ipv4.tcp_dsack is %s, want 1: the loss measurement counts needless resends by D-SACK", v)
	}
	if b, err := os.ReadFile("/proc/" + nsPID + "/root/proc/sys/net/ipv4/tcp_congestion_control"); err == nil {
		r.CongestionCtl = strings.TrimSpace(string(b))
	}
	if r.hostIP, err = ifaceIP(iface); err != nil {
		return err
	}
	r.nsIP = peerIP(r.hostIP)
	if r.engine, err = engine.Open(iface, 4215); err != nil {
		return err
	}
	defer func() { _ = r.engine.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	if err := r.delays(ctx); err != nil {
		return fmt.Errorf("delay: %w", err)
	}
	for _, p := range []float64{1, 3, 5, 10} {
		if err := r.loss(ctx, p); err != nil {
			return fmt.Errorf("loss %g%%: %w", p, err)
		}
	}
	if err := r.bandwidth(ctx); err != nil {
		return fmt.Errorf("bandwidth: %w", err)
	}
	r.Seconds = time.Since(r.Started).Seconds()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return os.WriteFile(out, b, 0o644)
}

// ifaceIP is the interface's IPv4 address.
func ifaceIP(name string) (net.IP, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil, err
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.IP.To4(), nil
		}
	}
	return nil, fmt.Errorf("%s has no IPv4 address", name)
}

// peerIP is the other end of the rig's /30: .1 ↔ .2.
func peerIP(ip net.IP) net.IP {
	p := append(net.IP{}, ip...)
	p[3] ^= 3
	return p
}

// inNamespace runs fn on a thread in the broker's network namespace: sockets it
// creates stay there.
func (r *Result) inNamespace(fn func() error) error {
	runtime.LockOSThread()
	// The thread is left locked (and ends with its goroutine) if switching back fails.
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", syscall.Gettid()))
	if err != nil {
		return err
	}
	defer func() { _ = self.Close() }()
	target, err := os.Open("/proc/" + r.nsPID + "/ns/net")
	if err != nil {
		return err
	}
	defer func() { _ = target.Close() }()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns: %w", err)
	}
	ferr := fn()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		return errors.Join(ferr, fmt.Errorf("setns back: %w", err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// delays measures two distributions against the unimpaired round trip.
func (r *Result) delays(ctx context.Context) error {
	var srv *net.UDPConn
	if err := r.inNamespace(func() (err error) {
		srv, err = net.ListenUDP("udp4", &net.UDPAddr{IP: r.nsIP, Port: 7007})
		return err
	}); err != nil {
		return err
	}
	defer func() { _ = srv.Close() }()
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := srv.ReadFromUDP(buf)
			if err != nil {
				return
			}
			_, _ = srv.WriteToUDP(buf[:n], from)
		}
	}()
	base, err := r.probe(ctx, 300)
	if err != nil {
		return err
	}
	r.BaseRTTMillis = median(base)
	for _, c := range []struct {
		m          netem.Impairment
		mean, sdev float64
	}{
		{netem.Impairment{Delay: 25 * time.Millisecond, Jitter: 5 * time.Millisecond, Normal: true}, 25, 5},
		{netem.Impairment{Delay: 69500 * time.Microsecond, Jitter: 5600 * time.Microsecond, Normal: true}, 69.5, 5.6},
		{netem.Impairment{Delay: 20 * time.Millisecond, Jitter: 6 * time.Millisecond}, 20, 6 / math.Sqrt(3)},
	} {
		if err := r.engine.Apply(ctx, c.m, 42); err != nil {
			return err
		}
		rtts, err := r.probe(ctx, 1500)
		st, cerr := r.engine.Clear(ctx)
		if err = errors.Join(err, cerr); err != nil {
			return err
		}
		for i := range rtts {
			rtts[i] -= r.BaseRTTMillis
		}
		mean, sd := stats.Mean(rtts), stats.StdDev(rtts)
		r.Delays = append(r.Delays, Delay{Setting: c.m.String(), WantMean: c.mean, WantStdDev: c.sdev, Mean: mean, StdDev: sd, Samples: len(rtts),
			EngineMean: st.DelayMeanMicros / 1000, EngineStdDev: st.DelayStdDevMicros / 1000})
	}
	return nil
}

// probe sends n echo requests 4 ms apart and returns their round trips in ms.
func (r *Result) probe(ctx context.Context, n int) ([]float64, error) {
	c, err := net.DialUDP("udp4", nil, &net.UDPAddr{IP: r.nsIP, Port: 7007})
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.Close() }()
	sent := make([]time.Time, n)
	got := make(chan []float64, 1)
	go func() {
		var rtts []float64
		buf := make([]byte, 64)
		_ = c.SetReadDeadline(time.Now().Add(time.Duration(n)*4*time.Millisecond + 2*time.Second))
		for len(rtts) < n {
			m, err := c.Read(buf)
			now := time.Now()
			if err != nil || m < 8 {
				break
			}
			if i := binary.BigEndian.Uint64(buf); int(i) < n {
				rtts = append(rtts, float64(now.Sub(sent[i]))/1e6)
			}
		}
		got <- rtts
	}()
	tick := time.NewTicker(4 * time.Millisecond)
	defer tick.Stop()
	msg := make([]byte, 32)
	for i := range n {
		binary.BigEndian.PutUint64(msg, uint64(i))
		sent[i] = time.Now()
		if _, err := c.Write(msg); err != nil {
			return nil, err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rtts := <-got
	if len(rtts) < n*99/100 {
		return nil, fmt.Errorf("%d of %d echoes came back", len(rtts), n)
	}
	return rtts, nil
}

// stream sends from the namespace to the host for d: paced at bytesPerSecond (0:
// as fast as TCP allows). It returns the bytes received from skip on and the
// seconds they took.
func (r *Result) stream(ctx context.Context, d, skip time.Duration, bytesPerSecond int64) (int64, float64, error) {
	l, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: r.hostIP, Port: 0})
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = l.Close() }()
	port := l.Addr().(*net.TCPAddr).Port
	var conn *net.TCPConn
	if err := r.inNamespace(func() (err error) {
		conn, err = net.DialTCP("tcp4", nil, &net.TCPAddr{IP: r.hostIP, Port: port})
		return err
	}); err != nil {
		return 0, 0, err
	}
	recv, err := l.AcceptTCP()
	if err != nil {
		_ = conn.Close()
		return 0, 0, err
	}
	type counted struct {
		n    int64
		secs float64
	}
	res := make(chan counted, 1)
	start := time.Now()
	go func() {
		defer func() { _ = recv.Close() }()
		buf := make([]byte, 1<<16)
		var n int64
		var from time.Time
		for {
			m, err := recv.Read(buf)
			now := time.Now()
			if now.Sub(start) >= skip {
				if from.IsZero() {
					from = now
				}
				n += int64(m)
			}
			if err != nil {
				res <- counted{n, now.Sub(from).Seconds()}
				return
			}
		}
	}()
	chunk := make([]byte, 16<<10)
	var sent int64
	for time.Since(start) < d && ctx.Err() == nil {
		if bytesPerSecond > 0 {
			if ahead := time.Duration(float64(sent)/float64(bytesPerSecond)*float64(time.Second)) - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
		_ = conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		m, err := conn.Write(chunk)
		sent += int64(m)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			_ = conn.Close()
			return 0, 0, err
		}
	}
	_ = conn.CloseWrite()
	_ = recv.SetReadDeadline(time.Now().Add(30 * time.Second))
	c := <-res
	_ = conn.Close()
	return c.n, c.secs, nil
}

// tcpCounts are the namespace's TCP counters faultcal reads.
type tcpCounts struct {
	out, retrans, needless int64
}

// tcpCounters reads the namespace's OutSegs and RetransSegs (/proc/net/snmp) and
// TCPDSACKRecvSegs (/proc/net/netstat): the retransmitted segments the receiver
// reported, by D-SACK, as received twice.
func (r *Result) tcpCounters() (tcpCounts, error) {
	var c tcpCounts
	for _, f := range []struct {
		file, prefix string
		want         map[string]*int64
	}{
		{"snmp", "Tcp:", map[string]*int64{"OutSegs": &c.out, "RetransSegs": &c.retrans}},
		{"netstat", "TcpExt:", map[string]*int64{"TCPDSACKRecvSegs": &c.needless}},
	} {
		b, err := os.ReadFile("/proc/" + r.nsPID + "/net/" + f.file)
		if err != nil {
			return c, fmt.Errorf("reading the namespace's TCP counters: %w", err)
		}
		found := 0
		var names []string
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || fields[0] != f.prefix {
				continue
			}
			if names == nil {
				names = fields
				continue
			}
			for i, v := range fields[:min(len(fields), len(names))] {
				if p, ok := f.want[names[i]]; ok {
					if *p, err = strconv.ParseInt(v, 10, 64); err != nil {
						return c, fmt.Errorf("%s %s: %w", f.file, names[i], err)
					}
					found++
				}
			}
		}
		if found != len(f.want) {
			return c, fmt.Errorf("/proc/net/%s of the namespace lacks some of %v", f.file, f.want)
		}
	}
	return c, nil
}

// loss measures one loss setting with a paced stream (8 MB/s, well within what
// the engine releases without falling behind: a release held back looks like
// reordering to TCP, which then retransmits spuriously).
func (r *Result) loss(ctx context.Context, percent float64) error {
	c0, err := r.tcpCounters()
	if err != nil {
		return err
	}
	// A fresh seed each run, so that runs sample the engine independently; 12 s
	// of the stream is about 75,000 packets: a 0.2-point bias at 3 % is 2.9
	// standard errors, and across the four settings together more than 5.
	seed := uint64(time.Now().UnixNano())
	if err := r.engine.Apply(ctx, netem.Impairment{Loss: percent / 100}, seed); err != nil {
		return err
	}
	n, _, serr := r.stream(ctx, 12*time.Second, 0, 8<<20)
	st, cerr := r.engine.Clear(ctx)
	if err := errors.Join(serr, cerr); err != nil {
		return err
	}
	c1, err := r.tcpCounters()
	if err != nil {
		return err
	}
	l := Loss{SettingPercent: percent, RigPackets: st.Impaired, Seed: seed, OutSegs: c1.out - c0.out, Retrans: c1.retrans - c0.retrans,
		Needless: c1.needless - c0.needless, ReceivedMegabytes: float64(n) / 1e6,
		EngineLostPackets: st.Lost, EngineOverlimit: st.Overlimit, EngineEnobufs: st.Enobufs, KernelDropped: st.KernelDropped, EngineLateP99Micro: st.LateP99Micros}
	if st.Impaired > 0 {
		l.RigPercent = 100 * float64(st.Lost) / float64(st.Impaired)
	}
	// OutSegs leaves out retransmitted segments: every transmission is one or
	// the other.
	if sent := l.OutSegs + l.Retrans; sent > 0 {
		l.RetransmitPercent = 100 * float64(l.Retrans) / float64(sent)
	}
	r.Losses = append(r.Losses, l)
	return nil
}

// bandwidth measures an 8 Mbit/s cap with Chaos Mesh's default buffer and limit.
// The engine's own figure is what it released at the cap, from the first packet
// to the rule's removal (the queue stays full until then; what it still held was
// let through at once and is left out).
func (r *Result) bandwidth(ctx context.Context) error {
	m := netem.Impairment{RateBytesPerSecond: 1_000_000, BufferBytes: 10000, LimitBytes: 262144}
	if err := r.engine.Apply(ctx, m, 1); err != nil {
		return err
	}
	n, secs, serr := r.stream(ctx, 8*time.Second, 2*time.Second, 0)
	st, cerr := r.engine.Clear(ctx)
	if err := errors.Join(serr, cerr); err != nil {
		return err
	}
	const ipPerPayload = 1500.0 / 1448 // full segments with timestamps
	r.Bandwidth = Bandwidth{SettingBytesPerSecond: m.RateBytesPerSecond, ReceiverBytesPerSec: float64(n) * ipPerPayload / secs,
		EngineBytesPerSec: float64(st.ReleasedBytes-st.FlushedBytes) / st.Removed.Sub(st.First).Seconds(), Overlimit: st.Overlimit}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
