package usage

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100
// on every architecture Go supports.
const clockTicks = 100

// Self reads this process: getrusage's CPU time, /proc/self/statm's resident set
// and the Go runtime's heap.
func Self() Reader {
	return func() (Reading, error) {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return Reading{}, fmt.Errorf("getrusage: %w", err)
		}
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		rss, err := residentBytes("self")
		if err != nil {
			return Reading{}, err
		}
		return Reading{At: time.Now(), CPUSeconds: cpu, RSSBytes: rss, HeapBytes: goHeap()}, nil
	}
}

// Process reads another process by PID (a local broker's JVM): CPU time from
// /proc/<pid>/stat, its resident set from /proc/<pid>/statm.
func Process(pid int) Reader {
	dir := strconv.Itoa(pid)
	return func() (Reading, error) {
		b, err := os.ReadFile("/proc/" + dir + "/stat")
		if err != nil {
			return Reading{}, err
		}
		// The command name (field 2) may hold spaces: fields count from its ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			return Reading{}, fmt.Errorf("/proc/%s/stat: %d fields", dir, len(f))
		}
		utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
		stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
		if err1 != nil || err2 != nil {
			return Reading{}, fmt.Errorf("/proc/%s/stat: utime %q stime %q", dir, f[11], f[12])
		}
		rss, err := residentBytes(dir)
		if err != nil {
			return Reading{}, err
		}
		return Reading{At: time.Now(), CPUSeconds: float64(utime+stime) / clockTicks, RSSBytes: rss}, nil
	}
}

// Command is a process's command name (/proc/<pid>/comm), e.g. java.
func Command(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b)), err
}

// residentBytes is /proc/<pid>/statm's resident pages in bytes.
func residentBytes(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%s/statm: %q", pid, b)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%s/statm: %w", pid, err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// ListeningPID is the process listening on TCP port (a local broker): the socket's
// inode from /proc/net/tcp and tcp6, then the process holding it, as ss -p finds
// it. Processes of other users are visible to root only.
func ListeningPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// local_address is addr:PORT in hex; state 0A is LISTEN; inode is field 10.
			if len(f) < 10 || f[3] != "0A" {
				continue
			}
			if p, err := strconv.ParseInt(f[1][strings.LastIndexByte(f[1], ':')+1:], 16, 32); err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("nothing listens on port %d here", port)
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir("/proc/" + p.Name() + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name()); err == nil && inodes[link] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("port %d is listened on, but by no process this user may inspect", port)
}
