#!/usr/bin/env python3
"""Python tiktoken counting a list of texts, for `cargo bench` (the peer of a
cold `report`: the same fragment texts, each counted on its own).

Usage: tiktoken_count_texts.py TEXTS_JSON RANKS_FILE [ENCODING]
Prints one line: "<best seconds> <total tokens>". Offline, as
tiktoken_reference.py.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiktoken_reference import best_of, offline_encoding  # noqa: E402

texts_path, ranks_path = sys.argv[1], sys.argv[2]
enc = offline_encoding(ranks_path, sys.argv[3] if len(sys.argv) > 3 else "o200k_base")
with open(texts_path, encoding="utf-8") as f:
    texts = json.load(f)
best, n = best_of(3, lambda: sum(len(enc.encode_ordinary(t)) for t in texts))
print(f"{best:.4f} {n}")
