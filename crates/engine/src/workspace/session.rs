//! Sessions (`sessions/*.yaml`): a scenario with enabled tools, flags,
//! template variables, and turns (or a transcript in Anthropic's message
//! format) from which the requests of a conversation are built.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::workspace::diag::FileDiags;
use crate::workspace::yaml::{Node, key_line, string_map, unknown_keys};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One content block of a message, in Anthropic's format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
    },
}

impl Block {
    /// The text a block is counted as (a tool use by its name and input).
    pub fn counted_text(&self) -> String {
        match self {
            Block::Text { text } => text.clone(),
            Block::ToolUse { name, input, .. } => format!("tool_use {name} {input}"),
            Block::ToolResult { content, .. } => content.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

impl Message {
    pub fn text(role: Role, text: &str) -> Message {
        Message {
            role,
            content: vec![Block::Text { text: text.into() }],
        }
    }

    /// The message as the Messages API takes it.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Text used for token counting and diffing (blocks joined by newlines).
    pub fn flat_text(&self) -> String {
        let mut parts = Vec::new();
        for b in &self.content {
            match b {
                Block::Text { text } => parts.push(text.clone()),
                Block::ToolUse { name, input, .. } => {
                    parts.push(format!("[tool_use {name}] {input}"))
                }
                Block::ToolResult { content, .. } => parts.push(format!("[tool_result] {content}")),
            }
        }
        parts.join("\n")
    }

    pub fn is_tool_result(&self) -> bool {
        self.content
            .iter()
            .any(|b| matches!(b, Block::ToolResult { .. }))
    }
}

/// A point in the conversation where a request is sent: with the messages
/// `0..messages`, after `gap_secs` of silence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestPoint {
    pub turn: usize,
    pub messages: usize,
    pub gap_secs: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Session {
    pub name: String,
    pub source: String,
    pub description: String,
    /// `None`: every tool the workspace defines.
    pub tools: Option<Vec<String>>,
    pub flags: BTreeMap<String, bool>,
    pub vars: BTreeMap<String, String>,
    pub model: Option<String>,
    /// Line of `model:` in the session file (for diagnostics about it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_line: Option<usize>,
    pub messages: Vec<Message>,
    pub requests: Vec<RequestPoint>,
}

impl Session {
    /// The conversation the session's requests send, the first `upto`
    /// messages of it: a session without requests is one request with a
    /// greeting ("Hello"), as the prediction sends it and `context` counts it.
    pub fn conversation(&self, upto: usize) -> std::borrow::Cow<'_, [Message]> {
        if self.requests.is_empty() {
            std::borrow::Cow::Owned(vec![Message::text(Role::User, "Hello")])
        } else {
            std::borrow::Cow::Borrowed(&self.messages[..upto.min(self.messages.len())])
        }
    }
}

/// `90`, `90s`, `6m`, `1h`, `1h30m` → seconds.
pub fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Ok(n) = s.parse::<u64>() {
        return Some(n);
    }
    let mut total = 0u64;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            let n: u64 = num.parse().ok()?;
            num.clear();
            let unit = match c {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                'd' => 86400,
                _ => return None,
            };
            total = total.checked_add(n.checked_mul(unit)?)?;
        }
    }
    if !num.is_empty() {
        return None;
    }
    Some(total)
}

const SESSION_KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "flags",
    "vars",
    "model",
    "turns",
    "transcript",
];
const TURN_KEYS: &[&str] = &["user", "assistant", "tool_uses", "gap"];
const TOOL_USE_KEYS: &[&str] = &["id", "name", "input", "result"];

