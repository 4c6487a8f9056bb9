//! Anthropic Messages to and from the model: `tools` (each with its
//! `cache_control`), `system` (a string or blocks), `messages` (each a
//! string or blocks: text, tool_use, tool_result, image, thinking…).

use serde_json::Value;

use super::{
    Api, Block, ReadError, Request, SystemForm, Tool, array, block_of, entry_of, entry_wire, rest,
};

/// The fields this adapter reads; the others are kept as written.
const READ: &[&str] = &["model", "tools", "system", "messages"];

pub fn read(body: &Value) -> Result<Request, ReadError> {
    let o = body.as_object().ok_or(ReadError::NotAnObject)?;
    let mut r = Request::new(Api::AnthropicMessages, None);
    r.present = READ
        .iter()
        .filter(|k| o.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    let mut extra_keys: Vec<&str> = vec!["tools", "system", "messages"];
    if let Some(Value::String(m)) = o.get("model") {
        r.model = Some(m.clone());
        extra_keys.push("model");
    }
    r.tools = array(body, "tools", "tools")?
        .map(|ts| ts.iter().map(Tool::of).collect())
        .unwrap_or_default();
    match o.get("system") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            r.system_form = SystemForm::String;
            r.system = vec![Block::text(s.clone(), None)];
        }
        Some(Value::Array(blocks)) => {
            r.system_form = SystemForm::Blocks;
            r.system = blocks.iter().map(block_of).collect();
        }
        Some(_) => {
            return Err(ReadError::Field {
                path: "system".into(),
                expected: "a string or a list of blocks",
            });
        }
    }
    r.entries = array(body, "messages", "messages")?
        .map(|ms| {
            ms.iter()
                .map(|m| entry_of(m, super::openai::item_text))
                .collect()
        })
        .unwrap_or_default();
    r.extra = rest(o, &extra_keys);
    // A null `system` or `messages` is written back as it was.
    for k in ["system", "messages", "tools"] {
        if o.get(k) == Some(&Value::Null) {
            r.extra.insert(k.into(), Value::Null);
        }
    }
    Ok(r)
}

pub fn write(r: &Request) -> Value {
    let mut o = r.extra.clone();
    if let Some(m) = &r.model {
        o.insert("model".into(), m.clone().into());
    }
    if !r.tools.is_empty() || (r.had("tools") && !o.contains_key("tools")) {
        o.insert("tools".into(), r.tools.iter().map(Tool::wire).collect());
    }
    match r.system_form {
        SystemForm::Absent => {}
        SystemForm::String => {
            let t: String = r.system.iter().map(|b| b.text.as_str()).collect();
            o.insert("system".into(), t.into());
        }
        SystemForm::Blocks => {
            let blocks: Vec<Value> = r
                .system
                .iter()
                .map(|b| super::block_wire(b, "text"))
                .collect();
            o.insert("system".into(), Value::Array(blocks));
        }
    }
    // Every Messages request has messages: one made here writes them even
    // when there are none yet.
    let made_here = r.present.is_empty();
    if !r.entries.is_empty() || made_here || (r.had("messages") && !o.contains_key("messages")) {
        o.insert(
            "messages".into(),
            r.entries.iter().map(|e| entry_wire(e, "text")).collect(),
        );
    }
    Value::Object(o)
}
