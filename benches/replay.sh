#!/usr/bin/env bash
# Replay benchmark: how fast `lanecall replay LOG --json` applies a big journal.
#
# Usage: benches/replay.sh [EVENTS]      (default 1000000)
#        JQ_PAIRS=5 benches/replay.sh     (also: jq -c . then lanecall, 5 pairs
#                                          back to back, and the median ratio)
#
# Builds the release binary, generates a journal of EVENTS events with
# benches/gen_journal.py (seed 1) into ${TMPDIR:-/tmp} unless it is already
# there (the file name carries the generator's hash), then replays it three times under /usr/bin/time -v and prints, for
# each run, wall seconds, events per second (events = lines - 1), peak RSS in
# MiB and the journal size in MiB.
set -euo pipefail

events="${1:-1000000}"
seed=1
if ! [[ "$events" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [EVENTS]   (EVENTS: a whole number, default 1000000)" >&2
    exit 64
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ ! -x /usr/bin/time ]]; then
    echo "error: /usr/bin/time not found (GNU time is needed for -v)." >&2
    echo "       Debian/Ubuntu: sudo apt-get install time" >&2
    exit 69
fi
command -v python3 >/dev/null || { echo "error: python3 not found" >&2; exit 69; }

echo "== cargo build --release"
cargo build --release
bin="$root/target/release/lanecall"
[[ -x "$bin" ]] || { echo "error: $bin was not built" >&2; exit 1; }

tmp="${TMPDIR:-/tmp}"
# The generator's hash is in the name, so a changed generator makes a new file.
gen_hash=$(sha256sum "$root/benches/gen_journal.py" | cut -c1-8)
journal="$tmp/lanecall-bench-${events}-seed${seed}-${gen_hash}.jsonl"
if [[ -s "$journal" ]]; then
    echo "== using existing journal $journal"
else
    echo "== generating $journal"
    part="$(mktemp "$tmp/lanecall-bench-XXXXXX.part")"
    trap 'rm -f "$part"' EXIT
    python3 "$root/benches/gen_journal.py" --events "$events" --seed "$seed" >"$part"
    mv "$part" "$journal"  # only a finished journal gets the final name
    trap - EXIT
fi

lines=$(wc -l <"$journal")
bytes=$(stat -c %s "$journal")
ev=$((lines - 1))
size_mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "== journal: $lines lines ($ev events), $bytes bytes ($size_mib MiB)"

timelog="$(mktemp "$tmp/lanecall-bench-time-XXXXXX")"
errlog="$(mktemp "$tmp/lanecall-bench-stderr-XXXXXX")"
trap 'rm -f "$timelog" "$errlog"' EXIT

failed=0
printf '%-4s %10s %14s %14s %14s\n' run wall_s events_per_s peak_rss_MiB journal_MiB
for run in 1 2 3; do
    rc=0
    start_ns=$(date +%s%N)
    /usr/bin/time -v -o "$timelog" "$bin" replay "$journal" --json >/dev/null 2>"$errlog" || rc=$?
    end_ns=$(date +%s%N)
    # Wall time from the nanosecond clock (time -v only resolves 10 ms); fall
    # back to time's "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23".
    if [[ "$start_ns" =~ ^[0-9]+$ && "$end_ns" =~ ^[0-9]+$ ]]; then
        wall=$(awk -v ns="$((end_ns - start_ns))" 'BEGIN { printf "%.3f", ns / 1e9 }')
    else
        wall=$(awk -F': ' '/Elapsed \(wall clock\) time/ {
                   n = split($2, p, ":"); s = 0
                   for (i = 1; i <= n; i++) s = s * 60 + p[i]
                   printf "%.3f", s }' "$timelog")
    fi
    rss_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timelog")
    if [[ -z "$wall" || -z "$rss_kib" ]]; then
        echo "error: could not read /usr/bin/time output:" >&2
        cat "$timelog" >&2
        exit 1
    fi
    awk -v run="$run" -v w="$wall" -v ev="$ev" -v rss="$rss_kib" -v size="$size_mib" 'BEGIN {
            eps = (w > 0) ? sprintf("%.0f", ev / w) : "inf"
            printf "%-4s %10.3f %14s %14.1f %14s\n", run, w, eps, rss / 1024, size }'
    if [[ $rc -ne 0 ]]; then
        echo "warning: run $run: lanecall exited with status $rc; last lines of its stderr:" >&2
        tail -n 5 "$errlog" >&2
        failed=1
    fi
done
pairs="${JQ_PAIRS:-0}"
if [[ "$pairs" =~ ^[1-9][0-9]*$ ]]; then
    command -v jq >/dev/null || { echo "error: jq not found" >&2; exit 69; }
    echo "== against jq -c . (wall and user+sys seconds, $pairs pairs back to back)"
    printf '%-4s %8s %8s %10s %10s %10s %10s\n' pair jq_wall jq_cpu lc_wall lc_cpu wall_ratio cpu_ratio
    ratios="$(mktemp "$tmp/lanecall-bench-ratios-XXXXXX")"
    trap 'rm -f "$timelog" "$errlog" "$ratios"' EXIT
    # Wall seconds from the nanosecond clock where there is one (time's %e
    # resolves 10 ms, a tenth of lanecall's run); CPU seconds from time.
    # ns_wall START END TIME_WALL: END - START in seconds, or TIME_WALL.
    ns_wall() {
        if [[ "$1" =~ ^[0-9]+$ && "$2" =~ ^[0-9]+$ ]]; then
            awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
        else
            echo "$3"
        fi
    }
    for pair in $(seq "$pairs"); do
        start_ns=$(date +%s%N)
        /usr/bin/time -f "%e %U %S" -o "$timelog" jq -c . "$journal" >/dev/null
        end_ns=$(date +%s%N)
        read -r jw ju js < <(tail -n 1 "$timelog")
        jw=$(ns_wall "$start_ns" "$end_ns" "$jw")
        start_ns=$(date +%s%N)
        /usr/bin/time -f "%e %U %S" -o "$timelog" "$bin" replay "$journal" --json >/dev/null 2>"$errlog" || true
        end_ns=$(date +%s%N)
        read -r lw lu ls < <(tail -n 1 "$timelog")
        lw=$(ns_wall "$start_ns" "$end_ns" "$lw")
        awk -v p="$pair" -v jw="$jw" -v jc="$(awk -v a="$ju" -v b="$js" 'BEGIN{print a+b}')" \
            -v lw="$lw" -v lc="$(awk -v a="$lu" -v b="$ls" 'BEGIN{print a+b}')" 'BEGIN {
                printf "%-4s %8.3f %8.2f %10.3f %10.2f %10.3f %10.3f\n", p, jw, jc, lw, lc,
                    (jw > 0 ? lw / jw : 0), (jc > 0 ? lc / jc : 0) }' | tee -a "$ratios"
    done
    sort -n -k6 "$ratios" | awk '{ r[NR] = $6 } END {
        m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
        printf "median wall ratio lanecall / jq: %.3f (target <= 0.05)\n", m }'
fi
exit "$failed"
