#!/usr/bin/env bash
# Start-up beside `--version`, in one run: each command N times (default 21)
# interleaved, so the machine's noise falls on all alike; prints the median
# and the fastest wall time and the largest peak RSS of each, and the
# binary's size.
#   scripts/startup.sh [BIN] [N]
# BIN: default target/release/prompt-inspector (build it with
# `cargo build --release --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/prompt-inspector}")
n=${2:-21}
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release --locked" >&2; exit 2; }
# Nothing learned, nothing remembered: the same start for every run.
XDG_DATA_HOME=$(mktemp -d) XDG_CONFIG_HOME=$(mktemp -d) python3 - "$bin" "$n" <<'EOF'
import os, resource, statistics, subprocess, sys, time

bin, n = sys.argv[1], int(sys.argv[2])
commands = [
    ("--version", [bin, "--version"]),
    ("report sample-workspace", [bin, "report", "sample-workspace"]),
    ("context (Claude Code folder)", [bin, "context", "tests/fixtures/agents/claude-code/workspace"]),
    ("traffic (Claude Code capture)", [bin, "traffic", "tests/fixtures/agents/claude-code/capture.jsonl"]),
]
walls = {name: [] for name, _ in commands}
rss = {name: 0 for name, _ in commands}
for _ in range(n):
    for name, argv in commands:
        t = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        _, status, usage = os.wait4(pid, 0)
        walls[name].append(time.perf_counter() - t)
        if status != 0:
            sys.exit(f"{name}: exit status {status}")
        rss[name] = max(rss[name], usage.ru_maxrss)  # KiB on Linux
base = statistics.median(walls["--version"])
print(f"{n} runs each, interleaved; binary {os.path.getsize(bin) / 1e6:.1f} MB")
print(f"{'command':32} {'median':>9} {'fastest':>9} {'over --version':>15} {'peak RSS':>9}")
for name, _ in commands:
    w = walls[name]
    med = statistics.median(w)
    print(f"{name:32} {med * 1e3:7.1f} ms {min(w) * 1e3:7.1f} ms {(med - base) * 1e3:+12.1f} ms {rss[name] / 1024:6.0f} MB")
EOF
