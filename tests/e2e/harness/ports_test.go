package harness

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

func TestOutsideTakesTheWiderStretchBesideTheEphemeralRange(t *testing.T) {
	for _, c := range []struct {
		name     string
		elo, ehi int
		lo, hi   int
		ok       bool
	}{
		{"Linux's default: below it, next to it", 32768, 60999, 20000, 32767, true},
		{"IANA's range: below it", 49152, 65535, 36384, 49151, true},
		{"a low range: above it", 10000, 20000, 20001, 65535, true},
		{"every port: no room", 1024, 65535, 10000, 65535, false},
	} {
		lo, hi, ok := outside(c.elo, c.ehi)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("%s: outside(%d, %d) = %d, %d, %v; want %d, %d, %v", c.name, c.elo, c.ehi,
				lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

func TestTakeGivesEachPortOnceAndSkipsOneInUse(t *testing.T) {
	pp := &portPool{lo: 20000, hi: 20015, next: 20000, given: map[int]bool{}}
	l, err := net.Listen("tcp", "127.0.0.1:20000")
	if err != nil {
		t.Skipf("port 20000 busy here: %v", err)
	}
	defer l.Close()
	seen := map[int]bool{}
	for range 5 {
		p := pp.take("127.0.0.1")
		if p == 20000 {
			t.Errorf("took port 20000, which is listened on")
		}
		if seen[p] {
			t.Errorf("port %d taken twice", p)
		}
		if p < 20000 || p > 20015 {
			t.Errorf("port %d outside 20000-20015", p)
		}
		seen[p] = true
	}
}

// testCluster is a Cluster with only what start and waitFor need.
func testCluster(t *testing.T) *Cluster {
	c := &Cluster{Work: t.TempDir(), Ctx: context.Background()}
	if err := os.MkdirAll(c.path("logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Down)
	return c
}

func TestStartBindingStartsAgainAChildThatLostItsPort(t *testing.T) {
	c := testCluster(t)
	attempts := 0
	err := c.startBinding("child", func() (*proc, error) {
		attempts++
		script := "echo 'listen tcp 127.0.0.1:20001: bind: address already in use'; exit 1"
		if attempts == 3 {
			script = "exec sleep 30"
		}
		p, err := c.start("child", "sh", "-c", script)
		if err != nil {
			return nil, err
		}
		return p, c.waitFor("child", p, 5*time.Second, func() error {
			if attempts < 3 {
				return errors.New("not ready")
			}
			return nil
		})
	})
	if err != nil || attempts != 3 {
		t.Fatalf("startBinding = %v after %d attempts; want nil after 3", err, attempts)
	}
	for _, kept := range []string{"child.port-taken-1.log", "child.port-taken-2.log"} {
		if !fileExists(c.path("logs", kept)) {
			t.Errorf("%s not kept", kept)
		}
	}
}

func TestStartBindingGivesUpOnOtherFailuresAndAfterFiveAttempts(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         int
	}{
		{"another failure", "echo 'no such flag'; exit 2", 1},
		{"a port taken every time", "echo 'bind: address already in use'; exit 1", bindAttempts},
	} {
		c := testCluster(t)
		attempts := 0
		err := c.startBinding("child", func() (*proc, error) {
			attempts++
			p, err := c.start("child", "sh", "-c", tc.script)
			if err != nil {
				return nil, err
			}
			return p, c.waitFor("child", p, 5*time.Second, func() error { return errors.New("not ready") })
		})
		if err == nil || attempts != tc.want {
			t.Errorf("%s: startBinding = %v after %d attempts; want an error after %d", tc.name, err,
				attempts, tc.want)
		}
	}
}
