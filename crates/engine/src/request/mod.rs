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

use serde_json::{Map, Value};

pub mod anthropic;
pub mod gemini;
pub mod openai;
mod positions;
#[cfg(test)]
mod tests;
mod wire;

pub(crate) use wire::{array, block_of, block_text, block_wire, entry_of, entry_wire, rest};

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

    /// The API a body without its endpoint is written for, by its shape:
    /// `contents` or `systemInstruction` (no `messages`) is Gemini's, `input`
    /// or `instructions` the Responses API's, `messages` beside OpenAI's
    /// roles or function tools (and no `system`) Chat Completions', any
    /// other Anthropic's. (Anthropic's and Chat's messages are read alike:
    /// the positions do not depend on which of the two is guessed.)
    pub fn of_body(body: &Value) -> Api {
        let has = |k: &str| body.get(k).is_some_and(|v| !v.is_null());
        if !has("messages") && !has("input") && (has("contents") || has("systemInstruction")) {
            return Api::Gemini;
        }
        if has("input") || has("instructions") {
            return Api::Responses;
        }
        let openai_role = body["messages"].as_array().is_some_and(|ms| {
            ms.iter()
                .any(|m| matches!(m["role"].as_str(), Some("system" | "developer" | "tool")))
        });
        let function_tools = body["tools"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|t| t.get("function").is_some()));
        if !has("system") && (openai_role || function_tools) {
            Api::ChatCompletions
        } else {
            Api::AnthropicMessages
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

    /// The block as it was written, when read from the wire (a tool use's
    /// input, a tool result's content).
    pub fn as_written(&self) -> Option<&Value> {
        self.wire.as_ref()
    }

    /// Sets (or, `None`, removes) its breakpoint; a block read from the
    /// wire gets it in its wire form too (written where it was, else last).
    pub fn set_breakpoint(&mut self, breakpoint: Option<Breakpoint>) {
        if let Some(Value::Object(o)) = &mut self.wire {
            match &breakpoint {
                Some(b) => {
                    o.insert("cache_control".into(), b.wire());
                }
                None => {
                    o.shift_remove("cache_control");
                }
            }
        }
        self.breakpoint = breakpoint;
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

    /// A Responses input item of type `message`, its role written after
    /// its type, as Codex writes them.
    pub fn item(role: Role, blocks: Vec<Block>) -> Message {
        let name = role.as_str().to_string();
        let mut m = Message::new(role, blocks);
        m.extra.insert("type".into(), "message".into());
        m.extra.insert("role".into(), name.into());
        m
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

    /// Its JSON text as the wire writes it (what its tokens are counted on).
    pub fn wire_text(&self) -> String {
        serde_json::to_string(&self.wire()).unwrap_or_default()
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
    pub(crate) system_extra: Map<String, Value>,
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

    /// A body read as the API its shape says ([`Api::of_body`]); a body
    /// that is not a request of it reads as an empty request of it (no
    /// positions), as a view shows a body it cannot take apart.
    pub fn of_body(body: &Value) -> Request {
        let api = Api::of_body(body);
        api.read(body).unwrap_or_else(|_| Request::new(api, None))
    }

    /// A recorded body as the API it was sent to (`api`, when the
    /// endpoint says) reads it; else as its shape says ([`Request::of_body`]).
    /// A body of another API's shape than its endpoint's (a Responses
    /// `input` sent to `/v1/messages`) is read as its shape says: its
    /// positions are what it holds. (Anthropic's and Chat's messages are
    /// alike: the endpoint tells them apart.)
    pub fn of_recorded(api: Option<Api>, body: &Value) -> Request {
        use Api::{AnthropicMessages, ChatCompletions};
        let shape = Api::of_body(body);
        let alike = |a: &Api| {
            *a == shape
                || matches!(
                    (a, shape),
                    (AnthropicMessages, ChatCompletions) | (ChatCompletions, AnthropicMessages)
                )
        };
        api.filter(alike)
            .and_then(|a| a.read(body).ok())
            .unwrap_or_else(|| Request::of_body(body))
    }

    /// The names of the tools it defines, in order (those defined in the
    /// conversation too).
    pub fn tool_names(&self) -> Vec<&str> {
        let mid = self.entries.iter().flat_map(|e| match e {
            Entry::Tools { tools, .. } => tools.as_slice(),
            Entry::Message(_) | Entry::Raw(_) => &[],
        });
        self.tools
            .iter()
            .chain(mid)
            .map(|t| t.name.as_str())
            .collect()
    }

    /// A field of the body this model keeps as written (`prompt_cache_key`).
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.extra.get(key)
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
}
