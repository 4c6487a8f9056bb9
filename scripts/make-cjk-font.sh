#!/usr/bin/env bash
# Rebuilds assets/fonts/cjk-fallback.ttf: a subset of Droid Sans Fallback
# (Apache License 2.0, Debian package fonts-droid-fallback) with the 3,755
# most common Chinese characters (GB2312 level 1), CJK punctuation, Japanese
# kana, the 2,350 common Hangul syllables, and every character of
# sample-workspace. The window uses a system CJK font when it finds one and
# this file otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
src=/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf
[[ -f $src ]] || { echo "apt-get install fonts-droid-fallback" >&2; exit 1; }
python3 -m fontTools.subset --help >/dev/null 2>&1 || pip install fonttools
chars=$(mktemp)
python3 - "$chars" <<'PY'
import pathlib, sys
out = set()
for hi in range(0xB0, 0xD8):            # GB2312 level 1
    for lo in range(0xA1, 0xFF):
        try: out.add(bytes([hi, lo]).decode("gb2312"))
        except UnicodeDecodeError: pass
for hi in range(0xB0, 0xC9):            # KS X 1001 Hangul
    for lo in range(0xA1, 0xFF):
        try: out.add(bytes([hi, lo]).decode("euc-kr"))
        except UnicodeDecodeError: pass
out.update(chr(c) for c in range(0x3000, 0x3100))   # CJK punctuation, kana
out.update(chr(c) for c in range(0xFF00, 0xFFF0))   # full-width forms
for p in pathlib.Path("sample-workspace").rglob("*"):
    if p.is_file():
        out.update(p.read_text(encoding="utf-8", errors="ignore"))
pathlib.Path(sys.argv[1]).write_text("".join(sorted(c for c in out if ord(c) > 0x2000)), encoding="utf-8")
PY
python3 -m fontTools.subset "$src" --text-file="$chars" --output-file=assets/fonts/cjk-fallback.ttf \
  --layout-features='*' --no-hinting --desubroutinize
rm -f "$chars"
ls -l assets/fonts/cjk-fallback.ttf
