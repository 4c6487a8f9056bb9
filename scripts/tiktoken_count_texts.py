#!/usr/bin/env python3
"""Python tiktoken counting a list of texts, for `cargo bench` (the peer of a
cold `report`: the same fragment texts, each counted on its own).

Usage: tiktoken_count_texts.py TEXTS_JSON RANKS_FILE [ENCODING]
Prints one line: "<best seconds> <total tokens>". Offline: the rank file that
tiktoken-rs ships is handed to tiktoken instead of a download.
"""
import json
import sys
import time

import tiktoken
import tiktoken.load

texts_path, ranks_path = sys.argv[1], sys.argv[2]
name = sys.argv[3] if len(sys.argv) > 3 else "o200k_base"
with open(ranks_path, "rb") as f:
    ranks = f.read()
tiktoken.load.read_file = lambda _blobpath: ranks
tiktoken.load.read_file_cached = lambda _blobpath, _expected_hash=None: ranks

enc = tiktoken.get_encoding(name)
with open(texts_path, encoding="utf-8") as f:
    texts = json.load(f)
enc.encode_ordinary("warm")
best = float("inf")
n = 0
for _ in range(3):
    t0 = time.perf_counter()
    n = sum(len(enc.encode_ordinary(t)) for t in texts)
    best = min(best, time.perf_counter() - t0)
print(f"{best:.4f} {n}")
