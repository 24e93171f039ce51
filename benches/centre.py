#!/usr/bin/env python3
"""The centre's figures (BENCHMARKS.md, "The centre"): run by benches/centre.sh.

    centre.py latency BIN LANES SPEED SECONDS FOLLOW
        `BIN demo --lanes LANES --speed SPEED --for SECONDS`: follows FOLLOW
        lanes' `/api/events` (SSE) and, when a bowler's series changes there,
        polls the centre's `GET /api/standings` every 10 ms until the
        bowler's total (same name, same lane) equals it. Prints p50/p99/max
        and the process's RSS and CPU.
    centre.py catchup BIN MINUTES
        A `BIN centre` process and one `BIN run` lane whose journal holds
        MINUTES of lane time the centre's mirror lacks (it holds the lines
        before them): the time from the lane's start until the centre's
        `GET /api/lanes` counts every line in its mirror.
    centre.py many BIN LANES
        A `BIN centre` process and LANES `BIN run` lanes, each with a whole
        simulated day in its journal: the centre's RSS and CPU once it has
        every line of every lane.
    centre.py storm BIN LANES
        As `many`; then the centre (and its embedded broker) killed and
        started again, so every lane reconnects at once: first with its
        mirror kept, then with its mirror gone (a centre started after the
        lanes wrote everything). Each time: until every lane is online
        and every line mirrored, the duplicates, RSS and CPU.
"""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def proc_figures(pid):
    status = open(f"/proc/{pid}/status").read()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    hwm = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))
    stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / TICK  # utime + stime, seconds
    return rss, hwm, cpu


def pct(sorted_values, p):
    """Nearest rank."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, int(-(-p * len(sorted_values) // 100)) - 1))
    return sorted_values[k]


def get_json(conn, path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    return json.loads(body) if r.status == 200 else None


def sse_events(port, path="/api/events"):
    """Yields (time read, data) for each SSE event, dechunking by hand."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    f = s.makefile("rb")
    while f.readline() not in (b"\r\n", b""):
        pass
    pending = b""
    while True:
        size_line = f.readline()
        if not size_line:
            return
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            return
        chunk = f.read(size)
        f.readline()
        now = time.monotonic()
        pending += chunk
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            data = b"\n".join(
                line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:")
            )
            if data:
                yield now, data


