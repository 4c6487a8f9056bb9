//! Gemini `generateContent` (and `streamGenerateContent`, `countTokens`) to
//! and from the model: `systemInstruction` (a content of parts), `contents`
//! (each a role, `user` or `model`, and parts: text, thought, functionCall,
//! functionResponse, inlineData…), `tools` (groups of
//! `functionDeclarations`, each declaration a tool; a built-in tool group
//! such as `googleSearch` is one tool). The model is named in the URL, not
//! the body ([`model_of_path`]). Gemini caches implicitly: no breakpoints.

use serde_json::{Map, Value};

use super::{
    Api, Block, BlockKind, ContentForm, Entry, Message, ReadError, Request, Role, SystemForm, Tool,
    array, rest,
};

/// How the tools were grouped on the wire.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ToolGroup {
    /// A `functionDeclarations` group of this many tools, with the group's
    /// other fields.
    Declarations(usize, Map<String, Value>),
    /// A group that is one tool (`googleSearch`, `codeExecution`).
    Whole,
}

/// The model a Gemini path names (`/v1beta/models/gemini-3-flash:generateContent`).
pub fn model_of_path(path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let (_, after) = path.split_once("/models/")?;
    let model = after.split(':').next()?;
    (!model.is_empty()).then(|| model.to_string())
}

/// A part read: its kind, its text, itself to write back.
fn part_of(p: &Value) -> Block {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let kind = if let Some(c) = p.get("functionCall") {
        BlockKind::ToolUse {
            id: s(c, "id"),
            name: s(c, "name").unwrap_or_default(),
        }
    } else if let Some(r) = p.get("functionResponse") {
        BlockKind::ToolResult {
            tool_use_id: s(r, "id"),
            is_error: false,
        }
    } else if let Some(d) = p.get("inlineData") {
        BlockKind::Image {
            media_type: s(d, "mimeType"),
            bytes: d.get("data").and_then(Value::as_str).map_or(0, str::len),
        }
    } else if p.get("thought").and_then(Value::as_bool) == Some(true) {
        BlockKind::Thinking
    } else if p.get("text").is_some() {
        BlockKind::Text
    } else {
        BlockKind::Other {
            kind: p
                .as_object()
                .and_then(|o| o.keys().next().cloned())
                .unwrap_or_default(),
        }
    };
    Block {
        kind,
        text: super::block_text(p),
        breakpoint: None,
        wire: Some(p.clone()),
    }
}

fn part_wire(b: &Block) -> Value {
    match &b.wire {
        Some(w) => w.clone(),
        None => {
            let mut o = Map::new();
            o.insert("text".into(), b.text.clone().into());
            Value::Object(o)
        }
    }
}

fn parts_of(v: &Value, path: &str) -> Result<Vec<Block>, ReadError> {
    Ok(array(v, "parts", path)?
        .map(|ps| ps.iter().map(part_of).collect())
        .unwrap_or_default())
}

