#!/usr/bin/env python3
"""A loopback test upstream for real agents: answers the Anthropic Messages API
(/v1/messages, /v1/messages/count_tokens), OpenAI Chat Completions
(/v1/chat/completions), OpenAI Responses (/v1/responses) and Gemini
(/v1beta/models/M:generateContent, :streamGenerateContent, :countTokens; see
gemini_upstream.py beside it), plain JSON and
streamed (SSE), with the providers' prompt-cache accounting, and logs every
answer's usage (and why) to a JSON-lines file.

  agent-upstream.py --port N [--host 127.0.0.1] --log UPSTREAM.jsonl
                    [--tool-calls first|never] [--min-cache-tokens 1024]
                    [--billing-header-in-key]
  (--port 0 picks a free port and prints it on the first line of stdout)

Python 3.11 standard library only. Binds to loopback only.

Tokens are counted approximately (UTF-8 bytes / 4, rounded up, per block): the
counts only need to be self-consistent, the same text always costs the same.

Anthropic cache (as documented for prompt caching):
  - the prompt is a sequence of blocks: tools, then system blocks, then each
    message's content blocks (a string content is one block);
  - a block with `cache_control` is a breakpoint; the prefix up to it (hashed
    with the model) is the cache entry it reads or writes;
  - at each breakpoint the cache is looked up at that block and at up to 20
    block boundaries before it; the longest prefix found is read
    (cache_read_input_tokens) and its lifetime refreshed;
  - every breakpoint after what was read whose prefix reaches the minimum
    cacheable length (1024 tokens by default) is written: the tokens between
    the previous cached point and it are cache_creation_input_tokens, split by
    the breakpoint's ttl into ephemeral_5m / ephemeral_1h;
  - the rest of the prompt is input_tokens;
  - entries live 5 minutes (or 1 hour for ttl "1h") from their last use.
  A system text block starting with "x-anthropic-billing-header:" (Claude
  Code's attribution line, whose cc_version suffix follows the first prompt)
  is left out of the cache key but counted as input, as the real service
  must do for Claude Code's sessions to share a cached system prompt
  (--billing-header-in-key keeps it in); each log line says when it did so.

OpenAI cache (automatic prefix caching): the prompt is serialised in order
(tools, instructions/system, input items or messages), and every 128-token
step from 1024 tokens is a cache entry keyed by the model, the
`prompt_cache_key` when present and the prefix; the longest prefix seen within
5 minutes is cached_tokens. Responses' `previous_response_id` is honoured
(the earlier input and output are prepended).

Scripted answers, kept simple: on the first turn of a conversation (no
assistant turn yet in the request) when the agent offers a tool that can run
harmlessly, the answer is one call of it (a shell tool running `ls`: Claude
Code's Bash, OpenClaw's exec, Codex's code-mode `exec` calling
`tools.exec_command({cmd: "ls"})`); on Anthropic, a new user prompt naming
"the NAME subagent" gets an Agent call to it, and one naming "the NAME skill"
a Skill call, and one saying "read the file /ABS/PATH" a Read call of it,
when those tools are offered. Every other request (a tool
result to answer, no tools, anything unexpected) gets a short final text.

Each answer appends one line to the log: index (1, 2, ... in the order the
requests arrived), endpoint, model, stream, the usage returned, the answer
kind, and `why`: for Anthropic every breakpoint with its prefix tokens, ttl and
what happened to it (read, written, inside the read prefix, not cached: under
the minimum), where the read came from and whether through the look-back; for
OpenAI the cached prefix, the prompt_cache_key and the steps stored.
"""
import argparse
import hashlib
import json
import re
import sys
import threading
import time
import uuid
import zlib
import gzip
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gemini_upstream

LOCK = threading.Lock()
STATE = {
    "n": 0,  # answers given
    "anthropic": {},  # key -> {"expires": t, "ttl": "5m"|"1h", "tokens": n, "at": label}
    "openai": {},  # key -> {"expires": t, "tokens": n}
    "responses": {},  # response id -> list of items (input + output)
}
ARGS = None
LOG = None
BILLING_PREFIX = "x-anthropic-billing-header:"
LOOKBACK = 20
OPENAI_STEP = 128
OPENAI_MIN = 1024
TTL_SECONDS = {"5m": 300, "1h": 3600}


