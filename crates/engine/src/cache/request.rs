//! The request a provider receives: tools → system blocks → messages.

use serde_json::{Value, json};

use crate::assembly::assemble::Assembly;
use crate::workspace::session::Message;
use crate::workspace::settings::{Placement, Ttl};

fn cache_control(ttl: Ttl) -> Value {
    match ttl {
        Ttl::FiveMinutes => json!({"type": "ephemeral"}),
        Ttl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    }
}

/// The blocks a profile places in the first user message, as text blocks
/// put before that message's own content (a user message of their own when
/// there is none).
fn with_first_user_blocks(a: &Assembly, msgs: &mut Vec<Value>, flat: bool) {
    let texts: Vec<&str> = a
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::FirstUserMessage)
        .map(|b| b.text.as_str())
        .collect();
    if texts.is_empty() {
        return;
    }
    let at = msgs.iter().position(|m| m["role"] == "user");
    if flat {
        let joined = texts.join("\n\n");
        match at {
            Some(i) => {
                let own = msgs[i]["content"].as_str().unwrap_or("").to_string();
                msgs[i]["content"] = Value::String(format!("{joined}\n\n{own}"));
            }
            None => msgs.insert(0, json!({"role": "user", "content": joined})),
        }
        return;
    }
    let blocks: Vec<Value> = texts
        .iter()
        .map(|t| json!({"type": "text", "text": t}))
        .collect();
    match at {
        Some(i) => {
            let own = match msgs[i].get("content") {
                Some(Value::Array(v)) => v.clone(),
                Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
                _ => Vec::new(),
            };
            msgs[i]["content"] = Value::Array(blocks.into_iter().chain(own).collect());
        }
        None => msgs.insert(0, json!({"role": "user", "content": blocks})),
    }
}

/// The blocks a profile sends as a system-role message of their own (Claude
/// Code 2.1), right after the first user message.
fn with_system_messages(a: &Assembly, msgs: &mut Vec<Value>, flat: bool) {
    let at = msgs
        .iter()
        .position(|m| m["role"] == "user")
        .map_or(msgs.len(), |i| i + 1);
    let own: Vec<Value> = a
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::SystemMessage)
        .map(|b| {
            if flat {
                return json!({"role": "system", "content": b.text});
            }
            let mut v = json!({"type": "text", "text": b.text});
            if b.cache_control {
                v["cache_control"] = cache_control(b.ttl);
            }
            json!({"role": "system", "content": [v]})
        })
        .collect();
    msgs.splice(at..at, own);
}

/// The Anthropic Messages request body: system blocks with `cache_control` on
/// the cached layers, the enabled tools, the given messages (the blocks a
/// profile places in the first user message at its start).
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
        .filter(|b| b.placement.is_system())
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
    with_first_user_blocks(a, &mut msgs, false);
    with_system_messages(a, &mut msgs, false);
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

/// An OpenAI Chat Completions body: one system message (the system blocks
/// joined), tools as functions, the messages flattened to text (the blocks
/// a profile places in the first user message at its start).
pub fn openai_body(a: &Assembly, model: &str, messages: &[Message], max_tokens: u32) -> Value {
    let system: String = a
        .blocks
        .iter()
        .filter(|b| b.placement.is_system())
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
    let mut rest = msgs.split_off(1);
    with_first_user_blocks(a, &mut rest, true);
    with_system_messages(a, &mut rest, true);
    msgs.extend(rest);
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

/// A Gemini `generateContent` body, made through the typed request and
/// written by its Gemini adapter: the system blocks as one
/// `systemInstruction` part (joined by a blank line, as Gemini CLI joins
/// its prompt and the user's memory), the blocks a profile places in the
/// first user message as that message's first part (joined as they are),
/// each message's text a part, the tools as one group of function
/// declarations.
pub fn gemini_body(a: &Assembly, messages: &[Message]) -> Value {
    use crate::request::{
        Api, Block, Entry, Message as Wire, Request, Role as WireRole, SystemForm, Tool,
    };
    let mut r = Request::new(Api::Gemini, None);
    let system: Vec<&str> = a
        .blocks
        .iter()
        .filter(|b| b.placement.is_system())
        .map(|b| b.text.as_str())
        .collect();
    if !system.is_empty() {
        r.system = vec![Block::text(system.join("\n\n"), None)];
        r.system_form = SystemForm::Blocks;
        // As Gemini CLI writes it.
        r.system_extra.insert("role".into(), "user".into());
    }
    r.tools = a
        .tools
        .iter()
        .map(|t| Tool {
            name: t["name"].as_str().unwrap_or("").to_string(),
            definition: t.clone(),
            breakpoint: None,
        })
        .collect();
    let first: String = a
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::FirstUserMessage)
        .map(|b| b.text.as_str())
        .collect();
    let mut first = (!first.is_empty()).then_some(first);
    for m in messages {
        let role = match m.role {
            crate::workspace::session::Role::User => WireRole::User,
            crate::workspace::session::Role::Assistant => WireRole::Model,
        };
        let mut parts = Vec::new();
        if role == WireRole::User
            && let Some(f) = first.take()
        {
            parts.push(Block::text(f, None));
        }
        parts.push(Block::text(m.flat_text(), None));
        r.entries.push(Entry::Message(Wire::new(role, parts)));
    }
    if let Some(f) = first {
        r.entries.insert(
            0,
            Entry::Message(Wire::new(WireRole::User, vec![Block::text(f, None)])),
        );
    }
    r.to_wire()
}