pub fn read(body: &Value) -> Result<Request, ReadError> {
    let o = body.as_object().ok_or(ReadError::NotAnObject)?;
    let mut r = Request::new(Api::Gemini, None);
    r.present = ["tools", "contents", "systemInstruction"]
        .iter()
        .filter(|k| o.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    let mut taken = vec![];
    if let Some(groups) = array(body, "tools", "tools")? {
        taken.push("tools");
        for g in groups {
            match (g.get("functionDeclarations"), g.as_object()) {
                (Some(Value::Array(ds)), Some(go)) => {
                    r.tools.extend(ds.iter().map(Tool::of));
                    r.tool_groups.push(ToolGroup::Declarations(
                        ds.len(),
                        rest(go, &["functionDeclarations"]),
                    ));
                }
                _ => {
                    let name = g
                        .as_object()
                        .and_then(|o| o.keys().next().cloned())
                        .unwrap_or_else(|| "?".into());
                    r.tools.push(Tool {
                        name,
                        definition: g.clone(),
                        breakpoint: None,
                    });
                    r.tool_groups.push(ToolGroup::Whole);
                }
            }
        }
    }
    match o.get("systemInstruction") {
        Some(Value::String(s)) => {
            r.system_form = SystemForm::String;
            r.system = vec![Block::text(s.clone(), None)];
            taken.push("systemInstruction");
        }
        Some(si @ Value::Object(so)) => {
            r.system_form = SystemForm::Blocks;
            r.system = parts_of(si, "systemInstruction.parts")?;
            r.system_extra = rest(so, &["parts"]);
            taken.push("systemInstruction");
        }
        _ => {}
    }
    if let Some(contents) = array(body, "contents", "contents")? {
        taken.push("contents");
        for (i, c) in contents.iter().enumerate() {
            let Some(co) = c.as_object() else {
                r.entries.push(Entry::Raw(c.clone()));
                continue;
            };
            let role = Role::parse(c.get("role").and_then(Value::as_str).unwrap_or("?"));
            let mut m = Message::new(role, parts_of(c, &format!("contents[{i}].parts"))?);
            m.form = if c.get("parts").is_some() {
                ContentForm::Blocks
            } else {
                ContentForm::Bare
            };
            m.extra = rest(co, &["parts"]);
            r.entries.push(Entry::Message(m));
        }
    }
    r.extra = rest(o, &taken);
    Ok(r)
}

pub fn write(r: &Request) -> Value {
    let mut o = serde_json::Map::new();
    if !r.tools.is_empty() || r.had("tools") {
        let mut groups = Vec::new();
        let mut tools = r.tools.iter();
        if r.tool_groups.is_empty() && !r.tools.is_empty() {
            // Made here: one group of declarations.
            let ds: Vec<Value> = tools.by_ref().map(|t| t.definition.clone()).collect();
            groups.push(serde_json::json!({ "functionDeclarations": ds }));
        }
        for g in &r.tool_groups {
            match g {
                ToolGroup::Declarations(n, extra) => {
                    let mut go = extra.clone();
                    let ds: Vec<Value> = tools
                        .by_ref()
                        .take(*n)
                        .map(|t| t.definition.clone())
                        .collect();
                    go.insert("functionDeclarations".into(), Value::Array(ds));
                    groups.push(Value::Object(go));
                }
                ToolGroup::Whole => {
                    if let Some(t) = tools.next() {
                        groups.push(t.definition.clone());
                    }
                }
            }
        }
        o.insert("tools".into(), Value::Array(groups));
    }
    match r.system_form {
        SystemForm::Absent => {}
        SystemForm::String => {
            let t: String = r.system.iter().map(|b| b.text.as_str()).collect();
            o.insert("systemInstruction".into(), t.into());
        }
        SystemForm::Blocks => {
            let mut so = r.system_extra.clone();
            so.insert("parts".into(), r.system.iter().map(part_wire).collect());
            o.insert("systemInstruction".into(), Value::Object(so));
        }
    }
    if !r.entries.is_empty() || r.had("contents") || r.present.is_empty() {
        let contents: Vec<Value> = r
            .entries
            .iter()
            .map(|e| match e {
                Entry::Message(m) => {
                    let mut mo = m.extra.clone();
                    if !mo.contains_key("role") {
                        mo.insert("role".into(), m.role.as_str().into());
                    }
                    if m.form != ContentForm::Bare {
                        mo.insert("parts".into(), m.blocks.iter().map(part_wire).collect());
                    }
                    Value::Object(mo)
                }
                Entry::Raw(v) => v.clone(),
                Entry::Tools { tools, extra } => {
                    let mut go = extra.clone();
                    go.insert("tools".into(), tools.iter().map(Tool::wire).collect());
                    Value::Object(go)
                }
            })
            .collect();
        o.insert("contents".into(), Value::Array(contents));
    }
    // In Gemini CLI's order: its contents, system instruction and tools,
    // then the body's other fields as they came.
    let mut out = serde_json::Map::new();
    for k in ["contents", "systemInstruction", "tools"] {
        if let Some(v) = o.remove(k) {
            out.insert(k.into(), v);
        }
    }
    out.extend(r.extra.clone());
    Value::Object(out)
}
