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


def offline_encoding(ranks_path, name="o200k_base"):
    """The encoding `name`, its ranks read from `ranks_path` (never downloaded)."""
    with open(ranks_path, "rb") as f:
        ranks = f.read()
    # Every rank file read is answered from the local copy.
    tiktoken.load.read_file = lambda _blobpath: ranks
    tiktoken.load.read_file_cached = lambda _blobpath, _expected_hash=None: ranks
    enc = tiktoken.get_encoding(name)
    enc.encode_ordinary("warm")
    return enc


def best_of(runs, work):
    """The fastest of `runs` timings of `work()`, and its result."""
    best, out = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = work()
        best = min(best, time.perf_counter() - t0)
    return best, out


if __name__ == "__main__":
    text_path, ranks_path = sys.argv[1], sys.argv[2]
    enc = offline_encoding(ranks_path, sys.argv[3] if len(sys.argv) > 3 else "o200k_base")
    text = open(text_path, encoding="utf-8").read()
    best, n = best_of(5, lambda: len(enc.encode_ordinary(text)))
    print(f"{len(text.encode('utf-8')) / best / 1e6:.3f} {n}")
