//! An agent's own parts taken out of a recorded request, agent by agent
//! (for `agents learn`): Claude Code's system blocks, its own reminders
//! and tools; Codex's developer messages, environment context and tools;
//! Gemini CLI's system instruction, session context head and function
//! declarations. The user's files and what the user typed are never taken.
//! Each reads the typed request (`crate::request`), whatever its API.

use serde_json::Value;

use crate::request::{Block, BlockKind, ContentForm, Entry, Request, Role, Tool};
use crate::workspace::agents::builtin::{Builtin, BuiltinBlock, BuiltinTool, Category};
use crate::workspace::settings::Placement;

/// A block's text, when it is a text block.
fn text_of(b: &Block) -> Option<&str> {
    (b.kind == BlockKind::Text).then_some(b.text.as_str())
}

/// The first user message's blocks as sent in a list (none when its
/// content is one string).
fn first_user_blocks(req: &Request) -> &[Block] {
    req.messages()
        .find(|m| m.role == Role::User)
        .filter(|m| m.form == ContentForm::Blocks)
        .map_or(&[], |m| m.blocks.as_slice())
}

/// Claude Code: its system blocks (the billing header, its identity, its
/// prompt), named as the recording names them, then the reminders of the
/// first user message that are its own (between the memory reminder,
/// which holds the user's files, and what the user typed).
pub(super) fn claude_code_blocks(req: &Request, template: &Builtin) -> Vec<BuiltinBlock> {
    let names: Vec<&str> = template
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::System)
        .map(|b| b.name.as_str())
        .collect();
    let mut out = Vec::new();
    for (i, s) in req.system.iter().enumerate() {
        let Some(text) = text_of(s) else {
            continue;
        };
        out.push(block(
            names
                .get(i)
                .map_or(format!("system block {}", i + 1), |n| n.to_string()),
            Placement::System,
            s.breakpoint.is_some(),
            text,
        ));
    }
    let content = first_user_blocks(req);
    // The last block is what the user typed: never kept.
    for b in content.iter().take(content.len().saturating_sub(1)) {
        let Some(text) = text_of(b) else {
            continue;
        };
        if !text.starts_with("<system-reminder>") || text.contains("Codebase and user instructions")
        {
            continue;
        }
        let name = if text.contains("Attribution") {
            "attribution reminder"
        } else {
            "reminder"
        };
        out.push(block(name.into(), Placement::FirstUserMessage, false, text));
    }
    out
}

/// Claude Code's tools as sent, without the breakpoint and without the
/// user's MCP servers' tools (`mcp__…`: the user's, not the agent's).
pub(super) fn claude_code_tools(req: &Request) -> Vec<BuiltinTool> {
    req.tools
        .iter()
        .filter(|t| {
            t.definition["name"]
                .as_str()
                .is_some_and(|n| !n.is_empty() && !n.starts_with("mcp__"))
        })
        .map(|t| tool(t.definition.clone()))
        .collect()
}

/// Codex (the Responses API): its developer messages (named by their tag),
/// its environment context in the first user message, its tools (in an
/// `additional_tools` item, by namespace, or the body's `tools`).
pub(super) fn codex_parts(req: &Request) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    let mut blocks = Vec::new();
    let mut tools: Vec<BuiltinTool> = req.tools.iter().map(|t| tool(t.wire())).collect();
    let mut users = 0;
    for entry in &req.entries {
        let item = match entry {
            Entry::Tools { tools: ts, .. } => {
                for ns in ts {
                    match ns.definition.get("tools") {
                        Some(inner) => {
                            let mut head = ns.definition.clone();
                            if let Some(o) = head.as_object_mut() {
                                o.remove("tools");
                            }
                            tools.extend(each(inner).map(|t| BuiltinTool {
                                namespace: Some(head.clone()),
                                ..tool(t.clone())
                            }));
                        }
                        None => tools.push(tool(ns.wire())),
                    }
                }
                continue;
            }
            Entry::Raw(_) => continue,
            Entry::Message(m) => m,
        };
        let role = &item.role;
        if *role == Role::User {
            users += 1;
        }
        if item.form != ContentForm::Blocks {
            continue;
        }
        for (i, text) in item.blocks.iter().filter_map(text_of).enumerate() {
            if *role == Role::Developer {
                blocks.push(BuiltinBlock {
                    with_previous: i > 0,
                    ..block(tag_name(text), Placement::System, false, text)
                });
            } else if *role == Role::User && users == 1 && text.starts_with("<environment_context>")
            {
                blocks.push(block(
                    "environment context".into(),
                    Placement::FirstUserMessage,
                    false,
                    text,
                ));
            }
        }
    }
    (blocks, tools)
}

