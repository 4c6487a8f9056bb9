//! The wire shapes the adapters share: a content block, a message and an
//! entry read from an API's JSON and written back (Anthropic's, Chat
//! Completions' and Responses' blocks have one shape), and the field
//! helpers that name the field a body has wrong.

use serde_json::{Map, Value};

use super::{Block, BlockKind, Breakpoint, ContentForm, Entry, Message, ReadError, Role, Tool};

/// The text of a wire block: its `text`, else its JSON without the
/// breakpoint.
pub(crate) fn block_text(v: &Value) -> String {
    match v.get("text").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => {
            let mut v = v.clone();
            if let Some(o) = v.as_object_mut() {
                o.remove("cache_control");
            }
            v.to_string()
        }
    }
}

/// `v[key]` as an array, or the error naming `path`.
pub(crate) fn array<'a>(
    v: &'a Value,
    key: &str,
    path: &str,
) -> Result<Option<&'a Vec<Value>>, ReadError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(_) => Err(ReadError::Field {
            path: path.to_string(),
            expected: "an array",
        }),
    }
}

/// The body's fields but `taken`.
pub(crate) fn rest(o: &Map<String, Value>, taken: &[&str]) -> Map<String, Value> {
    o.iter()
        .filter(|(k, _)| !taken.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A wire content block read (Anthropic's, Chat Completions' and
/// Responses' share their shapes): its kind by its `type`, its text, its
/// breakpoint, and itself to write back.
pub(crate) fn block_of(v: &Value) -> Block {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let kind = match v.get("type").and_then(Value::as_str) {
        Some("text" | "input_text" | "output_text") => BlockKind::Text,
        Some("tool_use" | "server_tool_use") => BlockKind::ToolUse {
            id: s("id"),
            name: s("name").unwrap_or_default(),
        },
        Some("tool_result") => BlockKind::ToolResult {
            tool_use_id: s("tool_use_id"),
            is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false),
        },
        Some("image" | "input_image" | "image_url") => {
            // Anthropic's `source.data` or `source.url`; OpenAI's
            // `image_url`, a string (Responses) or `{url}` (Chat).
            let source = v.get("source").unwrap_or(v);
            let data = source
                .get("data")
                .or_else(|| source.get("url"))
                .or_else(|| {
                    let i = source.get("image_url")?;
                    Some(i.get("url").unwrap_or(i))
                })
                .map_or(0, |d| {
                    d.as_str().map_or_else(|| d.to_string().len(), str::len)
                });
            BlockKind::Image {
                media_type: source
                    .get("media_type")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                bytes: data,
            }
        }
        Some("thinking" | "redacted_thinking" | "reasoning") => BlockKind::Thinking,
        Some(k) => BlockKind::Other {
            kind: k.to_string(),
        },
        None => BlockKind::Other {
            kind: String::new(),
        },
    };
    Block {
        kind,
        text: block_text(v),
        breakpoint: Breakpoint::of(v),
        wire: Some(v.clone()),
    }
}

/// A block as the wire writes it: as it was read, or, made here, a text
/// block of `text_type` (`text`, `input_text`) with its breakpoint.
pub(crate) fn block_wire(b: &Block, text_type: &str) -> Value {
    if let Some(w) = &b.wire {
        return w.clone();
    }
    let mut o = Map::new();
    o.insert("type".into(), text_type.into());
    o.insert("text".into(), b.text.clone().into());
    if let Some(bp) = &b.breakpoint {
        o.insert("cache_control".into(), bp.wire());
    }
    Value::Object(o)
}

/// A message's role as the positions name it: its `role`, else its `type`
/// (a Responses item), else `?`.
pub(crate) fn role_of(m: &Value) -> Role {
    Role::parse(
        m.get("role")
            .and_then(Value::as_str)
            .or_else(|| m.get("type").and_then(Value::as_str))
            .unwrap_or("?"),
    )
}

/// An entry read: a message (its content a string, a list of blocks, or
/// none: the item is its own block, `bare` gives that block's text), or,
/// not an object, kept as written.
pub(crate) fn entry_of(m: &Value, bare: impl Fn(&Value) -> String) -> Entry {
    if !m.is_object() {
        return Entry::Raw(m.clone());
    }
    Entry::Message(message_of(m, bare))
}

fn message_of(m: &Value, bare: impl Fn(&Value) -> String) -> Message {
    let extra = match m.as_object() {
        Some(o) => rest(o, &["content"]),
        None => Map::new(),
    };
    let (blocks, form, extra) = match m.get("content") {
        Some(Value::String(t)) => (
            vec![Block::text(t.clone(), None)],
            ContentForm::String,
            extra,
        ),
        Some(Value::Array(parts)) => (
            parts.iter().map(block_of).collect(),
            ContentForm::Blocks,
            extra,
        ),
        None | Some(Value::Null) => {
            let block = Block {
                kind: match m.get("type").and_then(Value::as_str) {
                    Some("function_call" | "custom_tool_call") => BlockKind::ToolUse {
                        id: m.get("call_id").and_then(Value::as_str).map(str::to_string),
                        name: m
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    },
                    Some(t) if t.ends_with("_output") => BlockKind::ToolResult {
                        tool_use_id: m.get("call_id").and_then(Value::as_str).map(str::to_string),
                        is_error: false,
                    },
                    Some("reasoning") => BlockKind::Thinking,
                    t => BlockKind::Other {
                        kind: t.unwrap_or("").to_string(),
                    },
                },
                text: bare(m),
                breakpoint: None,
                wire: None,
            };
            let mut extra = extra;
            if let Some(Value::Null) = m.get("content") {
                extra.insert("content".into(), Value::Null);
            }
            (vec![block], ContentForm::Bare, extra)
        }
        // Content of another type: no position, kept as written.
        other => {
            let mut extra = extra;
            if let Some(c) = other {
                extra.insert("content".into(), c.clone());
            }
            (Vec::new(), ContentForm::Bare, extra)
        }
    };
    Message {
        role: role_of(m),
        blocks,
        form,
        extra,
    }
}

/// A message as the wire writes it (`text_type` for text blocks made here).
pub(crate) fn message_wire(m: &Message, text_type: &str) -> Value {
    let mut o = m.extra.clone();
    if !o.contains_key("role") && !o.contains_key("type") {
        o.insert("role".into(), m.role.as_str().into());
    }
    match m.form {
        ContentForm::String => {
            let t: String = m.blocks.iter().map(|b| b.text.as_str()).collect();
            o.insert("content".into(), t.into());
        }
        ContentForm::Blocks => {
            let parts: Vec<Value> = m.blocks.iter().map(|b| block_wire(b, text_type)).collect();
            o.insert("content".into(), Value::Array(parts));
        }
        ContentForm::Bare => {}
    }
    Value::Object(o)
}

/// An entry as the wire writes it.
pub(crate) fn entry_wire(e: &Entry, text_type: &str) -> Value {
    match e {
        Entry::Message(m) => message_wire(m, text_type),
        Entry::Raw(v) => v.clone(),
        Entry::Tools { tools, extra } => {
            let mut o = extra.clone();
            o.insert("tools".into(), tools.iter().map(Tool::wire).collect());
            Value::Object(o)
        }
    }
}
