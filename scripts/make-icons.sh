#!/usr/bin/env bash
# Renders packaging/icons/prompt-inspector.svg to the PNG sizes a desktop
# looks for (hicolor 16–512), with Debian's Chromium, headless and offline:
#   bash scripts/make-icons.sh
# The PNGs are committed; run this again after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")/.."
svg=$PWD/packaging/icons/prompt-inspector.svg
chrome=$(command -v chromium || command -v chromium-browser || true)
[[ -n $chrome ]] || { echo "make-icons: chromium is needed (apt-get install chromium)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for size in 16 32 48 64 128 256 512; do
  # a page that draws the SVG at SIZE pixels on a transparent background
  printf '<html><body style="margin:0;background:transparent"><img src="file://%s" width="%d" height="%d"></body></html>' \
    "$svg" "$size" "$size" > "$tmp/icon.html"
  "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --default-background-color=00000000 --window-size="$size,$size" \
    --screenshot="$tmp/$size.png" "file://$tmp/icon.html" >/dev/null 2>&1
  cp "$tmp/$size.png" "packaging/icons/prompt-inspector-$size.png"
  echo "packaging/icons/prompt-inspector-$size.png"
done
