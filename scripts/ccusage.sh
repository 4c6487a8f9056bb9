#!/usr/bin/env bash
# Installs ccusage (the usage and cost reader most Claude Code users run)
# from npm into ~/.cache/prompt-inspector-ccusage and prints the path of its
# command, for tests/ccusage.rs (PROMPT_INSPECTOR_CCUSAGE). The version is
# pinned: 20.0.24 is the newest whose native linux-x64 package is published.
set -euo pipefail
version=${CCUSAGE_VERSION:-20.0.24}
dir=${XDG_CACHE_HOME:-$HOME/.cache}/prompt-inspector-ccusage/$version
bin=$dir/node_modules/.bin/ccusage
if ! "$bin" --version >/dev/null 2>&1; then
    command -v npm >/dev/null || { echo "npm is not installed" >&2; exit 1; }
    mkdir -p "$dir"
    (cd "$dir" && npm install --silent --no-audit --no-fund "ccusage@$version" >&2)
fi
"$bin" --version >/dev/null
echo "$bin"
