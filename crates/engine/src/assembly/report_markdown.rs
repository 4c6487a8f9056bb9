//! The assembly report in Markdown: the layers (a workspace's budgets, or
//! an agent folder's files beside the agent's own text), the fragments and
//! the diagnostics, with the figures of the text report.

use super::{layer_cache, layer_name};
use crate::assembly::assemble::Assembly;
use crate::assembly::assembled::Assembled;
use crate::text::clip;
use crate::workspace::diag::Severity;

pub fn to_markdown(ins: &Assembled) -> String {
    let a = &ins.assembly;
    let mut o = format!(
        "## Prompt assembly — session `{}`, model `{}` ({}{})\n\n",
        a.session,
        a.model,
        a.tokenizer.as_str(),
        if a.estimate { ", estimate" } else { "" }
    );
    if ins.workspace.profile.agent.is_real_agent() {
        o += &agent_layers_markdown(a, ins.prepared.model.provider);
    } else {
        o += &layers_markdown(a);
    }
    o += "\n| status | fragment | layer | priority | source | tokens | kept | reason |\n|---|---|---:|---:|---|---:|---:|---|\n";

    for f in &a.fragments {
        o += &format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |\n",
            f.status.as_str(),
            f.id,
            f.layer,
            f.priority,
            crate::md_cell(&f.source),
            crate::thousands(f.tokens),
            crate::thousands(f.kept_tokens),
            // The split is the report's own words (its `context` is code).
            match f.heading_split() {
                Some(split) if f.reason.is_empty() => split,
                Some(split) => format!("{}; {split}", crate::md_cell(&f.reason)),
                None => crate::md_cell(&f.reason),
            }
        );
    }
    o += &format!(
        "\n**Total:** {} tokens in {} blocks, {} tokens of tools.\n",
        crate::thousands(a.total_tokens),
        a.blocks.len(),
        crate::thousands(a.tools_tokens)
    );
    let diags = ins.diagnostics();
    if !diags.is_empty() {
        o += "\n### Diagnostics\n\n";
        for d in diags {
            let severity = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            o += &format!("- **{severity}** `{}` {}\n", d.location(), d.message);
        }
    }
    o
}

/// The layers of a workspace's Markdown report: budgets, inflow, used.
fn layers_markdown(a: &Assembly) -> String {
    let n = crate::thousands;
    let mut o = String::from(
        "| layer | budget | inflow | used | available | overflow | cache |\n|---|---:|---:|---:|---:|---:|---|\n",
    );
    for l in &a.layers {
        o += &format!(
            "| {} {} | {} | {} | {} | {} | {} | {} |\n",
            l.layer,
            crate::md_cell(&clip(&layer_name(l, false), 13)),
            n(l.budget),
            n(l.inflow),
            n(l.used),
            n(l.available),
            n(l.overflow),
            if l.cache { l.ttl.as_str() } else { "—" }
        );
    }
    o
}

/// An agent folder's layers in Markdown: no layer budgets (the agent's own
/// caps decide), each layer that sends something, its files' tokens and
/// the agent's own in the same block, as the text report says them.
fn agent_layers_markdown(a: &Assembly, rules: crate::assembly::models::Provider) -> String {
    let n = crate::thousands;
    let mut o = String::from(
        "No layer budgets: the agent's own caps decide what is sent.\n\n| layer | your files | the agent's own in the block | as sent | where, cached |\n|---|---:|---:|---:|---|\n",
    );
    for l in a.layers.iter().filter(|l| l.used + l.agent_own > 0) {
        o += &format!(
            "| {} {} | {} | {} | {} | {} |\n",
            l.layer,
            crate::md_cell(&layer_name(l, true)),
            n(l.used),
            n(l.agent_own),
            n(l.used + l.agent_own),
            crate::md_cell(&layer_cache(l, rules))
        );
    }
    o
}
