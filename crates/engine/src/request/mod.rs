//! THE request: one typed model of what an agent sends a model, whatever
//! the API (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses,
//! Gemini `generateContent`): its tools, its system blocks and its messages
//! (each a list of typed content blocks: text, tool use, tool result, image
//! as a sized placeholder, thinking, a provider's own item), each with its
//! cache breakpoint and TTL where the API has them, and its positions as the
//! providers' caches count them (tools, then system blocks, then message
//! blocks). Each API is an adapter: a pair of functions to and from its
//! wire JSON (`anthropic`, `openai`, `gemini`), and a request read from the
//! wire writes back as it was read (round-trip tests on every recorded
//! fixture). A block read from the wire keeps its wire form for that; a
//! block made here (`Block::text`) is written from its fields.
//!
//! A leaf room: it imports nothing of the crate but the leaves `text`
//! (labels cleaned for display) and `usage` (re-exported: the usage of an
//! answer, every API's shape, Gemini's `usageMetadata` included).

use std::borrow::Cow;

use serde_json::{Map, Value};

pub mod anthropic;
pub mod gemini;
pub mod openai;
#[cfg(test)]
mod tests;

pub use crate::usage::Usage;

/// The wire format a request was read from or is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`).
    AnthropicMessages,
    /// OpenAI Chat Completions (`/v1/chat/completions`; llama.cpp too).
    ChatCompletions,
    /// OpenAI Responses (`/v1/responses`; Codex).
    Responses,
    /// Gemini (`models/M:generateContent`, `:streamGenerateContent`,
    /// `:countTokens`).
    Gemini,
}

impl Api {
    /// The API an endpoint's path speaks, if it is one of the four.
    pub fn of_path(path: &str) -> Option<Api> {
        let path = path.split('?').next().unwrap_or(path);
        match path {
            "/v1/messages" | "/v1/messages/count_tokens" => Some(Api::AnthropicMessages),
            "/v1/chat/completions" => Some(Api::ChatCompletions),
            "/v1/responses" => Some(Api::Responses),
            p if p.contains("/models/")
                && [":generateContent", ":streamGenerateContent", ":countTokens"]
                    .iter()
                    .any(|m| p.ends_with(m)) =>
            {
                Some(Api::Gemini)
            }
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "Anthropic Messages",
            Api::ChatCompletions => "OpenAI Chat Completions",
            Api::Responses => "OpenAI Responses",
            Api::Gemini => "Gemini generateContent",
        }
    }

    /// A request body of this API read into the model.
    pub fn read(self, body: &Value) -> Result<Request, ReadError> {
        match self {
            Api::AnthropicMessages => anthropic::read(body),
            Api::ChatCompletions => openai::read_chat(body),
            Api::Responses => openai::read_responses(body),
            Api::Gemini => gemini::read(body),
        }
    }
}

/// Why a body is not a request of the API it was read as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The body is not a JSON object.
    NotAnObject,
    /// A field has another type than the API gives it (`messages` not an
    /// array…): the field's JSON path and what it should be.
    Field {
        path: String,
        expected: &'static str,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotAnObject => f.write_str("the request body is not a JSON object"),
            ReadError::Field { path, expected } => write!(f, "{path} is not {expected}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// How long a cache entry written at a breakpoint lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheTtl {
    /// No TTL given: the API's default (5 minutes for Anthropic).
    Default,
    FiveMinutes,
    OneHour,
    /// A TTL this tool does not know, as written.
    Other(String),
}

/// A cache breakpoint (Anthropic's `cache_control`).
#[derive(Debug, Clone, PartialEq)]
pub struct Breakpoint {
    pub ttl: CacheTtl,
    /// As it was written (other fields kept), when read from the wire.
    wire: Option<Value>,
}

impl Breakpoint {
    pub fn new(ttl: CacheTtl) -> Breakpoint {
        Breakpoint { ttl, wire: None }
    }

    /// The `cache_control` of a block or tool, if it has one.
    pub(crate) fn of(v: &Value) -> Option<Breakpoint> {
        let cc = v.get("cache_control")?;
        let ttl = match cc.get("ttl").and_then(Value::as_str) {
            None => CacheTtl::Default,
            Some("5m") => CacheTtl::FiveMinutes,
            Some("1h") => CacheTtl::OneHour,
            Some(t) => CacheTtl::Other(t.to_string()),
        };
        Some(Breakpoint {
            ttl,
            wire: Some(cc.clone()),
        })
    }

    /// As Anthropic's wire writes it.
    pub(crate) fn wire(&self) -> Value {
        if let Some(w) = &self.wire {
            return w.clone();
        }
        let mut o = Map::new();
        o.insert("type".into(), "ephemeral".into());
        match &self.ttl {
            CacheTtl::Default => {}
            CacheTtl::FiveMinutes => {
                o.insert("ttl".into(), "5m".into());
            }
            CacheTtl::OneHour => {
                o.insert("ttl".into(), "1h".into());
            }
            CacheTtl::Other(t) => {
                o.insert("ttl".into(), t.clone().into());
            }
        }
        Value::Object(o)
    }
}

/// What a content block is.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockKind {
    Text,
    /// The model calling a tool (Anthropic `tool_use`, Chat's
    /// `tool_calls`, Responses' `function_call`, Gemini's `functionCall`).
    ToolUse {
        id: Option<String>,
        name: String,
    },
    /// A tool's answer.
    ToolResult {
        tool_use_id: Option<String>,
        is_error: bool,
    },
    /// An image, as a sized placeholder: its type and the bytes of its data
    /// as sent (base64 or a URL).
    Image {
        media_type: Option<String>,
        bytes: usize,
    },
    /// The model's reasoning sent back (`thinking`, `reasoning`).
    Thinking,
    /// An item of an API this model has no kind for, by its type.
    Other {
        kind: String,
    },
}

