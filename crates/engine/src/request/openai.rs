//! OpenAI's two APIs to and from the model. Chat Completions: `tools`
//! (`function.name`), `messages` (system and developer messages among them,
//! content a string, parts or null beside `tool_calls`). Responses:
//! `instructions` (the system prompt), `input` (a string, or items:
//! messages, function calls and their outputs, reasoning, and Codex's
//! `additional_tools` item, which defines tools in the middle of the
//! conversation), `tools`.

use serde_json::{Map, Value};

use super::{
    Api, Block, ContentForm, Entry, Message, ReadError, Request, Role, SystemForm, Tool, array,
    entry_of, entry_wire, rest,
};

/// What an item without content says, without its ids (a fresh `id` or
/// `call_id` is not a change of the prompt): a tool call's name and
/// arguments, a tool output's text, else the item without its ids.
pub fn item_text(m: &Value) -> String {
    let s = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    match m["type"].as_str() {
        Some("function_call") => format!("{}({})", s(&m["name"]), s(&m["arguments"])),
        Some("custom_tool_call") => format!("{}: {}", s(&m["name"]), s(&m["input"])),
        Some(t) if t.ends_with("_output") => s(&m["output"]),
        _ => {
            let mut v = m.clone();
            if let Some(o) = v.as_object_mut() {
                for k in ["id", "call_id", "status"] {
                    o.remove(k);
                }
            }
            v.to_string()
        }
    }
}

fn begin(
    body: &Value,
    api: Api,
    read: &[&str],
) -> Result<(Request, Map<String, Value>), ReadError> {
    let o = body.as_object().ok_or(ReadError::NotAnObject)?;
    let mut r = Request::new(api, None);
    r.present = read
        .iter()
        .filter(|k| o.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    let mut taken: Vec<&str> = vec!["tools"];
    if let Some(Value::String(m)) = o.get("model") {
        r.model = Some(m.clone());
        taken.push("model");
    }
    r.tools = array(body, "tools", "tools")?
        .map(|ts| ts.iter().map(Tool::of).collect())
        .unwrap_or_default();
    if o.get("tools") == Some(&Value::Null) {
        taken.retain(|k| *k != "tools");
    }
    Ok((r, rest(o, &taken)))
}

fn finish(r: &Request, o: &mut Map<String, Value>) {
    if let Some(m) = &r.model {
        o.insert("model".into(), m.clone().into());
    }
    if !r.tools.is_empty() || (r.had("tools") && !o.contains_key("tools")) {
        o.insert("tools".into(), r.tools.iter().map(Tool::wire).collect());
    }
}

pub fn read_chat(body: &Value) -> Result<Request, ReadError> {
    let (mut r, mut extra) = begin(body, Api::ChatCompletions, &["model", "tools", "messages"])?;
    if let Some(ms) = array(body, "messages", "messages")? {
        r.entries = ms.iter().map(|m| entry_of(m, item_text)).collect();
        extra.remove("messages");
    }
    r.extra = extra;
    Ok(r)
}

pub fn write_chat(r: &Request) -> Value {
    let mut o = r.extra.clone();
    finish(r, &mut o);
    if !r.entries.is_empty() || r.present.is_empty() || r.had("messages") {
        o.insert(
            "messages".into(),
            r.entries.iter().map(|e| entry_wire(e, "text")).collect(),
        );
    }
    Value::Object(o)
}

/// Marks a Responses `input` given as one string.
const INPUT_STRING: &str = "input as a string";

pub fn read_responses(body: &Value) -> Result<Request, ReadError> {
    let (mut r, mut extra) = begin(
        body,
        Api::Responses,
        &["model", "tools", "input", "instructions"],
    )?;
    if let Some(Value::String(s)) = body.get("instructions") {
        r.system_form = SystemForm::String;
        r.system = vec![Block::text(s.clone(), None)];
        extra.remove("instructions");
    }
    match body.get("input") {
        Some(Value::String(s)) => {
            r.present.push(INPUT_STRING.into());
            let mut m = Message::new(Role::User, vec![Block::text(s.clone(), None)]);
            m.form = ContentForm::String;
            r.entries = vec![Entry::Message(m)];
            extra.remove("input");
        }
        Some(Value::Array(items)) => {
            r.entries = items.iter().map(item_entry).collect();
            extra.remove("input");
        }
        _ => {}
    }
    r.extra = extra;
    Ok(r)
}

/// A Responses input item: Codex's `additional_tools`, or a message or
/// another item.
fn item_entry(m: &Value) -> Entry {
    if m.get("type").and_then(Value::as_str) == Some("additional_tools")
        && let Some(o) = m.as_object()
    {
        let tools = m["tools"]
            .as_array()
            .map(|ts| ts.iter().map(Tool::of).collect())
            .unwrap_or_default();
        return Entry::Tools {
            tools,
            extra: rest(o, &["tools"]),
        };
    }
    entry_of(m, item_text)
}

pub fn write_responses(r: &Request) -> Value {
    let mut o = r.extra.clone();
    finish(r, &mut o);
    if r.system_form != SystemForm::Absent {
        let t: String = r.system.iter().map(|b| b.text.as_str()).collect();
        o.insert("instructions".into(), t.into());
    }
    if r.had(INPUT_STRING) {
        let t: String = r
            .messages()
            .flat_map(|m| m.blocks.iter())
            .map(|b| b.text.as_str())
            .collect();
        o.insert("input".into(), t.into());
    } else if !r.entries.is_empty() || r.present.is_empty() || r.had("input") {
        o.insert(
            "input".into(),
            r.entries
                .iter()
                .map(|e| entry_wire(e, "input_text"))
                .collect(),
        );
    }
    Value::Object(o)
}

/// Tools as an agent sends them: each definition alone, or, for tools in a
/// namespace (Codex's in its `additional_tools` item), one definition per
/// run of them: the namespace's own fields, then the tools as `tools`.
/// `tools` pairs each definition with its namespace's fields.
pub fn namespaced<'a>(
    tools: impl IntoIterator<Item = (&'a Value, Option<&'a Value>)>,
) -> Vec<Tool> {
    let mut out: Vec<Value> = Vec::new();
    let mut open: Option<&Value> = None;
    for (definition, namespace) in tools {
        let Some(ns) = namespace else {
            out.push(definition.clone());
            open = None;
            continue;
        };
        if open == Some(ns)
            && let Some(inner) = out.last_mut().and_then(|o| o["tools"].as_array_mut())
        {
            inner.push(definition.clone());
            continue;
        }
        let mut head = ns.clone();
        if let Some(o) = head.as_object_mut() {
            o.insert("tools".into(), Value::Array(vec![definition.clone()]));
        }
        out.push(head);
        open = Some(ns);
    }
    out.iter().map(Tool::of).collect()
}