/// Reads a session file's tree. `read_transcript` loads a workspace-relative
/// file (it refuses paths that leave the workspace).
pub fn parse_session(
    node: &Node,
    text: &str,
    stem: &str,
    d: &mut FileDiags,
    read_transcript: &mut dyn FnMut(&str, usize) -> Option<String>,
) -> Option<Session> {
    if !matches!(node, Node::Map(_)) {
        d.error(
            Some(1),
            format!("a session must be a mapping, found {}", node.type_name()),
        );
        return None;
    }
    for k in unknown_keys(node, SESSION_KEYS) {
        d.warning(
            key_line(text, k, 1),
            format!("unknown key '{k}' in session (ignored)"),
        );
    }
    let mut s = Session {
        name: node
            .get("name")
            .and_then(Node::scalar_text)
            .unwrap_or_else(|| stem.to_string()),
        source: d.file.to_string(),
        description: node
            .get("description")
            .and_then(Node::scalar_text)
            .unwrap_or_default(),
        model: node.get("model").and_then(Node::scalar_text),
        model_line: crate::workspace::yaml::key_line(text, "model", 1),
        vars: string_map(node.get("vars")),
        ..Session::default()
    };
    if let Some(t) = node.get("tools") {
        match t {
            Node::List(items) => {
                s.tools = Some(items.iter().filter_map(Node::scalar_text).collect());
            }
            Node::Null => s.tools = Some(Vec::new()),
            other => d.error(
                key_line(text, "tools", 1),
                format!(
                    "'tools' must be a list of tool names, found {}",
                    other.type_name()
                ),
            ),
        }
    }
    for (k, v) in node.get("flags").map(Node::entries).unwrap_or(&[]) {
        match v.as_bool() {
            Some(b) => {
                s.flags.insert(k.clone(), b);
            }
            None => d.error(
                key_line(text, k, 1),
                format!("flag '{k}' must be true or false"),
            ),
        }
    }
    let turns_node = node.get("turns");
    let transcript = node.get("transcript").and_then(Node::scalar_text);
    if turns_node.is_some() && transcript.is_some() {
        d.error(
            key_line(text, "transcript", 1),
            "a session has either 'turns' or 'transcript', not both (turns used)",
        );
    }
    if let Some(turns) = turns_node {
        read_turns(turns, text, d, &mut s);
    } else if let Some(path) = transcript {
        let line = key_line(text, "transcript", 1).unwrap_or(1);
        if let Some(body) = read_transcript(&path, line) {
            read_transcript_messages(&body, &path, d, &mut s);
        }
    }
    Some(s)
}

fn read_turns(turns: &Node, text: &str, d: &mut FileDiags, s: &mut Session) {
    let Node::List(items) = turns else {
        d.error(key_line(text, "turns", 1), "'turns' must be a list");
        return;
    };
    let mut cursor = key_line(text, "turns", 1).unwrap_or(1);
    let mut tool_seq = 0;
    for (i, t) in items.iter().enumerate() {
        let turn = i + 1;
        let line = key_line(text, "user", cursor).or_else(|| key_line(text, "gap", cursor));
        if let Some(l) = line {
            cursor = l + 1;
        }
        for k in unknown_keys(t, TURN_KEYS) {
            d.warning(line, format!("unknown key '{k}' in turn {turn} (ignored)"));
        }
        let gap = match t.get("gap") {
            None => 0,
            Some(g) => match g.scalar_text().as_deref().and_then(parse_duration) {
                Some(n) => n,
                None => {
                    d.error(
                        line,
                        format!("turn {turn}: gap must be a duration like 90s, 6m or 1h"),
                    );
                    0
                }
            },
        };
        let Some(user) = t.get("user").and_then(Node::scalar_text) else {
            d.error(line, format!("turn {turn} has no 'user' message (skipped)"));
            continue;
        };
        s.messages.push(Message::text(Role::User, &user));
        s.requests.push(RequestPoint {
            turn,
            messages: s.messages.len(),
            gap_secs: gap,
        });
        if let Some(Node::List(uses)) = t.get("tool_uses") {
            for u in uses {
                tool_use(u, (turn, line), &mut tool_seq, d, s);
            }
        }
        if let Some(a) = t.get("assistant").and_then(Node::scalar_text) {
            s.messages.push(Message::text(Role::Assistant, &a));
        }
    }
}

/// One tool use of turn `turn` (its line `line`): the assistant's call
/// and the user's result, then a request; numbered `toolu_NNNN` when it
/// has no id.
fn tool_use(
    u: &Node,
    (turn, line): (usize, Option<usize>),
    tool_seq: &mut usize,
    d: &mut FileDiags,
    s: &mut Session,
) {
    for k in unknown_keys(u, TOOL_USE_KEYS) {
        d.warning(
            line,
            format!("unknown key '{k}' in a tool use of turn {turn}"),
        );
    }
    let Some(name) = u.get("name").and_then(Node::scalar_text) else {
        d.error(line, format!("turn {turn}: a tool use needs a 'name'"));
        return;
    };
    *tool_seq += 1;
    let id = u
        .get("id")
        .and_then(Node::scalar_text)
        .unwrap_or_else(|| format!("toolu_{:04}", *tool_seq));
    let input = u
        .get("input")
        .map(Node::to_json)
        .unwrap_or_else(|| json!({}));
    let result = u
        .get("result")
        .and_then(Node::scalar_text)
        .unwrap_or_default();
    s.messages.push(Message {
        role: Role::Assistant,
        content: vec![Block::ToolUse {
            id: id.clone(),
            name,
            input,
        }],
    });
    s.messages.push(Message {
        role: Role::User,
        content: vec![Block::ToolResult {
            tool_use_id: id,
            content: result,
        }],
    });
    s.requests.push(RequestPoint {
        turn,
        messages: s.messages.len(),
        gap_secs: 0,
    });
}

