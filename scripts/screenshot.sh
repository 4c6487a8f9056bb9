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
# PROMPT_INSPECTOR_BIN: a binary already built (the debug one, say) instead
# of a release build.
if [ -n "${PROMPT_INSPECTOR_BIN:-}" ]; then
  bin=$PROMPT_INSPECTOR_BIN
else
  cargo build --release --quiet
  bin=target/release/prompt-inspector
fi
export XDG_RUNTIME_DIR=$(mktemp -d); chmod 700 "$XDG_RUNTIME_DIR"
shoot() { # size theme views workspace [name]
  local w=${1%x*} h=${1#*x}
  # Fresh persisted state each time (a remembered window size would win).
  XDG_CONFIG_HOME=$(mktemp -d) XDG_DATA_HOME=$(mktemp -d) \
  PROMPT_INSPECTOR_SHOTS="$out" PROMPT_INSPECTOR_SHOT_VIEWS="$3" \
    PROMPT_INSPECTOR_SHOT_THEME="$2" PROMPT_INSPECTOR_SHOT_PREFIX="$1-$2-${5:-sample}-" \
    PROMPT_INSPECTOR_WINDOW_SIZE="$1" \
    timeout 180 xvfb-run -a -s "-screen 0 $((w + 40))x$((h + 40))x24" "$bin" "$4"
}
# The problems view on a copy of the sample with broken files.
broken=$(mktemp -d)
cp -r sample-workspace/. "$broken/"
printf -- '- id: broken\n  layer: 3\n  content: [unclosed\n' > "$broken/fragments/broken.yaml"
printf -- '- id: soul\n  layer: 9\n  content: dup\n  colour: red\n' > "$broken/fragments/bad.yaml"
# A Claude Code transcript for the Traffic view: a cold start, a hit, a
# write after a 7-minute gap, a compaction.
traffic=$(mktemp --suffix=.jsonl)
line() { printf '{"type":"assistant","sessionId":"s","timestamp":"%s","requestId":"%s","message":{"id":"%s","model":"claude-sonnet-4-6","usage":{"input_tokens":3,"cache_creation_input_tokens":%s,"cache_read_input_tokens":%s,"output_tokens":%s}}}\n' "$@"; }
{ line 2026-11-30T10:00:00Z r1 m1 18200 0 220
  line 2026-11-30T10:01:10Z r2 m2 640 18200 310
  line 2026-11-30T10:02:05Z r3 m3 410 18840 150
  line 2026-11-30T10:09:30Z r4 m4 19300 0 260
  printf '{"type":"system","subtype":"compact_boundary","sessionId":"s","timestamp":"2026-11-30T10:10:00Z"}\n'
  line 2026-11-30T10:10:04Z r5 m5 9800 0 400; } > "$traffic"
export PROMPT_INSPECTOR_SHOT_TRAFFIC="$traffic"
# A capture of the recording proxy (examples/traffic): its last request.
export PROMPT_INSPECTOR_SHOT_CAPTURE="$PWD/examples/traffic/capture.jsonl"
# A real agent's capture with its headers (Claude Code 2.1.332).
export PROMPT_INSPECTOR_SHOT_HEADERS="$PWD/tests/fixtures/agents/claude-code-headers/capture.jsonl"
# A real agent's folder (the Claude Code fixture): its own parts counted,
# the context window as /context shows it.
agent=$(mktemp -d)
cp -r tests/fixtures/agents/claude-code/workspace "$agent/project"
# A Gemini CLI folder (its fixture): GEMINI.md with its import in the
# session context, the agent's own prompt and tools.
cp -r tests/fixtures/agents/gemini/workspace "$agent/notes-app"
# A Pi folder and an OpenCode folder (their fixtures): one system block each.
cp -r tests/fixtures/agents/pi/workspace "$agent/weather-cli"
mkdir -p "$agent/weather-cli/.pi"
cp -r tests/fixtures/agents/opencode/workspace "$agent/ledger"
echo '{}' >"$agent/ledger/opencode.json"
# Every view at each size (1024x640 included), in both themes (SIZES and THEMES narrow it).
for size in ${SIZES:-1024x640 1280x800 1920x1080}; do
  for theme in ${THEMES:-dark light}; do
    shoot "$size" "$theme" overview,table-detail,prompt-markers,cache,diff,traffic,traffic-request,traffic-diff,traffic-headers,agents sample-workspace
    shoot "$size" "$theme" problems "$broken" broken
    shoot "$size" "$theme" overview,prompt-markers "$agent/project" claude-code
    shoot "$size" "$theme" overview,prompt-markers "$agent/notes-app" gemini
    shoot "$size" "$theme" overview "$agent/weather-cli" pi
    shoot "$size" "$theme" overview "$agent/ledger" opencode
    for ex in ${EXAMPLES:-}; do
      shoot "$size" "$theme" overview "examples/$ex" "$ex"
    done
  done
done
rm -rf "$broken" "$traffic" "$agent"
ls -1 "$out"/*.png
