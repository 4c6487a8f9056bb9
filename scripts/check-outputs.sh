#!/usr/bin/env bash
# Every CLI output on the sample, the examples and the agents' fixtures,
# written to one folder (a file per command: stdout, stderr, exit code), so
# that a refactoring can be checked byte for byte:
#
#   scripts/check-outputs.sh /tmp/before           # on the old commit
#   scripts/check-outputs.sh /tmp/after            # on the new one
#   diff -r /tmp/before /tmp/after && echo identical
#
# PROMPT_INSPECTOR names the binary (default: target/debug/prompt-inspector,
# built first). Nothing here touches the network; TZ and HOME are pinned so
# that dates and user memory do not depend on the machine.
set -u
out=${1:?usage: scripts/check-outputs.sh OUT_DIR}
cd "$(dirname "$0")/.."
root=$PWD
if [ -z "${PROMPT_INSPECTOR:-}" ]; then
    cargo build --quiet --bin prompt-inspector || exit 2
    PROMPT_INSPECTOR=$root/target/debug/prompt-inspector
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export TZ=UTC HOME=$home NO_COLOR=1

n=0
run() {
    n=$((n + 1))
    local name
    name=$(printf '%03d' "$n")
    printf '%s\n' "$*" >"$out/$name.cmd"
    "$PROMPT_INSPECTOR" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
}

workspaces=(sample-workspace examples/openclaw examples/claude-code)
for a in tests/fixtures/agents/*/; do
    for w in workspace workspace-after; do
        [ -d "$a$w" ] && workspaces+=("$a$w")
    done
done

for w in "${workspaces[@]}"; do
    for f in text json markdown; do
        run report "$w" --format "$f"
        run predict "$w" --format "$f"
    done
    for f in text json markdown; do
        run context "$w" --format "$f"
    done
    run report "$w" --debug-markers --format json
    run report "$w" --budget 2000 --check
    run render "$w"
done
for s in chat coding research; do
    run report sample-workspace --session "$s" --format json
    run predict sample-workspace --session "$s" --format json
    run render sample-workspace --session "$s"
done
for p in layered openclaw claude-code; do
    run report sample-workspace --profile "$p" --format json
done
for f in text json markdown; do
    run diff sample-workspace@chat sample-workspace@coding --format "$f"
done
run diff sample-workspace@chat sample-workspace@chat

captures=(examples/traffic/capture.jsonl)
for a in tests/fixtures/agents/*/; do
    captures+=("${a}capture.jsonl")
    for t in "${a}"transcript/*.jsonl "${a}"transcript/*/*.jsonl; do
        [ -f "$t" ] && captures+=("$t")
    done
done
for c in "${captures[@]}"; do
    for f in text json markdown; do
        run traffic "$c" --format "$f"
    done
    run traffic "$c" --parts
    run traffic "$c" --diff 2
done
for f in text json; do
    run models --format "$f"
done
echo "$n commands written to $out"
