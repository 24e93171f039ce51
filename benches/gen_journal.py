#!/usr/bin/env python3
"""Generate a synthetic lanecall journal (format 1) for benchmarks and tests.

Usage: gen_journal.py [--events N] [--seed S] > journal.jsonl

Writes a header line, then at least N events (JSON Lines, compact JSON, `\\n`
after every line, `t` non-decreasing) to stdout, block by block, so memory
stays small whatever N is.  The same seed always gives the same bytes.  The
number of events written goes to stderr.

What a block looks like (see shared/spec/journal.md and pinsetter-serial.md):

  lineup (1-4 bowlers, classes B1/B2/B3, sometimes handicaps or teams)
  blindfold_check ok:true for every B1 bowler
  start_block games:3
  for every ball, in turn order (whole frames in lineup order, tenth-frame
  rules, fresh racks in the tenth frame):
    [orientation: a long foul-beam break (>100 ms) well before the release]
    [button "repeat" now and then]
    release: foul_beam broken, clear 20-80 ms later
    [channel, for a gutter ball]
    ball, 2200-2800 ms after the release
    [foul, ~1%: a break of >=300 ms after the release, before the next READY]
    $PS,PINS,<seq>,<mask>*CS   1500-2500 ms after the ball
    $PS,READY,<seq>,<mask>*CS  2500-3500 ms after that: a full rack for a new
                               frame, after a first-ball foul, and for a fresh
                               rack in the tenth; the leave before a second ball
    [a noise line (~0.5% of serial lines) or a retransmitted line, rarely]
  end_block

A bowler's clock (READY, or start_block for the block's first ball, to the
release) stays under 60 s, except for an occasional slow ball (61-90 s).

Fouls are never put on the tenth frame's second ball after a strike: what the
deck holds after such a ball is not pinned down by rules.md, so the generator
stays away from it.
"""

import argparse
import json
import random
import sys

HEADER = (
    '{"journal":"lanecall","version":1,"lane":7,"started_at":"2026-11-29T09:00:00Z",'
    '"rules":{"ball_break_max_ms":100,"typical_travel_ms":2500,"max_travel_ms":10000,'
    '"pin_report_timeout_ms":15000,"slow_bowling_limit_s":60}}'
)

FULL = 0x3FF  # bit i-1 set = pin i standing

# ---------------------------------------------------------------------------
# Pinsetter lines.  The checksum is the XOR of the bytes between '$' and '*';
# XOR is associative, so it is assembled from precomputed parts.


def _xor(text):
    x = 0
    for b in text.encode("ascii"):
        x ^= b
    return x


MASKSTR = ["".join("1" if (m >> i) & 1 else "0" for i in range(10)) for m in range(1024)]
MASKX = [_xor(s) for s in MASKSTR]
SEQX = [_xor(str(i)) for i in range(256)]
TYPEX = {"READY": _xor("PS,READY,"), "PINS": _xor("PS,PINS,")}
COMMA = ord(",")
POPCOUNT = [bin(m).count("1") for m in range(1024)]


def ps_line(typ, seq, mask):
    cs = TYPEX[typ] ^ SEQX[seq] ^ COMMA ^ MASKX[mask]
    return "$PS,%s,%d,%s*%02X" % (typ, seq, MASKSTR[mask], cs)


def checksum_ok(line):
    """True when `line` is a well-formed pinsetter line with a right checksum."""
    if not line.startswith("$") or line.count("*") != 1:
        return False
    body, cs = line[1:].split("*")
    try:
        return len(cs) == 2 and cs == cs.upper() and int(cs, 16) == _xor(body)
    except (ValueError, UnicodeEncodeError):
        return False


# ---------------------------------------------------------------------------
# People.

FIRST_NAMES = [
    "Anna", "Ivan", "Olga", "Dmitri", "Elena", "Sergei", "Marta", "Pavel",
    "Grace", "Oskar", "Leila", "Bruno", "Mei", "Tomás", "Zoë", "Jürgen",
    "Fatima", "José", "Aiko", "Kwame", "Ольга", "Николай", "Татьяна", "Алексей",
    "Nadia", "Ruth", "Hugo", "Ingrid", "Samir", "Lucía", "Piotr", "Yusuf",
]
INITIALS = "ABCDEFGHIKLMNOPRSTVZ"
JUDGES = ["judge Ivanova", "judge Petrov", "judge Okafor", "judge Lindqvist"]
TEAMS = ["RUS-1", "RUS-2", "GER", "KOR", "FIN", "GBR", "USA", "TUR", "IRL", "SWE"]