def toks(text):
    """Approximate tokens of a text: UTF-8 bytes / 4, rounded up."""
    if not isinstance(text, str):
        text = canon(text)
    n = len(text.encode("utf-8"))
    return (n + 3) // 4


def canon(v):
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def strip_cc(v):
    """A block without its cache_control, for hashing and counting."""
    if isinstance(v, dict):
        return {k: strip_cc(x) for k, x in v.items() if k != "cache_control"}
    if isinstance(v, list):
        return [strip_cc(x) for x in v]
    return v


def log(entry):
    with LOCK:
        LOG.write(json.dumps(entry, sort_keys=True) + "\n")
        LOG.flush()


def next_index():
    with LOCK:
        STATE["n"] += 1
        return STATE["n"]


# ---------------------------------------------------------------- Anthropic


def anthropic_blocks(req):
    """[(label, canonical text, tokens, cache_control or None, keyed)]"""
    out = []
    for i, t in enumerate(req.get("tools") or []):
        out.append((f"tools[{i}]", canon(strip_cc(t)), t.get("cache_control") if isinstance(t, dict) else None, True))
    system = req.get("system")
    if isinstance(system, str):
        out.append(("system", system, None, ARGS.billing_header_in_key or not system.startswith(BILLING_PREFIX)))
    elif isinstance(system, list):
        for i, b in enumerate(system):
            text = b.get("text", "") if isinstance(b, dict) else str(b)
            keyed = ARGS.billing_header_in_key or not (isinstance(text, str) and text.startswith(BILLING_PREFIX))
            body = text if (isinstance(b, dict) and b.get("type") == "text" and set(b) <= {"type", "text", "cache_control"}) else canon(strip_cc(b))
            out.append((f"system[{i}]", body, b.get("cache_control") if isinstance(b, dict) else None, keyed))
    for m, msg in enumerate(req.get("messages") or []):
        role = msg.get("role", "")
        content = msg.get("content")
        if isinstance(content, str):
            out.append((f"messages[{m}]", role + ":" + content, None, True))
        elif isinstance(content, list):
            for c, b in enumerate(content):
                if isinstance(b, dict) and b.get("type") == "text" and set(b) <= {"type", "text", "cache_control"}:
                    body = role + ":" + b.get("text", "")
                else:
                    body = role + ":" + canon(strip_cc(b))
                out.append((f"messages[{m}].content[{c}]", body, b.get("cache_control") if isinstance(b, dict) else None, True))
    return [(label, body, toks(body), cc, keyed) for (label, body, cc, keyed) in out]


def anthropic_usage(req, count_only=False):
    blocks = anthropic_blocks(req)
    total = sum(b[2] for b in blocks)
    if count_only:
        return {"input_tokens": total}, {"blocks": len(blocks)}
    model = req.get("model", "")
    # cumulative hash and tokens at each block boundary (after block i)
    h = hashlib.sha256(("anthropic\0" + model).encode())
    prefix_hash, prefix_tokens = [], []
    run = 0
    left_out = []
    for label, body, n, cc, keyed in blocks:
        if keyed:
            h.update(b"\0" + label.split("[")[0].encode() + b"\0" + body.encode("utf-8"))
        else:
            left_out.append(label)
        run += n
        prefix_hash.append(h.hexdigest())
        prefix_tokens.append(run)
    breakpoints = [i for i, b in enumerate(blocks) if b[3]]
    now = time.time()
    cache = STATE["anthropic"]
    read_at = -1  # block index of the longest prefix read
    with LOCK:
        for k in [k for k, e in cache.items() if e["expires"] <= now]:
            del cache[k]
        for bp in breakpoints:
            for j in range(bp, max(-1, bp - LOOKBACK - 1), -1):
                if prefix_hash[j] in cache:
                    if j > read_at:
                        read_at = j
                    break
        read = prefix_tokens[read_at] if read_at >= 0 else 0
        if read_at >= 0:
            e = cache[prefix_hash[read_at]]
            e["expires"] = now + TTL_SECONDS[e["ttl"]]
        written = {"5m": 0, "1h": 0}
        details = []
        last = read_at
        for bp in breakpoints:
            label = blocks[bp][0]
            ttl = (blocks[bp][3] or {}).get("ttl") or "5m"
            if ttl not in TTL_SECONDS:
                ttl = "5m"
            d = {"at": label, "prefix_tokens": prefix_tokens[bp], "ttl": ttl}
            if bp <= read_at:
                d["action"] = "read" if bp == read_at else "inside read prefix"
                if bp == read_at:
                    d["tokens"] = read
            elif prefix_tokens[bp] < ARGS.min_cache_tokens:
                d["action"] = f"not cached: prefix under {ARGS.min_cache_tokens} tokens"
            else:
                n = prefix_tokens[bp] - (prefix_tokens[last] if last >= 0 else 0)
                written[ttl] += n
                d["action"] = "written"
                d["tokens"] = n
                cache[prefix_hash[bp]] = {"expires": now + TTL_SECONDS[ttl], "ttl": ttl, "tokens": prefix_tokens[bp], "at": label}
                last = bp
            details.append(d)
    creation = written["5m"] + written["1h"]
    usage = {
        "input_tokens": total - read - creation,
        "cache_creation_input_tokens": creation,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": written["5m"], "ephemeral_1h_input_tokens": written["1h"]},
    }
    why = {
        "blocks": len(blocks),
        "total_tokens": total,
        "breakpoints": details,
        "read_from": blocks[read_at][0] if read_at >= 0 else None,
        "read_via_lookback": bool(read_at >= 0 and read_at not in breakpoints),
    }
    if left_out:
        why["left_out_of_cache_key"] = left_out
    return usage, why


