#!/usr/bin/env bash
# Builds the app, runs it under Xvfb with software rendering, and writes PNG
# screenshots of the main views to a folder (default: shots/).
#   scripts/screenshot.sh [OUT_DIR]
# Needs (Debian): xvfb xauth libx11-6 libx11-xcb1 libxcursor1 libxrandr2 libxi6
#   libxkbcommon-x11-0 libegl1 libegl-mesa0 libgl1-mesa-dri libglx-mesa0
#   mesa-vulkan-drivers libvulkan1 libdbus-1-3
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-shots}")
mkdir -p "$out"
if ! command -v xvfb-run >/dev/null; then
  echo "installing Xvfb and the software renderers (apt-get)…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xvfb xauth libx11-6 libx11-xcb1 \
    libxcursor1 libxrandr2 libxi6 libxkbcommon-x11-0 libegl1 libegl-mesa0 libgl1-mesa-dri libglx-mesa0 \
    mesa-vulkan-drivers libvulkan1 libdbus-1-3 >/dev/null
fi
cargo build --release --quiet
bin=target/release/prompt-inspector
export XDG_RUNTIME_DIR=$(mktemp -d); chmod 700 "$XDG_RUNTIME_DIR"
export XDG_CONFIG_HOME=$(mktemp -d) XDG_DATA_HOME=$(mktemp -d)   # fresh persisted state
shoot() { # views workspace
  PROMPT_INSPECTOR_SHOTS="$out" PROMPT_INSPECTOR_SHOT_VIEWS="$1" \
    timeout 120 xvfb-run -a -s "-screen 0 1440x900x24" "$bin" "$2"
}
shoot overview,table-detail,prompt-markers,cache,diff sample-workspace
# The problems view on a copy of the sample with broken files.
broken=$(mktemp -d)
cp -r sample-workspace/. "$broken/"
printf -- '- id: broken\n  layer: 3\n  content: [unclosed\n' > "$broken/fragments/broken.yaml"
printf -- '- id: soul\n  layer: 9\n  content: dup\n  colour: red\n' > "$broken/fragments/bad.yaml"
shoot problems "$broken"
rm -rf "$broken"
ls -1 "$out"/*.png
