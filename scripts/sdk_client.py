"""Drives the official anthropic and openai Python SDKs against a base URL
(the recording proxy, or an upstream directly) and prints what the clients
received, as JSON: used by tests/sdk_clients.rs to compare the two.

  sdk_client.py BASE               four calls: each SDK, plain and streamed
  sdk_client.py BASE concurrent N  N Anthropic streams at once
  sdk_client.py BASE broken        one Anthropic stream, expected to fail
"""
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import anthropic
import openai

base = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "calls"
key = os.environ["SDK_TEST_KEY"]
out = {}


def stream_text(client, i):
    with client.messages.stream(model="claude-sonnet-4-6", max_tokens=8,
                                messages=[{"role": "user", "content": f"stream {i}"}]) as s:
        text = "".join(s.text_stream)
        return {"text": text, "usage": s.get_final_message().usage.model_dump()}


if mode == "concurrent":
    n = int(sys.argv[3])
    a = anthropic.Anthropic(base_url=base, api_key=key, max_retries=0, timeout=60)
    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(lambda i: stream_text(a, i), range(n)))
    print(json.dumps({"streams": results}, sort_keys=True))
    sys.exit(0)

if mode == "broken":
    a = anthropic.Anthropic(base_url=base, api_key=key, max_retries=0, timeout=20)
    try:
        got = stream_text(a, 0)
        print(json.dumps({"error": None, "got": got}))
    except Exception as e:  # the SDK's own error for a stream cut short
        print(json.dumps({"error": type(e).__name__, "message": str(e)[:300]}))
    sys.exit(0)

a = anthropic.Anthropic(base_url=base, api_key=key, max_retries=0, timeout=20)
system = [{"type": "text", "text": "You are Kestrel. " * 50, "cache_control": {"type": "ephemeral"}}]
m = a.messages.create(model="claude-sonnet-4-6", max_tokens=8, system=system,
                      messages=[{"role": "user", "content": "hi"}])
out["anthropic"] = {"text": m.content[0].text, "usage": m.usage.model_dump()}
with a.messages.stream(model="claude-sonnet-4-6", max_tokens=8, system=system,
                       messages=[{"role": "user", "content": "hi again"}]) as s:
    text = "".join(s.text_stream)
    final = s.get_final_message()
out["anthropic_stream"] = {"text": text, "usage": final.usage.model_dump()}

o = openai.OpenAI(base_url=base + "/v1", api_key=key, max_retries=0, timeout=20)
c = o.chat.completions.create(model="gpt-6-sol", max_tokens=8,
                              messages=[{"role": "system", "content": "You are Kestrel."},
                                        {"role": "user", "content": "hi"}])
out["openai"] = {"text": c.choices[0].message.content, "usage": c.usage.model_dump()}
chunks = o.chat.completions.create(model="gpt-6-sol", max_tokens=8, stream=True,
                                   stream_options={"include_usage": True},
                                   messages=[{"role": "user", "content": "stream"}])
text, usage = "", None
for ch in chunks:
    if ch.choices and ch.choices[0].delta.content:
        text += ch.choices[0].delta.content
    if ch.usage:
        usage = ch.usage.model_dump()
out["openai_stream"] = {"text": text, "usage": usage}
print(json.dumps(out, sort_keys=True))
