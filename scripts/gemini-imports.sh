#!/usr/bin/env bash
# Compares the GEMINI.md files prompt-inspector renders for Gemini CLI,
# their `@path` imports inlined, with what Gemini CLI's own import code
# makes of the same files:
#
#   scripts/gemini-imports.sh DIR [WORKDIR]
#
# Every `--- Context from: PATH ---` block of `prompt-inspector render DIR
# --profile gemini [--workdir WORKDIR]` is set beside Gemini CLI's
# `processImports` run on PATH, read out of the bundle of the package that
# scripts/record-agent.sh installs (GEMINI_VERSION, default 0.61.0;
# installed here when missing) at run time: nothing of it is kept in this
# repository. Prints SAME or the differences for each file; exit 1 when
# any differs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(cd "${1:?usage: $0 DIR [WORKDIR]}" && pwd)
workdir=${2:-}
source scripts/gemini-bundle.sh
chunk=$(grep -l "^async function processImports(" "$bundle"/*.js | head -1)
{
  echo 'import * as path from "node:path"; import * as fsSync from "node:fs";'
  echo 'import * as fsp from "node:fs/promises"; import { fileURLToPath } from "node:url";'
  echo 'const debugLogger = { debug() {}, warn() {}, error() {} };'
  # Its path checks, as bundled: isSubpath to robustRealpath.
  awk '/^function isSubpath\(/{on=1} on{print} /^function robustRealpath\(/{last=1} last && /^}$/{exit}' "$chunk" |
    sed -E 's/\bfs[0-9]+\./fsSync./g'
  # Its import processor, as bundled: from its logger to validateImportPath.
  awk '/^var logger4 = \{/{on=1} on{print} /^function validateImportPath\(/{last=1} last && /^}$/{exit}' "$chunk" |
    sed -E 's/\bfs[0-9]+\./fsp./g; s/\bpath[0-9]+\./path./g'
  echo 'const file = process.argv[2];'
  echo 'const content = await fsp.readFile(file, "utf-8");'
  echo 'const r = await processImports(content, path.dirname(file), false, undefined, undefined, "tree", [".git"]);'
  echo 'process.stdout.write(r.content.trim());'
} > "$work/imports.mjs"
args=(render "$dir" --profile gemini)
[[ -n $workdir ]] && args+=(--workdir "$workdir")
"$bin" "${args[@]}" > "$work/render.txt" 2>/dev/null
python3 - "$work/render.txt" "$work" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
n = 0
for m in re.finditer(r"--- Context from: (.*?) ---\n(.*?)\n--- End of Context from: \1 ---", text, re.S):
    n += 1
    open(f"{sys.argv[2]}/file-{n}.path", "w").write(m.group(1))
    open(f"{sys.argv[2]}/file-{n}.ours", "w", encoding="utf-8").write(m.group(2))
pass
EOF
status=0
for p in "$work"/file-*.path; do
  [[ -e $p ]] || { echo "no GEMINI.md rendered for $dir"; exit 1; }
  file=$(cat "$p")
  node "$work/imports.mjs" "$file" > "$work/gemini.txt"
  if diff -u "$work/gemini.txt" "${p%.path}.ours" > "$work/diff.txt"; then
    echo "SAME  $file"
  else
    echo "DIFF  $file"; head -40 "$work/diff.txt"; status=1
  fi
done
exit $status