fn block_from_json(v: &Value) -> Option<Block> {
    match v.get("type")?.as_str()? {
        "text" => Some(Block::Text {
            text: v.get("text")?.as_str()?.to_string(),
        }),
        "tool_use" => Some(Block::ToolUse {
            id: v.get("id")?.as_str()?.to_string(),
            name: v.get("name")?.as_str()?.to_string(),
            input: v.get("input").cloned().unwrap_or(json!({})),
        }),
        "tool_result" => {
            let content = match v.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            Some(Block::ToolResult {
                tool_use_id: v.get("tool_use_id")?.as_str()?.to_string(),
                content,
            })
        }
        _ => None,
    }
}

/// Parses one Anthropic-format message (`content` a string or a block list).
/// The error's place is empty: the caller names the file and the line.
pub fn message_from_json(v: &Value) -> Result<Message, crate::error::Error> {
    let bad = |why: String| crate::error::Error::invalid("", why);
    let role = match v.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some(r) => return Err(bad(format!("unknown role '{r}'"))),
        None => return Err(bad("a message needs a 'role'".into())),
    };
    let content = match v.get("content") {
        Some(Value::String(s)) => vec![Block::Text { text: s.clone() }],
        Some(Value::Array(blocks)) => {
            let mut out = Vec::new();
            for b in blocks {
                out.push(block_from_json(b).ok_or_else(|| {
                    bad(format!(
                        "unsupported content block {}",
                        b.get("type").unwrap_or(&Value::Null)
                    ))
                })?);
            }
            out
        }
        _ => {
            return Err(bad(
                "a message needs 'content' (a string or a list of blocks)".into(),
            ));
        }
    };
    Ok(Message { role, content })
}

fn read_transcript_messages(body: &str, path: &str, d: &mut FileDiags, s: &mut Session) {
    let mut values: Vec<(usize, Value)> = Vec::new();
    let trimmed = body.trim_start();
    if trimmed.starts_with('[') {
        match serde_json::from_str::<Value>(body) {
            Ok(Value::Array(items)) => values.extend(items.into_iter().map(|v| (1, v))),
            Ok(_) => d.error(
                None,
                format!("transcript {path}: expected a JSON array of messages"),
            ),
            Err(e) => d.error(
                Some(e.line()),
                format!("transcript {path}: invalid JSON at line {}: {e}", e.line()),
            ),
        }
    } else {
        for (i, line) in body.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(v) => values.push((i + 1, v)),
                Err(e) => d.error(
                    None,
                    format!("transcript {path}, line {}: invalid JSON: {e}", i + 1),
                ),
            }
        }
    }
    let mut turn = 0;
    for (line, v) in values {
        match message_from_json(&v) {
            Ok(m) => {
                let is_user = m.role == Role::User;
                if is_user && !m.is_tool_result() {
                    turn += 1;
                }
                s.messages.push(m);
                if is_user {
                    s.requests.push(RequestPoint {
                        turn: turn.max(1),
                        messages: s.messages.len(),
                        gap_secs: 0,
                    });
                }
            }
            Err(e) => d.error(None, format!("transcript {path}, line {line}: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::yaml::parse;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("6m"), Some(360));
        assert_eq!(parse_duration("1h30m"), Some(5400));
        assert_eq!(parse_duration("45"), Some(45));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("5x"), None);
    }

    #[test]
    fn turns_become_messages_and_request_points() {
        let text = "tools: [file_read]\nturns:\n  - user: hi\n    assistant: hello\n  - gap: 6m\n    user: read it\n    tool_uses:\n      - name: file_read\n        input: {path: a.txt}\n        result: contents\n    assistant: done\n";
        let mut out = Vec::new();
        let mut d = FileDiags {
            file: "sessions/s.yaml",
            out: &mut out,
        };
        let s = parse_session(&parse(text).unwrap(), text, "s", &mut d, &mut |_, _| None).unwrap();
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(s.name, "s");
        assert_eq!(s.messages.len(), 6);
        let points: Vec<_> = s
            .requests
            .iter()
            .map(|r| (r.turn, r.messages, r.gap_secs))
            .collect();
        assert_eq!(points, vec![(1, 1, 0), (2, 3, 360), (2, 5, 0)]);
    }

    #[test]
    fn transcript_jsonl() {
        let body = "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}]}\nnot json\n{\"role\":\"user\",\"content\":\"c\"}\n";
        let text = "transcript: t.jsonl\n";
        let mut out = Vec::new();
        let mut d = FileDiags {
            file: "sessions/s.yaml",
            out: &mut out,
        };
        let s = parse_session(&parse(text).unwrap(), text, "s", &mut d, &mut |_, _| {
            Some(body.into())
        })
        .unwrap();
        assert_eq!(s.messages.len(), 3);
        assert_eq!(s.requests.len(), 2);
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("line 3"), "{out:?}");
    }
}
