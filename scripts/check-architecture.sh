#!/usr/bin/env bash
# ARCHITECTURE.md's rooms hold every source file: each .rs file under
# crates/*/src and src/ is in exactly one room of the table in "The rooms"
# (a path ending in / holds what is under it), every path the table names
# exists, and every file starts with a `//!` line saying what it holds.
# Prints what differs; exit 1 when anything does. Run by tests/architecture.rs.
#
#   scripts/check-architecture.sh --files   the per-file map: each room, then
#                                           each of its files with its first
#                                           `//!` line
set -u
cd "$(dirname "$0")/.." || exit 2
map=ARCHITECTURE.md
[ -f "$map" ] || { echo "no $map" >&2; exit 2; }
python3 - "$map" "${1:-}" <<'PY'
import os, re, sys

path, mode = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
section = text.split("## The rooms", 1)[1].split("\n## ", 1)[0]
rooms = []  # (name, [paths])
for line in section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 3 and cells[0].isdigit():
        rooms.append((cells[1], re.findall(r"`([^`]+)`", cells[2])))
files = sorted(
    os.path.join(root, f)
    for top in [d for d in ("crates/engine/src", "crates/net/src", "src")]
    for root, _, names in os.walk(top)
    for f in names
    if f.endswith(".rs")
)

def holds(p, f):
    return f == p or (p.endswith("/") and f.startswith(p))

def first_line(f):
    with open(f, encoding="utf-8") as h:
        return h.readline().rstrip("\n")

if mode == "--files":
    for name, paths in rooms:
        print(f"{name}:")
        for f in files:
            if any(holds(p, f) for p in paths):
                print(f"  {f:<52} {first_line(f)[3:].strip()}")
    sys.exit(0)

problems = []
for f in files:
    n = sum(any(holds(p, f) for p in paths) for _, paths in rooms)
    if n != 1:
        problems.append(f"{f}: in {n} rooms of {path} (must be in one)")
    if not first_line(f).startswith("//!"):
        problems.append(f"{f}: does not start with a //! line saying what it holds")
for name, paths in rooms:
    for p in paths:
        if not os.path.exists(p):
            problems.append(f"{path}, room '{name}': {p} is not in the tree")
if len(rooms) < 10:
    problems.append(f"{path}: the table of rooms was not found ({len(rooms)} rows read)")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"{path}: {len(rooms)} rooms hold all {len(files)} source files, each with its //! line")
PY
