"""The Gemini API half of agent-upstream.py (imported by it): answers
`POST /v1beta/models/MODEL:generateContent`, `:streamGenerateContent`
(`?alt=sse`: one `data:` event per chunk, usageMetadata on each, the last one
the whole answer's) and `:countTokens`, with Gemini's implicit caching.

Implicit cache (as documented for Gemini 2.5 and newer: automatic, nothing to
mark, no writes billed): the prompt is a sequence of blocks (the tool groups,
the system instruction, then each content), hashed in order with the model;
a request reads the longest run of leading blocks seen in a request within the
last 5 minutes, if that prefix reaches the model family's minimum (2,048
tokens for gemini-2.5-*, 4,096 for later families, from the caching page of
2026-10-13; --gemini-min-cache-tokens overrides). What it read is
`cachedContentTokenCount` (part of `promptTokenCount`). Tokens are bytes / 4,
as in the rest of the upstream.

Scripted answers: a request that asks for JSON (`responseMimeType`
application/json: Gemini CLI's model router) gets a JSON object naming the
flash model; on the first turn of a conversation (no model turn yet) when
`list_directory` is offered, one call of it on "."; otherwise a short text.
"""
import hashlib
import json
import time
import uuid

CACHE = {}  # hash -> expires


def min_tokens(model, override):
    if override:
        return override
    return 2048 if model.startswith("gemini-2.5") else 4096


def blocks(req, canon):
    out = []
    for i, t in enumerate(req.get("tools") or []):
        out.append((f"tools[{i}]", canon(t)))
    si = req.get("systemInstruction")
    if si is not None:
        out.append(("systemInstruction", canon(si)))
    for i, c in enumerate(req.get("contents") or []):
        out.append((f"contents[{i}]", canon(c)))
    return out


def usage(model, req, canon, toks, lock, override):
    bl = blocks(req, canon)
    sizes = [toks(b) for _, b in bl]
    total = sum(sizes)
    now = time.time()
    h = hashlib.sha256(("gemini\0" + model).encode()).hexdigest()
    hashes = []
    for _, b in bl:
        h = hashlib.sha256((h + "\0" + b).encode()).hexdigest()
        hashes.append(h)
    least = min_tokens(model, override)
    cached, read_to = 0, None
    with lock:
        for k in [k for k, e in CACHE.items() if e <= now]:
            del CACHE[k]
        run = 0
        for i, hx in enumerate(hashes):
            run += sizes[i]
            if hx in CACHE and run >= least:
                cached, read_to = run, bl[i][0]
        for hx in hashes:
            CACHE[hx] = now + 300
    why = {"total_tokens": total, "cached_prefix_tokens": cached, "read_up_to": read_to,
           "minimum": least, "rule": "longest run of leading blocks seen within 5 minutes, at least the minimum"}
    return total, cached, why


def plan(req, toks):
    gc = req.get("generationConfig") or {}
    if gc.get("responseMimeType") == "application/json":
        schema = gc.get("responseJsonSchema") or gc.get("responseSchema") or {}
        props = (schema.get("properties") or {}) if isinstance(schema, dict) else {}
        obj = {}
        for k, p in props.items():
            if k == "model_choice":
                obj[k] = "flash"
            elif isinstance(p, dict) and p.get("type") in ("integer", "INTEGER"):
                obj[k] = 20
            elif isinstance(p, dict) and p.get("type") in ("number", "NUMBER"):
                obj[k] = 0.2
            elif isinstance(p, dict) and p.get("type") in ("string", "STRING"):
                obj[k] = "a test upstream's choice"
        return {"text": json.dumps(obj)}
    contents = req.get("contents") or []
    first_turn = not any(c.get("role") == "model" for c in contents)
    names = set()
    for t in req.get("tools") or []:
        for f in t.get("functionDeclarations") or []:
            names.add(f.get("name"))
    if first_turn and "list_directory" in names:
        return {"call": {"name": "list_directory", "args": {"dir_path": "."}}}
    return {"text": "Done. (A short answer from the test upstream.)"}


def answer(handler, path, req, idx, canon, toks, lock, log, override):
    model = path.split("/models/", 1)[1].split(":", 1)[0]
    method = path.rsplit(":", 1)[1]
    total, cached, why = usage(model, req, canon, toks, lock, override)
    if method == "countTokens":
        log({"index": idx, "endpoint": path, "model": model, "usage": {"totalTokens": total}, "why": why})
        return handler.send_json(200, {"totalTokens": total})
    p = plan(req, toks)
    part = {"functionCall": p["call"]} if "call" in p else {"text": p["text"]}
    out_tokens = toks(json.dumps(part))
    meta = {"promptTokenCount": total, "candidatesTokenCount": out_tokens,
            "totalTokenCount": total + out_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": total}]}
    if cached:
        meta["cachedContentTokenCount"] = cached
        meta["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": cached}]
    stream = method == "streamGenerateContent"
    log({"index": idx, "endpoint": path, "model": model, "stream": stream, "usage": meta, "why": why,
         "answer": "text" if "text" in p else "function_call " + p["call"]["name"]})
    rid = uuid.uuid4().hex[:22]
    done = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": meta, "modelVersion": model, "responseId": rid}
    if not stream:
        return handler.send_json(200, done)
    events = []
    if "text" in p and " " in p["text"] and not p["text"].startswith("{"):
        head, rest = p["text"].split(" ", 1)
        first = {"candidates": [{"content": {"role": "model", "parts": [{"text": head + " "}]}, "index": 0}],
                 "usageMetadata": {"promptTokenCount": total, "totalTokenCount": total},
                 "modelVersion": model, "responseId": rid}
        events.append("data: " + json.dumps(first) + "\r\n\r\n")
        done["candidates"][0]["content"]["parts"] = [{"text": rest}]
    events.append("data: " + json.dumps(done) + "\r\n\r\n")
    handler.send_sse(events)
