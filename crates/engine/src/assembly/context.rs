//! The context window as the agent fills it, in the manner of Claude Code's
//! `/context`: for an agent folder whose profile has the agent's recorded
//! parts, `/context`'s categories (system prompt, system tools, deferred
//! tools, custom agents, memory files, skills, messages, free space,
//! autocompact buffer) with a row per memory file, subagent and skill; for
//! any other workspace, the tools, each layer, the messages, the output
//! reserved and the free space. Every block is split between categories so
//! that they add up to its exact count: each fragment's own tokens go to
//! its category, the rest of the block (titles, headings, separators) to
//! the block's own (the agent's words, or the layer).

use serde::Serialize;

use crate::assembly::assemble::{BlockResult, FragmentResult, LayerResult};
use crate::assembly::assembled::Assembled;
use crate::assembly::tokens::TokenCounter;
use crate::text::thousands;
use crate::workspace::agents::builtin::Category;
use crate::workspace::agents::listing;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub name: String,
    pub tokens: u64,
    /// Part of what is in use (the deferred tools, free space and buffer
    /// are not).
    pub in_use: bool,
}

/// One memory file, subagent or skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// `Project`, `Local`, `User` or `Built-in`.
    pub source: String,
    pub name: String,
    pub tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextUsage {
    pub model: String,
    pub window: u64,
    /// A window the agent sets itself, whose it is (see
    /// [`Assembled::agents_window`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_of: Option<String>,
    /// Counted with o200k for a model whose tokenizer is not public.
    pub estimate: bool,
    /// Whose own parts are counted (`Claude Code 2.1.328`).
    pub agent: Option<String>,
    /// Where the agent's newest session in this folder ran another
    /// release than the one whose parts are counted: both, and where that
    /// was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_release: Option<String>,
    /// The agent's user-level memory file there in the home folder but
    /// not counted (no `--user-memory`), said in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home_memory_not_counted: Option<String>,
    /// What the Messages row holds when no session is recorded: a stand-in
    /// first message, said so that its token is not a mystery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages_note: Option<String>,
    pub used: u64,
    pub rows: Vec<Row>,
    pub memory_files: Vec<Item>,
    /// Memory files the agent adds later, on demand (Claude Code's
    /// CLAUDE.md in subfolders, once it reads a file there): not in use,
    /// each with what its block will cost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_files_on_demand: Vec<Item>,
    /// Memory files of subfolders the agent reads only when it starts in
    /// their folder (Codex's nested AGENTS.md): not in this session at all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_files_elsewhere: Vec<Item>,
    /// The agent's own words around its memory files (Claude Code's
    /// preamble, each file's "Contents of …:" heading and the closing
    /// tag): in the Memory files category, as sent, but no file (the
    /// agent's own `/context` lists the files only, each counted without
    /// its heading).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_files_around: Option<Item>,
    pub agents: Vec<Item>,
    pub skills: Vec<Item>,
}

impl ContextUsage {
    /// The rows per item, under `/context`'s titles, in its order, each
    /// with what its category holds beyond them (the memory files': the
    /// agent's words around them), so that each list sums to its category.
    pub fn item_groups(&self) -> [(&'static str, &[Item], Option<&Item>); 5] {
        [
            ("Custom agents", &self.agents, None),
            (
                "Memory files",
                &self.memory_files,
                self.memory_files_around.as_ref(),
            ),
            (ON_DEMAND, &self.memory_files_on_demand, None),
            (ELSEWHERE, &self.memory_files_elsewhere, None),
            ("Skills", &self.skills, None),
        ]
    }
}

/// The titles of the memory files not in use, and what each list means.
pub const ON_DEMAND: &str = "Memory files on demand";
pub const ELSEWHERE: &str = "Memory files of subfolders";

/// What a group of [`ContextUsage::item_groups`] means, when its title
/// does not say it all.
pub fn group_note(title: &str) -> Option<&'static str> {
    match title {
        ON_DEMAND => Some(
            "not in use: added once the agent reads a file in their folder, or one a rule's paths match",
        ),
        ELSEWHERE => Some("not in use: read only when the agent starts in their folder"),
        _ => None,
    }
}

