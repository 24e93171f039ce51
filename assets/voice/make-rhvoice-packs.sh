#!/usr/bin/env bash
# Renders the RHVoice voice packs into OUT (default target/voices), one
# folder a voice as `[speaker] voice` names them:
#
#   rhvoice          Russian: Aleksandr; English: SLT
#   rhvoice-elena    Russian: Elena;     English: SLT
#   rhvoice-anna     Russian: Anna;      English: SLT
#   rhvoice-irina    Russian: Irina;     English: SLT
#
# each with ru/ and en/ (one WAV a clip of clips.txt, the words of ru.txt
# and en.txt), and LICENSE: these voices are LGPL-2.1+ (Debian's rhvoice
# copyright file; RHVoice's other voices are not free to ship and are not
# used). Every clip: mono 16-bit PCM at 22050 Hz, silence trimmed at both
# ends, a 5 ms fade in and 10 ms out, then the folder brought to one
# loudness (`lanecall voice normalise`, -18 LUFS) and checked (`lanecall
# voice check`: $LANECALL, or this repository's built with cargo). The
# package build runs it (.ci/package).
#
# Needs Debian's rhvoice, rhvoice-russian and rhvoice-english (section
# non-free) and sox.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/voices}"
rate=22050

missing=()
command -v RHVoice-test >/dev/null 2>&1 || missing+=(rhvoice rhvoice-russian rhvoice-english)
command -v sox >/dev/null 2>&1 || missing+=(sox)
if ((${#missing[@]})); then
    echo "make-rhvoice-packs: install the Debian packages (non-free): apt-get install ${missing[*]}" >&2
    exit 1
fi
# The lanecall that normalises and checks: $LANECALL, or this repository's.
if [[ -n "${LANECALL:-}" ]]; then
    lanecall="$LANECALL"
else
    cargo build --quiet --release --locked --manifest-path "$root/Cargo.toml" --bin lanecall
    lanecall="${CARGO_TARGET_DIR:-$root/target}/release/lanecall"
fi
packs=(rhvoice:aleksandr rhvoice-elena:elena rhvoice-anna:anna rhvoice-irina:irina)
# What the packs are made from: this script, the words, the voices' and
# sox's versions, and the lanecall that normalised them. OUT.inputs keeps
# it (beside OUT, not in the packages): packs already rendered from the
# same are left as they are (CI renders them for its first package and
# finds them made for the others).
inputs="$(
    cat "$0" "$here/clips.txt" "$here/ru.txt" "$here/en.txt" "$lanecall" | sha256sum | cut -d' ' -f1
    dpkg-query -W -f '${Package} ${Version}\n' rhvoice rhvoice-russian rhvoice-english sox 2>/dev/null || true
)"
rendered=1
for pack in "${packs[@]}"; do
    [[ -f "$out/${pack%%:*}/LICENSE" ]] || rendered=0
done
if ((rendered)) && [[ "$(cat "$out.inputs" 2>/dev/null)" == "$inputs" ]]; then
    echo "make-rhvoice-packs: $out holds the packs rendered from these inputs"
    exit 0
fi
rm -f "$out.inputs"

mapfile -t clips < <(grep -v '^[[:space:]]*$' "$here/clips.txt")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# clip -> words for RHVoice: the espeak-ng texts, with their phoneme input
# ([[...]]) said in letters.
words_for() {
    local lang=$1 clip=$2
    case "$lang:$clip" in
        ru:slow_bowling_warning) echo "предупреждение за задержку" ;;
        ru:standing_many) echo "кеглей стоят" ;;
        *) awk -F'\t' -v c="$clip" '$1 == c { print $2 }' "$here/$lang.txt" ;;
    esac
}

# render LANG VOICE DIR: every clip in DIR (its scratch files its own: the
# voices render side by side).
render() {
    local lang=$1 voice=$2 dir=$3 work
    work="$(mktemp -d -p "$tmp")"
    mkdir -p "$dir"
    for clip in "${clips[@]}"; do
        local words
        words="$(words_for "$lang" "$clip")"
        [[ -n "$words" ]] || { echo "make-rhvoice-packs: no words for $lang $clip" >&2; exit 1; }
        printf '%s\n' "$words" | RHVoice-test -p "$voice" -o "$work/raw.wav"
        sox "$work/raw.wav" -r "$rate" -c 1 -b 16 -e signed-integer "$work/trimmed.wav" \
            silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse
        sox "$work/trimmed.wav" "$dir/$clip.wav" fade t 0.005 -0 0.01
    done
    "$lanecall" voice normalise "$dir" >/dev/null
    "$lanecall" voice check "$dir"
}

# The five voices at once (one process each: RHVoice and sox use one CPU).
jobs=()
render en slt "$tmp/en" &
jobs+=($!)
for pack in "${packs[@]}"; do
    name="${pack%%:*}"
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    render ru "${pack#*:}" "$out/$name/ru" &
    jobs+=($!)
done
# every voice waited for, so that none is left writing after a failure
failed=0
for job in "${jobs[@]}"; do
    wait "$job" || failed=1
done
((failed == 0)) || { echo "make-rhvoice-packs: a voice failed to render (above)" >&2; exit 1; }
for pack in "${packs[@]}"; do
    name="${pack%%:*}"
    voice="${pack#*:}"
    cp -r "$tmp/en" "$out/$name/en"
    version="$(dpkg-query -W -f '${Version}' rhvoice-russian 2>/dev/null || echo unknown)"
    {
        echo "lanecall's voice \"$name\": the Russian voice ${voice^} and the English"
        echo "voice SLT of RHVoice (https://github.com/RHVoice/RHVoice, Olga Yakovleva"
        echo "and contributors), rendered with Debian's rhvoice $version by"
        echo "assets/voice/make-rhvoice-packs.sh. Both voices are under the GNU Lesser"
        echo "General Public License, version 2.1 or later (Debian's rhvoice copyright"
        echo "file, \"Files: data/*\"), whose text follows."
        echo
        cat /usr/share/common-licenses/LGPL-2.1
    } >"$out/$name/LICENSE"
    echo "$name: $(du -sk "$out/$name" | cut -f1) kB"
done
echo "$inputs" >"$out.inputs"
