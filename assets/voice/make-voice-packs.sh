#!/usr/bin/env bash
# Builds the built-in voice packs: assets/voice/<lang>/<clip>.wav for every
# clip named in clips.txt, from the texts in <lang>.txt (`clip<TAB>text`
# lines; `[[...]]` is espeak-ng phoneme input, used where its stress is wrong).
#
# Every clip: mono, 16-bit PCM, 22050 Hz, silence trimmed at both ends, a
# 5 ms fade in and 10 ms fade out (no click where a clip starts or stops),
# then every clip brought to the same loudness (-18 LUFS, peaks 1 dB below
# full scale: `lanecall voice normalise`) and the pack checked (`lanecall
# voice check`). Run it from anywhere:
#
#     assets/voice/make-voice-packs.sh
#
# Needs espeak-ng and sox (Debian: apt-get install espeak-ng sox).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rate=22050
speed=150
declare -A voices=([ru]=ru [en]=en-gb)

missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
if ((${#missing[@]})); then
    echo "make-voice-packs: ${missing[*]} not found; install the Debian packages: apt-get install ${missing[*]}" >&2
    exit 1
fi

mapfile -t clips < <(grep -v '^[[:space:]]*$' "$here/clips.txt")
if ((${#clips[@]} == 0)); then
    echo "make-voice-packs: $here/clips.txt lists no clips" >&2
    exit 1
fi

# This repository's own lanecall, to normalise and check the packs.
lanecall=(cargo run --quiet --release --manifest-path "$here/../../Cargo.toml" --)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for lang in ru en; do
    texts="$here/$lang.txt"
    out="$here/$lang"
    mkdir -p "$out"
    declare -A text=()
    while IFS=$'\t' read -r clip words; do
        [[ -z "$clip" ]] && continue
        text[$clip]="$words"
    done <"$texts"

    for clip in "${clips[@]}"; do
        words="${text[$clip]:-}"
        if [[ -z "$words" ]]; then
            echo "make-voice-packs: $texts has no text for clip $clip" >&2
            exit 1
        fi
        espeak-ng -v "${voices[$lang]}" -s "$speed" -w "$tmp/raw.wav" -- "$words"
        sox "$tmp/raw.wav" -r "$rate" -c 1 -b 16 -e signed-integer "$tmp/trimmed.wav" \
            silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse
        sox "$tmp/trimmed.wav" "$out/$clip.wav" fade t 0.005 -0 0.01 norm -3
    done

    # Drop clips no longer listed.
    for wav in "$out"/*.wav; do
        name="$(basename "$wav" .wav)"
        if ! printf '%s\n' "${clips[@]}" | grep -qxF -- "$name"; then
            rm -- "$wav"
        fi
    done
    unset text
    "${lanecall[@]}" voice normalise "$out" >/dev/null
    "${lanecall[@]}" voice check "$out"
    echo "$lang: ${#clips[@]} clips, $(du -sk "$out" | cut -f1) kB"
done
