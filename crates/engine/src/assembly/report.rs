//! The assembly report: JSON (stable field names), text (a `/context`-style
//! listing) and Markdown.

use crate::assembly::models::Provider;
use serde_json::{Value, json};

use crate::assembly::assemble::{Assembly, BlockResult, LayerResult, Status};
use crate::assembly::assembled::Assembled;
use crate::text::{clip, wrapped};
use crate::workspace::diag::{Diagnostic, Severity};
use crate::workspace::settings::Placement;

#[path = "report_markdown.rs"]
mod markdown;
pub use markdown::to_markdown;

pub fn to_json(ins: &Assembled) -> Value {
    let a = &ins.assembly;
    let m = &ins.prepared.model;
    json!({
        "schema": 2,
        "workspace": ins.workspace.root.to_string_lossy(),
        "profile": {"name": ins.workspace.profile.name, "version": ins.workspace.profile.version,
            "id": ins.workspace.profile.id(), "why": ins.workspace.profile.why},
        "session": a.session,
        "tokenizer": a.tokenizer.as_str(),
        "model": a.model,
        "estimate": a.estimate,
        "context_window": m.context_window,
        "budget": {
            "total": a.budget.total,
            "layer1": a.budget.layer1,
            "layer2": a.budget.layer2,
            "layer3_ratio": a.budget.layer3_ratio,
        },
        "layers": a.layers.iter().map(|l| layer_json(ins, l)).collect::<Vec<_>>(),
        "fragments": a.fragments.iter().map(|f| {
            let mut v = json!({
                "id": f.id, "layer": f.layer, "priority": f.priority, "source": f.source,
                "line": f.line, "tokens": f.tokens, "kept_tokens": f.kept_tokens,
                "status": f.status.as_str(), "reason": f.reason,
                "chars_before": f.chars.map(|c| c.0), "chars_after": f.chars.map(|c| c.1),
            });
            // Under the agent's heading: kept = file + heading.
            if let Some(own) = f.file_tokens() {
                v["file_tokens"] = json!(own);
                v["heading_tokens"] = json!(f.heading_tokens);
            }
            v
        }).collect::<Vec<_>>(),
        "blocks": a.blocks.iter().map(|b| {
            let mut v = json!({
                "layer": b.layer, "tokens": b.tokens, "cache_control": b.cache_control,
                "ttl": b.ttl.as_str(), "placement": b.placement.words(), "text": b.text,
            });
            // The agent's own blocks (layer 0) say what they are.
            if b.layer == 0 {
                v["from_agent"] = json!(b.label);
            }
            v
        }).collect::<Vec<_>>(),
        "tools": a.tools.iter().map(|t| t["name"].clone()).collect::<Vec<_>>(),
        "tools_tokens": a.tools_tokens,
        "agent": a.agent.as_ref().map(|name| json!({
            "source": name,
            "tools": a.agent_tools,
            "blocks_tokens": a.blocks.iter().filter(|b| b.layer == 0).map(|b| b.tokens).sum::<u64>(),
            "fragments": a.fragments.iter().filter(|f| f.builtin.is_some()).map(|f| f.id.clone()).collect::<Vec<_>>(),
            "deferred_tools": a.deferred_tools.iter().map(|(n, t)| json!({"name": n, "tokens": t})).collect::<Vec<_>>(),
        })),
        "diagnostics": ins.diagnostics().iter().map(diag_json).collect::<Vec<_>>(),
        "counts": status_counts(a).iter().map(|(s, n)| (s.as_str().to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "total_tokens": a.total_tokens,
        "calibration": ins.calibration().map(|r| json!({
            "ratio": r,
            "calibrated_total_tokens": (a.total_tokens as f64 * r).round() as u64,
        })),
    })
}

/// One layer in the report's JSON.
fn layer_json(ins: &Assembled, l: &LayerResult) -> Value {
    // `name`: what the text report calls it; `cache`: a breakpoint
    // of its own (a first user message has none, as the text says).
    let mut v = json!({
        "layer": l.layer,
        "name": layer_name(l, ins.workspace.profile.agent.is_real_agent()),
        "title": l.title, "budget": l.budget, "inflow": l.inflow,
        "available": l.available, "used": l.used, "overflow": l.overflow,
        "cache": l.cache && l.placement.cacheable(), "ttl": l.ttl.as_str(),
        "placement": l.placement.words(),
    });
    // With DEBUG markers: the tokens they add to `used`.
    if ins.assembly.debug_markers {
        v["markers"] = json!(l.markers);
    }
    // The agent's own text in the same block: used + agent_own is
    // the block as sent.
    if l.agent_own > 0 {
        v["agent_own"] = json!(l.agent_own);
    }
    v
}

pub fn diag_json(d: &Diagnostic) -> Value {
    json!({
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "file": d.file, "line": d.line, "fragment": d.fragment, "message": d.message,
    })
}

pub fn status_counts(a: &Assembly) -> Vec<(Status, usize)> {
    Status::ALL
        .iter()
        .map(|s| (*s, a.fragments.iter().filter(|f| f.status == *s).count()))
        .collect()
}

/// What a layer is called: for an agent profile the first line of its
/// section's title, else the layered design's name.
pub fn layer_name(l: &LayerResult, agent: bool) -> String {
    if agent && let Some(n) = &l.name {
        return n.clone();
    }
    if agent
        && let Some(t) = &l.title
        && let Some(first) = t.lines().next()
    {
        let name = first.trim_start_matches('#').trim();
        if !name.is_empty() {
            return name.to_string();
        }
    }
    match l.layer {
        1 => "identity",
        2 => "safety",
        3 => "capabilities",
        _ => "dynamic",
    }
    .to_string()
}

pub fn to_text(ins: &Assembled) -> String {
    let a = &ins.assembly;
    let mut o = String::new();
    let est = if a.estimate { ", estimate" } else { "" };
    let from = ins
        .model_source
        .as_deref()
        .map_or(String::new(), |s| format!(", set in {s}"));
    o += &format!(
        "{}  session: {}  model: {} ({}{est}{from})\n",
        ins.workspace.root.display(),
        a.session,
        a.model,
        a.tokenizer.as_str()
    );
    o += &format!(
        "profile: {} ({})\n",
        ins.workspace.profile.id(),
        ins.workspace.profile.why
    );
    let agent = ins.workspace.profile.agent.is_real_agent();
    let rules = ins.prepared.model.provider;
    if agent {
        // An agent's folder has no layer budgets: the agent sends its
        // files within its own caps; the layers are where they go.
        let whose = ins
            .agents_window()
            .map_or(String::new(), |w| format!(": {w}"));
        o += &format!(
            "budget: the agent's own caps, not layer budgets ({} of room in the model's window{whose})\n",
            crate::plural(a.budget.total, "token")
        );
    } else {
        let lb = crate::assembly::assemble::layer_budgets(&a.budget);
        o += &format!(
            "budget {} tokens: layer 1 {} · layer 2 {} · layer 3 {} · layer 4 {} (layer3_ratio {})\n",
            crate::thousands(a.budget.total),
            crate::thousands(lb[0]),
            crate::thousands(lb[1]),
            crate::thousands(lb[2]),
            crate::thousands(lb[3]),
            a.budget.layer3_ratio
        );
    }
    for l in &a.layers {
        o += &layer_text(ins, l, rules);
    }
    let counts: Vec<String> = status_counts(a)
        .iter()
        .map(|(s, n)| format!("{n} {}", s.as_str()))
        .collect();
    o += &agent_parts(a);
    o += &format!(
        "\nprompt: {}, plus {} tokens of tool definitions ({})\nfragments: {}\n",
        blocks_phrase(a),
        crate::thousands(a.tools_tokens),
        crate::plural(a.tools.len(), "tool"),
        counts.join(" · ")
    );
    o += &memory_files(ins);
    let diags = ins.diagnostics();
    if !diags.is_empty() {
        o += &format!("\ndiagnostics ({}):\n", diags.len());
        for d in diags {
            o += &format!("  {d}\n");
        }
    }
    o
}

/// One layer of [`to_text`]: its line (an agent's folder: its tokens
/// where its files go; else its bar against its budget), then a line per
/// fragment in it.
fn layer_text(ins: &Assembled, l: &LayerResult, rules: Provider) -> String {
    let a = &ins.assembly;
    let agent = ins.workspace.profile.agent.is_real_agent();
    let mut o = String::new();
    let (cache, over) = (layer_cache(l, rules), layer_notes(a, l));
    let has = a.fragments.iter().any(|f| f.layer == l.layer);
    if agent {
        // Only where the agent's files go.
        if has || l.used > 0 {
            o += &format!(
                "\nlayer {} {:<13} {:>6} tokens  {cache}{over}\n",
                l.layer,
                clip(&layer_name(l, true), 13),
                crate::thousands(l.used - l.markers)
            );
        }
    } else {
        o += &format!(
            "\nlayer {} {:<13} {} {:>7} / {:<7} (budget {}, inflow {})  {cache}{over}\n",
            l.layer,
            clip(
                &layer_name(l, ins.workspace.profile.agent.is_real_agent()),
                13
            ),
            // DEBUG markers are outside the budget: counted apart.
            crate::text::bar(l.used - l.markers, l.available, 24),
            crate::thousands(l.used - l.markers),
            crate::thousands(l.available),
            crate::thousands(l.budget),
            crate::thousands(l.inflow)
        );
    }
    let (rows, agents_rows) = fragment_rows(&mut o, a, l.layer);
    // What the layer's figure holds beyond its rows: the titles and
    // separators around them (an agent's headings before each file), and
    // where two pieces' tokens join; so that the rows add up to it.
    let frame = (l.used - l.markers).saturating_sub(rows);
    if has && l.agent_own > 0 && agents_rows > 0 {
        // A block the agent's own entries share: its rows are listed too,
        // but counted in its own text (the line under the layer's).
        let around = if frame > 0 {
            format!(
                " + {} of separators and headings around them",
                crate::plural(frame, "token")
            )
        } else {
            String::new()
        };
        o += &format!(
            "  = your files' rows{around}: {} in all; the rows built in ({}) are the agent's, within its {} above\n",
            crate::thousands(l.used - l.markers),
            crate::thousands(agents_rows),
            crate::thousands(l.agent_own)
        );
    } else if has && frame > 0 {
        o += &format!(
            "  + {} of titles, headings and separators around them: {} in all\n",
            crate::plural(frame, "token"),
            crate::thousands(l.used - l.markers)
        );
    }

    o
}

/// The layer's fragment rows, each with what its kept tokens hold (a
/// file under the agent's heading: both parts); what the user's rows and
/// the agent's own rows keep.
fn fragment_rows(o: &mut String, a: &Assembly, layer: u8) -> (u64, u64) {
    let (mut rows, mut agents_rows) = (0, 0);
    for f in a.fragments.iter().filter(|f| f.layer == layer) {
        *o += &format!(
            "  {:<10} {:<28} {:>6} → {:<6} p{:<4} {:<28} {}\n",
            f.status.as_str(),
            // A file's name is the user's data: its control characters
            // shown, never sent to the terminal.
            clip(&crate::clean(&f.id, 200), 28),
            crate::thousands(f.tokens),
            crate::thousands(f.kept_tokens),
            f.priority,
            clip(&crate::clean(&f.source, 200), 28),
            crate::clean(&f.reason, 4000)
        );
        if let Some(split) = f.heading_split() {
            *o += &format!("  {:<10} {split}\n", "");
        }
        if f.is_agents_own() {
            agents_rows += f.kept_tokens;
        } else {
            rows += f.kept_tokens;
        }
    }
    (rows, agents_rows)
}

/// The blocks' tokens and where the blocks go, in one phrase (the report's
/// and the window's status bar): `2,268 tokens in 4 system blocks`, or
/// `4,145 tokens in 6 blocks (4 system, 2 in messages)` when some go in a
/// message (a first user message's, a system message after it).
pub fn blocks_phrase(a: &Assembly) -> String {
    let system = a.blocks.iter().filter(|b| b.placement.is_system()).count();
    let n = a.blocks.len();
    let tokens = crate::thousands(a.total_tokens);
    if system == n {
        format!("{tokens} tokens in {}", crate::plural(n, "system block"))
    } else {
        format!(
            "{tokens} tokens in {} ({system} system, {} in messages)",
            crate::plural(n, "block"),
            n - system
        )
    }
}

/// Where a layer's block goes and how it is cached, in words, by the
/// model's caching rules: Anthropic's breakpoints (a cached block with its
/// TTL), or a prefix cached without breakpoints (OpenAI's automatic
/// caching, Gemini's implicit caching, a local server's prefix cache),
/// where what is sent before the first change is read, wherever it is.
/// The report and the window say the same.
pub fn layer_cache(l: &LayerResult, rules: Provider) -> String {
    let prefix = match rules {
        Provider::Anthropic => None,
        Provider::Openai => Some("OpenAI's automatic caching"),
        Provider::Gemini => Some("Gemini's implicit caching"),
        Provider::Prefix => Some("the server's prefix cache"),
    };
    let place = match l.placement {
        Placement::FirstUserMessage => "in the first user message",
        Placement::SystemMessage => "a system message after the first user message",
        _ => "",
    };
    let how = match (prefix, l.placement, l.cache) {
        (Some(p), _, _) => format!("part of the prefix, read while unchanged by {p}"),
        (None, Placement::FirstUserMessage, _) => "not a cached system block".into(),
        (None, _, true) => format!("cached {}", l.ttl.as_str()),
        // Read from the cache only inside the prefix of a breakpoint after
        // it (the latest message's, the next layer's), never on its own.
        (None, _, false) => "no breakpoint of its own (cached only in a later one's prefix)".into(),
    };
    match (place.is_empty(), prefix, l.placement) {
        (true, ..) => how,
        (false, None, Placement::FirstUserMessage) => format!("{place} ({how})"),
        (false, ..) => format!("{place}, {how}"),
    }
}

/// What the layer's line adds after its figures: its overflow, its DEBUG
/// markers, the agent's own text in its block.
fn layer_notes(a: &Assembly, l: &LayerResult) -> String {
    let mut over = if l.overflow > 0 {
        format!("  OVER BY {}", crate::thousands(l.overflow))
    } else {
        String::new()
    };
    if l.markers > 0 {
        over += &format!(
            "  (+{} tokens of DEBUG markers, outside the budget)",
            crate::thousands(l.markers)
        );
    }
    if l.agent_own > 0 {
        over += &format!(
            "\n  + {} tokens of {}'s own text in the same block: {} as sent",
            crate::thousands(l.agent_own),
            a.agent.as_deref().unwrap_or("the agent"),
            crate::thousands(l.used + l.agent_own)
        );
    }
    over
}

/// The system blocks as text, each under a header line.
pub fn render_blocks(a: &Assembly) -> String {
    let mut o = String::new();
    for (i, b) in a.blocks.iter().enumerate() {
        let cache = if b.cache_control {
            format!(", cache_control {}", b.ttl.as_str())
        } else {
            String::new()
        };
        let place = if b.placement.is_system() {
            String::new()
        } else {
            format!(" · {}", b.placement.words())
        };
        let what = match (&b.label, b.layer) {
            (Some(l), 0) => format!("from {l}"),
            _ => format!("layer {}", b.layer),
        };
        o += &format!(
            "──── block {} · {what}{place} · {} tokens{cache} ────\n",
            i + 1,
            crate::thousands(b.tokens)
        );
        o += &b.text;
        o += "\n\n";
    }
    o
}

/// The agent's own parts, from its recorded release: its blocks, its
/// tools, its deferred tools (counted, not sent).
fn agent_parts(a: &Assembly) -> String {
    let Some(agent) = &a.agent else {
        return String::new();
    };
    let own: Vec<&BlockResult> = a.blocks.iter().filter(|b| b.layer == 0).collect();
    let listed = a.fragments.iter().filter(|f| f.builtin.is_some()).count();
    let mut o = format!("\nfrom {agent} (built in, not your files):\n");
    for b in &own {
        o += &format!(
            "  {:<44} {:>7} tokens  {}{}\n",
            clip(b.label.as_deref().unwrap_or(""), 44),
            crate::thousands(b.tokens),
            b.placement.words(),
            if b.cache_control {
                ", cache_control"
            } else {
                ""
            }
        );
    }
    let tools = a.agent_tools.min(a.tools.len());
    let names: Vec<&str> = a.tools[..tools]
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    o += &wrapped(&format!("  {tools} tool definitions:"), &names);
    if !a.deferred_tools.is_empty() {
        let n: u64 = a.deferred_tools.iter().map(|d| d.1).sum();
        o += &format!(
            "  {} deferred tools ({} tokens, not sent: loaded on demand)\n",
            a.deferred_tools.len(),
            crate::thousands(n)
        );
    }
    if listed > 0 {
        let mut layers: Vec<String> = a
            .fragments
            .iter()
            .filter(|f| f.builtin.is_some())
            .map(|f| f.layer.to_string())
            .collect();
        layers.sort();
        layers.dedup();
        o += &format!(
            "  {listed} built-in entries of its listing (fragments from the agent, in layer {})\n",
            layers.join(" and ")
        );
    }
    o
}

/// Why `--check` fails, or empty when the budget gate passes.
pub fn check_failures(a: &Assembly) -> Vec<String> {
    let mut out = Vec::new();
    for l in &a.layers {
        // An agent's layers have no budgets: they share the window's room.
        let room = match a.agent {
            Some(_) => "the room the model's window leaves for it",
            None => "its budget",
        };
        if l.overflow > 0 {
            out.push(format!(
                "layer {} is {} tokens over its {} available ({room})",
                l.layer,
                crate::thousands(l.overflow),
                crate::thousands(l.available)
            ));
        }
    }
    for f in &a.fragments {
        if matches!(f.status, Status::Dropped | Status::Truncated) {
            out.push(format!(
                "fragment '{}' was {}: {}",
                f.id,
                f.status.as_str(),
                f.reason
            ));
        }
    }
    out
}

/// For Claude Code, where its `/context` "Memory files" are counted: in
/// the `context` view, each file's own text without its heading (the rows
/// above count each file as sent, heading included), so not here again with
/// other figures.
fn memory_files(ins: &Assembled) -> String {
    if ins.workspace.profile.agent != crate::workspace::agent::Agent::ClaudeCode {
        return String::new();
    }
    format!(
        "\nmemory files as Claude Code's /context counts them (each file's own text, without its \"Contents of …:\" heading): prompt-inspector context {}\n",
        ins.workspace.root.display()
    )
}
