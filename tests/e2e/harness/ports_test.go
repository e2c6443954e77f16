package main

import (
	"net"
	"testing"
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
