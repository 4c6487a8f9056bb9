#!/usr/bin/env python3
"""`prompt-inspector traffic` beside DuckDB on the same captures, as the
README reports it.

Writes two captures in the proxy's line format into a temporary folder
(100,000 small requests of about 2.4 KB, and 30,000 agent requests of
about 35 KB: 20 conversations each, the system prompt cached, the
messages growing), then runs, interleaved, `traffic FILE --format json`
(every request explained) and DuckDB's `read_json_auto` computing the
count and the four usage sums, each as its own process timed with
`/usr/bin/time`. The totals of the two are checked to agree.

    cargo build --release
    pip install duckdb
    python3 scripts/traffic-vs-duckdb.py [--runs 3] [--bin target/release/prompt-inspector]
        [--agent-requests 30000]

Needs about 1.3 GB of free disk in the temporary folder (3.7 GB with
`--agent-requests 100000`: the 3.4 GB capture of issue 22).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

DUCK = """
import duckdb, sys
r = duckdb.sql(f\"\"\"select count(*), sum(usage.input_tokens),
  sum(usage.cache_creation_input_tokens), sum(usage.cache_read_input_tokens),
  sum(usage.output_tokens)
  from read_json_auto('{sys.argv[1]}', maximum_object_size=67108864)\"\"\").fetchall()[0]
print(list(r))
"""


def write_capture(path, n, system_repeats):
    system = "You are Kestrel, a careful coding agent. " * system_repeats
    with open(path, "w") as f:
        for i in range(n):
            chain, turn = i % 20, i // 20
            msgs = [{"role": "user", "content": f"task {chain}: step {t}"}
                    for t in range(min(turn % 8 + 1, 8))]
            ts = f"2026-12-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
            line = {"schema": 1, "id": f"x-{i}", "ts_start": ts, "ts_end": ts,
                    "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": 200,
                    "stream": False, "latency_ms": 120, "error": None,
                    "usage": {"input_tokens": 12,
                              "cache_creation_input_tokens": 40 if turn % 8 else 600,
                              "cache_read_input_tokens": 0 if turn % 8 == 0 else 560,
                              "output_tokens": 30},
                    "request": {"model": "claude-sonnet-4-6", "max_tokens": 1024,
                                "system": [{"type": "text", "text": system + f" Agent {chain}.",
                                            "cache_control": {"type": "ephemeral"}}],
                                "messages": msgs}}
            f.write(json.dumps(line) + "\n")


def timed(cmd, out):
    """Wall seconds and peak MB of `cmd`, its stdout into `out`."""
    with open(out, "w") as o:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=o,
                           stderr=subprocess.PIPE, text=True, check=True)
    wall, kb = p.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) / 1024


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--runs", type=int, default=3)
    a.add_argument("--bin", default="target/release/prompt-inspector")
    a.add_argument("--agent-requests", type=int, default=30_000)
    args = a.parse_args()
    with tempfile.TemporaryDirectory() as d:
        duck = os.path.join(d, "duck.py")
        with open(duck, "w") as f:
            f.write(DUCK)
        cases = [("100,000 small requests", "small.jsonl", 100_000, 40),
                 (f"{args.agent_requests:,} agent requests of 35 KB", "agent.jsonl",
                  args.agent_requests, 830)]
        for label, name, n, repeats in cases:
            path = os.path.join(d, name)
            write_capture(path, n, repeats)
            mb = os.path.getsize(path) / 1e6
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(timed([args.bin, "traffic", path, "--format", "json"],
                                  os.path.join(d, "ours.json")))
                theirs.append(timed([sys.executable, duck, path], os.path.join(d, "duck.txt")))
            t = json.load(open(os.path.join(d, "ours.json")))["totals"]
            mine = [t["requests"], t["input_tokens"], t["cache_creation_input_tokens"],
                    t["cache_read_input_tokens"], t["output_tokens"]]
            duck_totals = json.loads(open(os.path.join(d, "duck.txt")).read())
            assert mine == duck_totals, (mine, duck_totals)
            fmt = lambda xs: ", ".join(f"{w:.2f} s" for w, _ in xs)
            peak = lambda xs: max(m for _, m in xs)
            ratios = ", ".join(f"{o[0] / t[0]:.2f}×" for o, t in zip(ours, theirs))
            print(f"{label}, {mb:,.0f} MB: traffic {fmt(ours)} ({peak(ours):.0f} MB peak); "
                  f"DuckDB {fmt(theirs)} ({peak(theirs):.0f} MB peak); traffic ÷ DuckDB {ratios}")
            os.remove(path)


if __name__ == "__main__":
    main()
