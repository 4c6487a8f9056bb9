#!/usr/bin/env bash
# Rebuilds assets/fonts/emoji-fallback.ttf: a subset of Symbola (George
# Douros: "free for any use; they may be opened, edited, modified,
# regenerated, packaged and redistributed"; Debian package fonts-symbola)
# with the emoji and symbol blocks agents' prompts use (Claude Code's
# "🤖 Generated with …", status marks, arrows) and every such character of
# the bundled agent recordings and the fixtures. The window draws them
# with it, monochrome, where no other font has them (egui's own fonts have
# no emoji).
set -euo pipefail
cd "$(dirname "$0")/.."
src=/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf
[[ -f $src ]] || { echo "apt-get install fonts-symbola" >&2; exit 1; }
python3 -m fontTools.subset --help >/dev/null 2>&1 || pip install fonttools
chars=$(mktemp)
python3 - "$chars" <<'PY'
import pathlib, sys
out = set()
for lo, hi in [(0x2190, 0x21FF), (0x2300, 0x23FF), (0x2460, 0x24FF), (0x25A0, 0x27BF),
               (0x2900, 0x297F), (0x2B00, 0x2BFF), (0x1F300, 0x1F64F), (0x1F680, 0x1F6FF),
               (0x1F900, 0x1F9FF), (0x1FA70, 0x1FAFF)]:
    out.update(chr(c) for c in range(lo, hi + 1))
for root in ("assets/profiles", "tests/fixtures/agents", "sample-workspace", "examples"):
    for p in pathlib.Path(root).rglob("*"):
        if p.is_file() and p.stat().st_size < 20_000_000:
            out.update(c for c in p.read_text(encoding="utf-8", errors="ignore") if ord(c) >= 0x2100)
pathlib.Path(sys.argv[1]).write_text("".join(sorted(out)), encoding="utf-8")
PY
python3 -m fontTools.subset "$src" --text-file="$chars" --output-file=assets/fonts/emoji-fallback.ttf \
  --no-hinting --desubroutinize --drop-tables+=DSIG
rm -f "$chars"
ls -l assets/fonts/emoji-fallback.ttf
