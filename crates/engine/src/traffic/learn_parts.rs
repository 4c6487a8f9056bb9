//! An agent's own parts taken out of a recorded request, agent by agent
//! (for `agents learn`): Claude Code's system blocks, its own reminders
//! and tools; Codex's developer messages, environment context and tools;
//! Gemini CLI's system instruction, session context head and function
//! declarations. The user's files and what the user typed are never taken.

use serde_json::Value;

use crate::workspace::agents::builtin::{Builtin, BuiltinBlock, BuiltinTool, Category};
use crate::workspace::settings::Placement;

/// Claude Code: its system blocks (the billing header, its identity, its
/// prompt), named as the recording names them, then the reminders of the
/// first user message that are its own (between the memory reminder,
/// which holds the user's files, and what the user typed).
pub(super) fn claude_code_blocks(req: &Value, template: &Builtin) -> Vec<BuiltinBlock> {
    let names: Vec<&str> = template
        .blocks
        .iter()
        .filter(|b| b.placement == Placement::System)
        .map(|b| b.name.as_str())
        .collect();
    let mut out = Vec::new();
    for (i, s) in each(&req["system"]).enumerate() {
        let Some(text) = s["text"].as_str() else {
            continue;
        };
        out.push(block(
            names
                .get(i)
                .map_or(format!("system block {}", i + 1), |n| n.to_string()),
            Placement::System,
            s.get("cache_control").is_some(),
            text,
        ));
    }
    let first_user = each(&req["messages"]).find(|m| m["role"] == "user");
    let content: Vec<&Value> = first_user.map_or(Vec::new(), |m| each(&m["content"]).collect());
    // The last block is what the user typed: never kept.
    for b in content.iter().take(content.len().saturating_sub(1)) {
        let Some(text) = b["text"].as_str() else {
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
pub(super) fn claude_code_tools(req: &Value) -> Vec<BuiltinTool> {
    each(&req["tools"])
        .filter(|t| {
            t["name"]
                .as_str()
                .is_some_and(|n| !n.is_empty() && !n.starts_with("mcp__"))
        })
        .map(|t| {
            let mut d = t.clone();
            if let Some(o) = d.as_object_mut() {
                o.remove("cache_control");
            }
            tool(d)
        })
        .collect()
}

/// Codex (the Responses API): its developer messages (named by their tag),
/// its environment context in the first user message, its tools (in an
/// `additional_tools` item, by namespace, or the body's `tools`).
pub(super) fn codex_parts(req: &Value) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    let (mut blocks, mut tools) = (Vec::new(), Vec::new());
    for t in each(&req["tools"]) {
        tools.push(tool(t.clone()));
    }
    let mut users = 0;
    for item in each(&req["input"]) {
        if item["type"] == "additional_tools" {
            for ns in each(&item["tools"]) {
                match ns.get("tools") {
                    Some(inner) => tools.extend(each(inner).map(|t| tool(t.clone()))),
                    None => tools.push(tool(ns.clone())),
                }
            }
            continue;
        }
        let role = item["role"].as_str().unwrap_or("");
        if role == "user" {
            users += 1;
        }
        for c in each(&item["content"]) {
            let Some(text) = c["text"].as_str() else {
                continue;
            };
            if role == "developer" {
                blocks.push(block(tag_name(text), Placement::System, false, text));
            } else if role == "user" && users == 1 && text.starts_with("<environment_context>") {
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
pub(super) fn gemini_parts(req: &Value) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    let mut blocks = Vec::new();
    let system: String = each(&req["systemInstruction"]["parts"])
        .filter_map(|p| p["text"].as_str())
        .collect();
    let own = system.split("\n\n<loaded_context>").next().unwrap_or("");
    if !own.is_empty() {
        blocks.push(block("system prompt".into(), Placement::System, false, own));
    }
    let first = each(&req["contents"])
        .find(|c| c["role"] == "user")
        .and_then(|c| c["parts"].get(0))
        .and_then(|p| p["text"].as_str())
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
    let tools = each(&req["tools"])
        .flat_map(|g| each(&g["functionDeclarations"]))
        .map(|d| tool(d.clone()))
        .collect();
    (blocks, tools)
}

/// Pi: its one system block's own text before `# Project Context` (the
/// user's files) and after them (the date and the folder), its tools.
pub fn pi_parts(req: &Value) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
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
pub fn opencode_parts(req: &Value) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
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
pub fn openclaw_parts(req: &Value) -> (Vec<BuiltinBlock>, Vec<BuiltinTool>) {
    use crate::workspace::agents::builtin::Join;
    let (stable, _) = one_system_block(req);
    let dynamic = each(&req["system"])
        .nth(1)
        .and_then(|b| b.get("text"))
        .and_then(Value::as_str);
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
fn one_system_block(req: &Value) -> (&str, bool) {
    let first = each(&req["system"]).next();
    let text = first
        .and_then(|b| b.get("text"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    (
        text,
        first.is_some_and(|b| b.get("cache_control").is_some()),
    )
}

/// The request's tools as sent, without their breakpoints.
fn tools_as_sent(req: &Value) -> Vec<BuiltinTool> {
    each(&req["tools"])
        .map(|t| {
            let mut d = t.clone();
            if let Some(o) = d.as_object_mut() {
                o.remove("cache_control");
            }
            tool(d)
        })
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
        text: text.to_string(),
    }
}

fn tool(definition: Value) -> BuiltinTool {
    BuiltinTool {
        category: Category::SystemTools,
        definition,
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