# How likely each pin is to be one of those left standing (corners, 4 and 6
# stay up far more often than the head pin).
STAND_WEIGHT = [0.4, 1.5, 1.5, 3.0, 0.8, 3.0, 5.0, 2.0, 2.0, 5.0]


class Bowler:
    __slots__ = ("name", "cls", "skill", "entry")

    def __init__(self, name, cls, skill, entry):
        self.name = name
        self.cls = cls
        self.skill = skill
        self.entry = entry


# ---------------------------------------------------------------------------


class Generator:
    # Rates.
    P_FOUL = 0.01
    P_NOISE = 0.005  # per real serial line
    P_RETX = 0.002  # per real serial line
    P_SLOW = 0.007  # per ball
    P_BUTTON = 0.02  # per ball
    P_ORIENT = {"B1": 0.30, "B2": 0.15, "B3": 0.07}

    def __init__(self, seed, out):
        self.rng = random.Random(seed)
        self.out = out
        self.buf = []  # (t, order, line) for the block being built
        self.events = 0
        self.seq = 0
        self.last_line = None
        self.ready_t = 0  # when the lane last became ready (READY or start_block)
        self.pins_t = 0  # time of the last PINS report
        self.t = 0  # time of the latest thing scheduled so far
        self.last_written_t = 0
        self.stats = {"blocks": 0, "games": 0, "balls": 0, "fouls": 0, "noise": 0,
                      "retransmits": 0, "slow": 0}

    # -- output ------------------------------------------------------------

    def emit(self, t, line):
        self.buf.append((t, len(self.buf), line))
        if t > self.t:
            self.t = t

    def flush(self):
        if not self.buf:
            return
        self.buf.sort()
        if self.buf[0][0] < self.last_written_t:
            raise AssertionError("t would decrease across blocks")
        self.last_written_t = self.buf[-1][0]
        self.out.write("\n".join(line for _, _, line in self.buf))
        self.out.write("\n")
        self.events += len(self.buf)
        self.buf = []

    # -- serial ------------------------------------------------------------

    def serial(self, t, typ, mask):
        line = ps_line(typ, self.seq, mask)
        self.seq = (self.seq + 1) & 255
        ev = '{"t":%d,"ev":"serial","line":"%s"}' % (t, line)
        self.emit(t, ev)
        self.last_line = line
        rng = self.rng
        if rng.random() < self.P_RETX:
            rt = t + rng.randint(60, 400)
            self.emit(rt, '{"t":%d,"ev":"serial","line":"%s"}' % (rt, line))
            self.stats["retransmits"] += 1

    def noise(self, t):
        rng = self.rng
        r = rng.random()
        if r < 0.40 and self.last_line:
            # The last line again, with one character hit by line noise.
            s = list(self.last_line)
            i = rng.randrange(len(s))
            s[i] = rng.choice([c for c in "0123456789ABCDEF,PSRYN$*" if c != s[i]])
            line = "".join(s)
        elif r < 0.65:
            # Well formed, wrong checksum.
            typ = rng.choice(("READY", "PINS"))
            mask = rng.randrange(1024)
            cs = (TYPEX[typ] ^ SEQX[self.seq] ^ COMMA ^ MASKX[mask]) ^ rng.randint(1, 255)
            line = "$PS,%s,%d,%s*%02X" % (typ, self.seq, MASKSTR[mask], cs)
        elif r < 0.85:
            # Printable garbage (quotes and backslashes included).
            n = rng.randint(1, 30)
            line = "".join(chr(rng.randint(32, 126)) for _ in range(n))
        elif r < 0.95:
            # Control characters and bytes that were not ASCII.
            n = rng.randint(1, 12)
            line = "".join(rng.choice(("\x00", "\x07", "\x1b", "\x7f", "\u00ff", "\u00a7",
                                       "\u00e9", "\ufffd", "~", "$"))
                           for _ in range(n))
        else:
            # An overlong line (two lines run together with their line end lost).
            line = (self.last_line or "$PS,READY,0,1111111111*54") * rng.randint(6, 10)
        if checksum_ok(line):  # cannot happen by construction; keep it that way
            line = line[:-1] + ("0" if line[-1] != "0" else "1")
        self.emit(t, json.dumps({"t": t, "ev": "serial", "line": line},
                                separators=(",", ":"), ensure_ascii=False))
        self.stats["noise"] += 1

    def ready(self, mask):
        """The pinsetter's READY after the ball just scheduled."""
        rng = self.rng
        t = self.pins_t + rng.randint(2500, 3500)
        if rng.random() < self.P_NOISE:
            self.noise(rng.randint(self.pins_t + 1, t - 1))
        self.serial(t, "READY", mask)
        self.ready_t = t

    # -- pins --------------------------------------------------------------

    def leave(self, before, keep):
        """Choose `keep` of the pins standing in `before` to stay up."""
        if keep <= 0:
            return 0
        pins = [i for i in range(10) if (before >> i) & 1]
        if keep >= len(pins):
            return before
        rng = self.rng
        weights = [STAND_WEIGHT[i] for i in pins]
        total = sum(weights)
        after = 0
        for _ in range(keep):
            x = rng.random() * total
            j = 0
            while j < len(pins) - 1 and x >= weights[j]:
                x -= weights[j]
                j += 1
            after |= 1 << pins[j]
            total -= weights[j]
            del pins[j]
            del weights[j]
        return after

    def roll(self, bw, before):
        """Pins standing after a ball at `before`; and whether it was a gutter ball."""
        rng = self.rng
        sk = bw.skill
        n = POPCOUNT[before]
        r = rng.random()
        p_gutter = 0.10 - 0.08 * sk
        if before == FULL:
            p_strike = 0.04 + 0.30 * sk
            if r < p_strike:
                return 0, False
            if r < p_strike + p_gutter:
                return FULL, True
            down = int(rng.triangular(1, 10, 5 + 4 * sk))
            down = max(1, min(9, down))
            return self.leave(before, 10 - down), False
        # A leave: try to convert.
        ease = 1.0 if n == 1 else 0.85 if n == 2 else 0.6 if n <= 4 else 0.4
        p_clear = (0.15 + 0.65 * sk) * ease
        if r < p_clear:
            return 0, False
        if r < p_clear + p_gutter:
            return before, True
        down = rng.randint(0, n - 1)
        return self.leave(before, n - down), False

    # -- one delivery --------------------------------------------------------

    def deliver(self, bw, before, may_foul):
        """Schedule one ball at the deck `before`, from orientation up to the PINS
        report.  Returns (after, foul)."""
        rng = self.rng
        R = self.ready_t
        if rng.random() < self.P_SLOW:
            wait = rng.randint(61000, 90000)
            self.stats["slow"] += 1
        else:
            wait = int(rng.triangular(8000, 55000, 22000 if bw.cls == "B1" else 16000))
        rel = R + wait

        if rng.random() < self.P_ORIENT[bw.cls]:
            d = rng.randint(150, 2500)
            lo, hi = R + 1000, rel - 1500 - d
            if hi >= lo:
                s = rng.randint(lo, hi)
                self.emit(s, '{"t":%d,"ev":"foul_beam","state":"broken"}' % s)
                self.emit(s + d, '{"t":%d,"ev":"foul_beam","state":"clear"}' % (s + d))
        if rng.random() < self.P_BUTTON:
            b = rng.randint(R + 300, rel - 300)
            self.emit(b, '{"t":%d,"ev":"button","name":"repeat"}' % b)

        clear = rel + rng.randint(20, 80)
        self.emit(rel, '{"t":%d,"ev":"foul_beam","state":"broken"}' % rel)
        self.emit(clear, '{"t":%d,"ev":"foul_beam","state":"clear"}' % clear)

        after, gutter = self.roll(bw, before)
        if gutter and rng.random() < 0.85:
            c = rel + rng.randint(700, 1800)
            side = "left" if rng.random() < 0.5 else "right"
            self.emit(c, '{"t":%d,"ev":"channel","side":"%s"}' % (c, side))

        ball = rel + rng.randint(2200, 2800)
        self.emit(ball, '{"t":%d,"ev":"ball"}' % ball)

        foul = may_foul and rng.random() < self.P_FOUL
        if foul:
            s = clear + rng.randint(150, 2500)
            e = s + rng.randint(300, 1500)
            self.emit(s, '{"t":%d,"ev":"foul_beam","state":"broken"}' % s)
            self.emit(e, '{"t":%d,"ev":"foul_beam","state":"clear"}' % e)
            self.stats["fouls"] += 1

        pins = ball + rng.randint(1500, 2500)
        if rng.random() < self.P_NOISE:
            self.noise(rng.randint(ball, pins - 1))
        self.serial(pins, "PINS", after)
        self.pins_t = pins
        self.stats["balls"] += 1
        return after, foul

    # -- frames ------------------------------------------------------------

    def frame(self, bw, number):
        """Bowl one frame; the deck holds a full rack and the lane is ready."""
        after, foul = self.deliver(bw, FULL, True)
        if number < 10:
            if not foul and after == 0:  # strike
                self.ready(FULL)
                return
            rack = FULL if foul else after  # a first-ball foul is respotted
            self.ready(rack)
            self.deliver(bw, rack, True)
            self.ready(FULL)
            return
        # Tenth frame.
        strike1 = not foul and after == 0
        rack = FULL if (foul or strike1) else after
        self.ready(rack)
        after2, foul2 = self.deliver(bw, rack, not strike1)
        if strike1:
            third = FULL if after2 == 0 else after2
        elif not foul2 and after2 == 0:  # spare (F/ included)
            third = FULL
        else:
            self.ready(FULL)  # next bowler's frame
            return
        self.ready(third)
        self.deliver(bw, third, True)
        self.ready(FULL)

    # -- blocks ------------------------------------------------------------

    def lineup(self):
        rng = self.rng
        kind = rng.choice(("singles", "singles", "handicap", "doubles", "team"))
        if kind == "doubles":
            n = rng.choice((2, 4))
        elif kind == "team":
            n = rng.choice((3, 4))
        else:
            n = rng.randint(1, 4)
        names = []  # a list, not a set: set order would follow PYTHONHASHSEED
        while len(names) < n:
            name = "%s %s." % (rng.choice(FIRST_NAMES), rng.choice(INITIALS))
            if name not in names:
                names.append(name)
        teams = rng.sample(TEAMS, 2)
        bowlers = []
        for i, name in enumerate(names):
            cls = rng.choices(("B1", "B2", "B3"), (0.4, 0.3, 0.3))[0]
            lo, hi = {"B1": (0.0, 0.45), "B2": (0.25, 0.7), "B3": (0.45, 0.95)}[cls]
            skill = rng.uniform(lo, hi)
            entry = {"name": name, "class": cls}
            if kind == "handicap" or (kind == "team" and rng.random() < 0.3):
                entry["handicap"] = rng.randint(0, 80)
            if kind == "doubles":
                entry["team"] = teams[i // 2]
            elif kind == "team":
                entry["team"] = teams[0]
            bowlers.append(Bowler(name, cls, skill, entry))
        return bowlers

    def block(self, start):
        rng = self.rng
        judge = rng.choice(JUDGES)
        bowlers = self.lineup()
        t = start
        self.emit(t, json.dumps({"t": t, "ev": "lineup", "bowlers": [b.entry for b in bowlers],
                                 "by": judge}, separators=(",", ":"), ensure_ascii=False))
        for b in bowlers:
            if b.cls == "B1":
                t += rng.randint(20000, 90000)
                self.emit(t, json.dumps({"t": t, "ev": "blindfold_check", "bowler": b.name,
                                         "ok": True, "by": judge},
                                        separators=(",", ":"), ensure_ascii=False))
        t += rng.randint(30000, 120000)
        self.emit(t, '{"t":%d,"ev":"start_block","games":3,"by":%s}' % (t, json.dumps(judge)))
        self.ready_t = t  # the first bowler's clock starts at the block start
        for _game in range(3):
            for number in range(1, 11):
                for b in bowlers:
                    self.frame(b, number)
            self.stats["games"] += len(bowlers)
        t = self.t + rng.randint(15000, 60000)
        self.emit(t, '{"t":%d,"ev":"end_block","by":%s}' % (t, json.dumps(judge)))
        self.stats["blocks"] += 1
        self.flush()

    def run(self, target):
        rng = self.rng
        self.out.write(HEADER + "\n")
        self.emit(0, '{"t":0,"ev":"serial_link","state":"up"}')
        t = rng.randint(800, 1500)
        self.serial(t, "READY", FULL)
        self.ready_t = t
        start = self.t + rng.randint(60000, 300000)
        while self.events + len(self.buf) < target:
            self.block(start)
            start = self.t + rng.randint(120000, 1200000)  # the next block's lineup
        self.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=1_000_000,
                    help="write at least this many events (default 1000000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = ap.parse_args()

    # Plain UTF-8 and '\n' line ends whatever the locale or platform.
    out = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="\n",
               buffering=1 << 20, closefd=False)
    gen = Generator(args.seed, out)
    try:
        gen.run(args.events)
        out.flush()
    except BrokenPipeError:
        sys.stderr.write("gen_journal: output closed early after %d events\n" % gen.events)
        return 1
    s = gen.stats
    sys.stderr.write(
        "gen_journal: wrote %d events (seed %d; %d blocks, %d games, %d balls, %d fouls, "
        "%d noise lines, %d retransmissions, %d slow balls; last t=%d ms)\n"
        % (gen.events, args.seed, s["blocks"], s["games"], s["balls"], s["fouls"],
           s["noise"], s["retransmits"], s["slow"], gen.last_written_t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
