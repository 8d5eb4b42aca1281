#!/bin/sh
# Which loudness filter `set loudness on` uses: FFmpeg's dynaudnorm (as feedsh
# sets it) against loudnorm, on two minutes of speech-like bursts whose every
# other ten seconds are 14 dB quieter. Prints the CPU a 2x play takes through mpv
# (as fast as it can go) and how far apart the quiet and loud parts end up.
# Needs mpv, ffmpeg, python3 and /usr/bin/time.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir/speech.wav" <<'PY'
import math, struct, sys, wave
out = wave.open(sys.argv[1], "wb")
out.setnchannels(1); out.setsampwidth(2); out.setframerate(44100)
frames = bytearray()
for i in range(44100 * 120):
    t = i / 44100
    envelope = (0.5 + 0.5 * math.sin(2 * math.pi * 3 * t)) * (0.2 if int(t / 10) % 2 else 1.0)
    envelope *= 0 if (t % 7) > 6.2 else 1
    frames += struct.pack("<h", int(12000 * envelope * math.sin(2 * math.pi * (180 + 40 * math.sin(t)) * t)))
out.writeframes(bytes(frames)); out.close()
PY
printf '%-32s %10s %12s %12s\n' filter "cpu 2x" "quiet dB" "loud dB"
for filter in anull "dynaudnorm=f=150:g=15:p=0.9" loudnorm; do
    cpu=$( { /usr/bin/time -f %U mpv --no-config --ao=null --ao-null-untimed --vo=null --speed=2 \
        --af-append="lavfi=[$filter]" --no-terminal "$dir/speech.wav" >/dev/null; } 2>&1 | tail -1)
    ffmpeg -v error -y -i "$dir/speech.wav" -af "$filter" -ar 44100 "$dir/out.wav"
    level() { ffmpeg -v info -ss "$1" -t 6 -i "$dir/out.wav" -af volumedetect -f null - 2>&1 \
        | awk '/mean_volume/ { print $(NF-1) }'; }
    printf '%-32s %9ss %12s %12s\n' "$filter" "$cpu" "$(level 32)" "$(level 42)"
done
