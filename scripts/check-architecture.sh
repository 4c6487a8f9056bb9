#!/usr/bin/env bash
# ARCHITECTURE.md names every source file: each .rs file under crates/*/src
# and src/ is listed once in "The rooms", by its path under its crate's
# header line (`crates/engine/src/`, `crates/net/src/`, `src/`), and every
# file listed there exists. Prints what differs; exit 1 when anything does.
# Run by tests/architecture.rs.
set -u
cd "$(dirname "$0")/.." || exit 2
map=ARCHITECTURE.md
[ -f "$map" ] || { echo "no $map" >&2; exit 2; }

# The files the map names, as full paths: inside the first ``` block after
# "## The rooms", a line at column 0 names a crate's source folder; a line
# indented by two spaces whose first word ends in .rs names a file in it.
listed=$(awk '
    /^## The rooms/ { rooms = 1; next }
    rooms && /^```/ { if (inside) exit; inside = 1; next }
    !inside { next }
    /^(crates\/[^ \/]+\/src|src)\/ / { base = $1; next }
    /^  [^ ]+\.rs( |$)/ { print base $1 }
' "$map" | sort)
actual=$( (find crates/*/src src -name '*.rs' -type f) | sort)

status=0
missing=$(comm -13 <(printf '%s\n' "$listed" | sort -u) <(printf '%s\n' "$actual"))
gone=$(comm -23 <(printf '%s\n' "$listed" | sort -u) <(printf '%s\n' "$actual"))
twice=$(printf '%s\n' "$listed" | uniq -d)
if [ -n "$missing" ]; then
    echo "not named in $map:"; printf '  %s\n' $missing; status=1
fi
if [ -n "$gone" ]; then
    echo "named in $map but not in the tree:"; printf '  %s\n' $gone; status=1
fi
if [ -n "$twice" ]; then
    echo "named more than once in $map:"; printf '  %s\n' $twice; status=1
fi
[ $status = 0 ] && echo "$map names all $(printf '%s\n' "$actual" | wc -l) source files"
exit $status