def latest_prompt(msgs):
    """The text of the trailing user messages when they are a new prompt (no
    tool result among them), without <system-reminder> blocks; None when the
    conversation does not end with a user prompt. Messages with a system or
    developer role (Claude Code sends its environment as one) are skipped."""
    texts = []
    msgs = [m for m in msgs if m.get("role") not in ("system", "developer")]
    i = len(msgs) - 1
    while i >= 0 and msgs[i].get("role") == "user":
        content = msgs[i].get("content")
        if isinstance(content, str):
            texts.insert(0, content)
        else:
            for b in reversed(content or []):
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_result":
                    return None
                if b.get("type") == "text" and not b.get("text", "").lstrip().startswith("<system-reminder>"):
                    texts.insert(0, b.get("text", ""))
        i -= 1
    if i == len(msgs) - 1:
        return None
    return "\n".join(texts)


def anthropic_plan(req):
    """('tool', name, input) or ('text', text).

    A new user prompt that names "the NAME subagent" gets an Agent (or Task)
    call to that subagent, one that names "the NAME skill" a Skill call, one
    saying "read the file /ABS/PATH" a Read call, when those tools are offered; the first turn of a conversation otherwise gets
    a harmless `ls`."""
    tools = {t.get("name"): t for t in (req.get("tools") or []) if isinstance(t, dict)}
    msgs = req.get("messages") or []
    first_turn = not any(m.get("role") == "assistant" for m in msgs)
    prompt = latest_prompt(msgs) if ARGS.tool_calls != "never" else None
    if prompt:
        m = re.search(r"\bthe ([\w:.-]+) subagent\b", prompt)
        agent = next((n for n in ("Agent", "Task") if n in tools), None)
        if m and agent:
            return ("tool", agent, {"description": "List the workspace files", "subagent_type": m.group(1),
                                    "prompt": "List the files in the working directory and report them.",
                                    "run_in_background": False})
        m = re.search(r"\bthe ([\w:.-]+) skill\b", prompt)
        if m and "Skill" in tools:
            return ("tool", "Skill", {"skill": m.group(1)})
        m = re.search(r"\bread the file (/[^\s\"']+)", prompt)
        if m and "Read" in tools and first_turn_of_prompt(msgs):
            return ("tool", "Read", {"file_path": m.group(1).rstrip(".,")})
    if prompt is not None and first_turn and msgs:
        if "Bash" in tools:
            return ("tool", "Bash", {"command": "ls", "description": "List the files in the working directory"})
        if "bash" in tools:
            return ("tool", "bash", {"command": "ls"})
        for name in ("exec", "shell", "exec_command"):
            if name in tools and _takes(tools[name], "command"):
                return ("tool", name, {"command": "ls"})
        for name in ("LS", "ls"):
            if name in tools and _takes(tools[name], "path"):
                return ("tool", name, {"path": "."})
    return ("text", final_text(msgs))


def first_turn_of_prompt(msgs):
    """Whether the last message is the user's prompt (not a tool result)."""
    turns = [m for m in msgs if m.get("role") != "system"]  # Claude Code's system messages
    last = turns[-1] if turns else {}
    content = last.get("content")
    if last.get("role") != "user":
        return False
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return True


