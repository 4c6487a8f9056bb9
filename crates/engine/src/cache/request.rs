//! The request a provider receives, as the typed request (`crate::request`)
//! the assembly makes: tools → system blocks → messages, for each API; its
//! wire JSON is that request written by its API's adapter (`to_wire`).

use crate::assembly::agent_blocks::span_id;
use crate::assembly::assemble::Assembly;
use crate::request::openai::namespaced;
use crate::request::{
    Api, Block, Breakpoint, CacheTtl, ContentForm, Entry, Message as Wire, Request, Role,
    SystemForm, Tool,
};
use crate::workspace::agents::builtin::Builtin;
use crate::workspace::session::{self, Message};
use crate::workspace::settings::{Placement, Ttl};

fn breakpoint(ttl: Ttl) -> Breakpoint {
    Breakpoint::new(match ttl {
        // Written without a TTL: the API's default, five minutes.
        Ttl::FiveMinutes => CacheTtl::Default,
        Ttl::OneHour => CacheTtl::OneHour,
    })
}

/// The texts of the blocks a profile places at `placement`.
fn placed(a: &Assembly, placement: Placement) -> Vec<&str> {
    a.blocks
        .iter()
        .filter(|b| b.placement == placement)
        .map(|b| b.text.as_str())
        .collect()
}

fn first_user(entries: &mut [Entry]) -> Option<(usize, &mut Wire)> {
    entries.iter_mut().enumerate().find_map(|(i, e)| match e {
        Entry::Message(m) if m.role == Role::User => Some((i, m)),
        _ => None,
    })
}

/// The blocks a profile places in the first user message, put before that
/// message's own content (a user message of their own when there is none):
/// text blocks, or, `flat`, one string joined by blank lines.
fn with_first_user_blocks(a: &Assembly, entries: &mut Vec<Entry>, flat: bool) {
    let texts = placed(a, Placement::FirstUserMessage);
    if texts.is_empty() {
        return;
    }
    if flat {
        let joined = texts.join("\n\n");
        if let Some((_, m)) = first_user(entries) {
            let own: String = m.blocks.iter().map(|b| b.text.as_str()).collect();
            m.blocks = vec![Block::text(format!("{joined}\n\n{own}"), None)];
        } else {
            entries.insert(0, Entry::Message(flat_message(Role::User, joined)));
        }
        return;
    }
    let blocks: Vec<Block> = texts.iter().map(|t| Block::text(*t, None)).collect();
    match first_user(entries) {
        Some((_, m)) => {
            m.form = ContentForm::Blocks;
            m.blocks.splice(0..0, blocks);
        }
        None => entries.insert(0, Entry::Message(Wire::new(Role::User, blocks))),
    }
}

/// The blocks a profile sends as a system-role message of their own (Claude
/// Code 2.1), right after the first user message.
fn with_system_messages(a: &Assembly, entries: &mut Vec<Entry>, flat: bool) {
    let end = entries.len();
    let at = first_user(entries).map_or(end, |(i, _)| i + 1);
    let own: Vec<Entry> = a
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::SystemMessage)
        .map(|b| {
            Entry::Message(if flat {
                flat_message(Role::System, b.text.clone())
            } else {
                let bp = b.cache_control.then(|| breakpoint(b.ttl));
                Wire::new(Role::System, vec![Block::text(b.text.clone(), bp)])
            })
        })
        .collect();
    entries.splice(at..at, own);
}

/// A message whose content is one string.
fn flat_message(role: Role, text: String) -> Wire {
    let mut m = Wire::new(role, vec![Block::text(text, None)]);
    m.form = ContentForm::String;
    m
}

/// The fields before the request's own (`model`, `max_tokens`), in the
/// order the wire writes them.
fn head(r: &mut Request, model: &str, max_tokens: u32) {
    r.extra.insert("model".into(), model.into());
    r.extra.insert("max_tokens".into(), max_tokens.into());
}

/// The Anthropic Messages request: system blocks with a breakpoint on the
/// cached layers, the enabled tools (a breakpoint on the last with
/// `cache_tools`), the given messages (the blocks a profile places in the
/// first user message at its start, a breakpoint on the last block with
/// `message_breakpoint`).
pub fn anthropic_request(
    a: &Assembly,
    model: &str,
    messages: &[Message],
    max_tokens: u32,
    cache_tools: bool,
    message_breakpoint: bool,
) -> Request {
    let mut r = Request::new(Api::AnthropicMessages, Some(model.to_string()));
    head(&mut r, model, max_tokens);
    r.system_form = SystemForm::Blocks;
    r.system = a
        .blocks
        .iter()
        .filter(|b| b.placement.is_system())
        .map(|b| Block::text(b.text.clone(), b.cache_control.then(|| breakpoint(b.ttl))))
        .collect();
    r.tools = a.tools.iter().map(Tool::of).collect();
    if cache_tools && let Some(last) = r.tools.last_mut() {
        last.breakpoint = Some(breakpoint(Ttl::FiveMinutes));
    }
    r.entries = messages
        .iter()
        .map(|m| crate::request::entry_of(&m.to_json(), crate::request::openai::item_text))
        .collect();
    with_first_user_blocks(a, &mut r.entries, false);
    with_system_messages(a, &mut r.entries, false);
    if message_breakpoint
        && let Some(Entry::Message(last)) = r.entries.last_mut()
        && last.form == ContentForm::Blocks
        && let Some(b) = last.blocks.last_mut()
    {
        b.set_breakpoint(Some(breakpoint(Ttl::FiveMinutes)));
    }
    r
}