/// The context window of the inspection's session, at its last request.
pub fn usage(ins: &Assembled, counter: &TokenCounter) -> ContextUsage {
    let a = &ins.assembly;
    let p = &ins.prepared;
    let window = context_window(ins);
    let session = ins.session();
    let messages = message_tokens(session, a.tokenizer, counter);
    let agent = a.agent.is_some();
    let mut rows: Vec<Row> = Vec::new();
    let mut add = |name: &str, tokens: u64, in_use: bool| add_row(&mut rows, name, tokens, in_use);
    if agent {
        for c in [
            Category::SystemPrompt,
            Category::SystemTools,
            Category::DeferredTools,
            Category::CustomAgents,
            Category::MemoryFiles,
            Category::Skills,
            Category::Messages,
        ] {
            add(c.label(), 0, c != Category::DeferredTools);
        }
        add(Category::SystemTools.label(), a.tools_tokens, true);
        let deferred: u64 = a.deferred_tools.iter().map(|d| d.1).sum();
        add(Category::DeferredTools.label(), deferred, false);
        for b in &a.blocks {
            for (c, n) in split_block(b, (&a.layers, &a.fragments), counter, a.tokenizer) {
                add(c.label(), n, true);
            }
        }
        add(Category::Messages.label(), messages, true);
    } else {
        add("Tool definitions", a.tools_tokens, true);
        for l in &a.layers {
            let name = crate::assembly::report::layer_name(l, false);
            add(&format!("Layer {}: {name}", l.layer), l.used, true);
        }
        add("Messages", messages, true);
    }
    let used: u64 = rows.iter().filter(|r| r.in_use).map(|r| r.tokens).sum();
    let h = &p.settings.history;
    let buffer = h.autocompact_buffer;
    if !agent {
        add_row(&mut rows, "Reserved output", h.reserved_output, false);
    }
    let kept = if agent { buffer } else { h.reserved_output };
    add_row(
        &mut rows,
        "Free space",
        window.saturating_sub(used + kept),
        false,
    );
    // An agent that keeps no buffer (Gemini CLI, Pi, OpenCode): no row.
    if agent && buffer > 0 {
        add_row(&mut rows, "Autocompact buffer", buffer, false);
    }
    let (memory_files, agents, skills) = items(ins);
    let (memory_files_on_demand, memory_files_elsewhere) = match on_demand(ins) {
        items if ins.workspace.profile.agent.loads_nested_on_demand() => (items, Vec::new()),
        items => (Vec::new(), items),
    };
    let memory_files_around = around(&rows, &memory_files, memory_headings(ins)).filter(|_| agent);
    ContextUsage {
        model: a.model.clone(),
        window,
        window_of: ins.agents_window(),
        estimate: a.estimate,
        agent: a.agent.clone(),
        other_release: other_release(ins),
        home_memory_not_counted: home_memory_not_counted(ins),
        messages_note: messages_note(session, messages),
        used,
        rows,
        memory_files,
        memory_files_on_demand,
        memory_files_elsewhere,
        memory_files_around,
        agents,
        skills,
    }
}

/// The window the agent runs the model with (its recording's), else the
/// model's.
fn context_window(ins: &Assembled) -> u64 {
    ins.prepared
        .model
        .window_with(ins.workspace.builtin.as_deref())
}

/// The line saying that the agent's user-level memory file is left out:
/// there but not asked for (no `--user-memory`), or asked for but unread
/// (`context` and `predict` say it).
pub fn home_memory_not_counted(ins: &Assembled) -> Option<String> {
    use crate::workspace::LeftOut;
    let h = ins.workspace.home_memory_left_out.as_ref()?;
    Some(match &h.why {
        LeftOut::Unreadable(said) => format!("{} is not counted here: {said}", h.file),
        LeftOut::NotAsked => format!(
            "{} is not counted here: the agent sends it with every request (your user-level memory); `--user-memory` counts it",
            h.file
        ),
    })
}