def _takes(tool, prop):
    schema = tool.get("input_schema") or tool.get("parameters") or {}
    return prop in (schema.get("properties") or {})


def final_text(msgs):
    n = sum(1 for m in msgs if m.get("role") == "user")
    return f"Done. (scripted answer from the test upstream, turn {n})"


def anthropic_answer(handler, req, idx):
    usage, why = anthropic_usage(req)
    plan = anthropic_plan(req)
    mid = "msg_" + uuid.uuid4().hex[:24]
    if plan[0] == "tool":
        tid = "toolu_" + uuid.uuid4().hex[:24]
        content = [{"type": "text", "text": "Let me look."},
                   {"type": "tool_use", "id": tid, "name": plan[1], "input": plan[2]}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": plan[1]}]
        stop = "end_turn"
    out_tokens = sum(toks(canon(c)) for c in content)
    usage_full = dict(usage, output_tokens=out_tokens, service_tier="standard")
    log({"index": idx, "endpoint": "/v1/messages", "model": req.get("model"), "stream": bool(req.get("stream")),
         "usage": usage_full, "why": why, "answer": plan[0] if plan[0] == "text" else f"tool_use {plan[1]}"})
    msg = {"id": mid, "type": "message", "role": "assistant", "model": req.get("model"), "content": content,
           "stop_reason": stop, "stop_sequence": None, "usage": usage_full}
    if not req.get("stream"):
        return handler.send_json(200, msg)
    start = dict(msg, content=[], stop_reason=None, usage=dict(usage, output_tokens=1, service_tier="standard"))
    events = [("message_start", {"type": "message_start", "message": start})]
    for i, c in enumerate(content):
        if c["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}))
            words = c["text"].split(" ")
            for w, word in enumerate(words):
                piece = word if w == 0 else " " + word
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}}))
            js = canon(c["input"])
            half = len(js) // 2
            for part in (js[:half], js[half:]):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": part}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        if i == 0:
            events.append(("ping", {"type": "ping"}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"input_tokens": usage["input_tokens"],
                                               "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
                                               "cache_read_input_tokens": usage["cache_read_input_tokens"],
                                               "output_tokens": out_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    handler.send_sse([f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events])


def count_tokens_answer(handler, req, idx):
    usage, why = anthropic_usage(req, count_only=True)
    log({"index": idx, "endpoint": "/v1/messages/count_tokens", "model": req.get("model"), "usage": usage, "why": why})
    handler.send_json(200, usage)


# ------------------------------------------------------------------ OpenAI


def openai_usage(model, cache_key, parts):
    """parts: canonical texts in prompt order. Returns (total, cached, why)."""
    data = "".join(parts).encode("utf-8")
    total = (len(data) + 3) // 4
    base = hashlib.sha256(("openai\0" + model + "\0" + (cache_key or "")).encode()).hexdigest()
    now = time.time()
    cache = STATE["openai"]
    cached = 0
    steps = []
    n = OPENAI_MIN
    while n <= total:
        steps.append(n)
        n += OPENAI_STEP
    keys = {s: hashlib.sha256(base.encode() + data[: s * 4]).hexdigest() for s in steps}
    with LOCK:
        for k in [k for k, e in cache.items() if e["expires"] <= now]:
            del cache[k]
        for s in reversed(steps):
            if keys[s] in cache:
                cached = s
                break
        new = 0
        for s in steps:
            if keys[s] not in cache:
                new += 1
            cache[keys[s]] = {"expires": now + 300, "tokens": s}
    why = {"total_tokens": total, "prompt_cache_key": cache_key, "cached_prefix_tokens": cached,
           "prefix_steps_stored": len(steps), "new_prefix_steps": new,
           "rule": f"longest {OPENAI_STEP}-token step from {OPENAI_MIN} seen within 5 minutes"}
    if total < OPENAI_MIN:
        why["note"] = f"prompt under {OPENAI_MIN} tokens: not cacheable"
    return total, cached, why


def chat_answer(handler, req, idx):
    parts = [canon(req.get("tools") or [])]
    for m in req.get("messages") or []:
        parts.append(canon(m))
    total, cached, why = openai_usage(req.get("model", ""), req.get("prompt_cache_key"), parts)
    msgs = req.get("messages") or []
    tools = {}
    for t in req.get("tools") or []:
        f = t.get("function") if isinstance(t, dict) else None
        if f:
            tools[f.get("name")] = f
    first_turn = not any(m.get("role") == "assistant" for m in msgs)
    call = None
    if ARGS.tool_calls != "never" and first_turn and msgs:
        for name in ("shell", "exec", "exec_command", "bash", "Bash"):
            if name in tools and _takes(tools[name], "command"):
                cmd = ["ls"] if ((tools[name].get("parameters") or {}).get("properties", {}).get("command", {}).get("type") == "array") else "ls"
                call = (name, {"command": cmd})
                break
    text = None if call else final_text(msgs)
    out_tokens = toks(text) if text else toks(canon(call[1])) + 5
    usage = {"prompt_tokens": total, "completion_tokens": out_tokens, "total_tokens": total + out_tokens,
             "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
             "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                           "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}
    log({"index": idx, "endpoint": "/v1/chat/completions", "model": req.get("model"), "stream": bool(req.get("stream")),
         "usage": usage, "why": why, "answer": "text" if text else f"tool_call {call[0]}"})
    cid = "chatcmpl-" + uuid.uuid4().hex[:24]
    created = int(time.time())
    if call:
        tc = {"id": "call_" + uuid.uuid4().hex[:24], "type": "function",
              "function": {"name": call[0], "arguments": json.dumps(call[1])}}
        message = {"role": "assistant", "content": None, "tool_calls": [tc]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": text}
        finish = "stop"
    if not req.get("stream"):
        return handler.send_json(200, {"id": cid, "object": "chat.completion", "created": created, "model": req.get("model"),
                                       "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
                                       "usage": usage})

    def chunk(delta, fin=None, **extra):
        c = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": req.get("model"),
             "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": fin}]}
        c.update(extra)
        return "data: " + json.dumps(c) + "\n\n"

    include_usage = bool((req.get("stream_options") or {}).get("include_usage"))
    out = [chunk({"role": "assistant", "content": ""})]
    if call:
        tc = message["tool_calls"][0]
        out.append(chunk({"tool_calls": [{"index": 0, "id": tc["id"], "type": "function",
                                          "function": {"name": tc["function"]["name"], "arguments": ""}}]}))
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": tc["function"]["arguments"]}}]}))
    else:
        for w, word in enumerate(text.split(" ")):
            out.append(chunk({"content": word if w == 0 else " " + word}))
    out.append(chunk({}, finish))
    if include_usage:
        out.append("data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": created,
                                          "model": req.get("model"), "choices": [], "usage": usage}) + "\n\n")
    out.append("data: [DONE]\n\n")
    handler.send_sse(out)


