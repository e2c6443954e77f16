package harness

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Ports of the children that cannot bind port 0 and say what they got (etcd, kube-apiserver,
// upstream's manager, the metrics of serve and of the scale-down controller) come from outside
// the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range): the range a connect()
// anywhere on the machine draws its local port from. Asking the kernel for a free port, closing
// it and handing the number to a child that binds it later left a window in which any outgoing
// connection could take it; outside that range only a process that binds the very number can, and
// startBinding starts the child again with new ports when that happens.
type portPool struct {
	mu     sync.Mutex
	lo, hi int // inclusive
	next   int
	given  map[int]bool
}

// defaultEphemeral is Linux's default ip_local_port_range, for when the file cannot be read.
const defaultEphemeralLo, defaultEphemeralHi = 32768, 60999

// newPortPool takes the wider of the two stretches around the ephemeral range (at most 12,768
// ports of it, next to the range, away from the well-known ports below 10000) and starts at a
// random place, so that two harness runs at once seldom meet.
func newPortPool() *portPool {
	elo, ehi := ephemeralRange()
	lo, hi, ok := outside(elo, ehi)
	if !ok {
		logf("ephemeral port range %d-%d leaves no room: ports are drawn from it (retried when taken)", elo, ehi)
	}
	return &portPool{lo: lo, hi: hi, next: lo + rand.IntN(hi-lo+1), given: map[int]bool{}}
}

// outside is the stretch of ports newPortPool draws from for the ephemeral range elo-ehi; not ok
// when no stretch of 100 ports is left outside it (then 10000-65535: binding still retries).
func outside(elo, ehi int) (lo, hi int, ok bool) {
	lo, hi = 1024, elo-1
	if 65535-ehi > hi-lo {
		lo, hi = ehi+1, 65535
	} else if hi-lo > 12767 {
		lo = hi - 12767
	}
	if hi-lo < 100 {
		return 10000, 65535, false
	}
	return lo, hi, true
}

func ephemeralRange() (int, int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return defaultEphemeralLo, defaultEphemeralHi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return defaultEphemeralLo, defaultEphemeralHi
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo > hi {
		return defaultEphemeralLo, defaultEphemeralHi
	}
	return lo, hi
}

// take returns a port of the pool on addr that no earlier call returned and that nothing listens
// on now (a listener opened and closed at once: outside the ephemeral range no connection takes
// it in between).
func (pp *portPool) take(addr string) int {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	for range 4 * (pp.hi - pp.lo + 1) {
		port := pp.next
		// A random stride, so that consecutive ports of one run are not neighbours of another's.
		pp.next += 1 + rand.IntN(16)
		if pp.next > pp.hi {
			pp.next = pp.lo + (pp.next - pp.hi - 1)
		}
		if pp.given[port] {
			continue
		}
		pp.given[port] = true
		l, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		l.Close()
		return port
	}
	panic(fmt.Sprintf("no free port left in %d-%d", pp.lo, pp.hi))
}

// portTaken matches what our children write when a port they were given is bound by another
// process: Go's "bind: address already in use" (etcd, kube-apiserver, upstream's manager),
// serve's "cannot listen on ...: Address already in use", the scale-down controller's "cannot
// bind the metrics port".
var portTaken = regexp.MustCompile(`(?i)address already in use|cannot bind the metrics port`)

// bindAttempts bounds how often startBinding draws new ports for one child.
const bindAttempts = 5

// startBinding runs launch (start a child on ports it takes from c.ports, wait until it is ready)
// until it succeeds, fails for another reason, or bindAttempts children in a row lost a port.
// A child that lost one has exited; its log is kept as NAME.port-taken-N.log.
func (c *Cluster) startBinding(what string, launch func() (*proc, error)) error {
	for attempt := 1; ; attempt++ {
		p, err := launch()
		if err == nil || p == nil || !p.exited() || attempt == bindAttempts {
			return err
		}
		b, _ := os.ReadFile(p.log)
		line := portTaken.FindString(string(b))
		if line == "" {
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if portTaken.MatchString(l) {
				line = strings.TrimSpace(l)
				break
			}
		}
		if len(line) > 240 {
			line = line[:240] + "..."
		}
		kept := strings.TrimSuffix(p.log, ".log") + fmt.Sprintf(".port-taken-%d.log", attempt)
		if os.Rename(p.log, kept) == nil {
			p.log = kept
		}
		logf("%s: a port it was given was taken before it bound it (%s); starting it again on new ports (attempt %d of %d; log %s)",
			what, line, attempt+1, bindAttempts, filepath.Base(kept))
	}
}
