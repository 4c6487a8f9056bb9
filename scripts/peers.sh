#!/usr/bin/env bash
# prompt-inspector's `run claude` beside the tools users pick to see what
# Claude Code sends: claude-tap (PyPI) and claude-trace (npm). Installs each
# into PEERS_CACHE (timed, from the registries), then times one
# `claude -p` turn N times per tool, offline against the loopback stand-in
# upstream (scripts/agent-upstream.py), a fresh HOME and project each run,
# and prints the medians with the upstream requests each run caused.
#   PI_AGENT_CACHE=DIR [PEERS_CACHE=DIR] [PROMPT_INSPECTOR=BIN] bash scripts/peers.sh [N]
# Claude Code comes from PI_AGENT_CACHE (scripts/record-agent.sh claude-code
# installs it, CLAUDE_CODE_VERSION=2.1.332).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
n=${1:-5}
agents=${PI_AGENT_CACHE:-$HOME/.cache/prompt-inspector-agents}
peers=${PEERS_CACHE:-$HOME/.cache/prompt-inspector-peers}
bin=${PROMPT_INSPECTOR:-$repo/target/release/prompt-inspector}
[[ -x $bin ]] || bin=$repo/target/debug/prompt-inspector
cc=$agents/claude-code-${CLAUDE_CODE_VERSION:-2.1.332}/node_modules/.bin
native=$(dirname "$cc")/@anthropic-ai/claude-code-linux-x64/claude
[[ -x $cc/claude ]] || { echo "no Claude Code in $cc" >&2; exit 1; }
mkdir -p "$peers"
now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$2 - $1" | bc)"; }

if [[ ! -x $peers/tap/bin/claude-tap ]]; then
  t0=$(now)
  python3 -m venv "$peers/tap" && "$peers/tap/bin/pip" install --quiet --no-cache-dir claude-tap
  echo "install claude-tap: $(secs "$t0" "$(now)") s (pip, fresh venv)"
fi
if [[ ! -x $peers/trace/node_modules/.bin/claude-trace ]]; then
  t0=$(now)
  npm install --silent --no-audit --no-fund --prefix "$peers/trace" @mariozechner/claude-trace >/dev/null
  echo "install claude-trace: $(secs "$t0" "$(now)") s (npm)"
fi
tap_version=$("$peers/tap/bin/pip" show claude-tap | sed -n 's/^Version: //p')
trace_version=$(node -p "require('$peers/trace/node_modules/@mariozechner/claude-trace/package.json').version")

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
python3 scripts/agent-upstream.py --port 0 --log "$work/up.jsonl" > "$work/up.port" 2>/dev/null &
for _ in $(seq 100); do [[ -s $work/up.port ]] && break; sleep 0.1; done
up=http://127.0.0.1:$(head -n1 "$work/up.port")
touch "$work/up.jsonl"
prompt="What files are in this project?"
base=(LANG=C.UTF-8 TERM=dumb ANTHROPIC_API_KEY=sk-ant-api03-FAKEq7Vz9kW2mN4pR8tY6uB3cD5eF1gH0jKxQw
      DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1)

# time NAME PATH COMMAND…: N runs; prints the median, and the requests that
# reached the upstream and the files left in the project in the last run
time_it() {
  local name=$1 path=$2; shift 2
  local times=() k d before t0 rc
  for k in $(seq "$n"); do
    d=$work/$name-$k; mkdir -p "$d/home" "$d/project"
    printf '# Kestrel\n\nA small CSV tidier.\n' > "$d/project/CLAUDE.md"
    before=$(wc -l < "$work/up.jsonl")
    t0=$(now); rc=0
    (cd "$d/project" && env -i PATH="$path" HOME="$d/home" "${base[@]}" "$@" </dev/null >"$d/out" 2>"$d/err") || rc=$?
    times+=("$(secs "$t0" "$(now)")")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p")
  printf '%-34s %6s s   exit %-3s upstream requests %-3s left in the project: %s\n' "$name" "$median" "$rc" \
    "$(( $(wc -l < "$work/up.jsonl") - before ))" "$(cd "$d/project" && find . -mindepth 1 ! -name CLAUDE.md | sort | tr '\n' ' ')"
}
sys=/usr/local/bin:/usr/bin:/bin
echo "one \`claude -p\` turn, Claude Code $(basename "$(dirname "$(dirname "$cc")")" | sed 's/claude-code-//'), median of $n, offline:"
time_it "claude alone" "$sys" ANTHROPIC_BASE_URL="$up" "$cc/claude" -p "$prompt" --output-format json
time_it "prompt-inspector run claude" "$cc:$sys" "$bin" run claude --anthropic-upstream "$up" -- -p "$prompt" --output-format json
time_it "claude-tap $tap_version" "$peers/tap/bin:$cc:$sys" claude-tap --tap-target "$up" --tap-no-live --tap-no-open -- -p "$prompt" --output-format json
time_it "claude-trace $trace_version (native claude)" "$peers/trace/node_modules/.bin:$sys" ANTHROPIC_BASE_URL="$up" claude-trace --no-open --claude-path "$native" --run-with -p "$prompt" --output-format json
time_it "claude-trace $trace_version (its own JS claude)" "$peers/trace/node_modules/.bin:$sys" ANTHROPIC_BASE_URL="$up" claude-trace --no-open --run-with -p "$prompt" --output-format json