/// Gemini CLI (`generateContent`): its system instruction up to the
/// user's memory (`<loaded_context>`), the head of its `<session_context>`
/// in the first user message up to the user's files (the folder's tree,
/// which it draws from the folder, left as `{directory_tree}`), its
/// function declarations.
pub(super) fn gemini_parts(req: &Request) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    let mut blocks = Vec::new();
    let system: String = req.system.iter().filter_map(text_of).collect();
    let own = system.split("\n\n<loaded_context>").next().unwrap_or("");
    if !own.is_empty() {
        blocks.push(block("system prompt".into(), Placement::System, false, own));
    }
    let first = first_user_blocks(req)
        .first()
        .and_then(text_of)
        .unwrap_or("");
    if let Some(head) = first
        .split("<loaded_context>")
        .next()
        .filter(|h| h.starts_with("<session_context>"))
    {
        let tree = head
            .find("\n\n/")
            .map(|i| i + 2)
            .zip(head.rfind("\n\n\n"))
            .filter(|(a, b)| a < b);
        let head = match tree {
            Some((a, b)) => format!("{}{{directory_tree}}{}", &head[..a], &head[b..]),
            None => head.to_string(),
        };
        let mut b = block(
            "session context".into(),
            Placement::FirstUserMessage,
            false,
            &head,
        );
        b.before_files = true;
        blocks.push(b);
    }
    // Its function declarations (a built-in tool group, `googleSearch`,
    // has no name of its own).
    let tools = req
        .tools
        .iter()
        .filter(|d| d.definition.get("name").is_some())
        .map(|d| tool(d.definition.clone()))
        .collect();
    (blocks, tools)
}

/// Pi: its one system block's own text before `# Project Context` (the
/// user's files) and after them (the date and the folder), its tools.
pub fn pi_parts(req: &Request) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    const TITLE: &str =
        "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n";
    let (system, cache) = one_system_block(req);
    let mut blocks = Vec::new();
    if let Some((own, files)) = system.split_once(TITLE) {
        let mut b = block(
            "system prompt".into(),
            Placement::System,
            cache,
            &format!("{own}\n"),
        );
        b.join = Some(crate::workspace::agents::builtin::Join::BeforeStable);
        blocks.push(b);
        if let Some((_, after)) = files.rsplit_once("\n\n\n")
            && after.starts_with("Current date: ")
        {
            let mut b = block("date and folder".into(), Placement::System, false, after);
            b.join = Some(crate::workspace::agents::builtin::Join::AfterStable);
            blocks.push(b);
        }
    }
    (blocks, tools_as_sent(req))
}

/// OpenCode: its one system block's own text up to its `<env>` block's end
/// and from its skills list on (the user's instruction files between),
/// its tools.
pub fn opencode_parts(req: &Request) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    use crate::workspace::agents::builtin::{Category, Join};
    let (system, cache) = one_system_block(req);
    let mut blocks = Vec::new();
    if let Some((own, rest)) = system.split_once("</env>\n") {
        let mut b = block(
            "system prompt".into(),
            Placement::System,
            cache,
            &format!("{own}</env>"),
        );
        b.join = Some(Join::BeforeStable);
        blocks.push(b);
        if let Some(at) = rest
            .find("\n\nSkills provide ")
            .or_else(|| rest.starts_with("Skills provide ").then_some(0))
        {
            let after = rest[at..].trim_start_matches('\n');
            let mut b = block("skills".into(), Placement::System, false, after);
            b.join = Some(Join::AfterStable);
            b.category = Category::Skills;
            blocks.push(b);
        }
    }
    (blocks, tools_as_sent(req))
}

