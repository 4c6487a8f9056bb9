#!/usr/bin/env bash
# Nothing moves under the pointer, driven from outside with real X events:
# runs the window under Xvfb at 1024x640, 1280x800 and 1920x1080, clicks
# every tab with xdotool (in order, in reverse, and each twice), selects a
# fragment, hovers the tabs and rows, and checks from the window's layout
# log (PROMPT_INSPECTOR_LAYOUT_LOG) that the tab bar's buttons, the status
# bar and the rows stay where they were, and that each click chose what
# was under the pointer. Exit 1 on the first thing that moved.
#   scripts/xdotool-stability.sh [WORKSPACE]
# Needs (Debian): xvfb xauth xdotool and the renderers scripts/screenshot.sh names.
# PROMPT_INSPECTOR_BIN: a binary already built (else a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
ws=$(realpath "${1:-sample-workspace}")
for tool in xvfb-run xdotool; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install xvfb xdotool)" >&2; exit 2; }
done
if [ -n "${PROMPT_INSPECTOR_BIN:-}" ]; then
  bin=$(realpath "$PROMPT_INSPECTOR_BIN")
else
  cargo build --release --quiet
  bin=$PWD/target/release/prompt-inspector
fi
export XDG_RUNTIME_DIR=$(mktemp -d); chmod 700 "$XDG_RUNTIME_DIR"
export BIN=$bin WS=$ws
status=0
for size in ${SIZES:-1024x640 1280x800 1920x1080}; do
  w=${size%x*} h=${size#*x}
  echo "== $size"
  SIZE=$size xvfb-run -a -s "-screen 0 $((w + 40))x$((h + 40))x24" \
    python3 scripts/xdotool_stability.py || status=1
done
exit $status
