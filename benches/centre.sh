#!/usr/bin/env bash
# The centre's figures (BENCHMARKS.md, "The centre: 48 lanes").
#
# Usage: benches/centre.sh [LANES] [SPEED] [SECONDS]    (default 48 10 180)
#
# Builds the release binary, then with benches/centre.py:
#  1. `lanecall demo --lanes LANES --speed SPEED --for SECONDS`: ball on a
#     lane -> the centre's standings (p50/p99/max), the process's RSS and
#     CPU; then the same with `--lanes 1` for the difference;
#  2. `lanecall centre` alone with LANES `lanecall run` lanes, each with a
#     simulated block in its journal: the centre's RSS and CPU;
#  3. a lane back after 10 minutes of lane time away: its start -> the
#     centre's mirror holds every line;
#  4. storm: as 2, then the centre killed and started again (every lane
#     reconnects at once), with its mirror kept and with it gone.
# Environment: CENTRE_ONLY=latency,many,catchup,storm (default all), FOLLOW (lanes
# followed for the latency, 16).
set -euo pipefail

lanes="${1:-48}"
speed="${2:-10}"
seconds="${3:-180}"
only="${CENTRE_ONLY:-latency,many,catchup,storm}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v python3 >/dev/null || { echo "error: python3 not found" >&2; exit 69; }

echo "== cargo build --release"
cargo build --release --quiet
bin="$root/target/release/lanecall"
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ ",$only," == *,latency,* ]]; then
    python3 benches/centre.py latency "$bin" "$lanes" "$speed" "$seconds" "${FOLLOW:-16}"
    python3 benches/centre.py latency "$bin" 1 "$speed" "$seconds" 1
fi
if [[ ",$only," == *,many,* ]]; then
    python3 benches/centre.py many "$bin" "$lanes"
fi
if [[ ",$only," == *,catchup,* ]]; then
    python3 benches/centre.py catchup "$bin" 10
fi
if [[ ",$only," == *,storm,* ]]; then
    python3 benches/centre.py storm "$bin" "$lanes"
fi