def responses_input(req):
    inp = req.get("input")
    if isinstance(inp, str):
        inp = [{"type": "message", "role": "user", "content": inp}]
    items = list(inp or [])
    prev = req.get("previous_response_id")
    if prev:
        with LOCK:
            items = list(STATE["responses"].get(prev, [])) + items
    return items


def response_tools(req, items):
    """Name -> tool definition, from `tools` and any `additional_tools` input item."""
    tools = {}

    def add(t, namespace=None):
        if not isinstance(t, dict):
            return
        if t.get("type") == "namespace":
            for inner in t.get("tools") or []:
                add(inner, t.get("name"))
            return
        name = t.get("name") or (t.get("function") or {}).get("name")
        if name:
            tools[name] = dict(t, _namespace=namespace) if namespace else t

    for t in req.get("tools") or []:
        add(t)
    for it in items:
        if isinstance(it, dict) and it.get("type") == "additional_tools":
            for t in it.get("tools") or []:
                add(t)
    return tools


def responses_plan(req, items):
    tools = response_tools(req, items)
    first_turn = not any(isinstance(it, dict) and (it.get("role") == "assistant" or it.get("type") in (
        "function_call", "custom_tool_call", "local_shell_call", "reasoning")) for it in items)
    if ARGS.tool_calls != "never" and first_turn and items:
        for name in ("exec", "shell", "exec_command", "local_shell", "bash"):
            t = tools.get(name)
            if not t:
                continue
            if t.get("type") == "custom":
                if "JavaScript" in (t.get("description") or ""):
                    # Codex's code-mode `exec`: JavaScript calling nested tools
                    if "exec_command" in (t.get("description") or ""):
                        code = 'const r = await tools.exec_command({cmd: "ls"});\ntext(r.output);'
                    else:
                        code = 'text(ALL_TOOLS.map((t) => t.name).join(", "));'
                    return ("custom", name, code)
                return ("custom", name, "ls")
            if t.get("type") == "function" and _takes(t, "command"):
                ctype = (t.get("parameters") or {}).get("properties", {}).get("command", {}).get("type")
                cmd = ["ls"] if ctype == "array" else "ls"
                return ("function", name, json.dumps({"command": cmd}))
            if t.get("type") == "function" and _takes(t, "cmd"):
                return ("function", name, json.dumps({"cmd": "ls"}))
    user_turns = sum(1 for it in items if isinstance(it, dict) and it.get("role") == "user")
    return ("text", f"Done. (scripted answer from the test upstream, turn {user_turns})")


