#!/usr/bin/env python3
"""The centre under hostile connections (BENCHMARKS.md, "Hostile connections").

Usage: python3 benches/hostile.py BINARY [SLOW] [UPLOADS] [SECONDS]
       (default 256 200 30)

Starts `BINARY centre` with the example programme (tests/programme/
example.toml), a broker out of reach (no lane is needed) and a judge's PIN,
then, with no login, from addresses of their own (127.0.x.y, as phones on
a venue's Wi-Fi):

  1. UPLOADS stalled uploads: `POST /api/entries/import` announcing 1 MiB,
     sent but for its last byte (as much as the sockets take), then nothing;
  2. SLOW slow bodies: `POST /api/login` announcing 1,000 bytes, sent a
     byte every 2 s.

Meanwhile a judge, every 2 s on a new connection, logs in and posts a hold
(`POST /api/hold`): each time is printed, with its answers. The centre's
VmRSS is read from /proc/<pid>/status every 0.2 s; its start, its peak
(VmHWM) and the end are printed.

Python 3, standard library only.
"""

import http.client
import json
import os
import socket
import sys
import time

from bench_centre import PIN, Centre

MIB = 1 << 20


def stranger(i):
    """The i-th hostile client's address: each its own."""
    return f"127.0.{1 + i // 200}.{1 + i % 200}"


def connect_from(i, port):
    s = socket.socket()
    s.bind((stranger(i), 0))
    s.connect(("127.0.0.1", port))
    return s


def head(path, kind, length):
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def stalled_upload(i, port):
    """Sends a 1 MiB upload but for its last byte, as far as the sockets take it."""
    s = connect_from(i, port)
    s.sendall(head("/api/entries/import", "text/csv", MIB))
    s.setblocking(False)
    body = b"n" * (MIB - 1)
    sent = 0
    stuck_since = None
    while sent < len(body):
        try:
            sent += s.send(body[sent:sent + 65536])
            stuck_since = None
        except BlockingIOError:
            # The server reads no more (or not yet): give it a moment.
            stuck_since = stuck_since or time.monotonic()
            if time.monotonic() - stuck_since > 0.5:
                break
            time.sleep(0.01)
        except OSError:
            break
    return s, sent


def judge(port):
    """A judge on a new connection: log in, post a hold. Times and answers."""
    t = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/login", json.dumps({"pin": PIN, "name": "Judge"}),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        logged = time.monotonic() - t
        if r.status != 200:
            return f"login {r.status} after {logged * 1000:.0f} ms"
        cookie = r.getheader("Set-Cookie").split(";")[0]
        conn.request("POST", "/api/hold", json.dumps({"lane": 1, "on": True, "reason": "oil"}),
                     {"Content-Type": "application/json", "Cookie": cookie})
        r = conn.getresponse()
        r.read()
        acted = time.monotonic() - t
        return (f"login 200 in {logged * 1000:.0f} ms, hold {r.status} at "
                f"{acted * 1000:.0f} ms")
    except OSError as e:
        return f"failed after {(time.monotonic() - t) * 1000:.0f} ms: {e}"


def main():
    binary = sys.argv[1]
    slow = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    uploads = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30
    held = []
    with Centre(binary, "hostile") as centre:
        web = centre.web
        print(f"{binary} centre; {slow} slow bodies, {uploads} stalled 1 MiB uploads, "
              f"{seconds:.0f} s; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        print(f"before: judge {judge(web)}; {centre.status()}")
        start = centre.status()
        t = time.monotonic()
        sent = 0
        for i in range(uploads):
            s, n = stalled_upload(i, web)
            held.append(s)
            sent += n
        print(f"{uploads} uploads sent {sent / MIB:.0f} MiB in {time.monotonic() - t:.1f} s; "
              f"{centre.status()}")
        trickling = []
        for i in range(uploads, uploads + slow):
            s = connect_from(i, web)
            s.sendall(head("/api/login", "application/json", 1000) + b"{")
            s.setblocking(False)
            trickling.append(s)
        held.extend(trickling)
        peak_rss = 0
        end = time.monotonic() + seconds
        next_byte = time.monotonic() + 2
        next_judge = time.monotonic()
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_byte:
                for s in trickling:
                    try:
                        s.send(b" ")
                    except OSError:
                        pass
                next_byte += 2
            if now >= next_judge:
                print(f"  {now - t:5.1f} s: judge {judge(web)}")
                next_judge += 2
            peak_rss = max(peak_rss, centre.status()["VmRSS"])
            time.sleep(0.2)
        now = centre.status()
        print(f"start VmRSS {start['VmRSS']} kB; peak VmRSS seen {peak_rss} kB "
              f"(+{(peak_rss - start['VmRSS']) / 1024:.0f} MiB), VmHWM {now['VmHWM']} kB; "
              f"end VmRSS {now['VmRSS']} kB")
        for s in held:
            s.close()


if __name__ == "__main__":
    main()