/// An OpenAI Chat Completions request: one system message (the system
/// blocks joined), tools as functions, the messages flattened to text (the
/// blocks a profile places in the first user message at its start).
pub fn openai_request(a: &Assembly, model: &str, messages: &[Message], max_tokens: u32) -> Request {
    let mut r = Request::new(Api::ChatCompletions, Some(model.to_string()));
    head(&mut r, model, max_tokens);
    let system = placed_system(a).join("\n\n");
    let mut rest: Vec<Entry> = messages
        .iter()
        .map(|m| Entry::Message(flat_message(role(m.role, Role::Assistant), m.flat_text())))
        .collect();
    with_first_user_blocks(a, &mut rest, true);
    with_system_messages(a, &mut rest, true);
    r.entries = std::iter::once(Entry::Message(flat_message(Role::System, system)))
        .chain(rest)
        .collect();
    r.tools = a
        .tools
        .iter()
        .map(|t| {
            Tool::of(&serde_json::json!({"type": "function", "function": {
                "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}))
        })
        .collect();
    r
}

fn placed_system(a: &Assembly) -> Vec<&str> {
    a.blocks
        .iter()
        .filter(|b| b.placement.is_system())
        .map(|b| b.text.as_str())
        .collect()
}

/// The wire role of a session message (`assistant` is the API's name for
/// the model's turns).
fn role(r: session::Role, assistant: Role) -> Role {
    match r {
        session::Role::User => Role::User,
        session::Role::Assistant => assistant,
    }
}

/// A Gemini `generateContent` request: the system blocks as one
/// `systemInstruction` part (joined by a blank line, as Gemini CLI joins
/// its prompt and the user's memory), the blocks a profile places in the
/// first user message as that message's first part (joined as they are),
/// each message's text a part, the tools as one group of function
/// declarations.
pub fn gemini_request(a: &Assembly, b: Option<&Builtin>, messages: &[Message]) -> Request {
    let mut r = Request::new(Api::Gemini, None);
    // The body's other fields as the agent sends them (its
    // `generationConfig`).
    if let Some(b) = b {
        r.extra.extend(b.request_fields.clone());
    }
    let system = placed_system(a);
    if !system.is_empty() {
        r.system = vec![Block::text(system.join("\n\n"), None)];
        r.system_form = SystemForm::Blocks;
        // As Gemini CLI writes it.
        r.system_extra.insert("role".into(), "user".into());
    }
    // Each tool a function declaration, named as the reader names it.
    r.tools = a.tools.iter().map(Tool::of).collect();
    let first: String = placed(a, Placement::FirstUserMessage).concat();
    let mut first = (!first.is_empty()).then_some(first);
    for m in messages {
        let role = role(m.role, Role::Model);
        let mut parts = Vec::new();
        if role == Role::User
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
            Entry::Message(Wire::new(Role::User, vec![Block::text(f, None)])),
        );
    }
    r
}

/// A Codex CLI request (OpenAI Responses, as Codex writes it): its tools
/// first, in an `additional_tools` item (in their namespaces), then each
/// system block as a developer message, or as another part of the one
/// before where the agent groups them, the blocks placed in the first user
/// message as a user message of their own, then each message; the body's
/// other fields as the agent sends them. Its input items carry no `id`
/// (Codex's are its session's own).
pub fn codex_request(a: &Assembly, b: Option<&Builtin>, messages: &[Message]) -> Request {
    let mut r = Request::new(Api::Responses, None);
    r.extra.insert("model".into(), a.model.clone().into());
    if let Some(b) = b {
        r.extra.extend(b.request_fields.clone());
    }
    let namespaces = b
        .iter()
        .flat_map(|b| b.tools.iter().map(|t| t.namespace.as_ref()))
        .chain(std::iter::repeat(None));
    let tools = namespaced(a.tools.iter().zip(namespaces));
    if !tools.is_empty() {
        let mut extra = serde_json::Map::new();
        extra.insert("type".into(), "additional_tools".into());
        extra.insert("role".into(), "developer".into());
        r.entries.push(Entry::Tools { tools, extra });
    }
    // Whether the agent sends a block in the message before it.
    let with_previous = |x: &crate::assembly::results::BlockResult| {
        b.is_some_and(|b| {
            b.blocks
                .iter()
                .any(|y| y.with_previous && x.spans.first().is_some_and(|s| s.id == span_id(b, y)))
        })
    };
    let mut developer: Vec<Vec<Block>> = Vec::new();
    for x in a.blocks.iter().filter(|x| x.placement.is_system()) {
        let block = Block::text(x.text.clone(), None);
        match developer.last_mut() {
            Some(m) if with_previous(x) => m.push(block),
            _ => developer.push(vec![block]),
        }
    }
    let first: Vec<Block> = placed(a, Placement::FirstUserMessage)
        .into_iter()
        .map(|t| Block::text(t.to_string(), None))
        .collect();
    let messages = messages.iter().map(|m| {
        let blocks = vec![Block::text(m.flat_text(), None)];
        Wire::item(role(m.role, Role::Assistant), blocks)
    });
    r.entries.extend(
        developer
            .into_iter()
            .map(|blocks| Wire::item(Role::Developer, blocks))
            .chain((!first.is_empty()).then(|| Wire::item(Role::User, first)))
            .chain(messages)
            .map(Entry::Message),
    );
    r
}
