#!/usr/bin/env python3
"""Loopback ports for servers that scripts start and cannot start on port 0.

A port the kernel hands out (bind to 0) and the script closes again can be taken by any outgoing
connection on the machine before the server binds it: connect() draws its local port from the
same ephemeral range (/proc/sys/net/ipv4/ip_local_port_range). take() draws from outside that
range instead, where only a process that binds that very number can take it; the caller then
sees port_taken() in the server's log and starts it again on new ports (ATTEMPTS at most).

Used by scripts/loadtest and scripts/soak (imported) and tests/promtool/check
(`python3 loopback_ports.py` prints one port).
"""
import random
import re
import socket

ATTEMPTS = 5
_EPHEMERAL_DEFAULT = (32768, 60999)  # Linux's default
_TAKEN = re.compile(rb"address already in use|cannot listen on", re.IGNORECASE)
_given = set()


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = (int(x) for x in f.read().split())
        return (lo, hi) if lo <= hi else _EPHEMERAL_DEFAULT
    except (OSError, ValueError):
        return _EPHEMERAL_DEFAULT


def pool():
    """The wider stretch beside the ephemeral range: below it at most 12,768 ports next to it
    (away from the well-known ports), or above it."""
    elo, ehi = ephemeral_range()
    lo, hi = 1024, elo - 1
    if 65535 - ehi > hi - lo:
        lo, hi = ehi + 1, 65535
    elif hi - lo > 12767:
        lo = hi - 12767
    if hi - lo < 100:  # no room outside: the retries still hold
        lo, hi = 10000, 65535
    return lo, hi


def take(host="127.0.0.1"):
    """A port of the pool on host that nothing listens on now and that this process has not
    handed out before."""
    lo, hi = pool()
    for _ in range(hi - lo + 1):
        port = random.randint(lo, hi)
        if port in _given:
            continue
        _given.add(port)
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port left in %d-%d" % (lo, hi))


def port_taken(log_path, offset=0):
    """Whether the log, from byte offset on, says a port was taken: Go's and nginx's "address
    already in use", serve's "cannot listen on HOST:PORT"."""
    try:
        with open(log_path, "rb") as f:
            f.seek(offset)
            return bool(_TAKEN.search(f.read()))
    except OSError:
        return False


if __name__ == "__main__":
    print(take())