/// The line saying that the agent's newest session in this folder ran
/// another release than the one whose own parts are counted: the report's
/// warning, word for word, with where it was read.
pub fn other_release(ins: &Assembled) -> Option<String> {
    use crate::workspace::diag::About;
    let d = ins
        .workspace
        .diagnostics
        .iter()
        .find(|d| d.about == Some(About::OtherRelease))?;
    Some(format!("{} (read from {})", d.message, d.location()))
}

/// What the Memory files category holds beyond its files: the agent's
/// words around them (None when nothing), with how many of them are its
/// headings before the files (`headings`), which the report counts in
/// each file's row: so the report's row, this list and the category join.
fn around(rows: &[Row], files: &[Item], headings: u64) -> Option<Item> {
    let total = rows
        .iter()
        .find(|r| r.name == Category::MemoryFiles.label())?
        .tokens;
    let files: u64 = files.iter().map(|i| i.tokens).sum();
    let name = match headings {
        0 => "(the agent's own words around the files: no file)".to_string(),
        n => format!(
            "(the agent's own words around the files: no file; {} of them headings, in the report's rows)",
            thousands(n)
        ),
    };
    (total > files).then(|| Item {
        source: "Built-in".into(),
        name,
        tokens: total - files,
    })
}

/// The tokens of the agent's headings before its memory files (each
/// counted in its file's row of the report, not in the file's here).
fn memory_headings(ins: &Assembled) -> u64 {
    ins.assembly
        .fragments
        .iter()
        .filter(|f| f.kept_tokens > 0 && category_of(f) == Category::MemoryFiles)
        .map(|f| f.heading_tokens)
        .sum()
}

/// The memory files of subfolders (`nested.*`), by their path, each with
/// its block's tokens.
fn on_demand(ins: &Assembled) -> Vec<Item> {
    let root = ins.workspace.root.display().to_string();
    ins.assembly
        .fragments
        .iter()
        .filter(|f| f.is_nested_memory())
        .map(|f| Item {
            source: if f.source.starts_with('~') {
                "User".to_string()
            } else if f.source.contains("CLAUDE.local") {
                "Local".to_string()
            } else {
                "Project".to_string()
            },
            // A user's file by its home path; the folder's by its own.
            name: if f.source.starts_with('~') {
                f.source.clone()
            } else {
                format!("{root}/{}", f.source)
            },
            tokens: f.tokens,
        })
        .collect()
}

/// Adds to a row (by name), or appends it.
fn add_row(rows: &mut Vec<Row>, name: &str, tokens: u64, in_use: bool) {
    match rows.iter_mut().find(|r| r.name == name) {
        Some(r) => r.tokens += tokens,
        None => rows.push(Row {
            name: name.to_string(),
            tokens,
            in_use,
        }),
    }
}

/// A block's tokens by category: each fragment's own count, capped so the
/// parts add up to the block's exact count; the rest to the block's own
/// category. A block the agent's text shares with the user's files splits
/// as the report's layer does (its `used` the files and the words around
/// them, its `agent_own` the agent's text), one truth for both views;
/// elsewhere each joined agent text is counted alone.
fn split_block(
    b: &BlockResult,
    (layers, fragments): (&[LayerResult], &[FragmentResult]),
    counter: &TokenCounter,
    enc: crate::assembly::tokens::Encoding,
) -> Vec<(Category, u64)> {
    let own = match b.layer {
        0 | 1 => Category::SystemPrompt,
        _ => Category::MemoryFiles,
    };
    let shared = layers
        .iter()
        .find(|l| l.layer == b.layer && l.agent_own > 0 && b.layer > 1);
    let mut out: Vec<(Category, u64)> = Vec::new();
    let (mut left, mut users) = (b.tokens, 0);
    for s in &b.spans {
        // Its category, its tokens, and whether it is the user's file.
        let (c, n, user) = match fragments.iter().find(|f| f.id == s.id) {
            Some(f) => (category_of(f), f.kept_tokens, !f.is_agents_own()),
            None if shared.is_none() && s.id.starts_with('(') && s.id.contains(": ") => (
                Category::SystemPrompt,
                counter.count(enc, &b.text[s.start..s.end]),
                false,
            ),
            None => continue,
        };
        let n = n.min(left);
        left -= n;
        if user {
            users += n;
        }
        out.push((c, n));
    }
    if let Some(l) = shared {
        let around = l.used.saturating_sub(users).min(left);
        out.push((own, around));
        left -= around;
        out.push((Category::SystemPrompt, left));
    } else {
        out.push((own, left));
    }
    out
}