/// One content block: its kind, its text as the providers' caches count it
/// (the text of a text block; the block's JSON, breakpoint aside, for the
/// others), its breakpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    pub text: String,
    pub breakpoint: Option<Breakpoint>,
    /// As it was written, when read from the wire.
    wire: Option<Value>,
}

impl Block {
    /// A text block made here (written from its fields).
    pub fn text(text: impl Into<String>, breakpoint: Option<Breakpoint>) -> Block {
        Block {
            kind: BlockKind::Text,
            text: text.into(),
            breakpoint,
            wire: None,
        }
    }
}

/// Who says a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
    /// Gemini's name for the assistant.
    Model,
    /// A role (or a Responses item's type) this model has no name for.
    Other(String),
}

impl Role {
    pub fn parse(s: &str) -> Role {
        match s {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            "model" => Role::Model,
            o => Role::Other(o.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Model => "model",
            Role::Other(o) => o,
        }
    }
}

/// How a message's content was (or is to be) written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentForm {
    /// One string (`"content": "…"`).
    String,
    /// A list of blocks.
    Blocks,
    /// No content field: the item is the block (a Responses function call
    /// or output, Gemini has none such).
    Bare,
}

/// One message (or one input item of a Responses request).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub blocks: Vec<Block>,
    pub form: ContentForm,
    /// Its other fields, as written.
    extra: Map<String, Value>,
}

impl Message {
    pub fn new(role: Role, blocks: Vec<Block>) -> Message {
        Message {
            role,
            blocks,
            form: ContentForm::Blocks,
            extra: Map::new(),
        }
    }
}

/// A tool the request defines.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    /// Its definition as the API writes it, breakpoint aside.
    pub definition: Value,
    pub breakpoint: Option<Breakpoint>,
}

impl Tool {
    /// A tool's JSON read: its name (Anthropic's `name`, OpenAI's
    /// `function.name`, a built-in tool's `type`), its definition without
    /// `cache_control`, its breakpoint.
    pub(crate) fn of(v: &Value) -> Tool {
        let name = v["name"]
            .as_str()
            .or_else(|| v.pointer("/function/name").and_then(Value::as_str))
            .or_else(|| v["type"].as_str())
            .unwrap_or("?")
            .to_string();
        let mut definition = v.clone();
        if let Some(o) = definition.as_object_mut() {
            o.remove("cache_control");
        }
        Tool {
            name,
            definition,
            breakpoint: Breakpoint::of(v),
        }
    }

    /// Its JSON as the wire writes it (the breakpoint back in).
    pub(crate) fn wire(&self) -> Value {
        let mut v = self.definition.clone();
        if let (Some(b), Some(o)) = (&self.breakpoint, v.as_object_mut()) {
            o.insert("cache_control".into(), b.wire());
        }
        v
    }
}

/// An entry of the conversation: a message, or tools defined in the middle
/// of it (Codex sends some as a Responses `additional_tools` input item).
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Message(Message),
    Tools {
        tools: Vec<Tool>,
        extra: Map<String, Value>,
    },
    /// An entry that is not an object (no position), kept as written.
    Raw(Value),
}

