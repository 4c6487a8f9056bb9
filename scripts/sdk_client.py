"""Drives the official anthropic and openai Python SDKs against a base URL
(the recording proxy, or an upstream directly) and prints what the clients
received, as JSON: used by tests/sdk_clients.rs to compare the two."""
import json
import os
import sys

import anthropic
import openai

base = sys.argv[1]
key = os.environ["SDK_TEST_KEY"]
out = {}

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