/// A fragment's `/context` category: the agent's own by its recording; a
/// workspace's subagent or skill entry (and the listing's own lines) as
/// such; a profile's headings as the agent's words; every other file a
/// memory file.
fn category_of(f: &FragmentResult) -> Category {
    if let Some(c) = f.builtin {
        return c;
    }
    if f.id.starts_with("agent.") || f.id.starts_with("skill.") || f.id.starts_with("skills.") {
        return listing::own_category(&f.id);
    }
    if f.source == "profile" {
        return Category::SystemPrompt;
    }
    Category::MemoryFiles
}

/// The Messages row's words when no session is recorded: the stand-in
/// first message every count of a first request carries.
fn messages_note(s: &crate::workspace::session::Session, tokens: u64) -> Option<String> {
    (s.requests.is_empty() && tokens > 0).then(|| {
        let stand_in = s.conversation(0);
        let text = stand_in
            .first()
            .and_then(|m| m.content.first())
            .map(|b| b.counted_text())
            .unwrap_or_default();
        format!(
            "Messages: {} of a stand-in first message (\"{}\"): no session is recorded here",
            crate::text::plural(tokens, "token"),
            crate::text::clean(&text, 40)
        )
    })
}

/// The session's messages as its last request sends them.
fn message_tokens(
    s: &crate::workspace::session::Session,
    enc: crate::assembly::tokens::Encoding,
    counter: &TokenCounter,
) -> u64 {
    s.conversation(s.messages.len())
        .iter()
        .flat_map(|m| m.content.iter())
        .map(|b| counter.count(enc, &b.counted_text()))
        .sum()
}

/// The memory files, subagents and skills, each with its tokens (a memory
/// file's own text, as the agent counts it for its `/context`: the heading
/// it writes before the file is its own words, counted apart).
fn items(ins: &Assembled) -> (Vec<Item>, Vec<Item>, Vec<Item>) {
    let a = &ins.assembly;
    let root = ins.workspace.root.display().to_string();
    let (mut memory, mut agents, mut skills) = (Vec::new(), Vec::new(), Vec::new());
    for f in a.fragments.iter().filter(|f| f.kept_tokens > 0) {
        let name = |prefix: &str| f.id.strip_prefix(prefix).unwrap_or(&f.id).to_string();
        // The agent's own words (its parts, its profile's frame around the
        // skills) are Built-in, not the project's.
        let source = if f.is_agents_own() {
            "Built-in".to_string()
        } else if f.source.contains("CLAUDE.local") {
            "Local".to_string()
        } else if f.source.starts_with("~/") {
            "User".to_string()
        } else {
            "Project".to_string()
        };
        let tokens = f.kept_tokens;
        match category_of(f) {
            Category::Skills => skills.push(Item {
                source,
                name: name("skill."),
                tokens,
            }),
            Category::CustomAgents => agents.push(Item {
                source,
                name: name("agent."),
                tokens,
            }),
            Category::MemoryFiles if a.agent.is_some() => {
                let path = if f.source.starts_with("~/") || f.source.starts_with('/') {
                    f.source.clone()
                } else {
                    format!("{root}/{}", f.source)
                };
                let own = f.file_tokens().unwrap_or(tokens);
                // A file sent in pieces (Gemini's GEMINI.md around the
                // files it imports) is one row.
                match memory.iter_mut().find(|m: &&mut Item| m.name == path) {
                    Some(m) => m.tokens += own,
                    None => memory.push(Item {
                        source,
                        name: path,
                        tokens: own,
                    }),
                }
            }
            _ => {}
        }
    }
    (memory, agents, skills)
}