/// OpenClaw: its stable block's own text before the skills section and
/// between the skills and the workspace files (both rendered by the
/// profile), its closing marker, and its runtime context (the second
/// system block); its tools. The skills listed are the recording's.
pub fn openclaw_parts(req: &Request) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    use crate::workspace::agents::builtin::Join;
    let (stable, _) = one_system_block(req);
    let dynamic = req.system.get(1).and_then(text_of);
    let mut blocks = Vec::new();
    let parts = stable
        .split_once("\n## Skills\n")
        .and_then(|(before, rest)| {
            let at = rest.find("\n## Skill Workshop\n")?;
            let (between, files) =
                rest[at + 1..].split_once("\n## Workspace Files (injected)\n")?;
            let end = files.rsplit_once('\n')?.1;
            end.starts_with("<!-- /openclaw:attempt:")
                .then_some((before, between, end))
        });
    if let Some((before, between, end)) = parts {
        for (name, text, join) in [
            ("system prompt", before, Join::BeforeStable),
            (
                "workspace and docs",
                between.trim_end_matches('\n'),
                Join::BeforeFiles,
            ),
            ("end of the stable block", end, Join::AfterStable),
        ] {
            let mut b = block(name.into(), Placement::System, false, text);
            b.join = Some(join);
            blocks.push(b);
        }
        if let Some(d) = dynamic {
            let mut b = block("runtime context".into(), Placement::System, false, d);
            b.after_files = true;
            blocks.push(b);
        }
    }
    (blocks, tools_as_sent(req))
}

/// The first system block's text and whether it carries a breakpoint (the
/// one block of Pi and OpenCode).
fn one_system_block(req: &Request) -> (&str, bool) {
    let first = req.system.first();
    (
        first.and_then(text_of).unwrap_or_default(),
        first.is_some_and(|b| b.breakpoint.is_some()),
    )
}

/// The request's tools as sent, without their breakpoints.
fn tools_as_sent(req: &Request) -> Vec<BuiltinTool> {
    req.tools
        .iter()
        .map(|t: &Tool| tool(t.definition.clone()))
        .collect()
}

/// `<skills_instructions>…` is `skills instructions`; untagged text is
/// `instructions`.
fn tag_name(text: &str) -> String {
    let tag = text
        .strip_prefix('<')
        .and_then(|t| t.split_once('>'))
        .map(|(t, _)| t)
        .filter(|t| {
            !t.is_empty()
                && t.len() <= 60
                && t.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c == ' ')
        });
    tag.map_or("instructions".into(), |t| t.replace('_', " "))
}

pub(super) fn block(name: String, placement: Placement, cache: bool, text: &str) -> BuiltinBlock {
    BuiltinBlock {
        name,
        category: Category::SystemPrompt,
        placement,
        cache,
        join: None,
        after_files: false,
        before_files: false,
        with_previous: false,
        text: text.to_string(),
    }
}

fn tool(definition: Value) -> BuiltinTool {
    BuiltinTool {
        category: Category::SystemTools,
        definition,
        namespace: None,
    }
}

/// The items of an array (none for anything else).
pub(super) fn each(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_name_codex_blocks() {
        assert_eq!(
            tag_name("<skills_instructions>\n## Skills"),
            "skills instructions"
        );
        assert_eq!(tag_name("You are Codex"), "instructions");
        assert_eq!(tag_name("<a href=x>"), "instructions");
    }
}
