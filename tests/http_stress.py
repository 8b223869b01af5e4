#!/usr/bin/env python3
"""Hostile clients against iostorm's /metrics on loopback, while a scraper
times every scrape. Stops by itself after --seconds.

  idle      --idle N connections that send nothing, spread over 20 source
            addresses (127.0.0.2-21), reopened as soon as the server drops them
  slow      --slow M connections that send a request's headers one byte every
            2 s, from 8 addresses (127.0.0.30-37), reopened when dropped
  hog       --hog K connections from one address (127.0.0.99): the per-address
            limit must refuse most of them
  reconnect a loop from 127.0.0.50: connect, half a request line, close
  scraper   from 127.0.0.1 every 0.2 s: GET /metrics on a new connection,
            then twice more on one kept-alive connection

Every scrape must answer 200 within --max-latency seconds. Prints one JSON
object (latencies, counts, iostorm's RSS sampled every 0.25 s when --pid is
given) and exits 1 when a scrape failed or was late.
"""
import argparse
import json
import selectors
import socket
import sys
import threading
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: stress\r\n\r\n"


def connect(port, src, timeout=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Pool:
    """Connections kept open from given addresses; dropped ones are reopened."""

    def __init__(self, port, addrs, n, stop, stats, key):
        self.port, self.addrs, self.n = port, addrs, n
        self.stop, self.stats, self.key = stop, stats, key
        self.sel = selectors.DefaultSelector()
        self.socks = []
        self.sent = {}	# fd -> bytes of the request sent (slow clients)

    def open_one(self, i):
        try:
            s = connect(self.port, self.addrs[i % len(self.addrs)], 1.0)
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, i)
            self.stats[self.key + "_opened"] += 1
            return s
        except OSError:
            self.stats[self.key + "_refused"] += 1
            return None

    def reap(self):
        """Reopen connections the server closed (EOF or reset)."""
        for k, _ in self.sel.select(timeout=0):
            s, i = k.fileobj, k.data
            try:
                if s.recv(65536):
                    continue
            except BlockingIOError:
                continue
            except OSError:
                pass
            self.sel.unregister(s)
            self.sent.pop(s.fileno(), None)
            s.close()
            self.stats[self.key + "_dropped"] += 1
            self.socks[i] = None

    def run(self, tick):
        self.socks = [self.open_one(i) for i in range(self.n)]
        while not self.stop.is_set():
            tick(self)
            self.reap()
            for i, s in enumerate(self.socks):
                if s is None and not self.stop.is_set():
                    self.socks[i] = self.open_one(i)
            self.stop.wait(0.05)
        for s in self.socks:
            if s:
                s.close()


def slow_tick(pool):
    """One more byte of the request on every slow connection, every 2 s."""
    now = time.monotonic()
    if now - getattr(pool, "at", 0) < 2.0:
        return
    pool.at = now
    for s in pool.socks:
        if s is None:
            continue
        sent = pool.sent.get(s.fileno(), 0)
        try:
            # Never the final CRLF CRLF: the request stays incomplete.
            s.send(REQUEST[sent % (len(REQUEST) - 4):][:1])
            pool.sent[s.fileno()] = sent + 1
        except OSError:
            pass


def reconnect_loop(port, stop, stats):
    while not stop.is_set():
        try:
            s = connect(port, "127.0.0.50", 1.0)
            s.send(b"GET /met")
            s.close()
            stats["reconnects"] += 1
        except OSError:
            stats["reconnect_refused"] += 1
        stop.wait(0.01)


def read_response(s):
    """One HTTP/1.1 response with a Content-Length: (status, headers, body)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed before the headers")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed in the body")
        body += chunk
    return status, headers, body


def scrape(port, keep, max_latency, stats):
    """A fresh connection, then two requests on the kept-alive one."""
    lat = []
    for use_keep in (False, True, True):
        t0 = time.monotonic()
        try:
            if use_keep and keep[0] is None:
                keep[0] = connect(port, "127.0.0.1", max_latency)
            s = keep[0] if use_keep else connect(port, "127.0.0.1", max_latency)
            s.settimeout(max_latency)
            s.sendall(REQUEST)
            status, headers, body = read_response(s)
            ok = status == 200 and b"iostorm_vfs_opens_total" in body
            if headers.get("connection", "").lower() == "close":
                stats["connection_close"] += 1
            if not use_keep:
                s.close()
            elif headers.get("connection", "").lower() == "close":
                s.close()
                keep[0] = None
            else:
                stats["kept_alive"] += 1
        except OSError as e:
            ok = False
            stats["errors"].append(f"{type(e).__name__}: {e}")
            if use_keep and keep[0] is not None:
                keep[0].close()
                keep[0] = None
        dt = time.monotonic() - t0
        lat.append(dt)
        stats["scrapes"] += 1
        if not ok or dt > max_latency:
            stats["failed"] += 1
    return lat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--slow", type=int, default=64)
    ap.add_argument("--hog", type=int, default=100)
    ap.add_argument("--pid", type=int, default=0)
    ap.add_argument("--max-latency", type=float, default=1.0)
    a = ap.parse_args()

    stop = threading.Event()
    stats = {k: 0 for k in ("scrapes", "failed", "kept_alive", "connection_close",
                            "reconnects", "reconnect_refused")}
    stats["errors"] = []
    pools = {
        "idle": ([f"127.0.0.{i}" for i in range(2, 22)], a.idle, lambda p: None),
        "slow": ([f"127.0.0.{i}" for i in range(30, 38)], a.slow, slow_tick),
        "hog": (["127.0.0.99"], a.hog, lambda p: None),
    }
    threads = []
    for key, (addrs, n, tick) in pools.items():
        pstats = {f"{key}_{w}": 0 for w in ("opened", "refused", "dropped")}
        stats[key] = pstats
        pool = Pool(a.port, addrs, n, stop, pstats, key)
        threads.append(threading.Thread(target=pool.run, args=(tick,), daemon=True))
    threads.append(threading.Thread(target=reconnect_loop, args=(a.port, stop, stats),
                                    daemon=True))
    rss0 = rss_kb(a.pid) if a.pid else 0
    for t in threads:
        t.start()
    time.sleep(0.5)	# let the pools fill before the first timed scrape
    lat, rss_max, keep = [], rss0, [None]
    end = time.monotonic() + a.seconds
    while time.monotonic() < end:
        lat += scrape(a.port, keep, a.max_latency, stats)
        if a.pid:
            rss_max = max(rss_max, rss_kb(a.pid))
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(timeout=3)
    lat.sort()
    stats.update(latency_max_s=round(lat[-1], 4) if lat else None,
                 latency_p50_s=round(lat[len(lat) // 2], 4) if lat else None,
                 rss_start_kb=rss0, rss_max_kb=rss_max)
    stats["errors"] = stats["errors"][:5]
    print(json.dumps(stats))
    return 1 if stats["failed"] or not stats["scrapes"] else 0


if __name__ == "__main__":
    sys.exit(main())
