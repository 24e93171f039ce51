#!/usr/bin/env python3
"""The centre's CSV import (BENCHMARKS.md, "The centre's CSV import").

Usage: python3 benches/centre_import.py BINARY [KIND] [RUNS] [STALLED]

Starts `BINARY centre` with the example programme (tests/programme/
example.toml), a broker out of reach (no lane is needed), a judge's PIN; logs in; then RUNS
times (default 3) posts a 1 MiB CSV whose every row is wrong to
`POST /api/entries/import` and prints the answer's time, size and
problem count, and the centre's VmRSS and VmHWM (peak) from
/proc/<pid>/status before and after. KIND is the file:

  short   `a` rows: a name and nothing else (class and sex wrong)
  wide    `x,x,x,x,x,x,x` rows: every column wrong where it can be
  quotes  `a"b` rows: a quote inside a value (the reader's own problem)
  header  one header row naming `name` over and over (a column twice)

STALLED (default 0): that many connections, no login, each first sends
an import's head (`Content-Length: 1048576`) and all of its body but the
last byte, and then nothing, held open through the imports.

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


def body_of(kind):
    if kind == "header":
        return ("name," * (MIB // 5)).encode()
    head = "name,class,sex,region,team,handicap,withdrawn\r\n"
    row = {"short": "a\r\n", "wide": "x,x,x,x,x,x,x\r\n", "quotes": 'a"b,B1,M,R\r\n'}[kind]
    n = (MIB - len(head)) // len(row)
    return (head + row * n).encode()


def main():
    binary = sys.argv[1]
    kind = sys.argv[2] if len(sys.argv) > 2 else "short"
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with Centre(binary, "import") as centre:
        web = centre.web
        conn = http.client.HTTPConnection("127.0.0.1", web, timeout=600)
        conn.request("POST", "/api/login", json.dumps({"pin": PIN, "name": "Bench"}),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        cookie = r.getheader("Set-Cookie").split(";")[0]
        body = body_of(kind)
        print(f"{binary} centre; {kind} rows, {len(body)} bytes; "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        stalled = []
        for _ in range(int(sys.argv[4]) if len(sys.argv) > 4 else 0):
            sock = socket.create_connection(("127.0.0.1", web))
            sock.sendall(b"POST /api/entries/import HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: text/csv\r\nContent-Length: %d\r\n\r\n" % MIB)
            sock.settimeout(0.01)
            try:
                sock.sendall(b"a" * (MIB - 1))
            except (socket.timeout, OSError):
                pass
            stalled.append(sock)
        if stalled:
            time.sleep(2)
            print(f"{len(stalled)} stalled uploads: {centre.status()}")
        print(f"before the imports: {centre.status()}")
        for i in range(runs):
            conn = http.client.HTTPConnection("127.0.0.1", web, timeout=600)
            t = time.monotonic()
            conn.request("POST", "/api/entries/import", body,
                         {"Content-Type": "text/csv", "Cookie": cookie})
            r = conn.getresponse()
            answer = r.read()
            took = time.monotonic() - t
            try:
                v = json.loads(answer)
                shown = len(v.get("problems", []))
                more = v.get("more_problems")
            except ValueError:
                shown, more = "?", None
            print(f"import {i + 1}: {r.status} in {took:.2f} s, answer {len(answer)} bytes, "
                  f"{shown} problems shown, more_problems {more}; {centre.status()}")


if __name__ == "__main__":
    main()
