#!/usr/bin/env bash
# Figure 7's long run: resident memory of `gatehouse --demo --scale K` under
# Xvfb, sampled every 30 s for N minutes. Flat means every sample after the
# first 5 minutes within 5 % of the sample at minute 5.
#
#   tests/bench/flatness.sh [BUILD_DIR] [MINUTES] [SCALE]   (defaults: build 30 20)
set -euo pipefail
build=${1:-build}
minutes=${2:-30}
scale=${3:-20}
app="$build/app/gatehouse"
[[ -x $app ]] || { echo "flatness: $app not found; build first (bash .ci/build)." >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "flatness: Xvfb not found (Debian package xvfb)." >&2; exit 2; }

display=90
while [[ -e /tmp/.X11-unix/X$display || -e /tmp/.X$display-lock ]]; do display=$((display + 1)); done
Xvfb ":$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
audit=$(mktemp)
cleanup() {
    # SIGTERM quits gatehouse like File > Quit: its demo server goes with it.
    kill "${gh:-}" 2>/dev/null || true
    wait "${gh:-}" 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    rm -f "$audit"
}
trap cleanup EXIT
sleep 1

seconds=$((minutes * 60))
DISPLAY=":$display" GATEHOUSE_AUDIT_LOG="$audit" "$app" --demo --scale "$scale" \
    --quit-after $((seconds + 30)) >/dev/null 2>&1 &
gh=$!

echo "minute  rss_kb"
base=0
worst=0
for ((t = 30; t <= seconds; t += 30)); do
    sleep 30
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$gh/status" 2>/dev/null || echo 0)
    [[ $rss -gt 0 ]] || { echo "flatness: gatehouse exited early" >&2; exit 1; }
    awk -v t="$t" -v r="$rss" 'BEGIN { printf "%6.1f  %s\n", t / 60, r }'
    if ((t == 300)); then base=$rss; fi
    if ((t > 300 && base > 0)); then
        dev=$(((rss > base ? rss - base : base - rss) * 1000 / base))
        ((dev > worst)) && worst=$dev
    fi
done
if ((base == 0)); then
    echo "flatness: a run of at least 5 minutes is needed for a verdict."
    exit 0
fi
printf 'after minute 5: largest deviation from minute 5 (%s kB): %d.%d %%; budget 5 %%: %s\n' \
    "$base" $((worst / 10)) $((worst % 10)) "$([[ $worst -le 50 ]] && echo met || echo NOT met)"
