#!/usr/bin/env python3
"""Runs each examples/fleet/*.sql with DuckDB over rows that
`prompt-inspector traffic --format jsonl` wrote, and prints each result as
JSON (one object per query: its file name and its rows).

    prompt-inspector traffic ~/.claude/projects --format jsonl > rows.jsonl
    python3 examples/fleet/run.py rows.jsonl [more.jsonl …]
"""
import json
import pathlib
import sys

import duckdb


def main() -> None:
    files = sys.argv[1:]
    if not files:
        sys.exit("usage: run.py ROWS.jsonl [...]")
    con = duckdb.connect()
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(
        f"CREATE VIEW rows AS SELECT * FROM read_json_auto([{listed}], format='newline_delimited')"
    )
    out = {}
    for sql in sorted(pathlib.Path(__file__).parent.glob("*.sql")):
        cur = con.execute(sql.read_text())
        cols = [d[0] for d in cur.description]
        out[sql.name] = [
            {c: (v.isoformat() if hasattr(v, "isoformat") else v) for c, v in zip(cols, row)}
            for row in cur.fetchall()
        ]
    json.dump(out, sys.stdout, indent=1, default=str)
    print()


if __name__ == "__main__":
    main()
