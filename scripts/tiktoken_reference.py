#!/usr/bin/env python3
"""Reference throughput of Python's tiktoken on a text file, for `cargo bench`.

Usage: tiktoken_reference.py TEXT_FILE RANKS_FILE [ENCODING]
Prints one line: "<MB/s> <tokens>". Works offline: the rank file that
tiktoken-rs ships is handed to tiktoken instead of a download.
"""
import sys
import time

import tiktoken
import tiktoken.load

text_path, ranks_path = sys.argv[1], sys.argv[2]
name = sys.argv[3] if len(sys.argv) > 3 else "o200k_base"
with open(ranks_path, "rb") as f:
    ranks = f.read()
# Never download: every rank file read is answered from the local copy.
tiktoken.load.read_file = lambda _blobpath: ranks
tiktoken.load.read_file_cached = lambda _blobpath, _expected_hash=None: ranks

enc = tiktoken.get_encoding(name)
text = open(text_path, encoding="utf-8").read()
enc.encode_ordinary(text[:1000])  # warm
n = 0
best = float("inf")
for _ in range(5):
    t0 = time.perf_counter()
    n = len(enc.encode_ordinary(text))
    best = min(best, time.perf_counter() - t0)
print(f"{len(text.encode('utf-8')) / best / 1e6:.3f} {n}")
