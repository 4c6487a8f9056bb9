//! The request a provider receives: tools → system blocks → messages.

use serde_json::{Value, json};

use crate::assembly::assemble::Assembly;
use crate::workspace::session::Message;
use crate::workspace::settings::Ttl;

fn cache_control(ttl: Ttl) -> Value {
    match ttl {
        Ttl::FiveMinutes => json!({"type": "ephemeral"}),
        Ttl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    }
}

/// The Anthropic Messages request body: system blocks with `cache_control` on
/// the cached layers, the enabled tools, the given messages.
pub fn anthropic_body(
    a: &Assembly,
    model: &str,
    messages: &[Message],
    max_tokens: u32,
    cache_tools: bool,
    message_breakpoint: bool,
) -> Value {
    let system: Vec<Value> = a
        .blocks
        .iter()
        .map(|b| {
            let mut v = json!({"type": "text", "text": b.text});
            if b.cache_control {
                v["cache_control"] = cache_control(b.ttl);
            }
            v
        })
        .collect();
    let mut tools = a.tools.clone();
    if cache_tools && let Some(last) = tools.last_mut() {
        last["cache_control"] = cache_control(Ttl::FiveMinutes);
    }
    let mut msgs: Vec<Value> = messages.iter().map(Message::to_json).collect();
    if message_breakpoint
        && let Some(last) = msgs.last_mut()
        && let Some(blocks) = last.get_mut("content").and_then(Value::as_array_mut)
        && let Some(b) = blocks.last_mut()
    {
        b["cache_control"] = cache_control(Ttl::FiveMinutes);
    }
    let mut body = json!({"model": model, "max_tokens": max_tokens});
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body["system"] = Value::Array(system);
    body["messages"] = Value::Array(msgs);
    body
}

/// An OpenAI Chat Completions body: one system message (the blocks joined),
/// tools as functions, the messages flattened to text.
pub fn openai_body(a: &Assembly, model: &str, messages: &[Message], max_tokens: u32) -> Value {
    let system: String = a
        .blocks
        .iter()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut msgs = vec![json!({"role": "system", "content": system})];
    for m in messages {
        let role = match m.role {
            crate::workspace::session::Role::User => "user",
            crate::workspace::session::Role::Assistant => "assistant",
        };
        msgs.push(json!({"role": role, "content": m.flat_text()}));
    }
    let mut body = json!({"model": model, "max_tokens": max_tokens, "messages": msgs});
    if !a.tools.is_empty() {
        body["tools"] = Value::Array(
            a.tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}})
                })
                .collect(),
        );
    }
    body
}
