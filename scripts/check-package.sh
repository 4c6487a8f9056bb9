#!/usr/bin/env bash
# Builds the packages from a binary (scripts/package.sh), installs the .deb
# as a user would (dpkg -i when this runs as root, else unpacked with
# dpkg -x into a folder put first on PATH), and runs the installed binary
# from another folder: --version, the README's quick start on the installed
# sample and on an example, its manual page through man -l, its bash
# completions sourced in bash; the desktop entry and the metainfo checked by
# desktop-file-validate and appstreamcli when this machine has them; the
# archive's files listed. CI runs it (`.ci/run`) on the binary the tests built:
#   bash scripts/check-package.sh [BINARY]    (default target/debug/prompt-inspector)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/debug/prompt-inspector}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash scripts/package.sh --binary "$binary" --out "$work/dist"
deb=$(ls "$work"/dist/*.deb)
archive=$(ls "$work"/dist/*.tar.gz)

step() { echo "check-package: $*"; }
if [[ $(id -u) == 0 ]] && command -v dpkg >/dev/null 2>&1; then
  step "dpkg -i $(basename "$deb")"
  dpkg -i "$deb" >/dev/null
  installed=/usr
  trap 'dpkg -r prompt-inspector >/dev/null; rm -rf "$work"' EXIT
else
  step "dpkg -x $(basename "$deb") (not root: unpacked, not installed)"
  dpkg -x "$deb" "$work/root"
  installed=$work/root/usr
fi
export PATH=$installed/bin:$PATH
share=$installed/share
elsewhere=$work/elsewhere
mkdir "$elsewhere" && cd "$elsewhere"

bin=$(command -v prompt-inspector)
[[ $bin == "$installed/bin/prompt-inspector" ]] || { echo "prompt-inspector is $bin, not the installed one" >&2; exit 1; }
step "$(prompt-inspector --version)"
sample=$share/doc/prompt-inspector/examples/sample-workspace
prompt-inspector report "$sample" | grep -q '^layer 1 identity' || { echo "report on the installed sample failed" >&2; exit 1; }
step "report on $sample: $(prompt-inspector report "$sample" | head -n1)"
XDG_DATA_HOME=$elsewhere/data prompt-inspector sample > sample.path
prompt-inspector report "$(cat sample.path)" >/dev/null
step "sample written to $(cat sample.path) and reported"
prompt-inspector context "$share/doc/prompt-inspector/examples/claude-code" | grep -q '^Context usage' \
  || { echo "context on the installed Claude Code example failed" >&2; exit 1; }
step "context on the Claude Code example"
man -l "$share/man/man1/prompt-inspector.1.gz" 2>/dev/null | grep -q 'prompt-inspector' \
  || { echo "man -l of the installed manual page printed nothing" >&2; exit 1; }
step "man -l: ok ($(ls "$share"/man/man1 | grep -c '^prompt-inspector') pages installed)"
bash -c "source '$share/bash-completion/completions/prompt-inspector' && complete -p prompt-inspector" >/dev/null
step "bash completions source"
for size in 16 32 48 64 128 256 512; do
  [[ -s $share/icons/hicolor/${size}x$size/apps/prompt-inspector.png ]] || { echo "no ${size}px icon" >&2; exit 1; }
done
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$share/applications/prompt-inspector.desktop"
  step "desktop-file-validate: ok"
fi
if command -v appstreamcli >/dev/null 2>&1; then
  appstreamcli validate --no-net "$share/metainfo/io.github.prompt_inspector.metainfo.xml" >/dev/null
  step "appstreamcli validate: ok"
fi
tar -tzf "$archive" > "$work/archive.list"
for f in bin/prompt-inspector LICENSE share/applications/prompt-inspector.desktop \
  share/man/man1/prompt-inspector.1.gz share/doc/prompt-inspector/examples/sample-workspace/workspace.yaml; do
  grep -q "/$f$" "$work/archive.list" || { echo "the archive lacks $f" >&2; exit 1; }
done
step "$(basename "$archive"): $(grep -vc '/$' "$work/archive.list") files"
cd /
step "ok"