def start_demo(binary, lanes, speed, seconds, state_dir):
    child = subprocess.Popen(
        [binary, "demo", "--lanes", str(lanes), "--speed", str(speed), "--for", str(seconds),
         "--listen", "127.0.0.1:0", "--state-dir", state_dir],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    centre, ports = None, {}
    while len(ports) < lanes:
        line = child.stdout.readline()
        if not line:
            sys.exit("the demo stopped before printing its lanes")
        m = re.match(r"Centre: +http://[^:]+:(\d+)/", line)
        if m:
            centre = int(m.group(1))
        m = re.match(r"Lane (\d+): http://[^:]+:(\d+)/", line)
        if m:
            ports[int(m.group(1))] = int(m.group(2))
    return child, centre, ports


def latency(binary, lanes, speed, seconds, follow):
    state_dir = tempfile.mkdtemp(prefix="lanecall-bench-centre-")
    t_start = time.monotonic()
    child, centre, ports = start_demo(binary, lanes, speed, seconds, state_dir)
    followed = sorted(ports)[:: max(1, lanes // follow)][:follow]
    lock = threading.Lock()
    pending = {}  # (lane, name) -> (series, t0)
    results, superseded, done = [], [0], threading.Event()

    def follow_lane(lane):
        last = {}
        try:
            for now, data in sse_events(ports[lane]):
                v = json.loads(data)
                for b in v.get("bowlers", []):
                    if not b["games"]:
                        continue
                    key = (lane, b["name"])
                    if last.get(key) != b["series_with_handicap"]:
                        last[key] = b["series_with_handicap"]
                        with lock:
                            if key in pending:
                                superseded[0] += 1
                            pending[key] = (b["series_with_handicap"], now)
        except (OSError, ValueError):
            pass

    for lane in followed:
        threading.Thread(target=follow_lane, args=(lane,), daemon=True).start()

    # Figures over the steady part: from 20 s after the start to 10 s
    # before the end.
    conn = http.client.HTTPConnection("127.0.0.1", centre)
    time.sleep(5)
    first = proc_figures(child.pid)
    t_first = time.monotonic()
    polls = 0
    while time.monotonic() - t_start < seconds - 10:
        time.sleep(0.01)
        try:
            v = get_json(conn, "/api/standings")
        except (OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", centre)
            continue
        now = time.monotonic()
        polls += 1
        if not v:
            continue
        totals = {}
        for c in v["categories"]:
            for e in c["entries"]:
                totals[(e["lane"], e["name"])] = e["total"]
        with lock:
            for key, (series, t0) in list(pending.items()):
                if totals.get(key) == series:
                    if t0 - t_start > 20:
                        results.append((now - t0) * 1000)
                    del pending[key]
    last = proc_figures(child.pid)
    t_last = time.monotonic()
    with lock:
        unmatched = len(pending)
    child.wait()
    done.set()
    results.sort()
    cpu = (last[2] - first[2]) / (t_last - t_first) * 100
    print(f"lanes {lanes}, speed {speed}, followed {followed}")
    print(f"  ball -> standings: n={len(results)} p50={pct(results, 50):.0f} ms "
          f"p99={pct(results, 99):.0f} ms max={results[-1] if results else float('nan'):.0f} ms "
          f"min={results[0] if results else float('nan'):.0f} ms; superseded {superseded[0]}, "
          f"unmatched at the end {unmatched}, standings polls {polls} "
          f"({(t_last - t_first) / max(polls, 1) * 1000:.1f} ms apart)")
    under = sum(1 for r in results if r < 250)
    print(f"  under 250 ms: {under} of {len(results)}; under 100 ms: "
          f"{sum(1 for r in results if r < 100)}; 250-350 ms: "
          f"{sum(1 for r in results if 250 <= r < 350)}; 350 ms and more: "
          f"{sum(1 for r in results if r >= 350)}")
    print(f"  process: VmRSS {last[0]} kB, VmHWM {last[1]} kB, CPU {cpu:.1f} % of one core "
          f"over {t_last - t_first:.0f} s; load {open('/proc/loadavg').read().split()[:3]}")
    shutil.rmtree(state_dir, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin_hash(binary):
    return subprocess.run([binary, "hash-pin", "123456"], capture_output=True, text=True,
                          check=True).stdout.strip()


def crc32c(data, table=[]):
    if not table:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def seal(obj, n):
    """A format 2 line (crates/lanecall-core/src/journal/seal.rs): `{...,"n":N,"c":"crc32c"}`."""
    body = json.dumps(obj, separators=(",", ":"))[:-1] + f',"n":{n}'
    return body + f',"c":"{crc32c(body.encode()):08x}"}}'


def simulated_journal(binary, lane, seed, games, blocks):
    """`simulate` for lane `lane`, dated now, cut before its last
    `end_block` (the block stays open): (header line, event lines)."""
    text = subprocess.run([binary, "simulate", "--games", str(games), "--blocks", str(blocks),
                           "--seed", str(seed)], capture_output=True, text=True,
                          check=True).stdout
    lines = text.splitlines()
    header = json.loads(lines[0])
    header.pop("n", None)
    header.pop("c", None)
    header["lane"] = lane
    # The sequence number its file's name gives (…-000001.jsonl), as a
    # lane's own journals have: the centre mirrors no other.
    header["seq"] = 1
    header["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    last_end = max(i for i, l in enumerate(lines) if '"ev":"end_block"' in l)
    return seal(header, 1), lines[1:last_end]


def private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


# Lanes with a login on the embedded broker: 64, or as many as a run has.
LOGINS = [64]


def write_logins(base, lanes=None):
    """The embedded broker's `passwords` (lane1 … lane<lanes>, default
    `LOGINS`) and each lane's password file in `base`: the path of the
    first."""
    lanes = lanes or LOGINS[0]
    path = os.path.join(base, "passwords")
    if not os.path.exists(path):
        private(path, "".join(f"lane{n}:secret-{n}\n" for n in range(1, lanes + 1)))
        for n in range(1, lanes + 1):
            private(os.path.join(base, f"lane{n}.password"), f"secret-{n}\n")
    return path


def start_centre(binary, base, broker, web=None):
    web = web or free_port()
    state = os.path.join(base, "centre")
    os.makedirs(state, exist_ok=True)
    config = os.path.join(base, "centre.toml")
    with open(config, "w") as f:
        f.write(f'site = "bench"\nstate_dir = "{state}"\n'
                f'embedded_listen = "127.0.0.1:{broker}"\n'
                f'passwords = "{write_logins(base)}"\n'
                f'[web]\nlisten = "127.0.0.1:{web}"\njudge_pin_hash = "{pin_hash(binary)}"\n')
    child = subprocess.Popen([binary, "centre", "--config", config],
                             stdout=subprocess.DEVNULL, stderr=open(base + "/centre.log", "a"))
    # Its first start hashes the plain passwords (~45 ms each, more on a
    # busy machine).
    wait_port(web, 30 + LOGINS[0])
    return child, web, state


def wait_port(port, timeout=20):
    until = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            if time.monotonic() > until:
                sys.exit(f"nothing listens on {port}")
            time.sleep(0.01)


def write_lane(binary, base, lane, broker, header, lines, file_name, web=None):
    """A lane's journal and config; its panel on `web`, a free port when
    None (0: any port, for lanes whose panel is never asked)."""
    write_logins(base)
    d = os.path.join(base, f"lane{lane}")
    os.makedirs(os.path.join(d, "journal"), exist_ok=True)
    with open(os.path.join(d, "journal", file_name), "w") as f:
        f.write(header + "\n" + "".join(l + "\n" for l in lines))
    web = free_port() if web is None else web
    config = os.path.join(d, "lanecall.toml")
    with open(config, "w") as f:
        f.write(f'lane = {lane}\nstate_dir = "{d}"\n[pinsetter]\nport = "{d}/no-such-port"\n'
                f'[gpio]\nbackend = "none"\n[speaker]\nenabled = false\n'
                f'[centre]\nbroker = "mqtt://127.0.0.1:{broker}"\nsite = "bench"\n'
                f'username = "lane{lane}"\npassword_file = "{base}/lane{lane}.password"\n'
                f'[web]\nlisten = "127.0.0.1:{web}"\njudge_pin_hash = "{pin_hash(binary)}"\n')
    return config, web


def mirror_lines(conn, lane):
    v = get_json(conn, "/api/lanes") or []
    for l in v:
        if l["lane"] == lane:
            return (l.get("mirror") or {}).get("lines", 0)
    return 0


def cut(lines, t_from, t_to):
    return [l for l in lines if t_from <= json.loads(l)["t"] < t_to]


def catchup(binary, minutes):
    base = tempfile.mkdtemp(prefix="lanecall-bench-catchup-")
    header, lines = simulated_journal(binary, 5, 11, 12, 1)
    # A block cut open after 5 minutes plus `minutes` of lane time: the
    # centre holds what came before the lane went away.
    away_from = 5 * 60_000
    before = cut(lines, 0, away_from)
    away = cut(lines, away_from, away_from + minutes * 60_000)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = f"lane5-{stamp}-000001.jsonl"
    mirror = os.path.join(base, "centre", "lanes", "5")
    os.makedirs(mirror)
    with open(os.path.join(mirror, name), "w") as f:
        f.write(header + "\n" + "".join(l + "\n" for l in before))
    broker = free_port()
    centre, web, _ = start_centre(binary, base, broker)
    conn = http.client.HTTPConnection("127.0.0.1", web)
    total = 1 + len(before) + len(away)
    config, lane_web = write_lane(binary, base, 5, broker, header, before + away, name)
    have = mirror_lines(conn, 5)
    t0 = time.monotonic()
    lane = subprocess.Popen([binary, "run", "--config", config],
                            stdout=subprocess.DEVNULL, stderr=open(base + "/lane.log", "w"))
    while mirror_lines(conn, 5) < total:
        if time.monotonic() - t0 > 60:
            print(f"  not caught up after 60 s: {mirror_lines(conn, 5)} of {total}")
            break
        time.sleep(0.01)
    took = time.monotonic() - t0
    nbytes = sum(len(l) + 1 for l in away)
    print(f"catch-up: mirror held {have} lines; the lane wrote {len(away)} lines "
          f"({nbytes} bytes, {minutes} min of lane time) while away; "
          f"lane start -> mirror holds all {total}: {took * 1000:.0f} ms "
          f"(lane listening after {lane_ready(lane_web, t0) * 1000:.0f} ms)")
    lane.terminate()
    lane.wait()
    centre.terminate()
    centre.wait()
    if os.environ.get("KEEP"):
        print(base)
    else:
        shutil.rmtree(base, ignore_errors=True)


def lane_ready(port, t0):
    wait_port(port)
    return time.monotonic() - t0


def own_names(lines, lane):
    """The simulator's bowlers renamed for their lane (every line naming
    one resealed), so that each lane's bowlers are their own in the
    standings."""
    first = next(json.loads(l) for l in lines if '"ev":"lineup"' in l)
    names = [b["name"] for b in first["bowlers"]]
    out = []
    for line in lines:
        if not any(f'"{n}"' in line for n in names):
            out.append(line)
            continue
        obj = json.loads(line)
        n = obj.pop("n")
        obj.pop("c")
        text = json.dumps(obj, separators=(",", ":"))
        for name in names:
            text = text.replace(f'"{name}"', f'"{name} {lane}"')
        out.append(seal(json.loads(text), n))
    return out


def start_lanes(binary, lanes, base, broker):
    """LANES `run` lanes with a simulated open block each: (children,
    total lines, when the first lane process was started)."""
    configs, total = [], 0
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for lane in range(1, lanes + 1):
        header, lines = simulated_journal(binary, lane, 100 + lane, 6, 1)
        lines = own_names(lines, lane)
        # Port 0: 128 ports picked free one by one and taken later can
        # collide with one the kernel gave another lane meanwhile.
        config, _ = write_lane(binary, base, lane, broker, header, lines,
                               f"lane{lane}-{stamp}-000001.jsonl", web=0)
        total += 1 + len(lines)
        configs.append(config)
    spawned = time.monotonic()
    children = [subprocess.Popen([binary, "run", "--config", c], stdout=subprocess.DEVNULL,
                                 stderr=open(c + ".log", "a")) for c in configs]
    return children, total, spawned


def lane_journal_lines(base, lanes):
    """Lines in every lane's journals on the lanes' own disks."""
    n = 0
    for lane in range(1, lanes + 1):
        d = os.path.join(base, f"lane{lane}", "journal")
        for name in os.listdir(d):
            if name.endswith(".jsonl"):
                with open(os.path.join(d, name), "rb") as f:
                    n += f.read().count(b"\n")
    return n


def wait_mirrored(conn, total, lanes, t0, limit):
    """Polls `/api/lanes` until every lane is online and `total` lines are
    mirrored, or `limit` seconds: (seconds, lines, online)."""
    while True:
        v = get_json(conn, "/api/lanes") or []
        # A lane of the competition not heard from yet has no mirror.
        have = sum((l.get("mirror") or {}).get("lines", 0) for l in v)
        online = sum(1 for l in v if l["online"])
        if (have >= total and online >= lanes) or time.monotonic() - t0 > limit:
            return time.monotonic() - t0, have, online
        time.sleep(0.1)


def counts(conn):
    c = {}
    for l in get_json(conn, "/api/lanes") or []:
        for k in ("gaps", "held", "duplicates", "conflicts", "dropped"):
            c[k] = c.get(k, 0) + ((l.get("mirror") or {}).get(k) or 0)
    return c


def many(binary, lanes):
    base = tempfile.mkdtemp(prefix="lanecall-bench-many-")
    broker = free_port()
    centre, web, _ = start_centre(binary, base, broker)
    conn = http.client.HTTPConnection("127.0.0.1", web)
    idle = proc_figures(centre.pid)
    t0 = time.monotonic()
    children, total, spawned = start_lanes(binary, lanes, base, broker)
    time.sleep(1)
    total = lane_journal_lines(base, lanes)
    took, have, _ = wait_mirrored(conn, total, lanes, t0, 120)
    from_spawn = took - (spawned - t0)
    time.sleep(2)
    full = proc_figures(centre.pid)
    time.sleep(30)
    later = proc_figures(centre.pid)
    print(f"  the mirror's counts over all lanes: {counts(conn)}")
    v = get_json(conn, "/api/standings")
    entries = sum(len(c["entries"]) for c in v["categories"])
    print(f"centre alone, {lanes} lanes, {total} journal lines ({have} mirrored) in {took:.1f} s from the lanes' start; "
          f"{entries} bowlers in the standings")
    # The line above counts from before the lanes' journals are made and
    # their configs written (a PIN hash each); this one from the moment
    # the lane processes are started.
    print(f"  from the lane processes' start: {from_spawn:.1f} s (their journals and configs "
          f"took {spawned - t0:.1f} s to write before)")
    print(f"  centre idle before the lanes: VmRSS {idle[0]} kB; with every lane mirrored: "
          f"VmRSS {full[0]} kB, VmHWM {full[1]} kB; CPU to take it all {full[2] - idle[2]:.1f} s; "
          f"the next 30 s with {lanes} lanes online and idle: "
          f"{(later[2] - full[2]) / 30 * 100:.2f} % of one core")
    for c in children:
        c.terminate()
    for c in children:
        c.wait()
    centre.terminate()
    centre.wait()
    if os.environ.get("KEEP"):
        print(base)
    else:
        shutil.rmtree(base, ignore_errors=True)


def storm(binary, lanes):
    base = tempfile.mkdtemp(prefix="lanecall-bench-storm-")
    broker = free_port()
    centre, web, state = start_centre(binary, base, broker)
    conn = http.client.HTTPConnection("127.0.0.1", web)
    t0 = time.monotonic()
    children, total, _ = start_lanes(binary, lanes, base, broker)
    time.sleep(1)
    total = lane_journal_lines(base, lanes)
    took, have, online = wait_mirrored(conn, total, lanes, t0, 120)
    time.sleep(20)
    fig = proc_figures(centre.pid)
    print(f"storm, {lanes} lanes, {total} lines: first mirrored {have} in {took:.1f} s; "
          f"counts {counts(conn)}; 20 s later VmRSS {fig[0]} kB, VmHWM {fig[1]} kB")
    for what in ("mirror kept", "mirror gone"):
        time.sleep(3)
        centre.kill()
        centre.wait()
        if what == "mirror gone":
            shutil.rmtree(os.path.join(state, "lanes"))
        time.sleep(1)
        t0 = time.monotonic()
        centre, _, _ = start_centre(binary, base, broker, web)
        conn = http.client.HTTPConnection("127.0.0.1", web)
        total = lane_journal_lines(base, lanes)
        took, have, online = wait_mirrored(conn, total, lanes, t0, 120)
        fig = proc_figures(centre.pid)
        c = counts(conn)
        time.sleep(20)
        later = proc_figures(centre.pid)
        print(f"  centre killed and started again, {what}: {online} of {lanes} lanes online and "
              f"{have} of {total} lines mirrored after {took:.1f} s; counts {c}; "
              f"VmRSS {fig[0]} kB, VmHWM {fig[1]} kB, CPU {fig[2]:.1f} s; 20 s later VmRSS "
              f"{later[0]} kB")
    for c in children:
        c.terminate()
    for c in children:
        c.wait()
    centre.terminate()
    centre.wait()
    if os.environ.get("KEEP"):
        print(base)
    else:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    what, binary = sys.argv[1], sys.argv[2]
    if what in ("many", "storm"):
        LOGINS[0] = max(LOGINS[0], int(sys.argv[3]))
    if what == "latency":
        latency(binary, *(int(a) if a.isdigit() else float(a) for a in sys.argv[3:7]))
    elif what == "catchup":
        catchup(binary, int(sys.argv[3]))
    elif what == "many":
        many(binary, int(sys.argv[3]))
    elif what == "storm":
        storm(binary, int(sys.argv[3]))
