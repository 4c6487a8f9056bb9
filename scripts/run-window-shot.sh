#!/usr/bin/env bash
# `prompt-inspector run claude --window` end to end, as a user runs it: the
# real Claude Code (installed by scripts/record-agent.sh into
# $PI_AGENT_CACHE) started by the window's proxy, offline against the
# loopback upstream (scripts/agent-upstream.py), on a virtual display
# (Xvfb); once the capture holds the agent's requests the screen is saved
# as a PNG (Pillow's ImageGrab), then the window is closed with xdotool and
# the terminal's summary printed.
#   PI_AGENT_CACHE=DIR [PROMPT_INSPECTOR=BIN] bash scripts/run-window-shot.sh OUT.png [WIDTHxHEIGHT]
# Needs: Xvfb, xdotool (Debian), python3 with Pillow (pip install pillow).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shot=$(realpath -m "${1:?usage: $0 OUT.png [WIDTHxHEIGHT]}")
size=${2:-1280x800}
bin=${PROMPT_INSPECTOR:-$repo/target/debug/prompt-inspector}
cache=${PI_AGENT_CACHE:-$HOME/.cache/prompt-inspector-agents}
claude=$cache/claude-code-${CLAUDE_CODE_VERSION:-2.1.332}/node_modules/.bin/claude
[[ -x $claude ]] || { echo "no Claude Code at $claude (scripts/record-agent.sh claude-code installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/home"
printf '# Kestrel\n\nA small CSV tidier.\n\n- Run the tests before saying a change works.\n' > "$work/project/CLAUDE.md"
python3 scripts/agent-upstream.py --port 0 --log "$work/up.jsonl" > "$work/up.port" 2> "$work/up.err" &
for _ in $(seq 100); do [[ -s $work/up.port ]] && break; sleep 0.1; done
up=http://127.0.0.1:$(head -n1 "$work/up.port")
capture=$work/capture.jsonl
display=:97
Xvfb $display -screen 0 "${size}x24" -nolisten tcp > "$work/xvfb.log" 2>&1 &
for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X${display#:} ]] && break; sleep 0.1; done
(cd "$work/project" && env DISPLAY=$display HOME="$work/home" ANTHROPIC_API_KEY=sk-ant-api03-FAKEq7Vz9kW2mN4pR8tY6uB3cD5eF1gH0jKxQw \
    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
    PROMPT_INSPECTOR_WINDOW_SIZE=$size LIBGL_ALWAYS_SOFTWARE=1 \
    "$bin" run claude --window --program "$claude" --anthropic-upstream "$up" -o "$capture" \
    -- -p "What files are in this project?" --output-format json --allowedTools "Bash(ls:*)" \
    </dev/null > "$work/run.out" 2> "$work/run.err") &
runner=$!
for _ in $(seq 600); do
  [[ -f $capture ]] && (( $(wc -l < "$capture") >= 2 )) && grep -q '"result"' "$work/run.out" 2>/dev/null && break
  sleep 0.2
done
sleep 3 # the tab draws the last exchange and the agent's end
DISPLAY=$display python3 -c "from PIL import ImageGrab; ImageGrab.grab(xdisplay='$display').save('$shot')"
echo "screenshot: $shot"
# File › Quit's shortcut, typed into the window as a user would.
win=$(DISPLAY=$display xdotool search --name '^prompt-inspector$' | head -n1)
DISPLAY=$display xdotool windowfocus --sync "$win" key --clearmodifiers ctrl+q
wait $runner || true
echo "--- what the terminal showed after the window closed:"
cat "$work/run.err"
grep -v '^{' "$work/run.out" || true