/// How the system prompt was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemForm {
    /// None at all.
    Absent,
    /// One string (Anthropic's `system`, Responses' `instructions`).
    String,
    /// A list of blocks (Anthropic's `system`, Gemini's
    /// `systemInstruction.parts`).
    Blocks,
}

/// THE request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub api: Api,
    pub model: Option<String>,
    pub tools: Vec<Tool>,
    pub system: Vec<Block>,
    pub system_form: SystemForm,
    pub entries: Vec<Entry>,
    /// The body's other fields (sampling, metadata, stream…), as written.
    pub extra: Map<String, Value>,
    /// The system prompt's own other fields (Gemini's `systemInstruction`
    /// beside its parts).
    system_extra: Map<String, Value>,
    /// The body's fields this model reads, as they were present (an empty
    /// `tools` list is written back only when it was there).
    present: Vec<String>,
    /// Gemini's grouping of its tools on the wire.
    tool_groups: Vec<gemini::ToolGroup>,
}

/// A position of a request as a cache counts it: its label (`tool 3
/// (Bash)`, `system block 2`, `message 5 (user) block 2`), its text and
/// whether a breakpoint ends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Position<'a> {
    pub label: String,
    pub text: std::borrow::Cow<'a, str>,
    pub breakpoint: bool,
}

impl Request {
    /// An empty request of `api`.
    pub fn new(api: Api, model: Option<String>) -> Request {
        Request {
            api,
            model,
            tools: Vec::new(),
            system: Vec::new(),
            system_form: SystemForm::Absent,
            entries: Vec::new(),
            extra: Map::new(),
            system_extra: Map::new(),
            present: Vec::new(),
            tool_groups: Vec::new(),
        }
    }

    /// Whether the body read had the field `key`.
    pub(crate) fn had(&self, key: &str) -> bool {
        self.present.iter().any(|k| k == key)
    }

    /// The request as its API's wire writes it.
    pub fn to_wire(&self) -> Value {
        match self.api {
            Api::AnthropicMessages => anthropic::write(self),
            Api::ChatCompletions => openai::write_chat(self),
            Api::Responses => openai::write_responses(self),
            Api::Gemini => gemini::write(self),
        }
    }

    /// The messages, in order.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Message(m) => Some(m),
            Entry::Tools { .. } | Entry::Raw(_) => None,
        })
    }

    /// Its positions in cache order: the tools, the system blocks, then
    /// each entry's (a message's blocks; tools defined in the conversation
    /// where they are), labelled as every view names them.
    pub fn positions(&self) -> Vec<Position<'_>> {
        let mut out = Vec::new();
        let name = |n: &str| crate::text::clean(n, 64);
        for (i, t) in self.tools.iter().enumerate() {
            out.push(Position {
                label: format!("tool {} ({})", i + 1, name(&t.name)),
                text: tool_text(t),
                breakpoint: t.breakpoint.is_some(),
            });
        }
        for (i, b) in self.system.iter().enumerate() {
            out.push(Position {
                label: format!("system block {}", i + 1),
                text: Cow::Borrowed(&b.text),
                breakpoint: b.breakpoint.is_some(),
            });
        }
        let mut tools = self.tools.len();
        for (i, e) in self.entries.iter().enumerate() {
            match e {
                Entry::Raw(_) => {}
                Entry::Tools { tools: ts, .. } => {
                    for t in ts {
                        tools += 1;
                        out.push(Position {
                            label: format!("tool {tools} ({}, additional_tools)", name(&t.name)),
                            text: tool_text(t),
                            breakpoint: t.breakpoint.is_some(),
                        });
                    }
                }
                Entry::Message(m) => {
                    let role = crate::text::clean(m.role.as_str(), 24);
                    let one = m.blocks.len() == 1;
                    for (j, b) in m.blocks.iter().enumerate() {
                        out.push(Position {
                            label: if one {
                                format!("message {} ({role})", i + 1)
                            } else {
                                format!("message {} ({role}) block {}", i + 1, j + 1)
                            },
                            text: Cow::Borrowed(&b.text),
                            breakpoint: b.breakpoint.is_some(),
                        });
                    }
                }
            }
        }
        out
    }
}

/// A tool's text as a cache counts it: its definition's JSON.
fn tool_text(t: &Tool) -> Cow<'_, str> {
    Cow::Owned(t.definition.to_string())
}

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
