#!/usr/bin/env bash
# Compares the folder tree prompt-inspector draws for Gemini CLI's session
# context with the one Gemini CLI's own code draws, on folders you name:
#
#   scripts/gemini-tree.sh DIR...
#
# Gemini CLI's `getFolderStructure` is run from the package that
# scripts/record-agent.sh installs (GEMINI_VERSION, default 0.61.0; it is
# installed here when missing), read out of its bundle at run time: nothing
# of it is kept in this repository. Its file service (FileDiscoveryService,
# with the `ignore` package it bundles) is read out of the bundle too, so
# .gitignore, .git/info/exclude and .geminiignore apply as Gemini CLI
# applies them. Prints SAME or the differences for each folder; exit 1 when
# any differs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/gemini-bundle.sh
chunk=$(grep -l "^async function getFolderStructure(" "$bundle"/*.js | head -1)
{
  echo 'import * as fs48 from "node:fs/promises"; import * as path57 from "node:path";'
  # From its limits to the end of getFolderStructure, as bundled.
  awk '/^var MAX_ITEMS = 200;/{on=1} on{print} on && /^async function getFolderStructure\(/{f=1} f && /^}$/{exit}' "$chunk" |
    sed -E 's/\bfs[0-9]+\./fs48./g; s/\bpath[0-9]+\./path57./g'
  echo 'function isNodeError(e){return e && typeof e==="object" && "code" in e}'
  echo 'const debugLogger={warn(){},debug(){}}; function getErrorMessage(e){return String(e)}'
  echo 'const DEFAULT_FILE_FILTERING_OPTIONS={respectGitIgnore:true,respectGeminiIgnore:true};'
  # Its file service, as bundled: the `ignore` package, the parsers, the
  # git check and the service (each from its first line to its end).
  echo 'import * as fsSync from "node:fs";'
  echo 'var __commonJS=(cb,mod)=>function(){return mod||(0,cb[Object.keys(cb)[0]])((mod={exports:{}}).exports,mod),mod.exports};'
  echo 'var __toESM=(m)=>({default:m}); const GEMINI_IGNORE_FILE_NAME=".geminiignore";'
  echo 'function isWithinRoot(p,root){const r=path57.relative(root,p);return !r.startsWith("..")&&!path57.isAbsolute(r)}'
  echo 'function canonicalizeMacosPath(p){return p} function resolveToRealPath(p){return fsSync.realpathSync(p)}'
  for start in '^var require_ignore = __commonJS' '^var import_ignore = ' '^function getNormalizedRelativePath\(' \
      '^var ignore = import_ignore' '^var GitIgnoreParser = class' '^var import_ignore2 = ' '^var ignore2 = ' \
      '^var IgnoreFileParser = class' '^function isGitRepository\(' '^var FileDiscoveryService = class'; do
    awk -v s="$start" '$0 ~ s {on=1} on {print} on && (/^}\);?$/ || /^};?$/ || (/;$/ && /^var (import_ignore|ignore)/)) {exit}' "$chunk"
  done | sed -E 's/\bfs4[0-9]\./fsSync./g; s/\bpath(4[0-9]|5[0-9])\./path57./g'
  echo 'const fileService = new FileDiscoveryService(process.argv[2]);'
  echo 'console.log(await getFolderStructure(process.argv[2], { fileService }));'
} > "$work/tree.mjs"
status=0
for dir in "$@"; do
  d=$(cd "$dir" && pwd)
  node "$work/tree.mjs" "$d" > "$work/gemini.txt"
  "$bin" render "$d" --profile gemini 2>/dev/null | python3 -c '
import sys
t = sys.stdin.read()
a = t.index("- **Directory Structure:**\n\n") + len("- **Directory Structure:**\n\n")
print(t[a:t.index("\n\n\n", a)])' > "$work/ours.txt"
  if diff -u "$work/gemini.txt" "$work/ours.txt" > "$work/diff.txt"; then
    echo "SAME  $d ($(wc -l < "$work/ours.txt") lines)"
  else
    echo "DIFF  $d"; head -40 "$work/diff.txt"; status=1
  fi
done
exit $status
