//! The `context` views of a [`ContextUsage`]: the text table with a row
//! per file, the Markdown table, the JSON (with its schema number).

use crate::assembly::context::{ContextUsage, group_note};
use crate::text::thousands;

/// A group's title with its note, as the text and Markdown views write it.
fn group_title(title: &str) -> String {
    match group_note(title) {
        Some(n) => format!("{title} ({n})"),
        None => title.to_string(),
    }
}

fn share(n: u64, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of.max(1) as f64)
}

/// The text view: `/context`'s table, then the rows per file.
pub fn to_text(u: &ContextUsage) -> String {
    let mut o = format!(
        "Context usage: {} ({}), {} of {} tokens in use ({}{}){}\n\n",
        u.model,
        u.agent
            .as_deref()
            .map_or("this workspace".to_string(), |a| format!(
                "the agent's own parts included: {a}"
            )),
        thousands(u.used),
        thousands(u.window),
        share(u.used, u.window),
        u.window_of
            .as_deref()
            .map_or(String::new(), |w| format!("; {w}")),
        if u.estimate {
            "; an estimate: this model's tokenizer is not public, counted with o200k_base"
        } else {
            ""
        }
    );
    for n in u.other_release.iter().chain(&u.home_memory_not_counted) {
        o += &format!("{n}\n\n");
    }
    o += &format!("  {:<28} {:>10} {:>7}\n", "Category", "Tokens", "Share");
    for r in &u.rows {
        let note = if r.in_use || r.name == "Free space" {
            ""
        } else {
            "  (not in use)"
        };
        o += &format!(
            "  {:<28} {:>10} {:>7}{note}\n",
            r.name,
            thousands(r.tokens),
            share(r.tokens, u.window)
        );
    }
    if let Some(n) = &u.messages_note {
        o += &format!("  ({n})\n");
    }
    // One width for every group's names, the longest's (a long path no
    // longer pushes its figure out of the column), at most NAME_MAX.
    const NAME_MIN: usize = 52;
    const NAME_MAX: usize = 100;
    let groups = u.item_groups();
    let w = groups
        .iter()
        .flat_map(|(_, items, beyond)| items.iter().chain(*beyond))
        .map(|i| i.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(NAME_MIN, NAME_MAX);
    for (title, items, beyond) in groups {
        if items.is_empty() {
            continue;
        }
        o += &format!("\n{}\n", group_title(title));
        for i in items.iter().chain(beyond) {
            o += &format!(
                "  {:<10} {:<w$} {:>8}\n",
                i.source,
                // A name cut keeps room for its ellipsis.
                crate::clean(&i.name, if i.name.chars().count() > w { w - 1 } else { w }),
                thousands(i.tokens)
            );
        }
    }
    o
}

/// The Markdown view: the same figures as [`to_text`], as tables.
pub fn to_markdown(u: &ContextUsage) -> String {
    use crate::text::md_cell;
    let mut o = format!(
        "## Context usage: {}\n\n{} of {} tokens in use ({}{}), {}.{}{}\n\n| Category | Tokens | Share |\n|---|---:|---:|\n",
        md_cell(&u.model),
        thousands(u.used),
        thousands(u.window),
        share(u.used, u.window),
        u.window_of
            .as_deref()
            .map_or(String::new(), |w| format!("; {}", md_cell(w))),
        u.agent
            .as_deref()
            .map_or("this workspace".to_string(), |a| format!(
                "the agent's own parts included: {}",
                md_cell(a)
            )),
        if u.estimate {
            " An estimate: this model's tokenizer is not public, counted with o200k_base."
        } else {
            ""
        },
        u.other_release
            .iter()
            .chain(&u.home_memory_not_counted)
            .map(|n| format!("\n\n**{}.**", md_cell(n)))
            .collect::<String>()
    );
    for r in &u.rows {
        let note = if r.in_use || r.name == "Free space" {
            ""
        } else {
            " (not in use)"
        };
        o += &format!(
            "| {}{note} | {} | {} |\n",
            md_cell(&r.name),
            thousands(r.tokens),
            share(r.tokens, u.window)
        );
    }
    if let Some(n) = &u.messages_note {
        o += &format!("\n{}.\n", md_cell(n));
    }
    for (title, items, beyond) in u.item_groups() {
        if items.is_empty() {
            continue;
        }
        o += &format!(
            "\n### {}\n\n| Source | Name | Tokens |\n|---|---|---:|\n",
            md_cell(&group_title(title))
        );
        for i in items.iter().chain(beyond) {
            o += &format!(
                "| {} | {} | {} |\n",
                md_cell(&i.source),
                md_cell(&i.name),
                thousands(i.tokens)
            );
        }
    }
    o
}

pub fn to_json(u: &ContextUsage) -> serde_json::Value {
    let mut v = serde_json::to_value(u).unwrap_or_default();
    v["schema"] = serde_json::json!(1);
    v
}