def responses_answer(handler, req, idx):
    items = responses_input(req)
    parts = [canon(req.get("tools") or []), canon(req.get("instructions") or "")]
    parts += [canon(it) for it in items]
    total, cached, why = openai_usage(req.get("model", ""), req.get("prompt_cache_key"), parts)
    plan = responses_plan(req, items)
    rid = "resp_" + uuid.uuid4().hex[:24]
    created = int(time.time())
    if plan[0] == "text":
        out_item = {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": plan[1], "annotations": [], "logprobs": []}]}
        out_tokens = toks(plan[1])
    elif plan[0] == "custom":
        out_item = {"id": "ctc_" + uuid.uuid4().hex[:24], "type": "custom_tool_call", "status": "completed",
                    "call_id": "call_" + uuid.uuid4().hex[:24], "name": plan[1], "input": plan[2]}
        out_tokens = toks(plan[2]) + 5
    else:
        out_item = {"id": "fc_" + uuid.uuid4().hex[:24], "type": "function_call", "status": "completed",
                    "call_id": "call_" + uuid.uuid4().hex[:24], "name": plan[1], "arguments": plan[2]}
        out_tokens = toks(plan[2]) + 5
    usage = {"input_tokens": total, "input_tokens_details": {"cached_tokens": cached},
             "output_tokens": out_tokens, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": total + out_tokens}
    log({"index": idx, "endpoint": "/v1/responses", "model": req.get("model"), "stream": bool(req.get("stream")),
         "usage": usage, "why": why, "answer": plan[0] if plan[0] == "text" else f"{plan[0]}_tool_call {plan[1]}"})
    with LOCK:
        STATE["responses"][rid] = items + [out_item]
    keep = {k: req.get(k) for k in ("instructions", "max_output_tokens", "parallel_tool_calls", "previous_response_id",
                                    "reasoning", "store", "temperature", "text", "tool_choice", "tools", "top_p",
                                    "truncation", "metadata", "prompt_cache_key") if k in req}
    resp = dict({"id": rid, "object": "response", "created_at": created, "status": "completed", "error": None,
                 "incomplete_details": None, "model": req.get("model"), "output": [out_item], "usage": usage}, **keep)
    if not req.get("stream"):
        return handler.send_json(200, resp)
    seq = [0]

    def ev(name, **data):
        data = dict({"type": name, "sequence_number": seq[0]}, **data)
        seq[0] += 1
        return f"event: {name}\ndata: {json.dumps(data)}\n\n"

    pending = dict(resp, status="in_progress", output=[], usage=None)
    out = [ev("response.created", response=pending), ev("response.in_progress", response=pending)]
    iid = out_item["id"]
    if plan[0] == "text":
        text = plan[1]
        out.append(ev("response.output_item.added", output_index=0,
                      item=dict(out_item, status="in_progress", content=[])))
        out.append(ev("response.content_part.added", item_id=iid, output_index=0, content_index=0,
                      part={"type": "output_text", "text": "", "annotations": [], "logprobs": []}))
        for w, word in enumerate(text.split(" ")):
            out.append(ev("response.output_text.delta", item_id=iid, output_index=0, content_index=0,
                          delta=word if w == 0 else " " + word, logprobs=[]))
        out.append(ev("response.output_text.done", item_id=iid, output_index=0, content_index=0, text=text, logprobs=[]))
        out.append(ev("response.content_part.done", item_id=iid, output_index=0, content_index=0,
                      part=out_item["content"][0]))
    elif plan[0] == "custom":
        out.append(ev("response.output_item.added", output_index=0, item=dict(out_item, status="in_progress", input="")))
        out.append(ev("response.custom_tool_call_input.delta", item_id=iid, output_index=0, delta=plan[2]))
        out.append(ev("response.custom_tool_call_input.done", item_id=iid, output_index=0, input=plan[2]))
    else:
        out.append(ev("response.output_item.added", output_index=0, item=dict(out_item, status="in_progress", arguments="")))
        out.append(ev("response.function_call_arguments.delta", item_id=iid, output_index=0, delta=plan[2]))
        out.append(ev("response.function_call_arguments.done", item_id=iid, output_index=0, arguments=plan[2]))
    out.append(ev("response.output_item.done", output_index=0, item=out_item))
    out.append(ev("response.completed", response=resp))
    handler.send_sse(out)


# ------------------------------------------------------------------ server


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "agent-upstream/1"

    def log_message(self, fmt, *args):
        sys.stderr.write("upstream: " + (fmt % args) + "\n")

    def send_json(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:24])
        self.end_headers()
        self.wfile.write(body)

    def send_sse(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:24])
        self.end_headers()
        for e in events:
            b = e.encode("utf-8")
            self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def read_body(self):
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("content-length") or 0))
        enc = (self.headers.get("content-encoding") or "").lower()
        if enc == "gzip":
            data = gzip.decompress(data)
        elif enc == "deflate":
            data = zlib.decompress(data)
        elif enc and enc != "identity":
            raise ValueError(f"unsupported content-encoding {enc}")
        return data

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.rstrip("/").endswith("/models"):
            return self.send_json(200, {"object": "list", "data": [], "has_more": False})
        self.send_json(200, {"ok": True})

    def do_POST(self):
        path = self.path.split("?")[0].rstrip("/")
        gemini = "/models/" in path and path.endswith((":generateContent", ":streamGenerateContent", ":countTokens"))
        if not gemini and not path.endswith(("/v1/messages", "/v1/messages/count_tokens", "/v1/chat/completions", "/v1/responses")):
            # not an API this upstream speaks (e.g. a llama.cpp /tokenize probe)
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            return self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not found"}})
        idx = next_index()
        try:
            raw = self.read_body()
            req = json.loads(raw or b"{}")
        except Exception as e:  # malformed or unsupported body
            log({"index": idx, "endpoint": path, "error": str(e)})
            return self.send_json(400, {"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}})
        try:
            if gemini:
                return gemini_upstream.answer(self, path, req, idx, canon, toks, LOCK, log,
                                              ARGS.gemini_min_cache_tokens)
            if path.endswith("/v1/messages/count_tokens"):
                return count_tokens_answer(self, req, idx)
            if path.endswith("/v1/messages"):
                return anthropic_answer(self, req, idx)
            if path.endswith("/v1/chat/completions"):
                return chat_answer(self, req, idx)
            if path.endswith("/v1/responses"):
                return responses_answer(self, req, idx)
        except (BrokenPipeError, ConnectionResetError):
            return
        except Exception as e:
            log({"index": idx, "endpoint": path, "error": f"{type(e).__name__}: {e}"})
            return self.send_json(500, {"type": "error", "error": {"type": "api_error", "message": "test upstream failed"}})


def main():
    global ARGS, LOG
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0: pick a free port (printed on stdout)")
    p.add_argument("--log", required=True, help="JSON-lines usage log (appended)")
    p.add_argument("--tool-calls", choices=["first", "never"], default="first")
    p.add_argument("--min-cache-tokens", type=int, default=1024,
                   help="minimum cacheable prefix on Anthropic (tokens)")
    p.add_argument("--gemini-min-cache-tokens", type=int, default=0,
                   help="minimum implicitly cached prefix on Gemini (default: the model family's)")
    p.add_argument("--billing-header-in-key", action="store_true",
                   help="keep Claude Code's x-anthropic-billing-header system block in the cache key")
    ARGS = p.parse_args()
    if not (ARGS.host.startswith("127.") or ARGS.host in ("localhost", "::1")):
        sys.exit("agent-upstream: loopback addresses only")
    LOG = open(ARGS.log, "a", encoding="utf-8")
    srv = ThreadingHTTPServer((ARGS.host, ARGS.port), Handler)
    srv.daemon_threads = True
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
