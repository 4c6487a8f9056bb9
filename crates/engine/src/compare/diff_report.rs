//! The views of a diff: the change lines every view shows, and the text,
//! Markdown and JSON renderings (a unified diff with fragment headers).

use super::diff::{ChangeKind, Diff, DiffLine};

/// What changed, one line each (tokens, fragments, layers, where the cached
/// prefix diverges); the window shows the same lines.
pub fn change_lines(d: &Diff, md: bool) -> Vec<String> {
    let code = |s: &str| if md { format!("`{s}`") } else { s.to_string() };
    let th = crate::text::thousands;
    let signed = |n: i64| {
        format!(
            "{}{}",
            if n < 0 { "-" } else { "+" },
            crate::text::thousands(n.unsigned_abs())
        )
    };
    let mut o = vec![format!(
        "tokens: {} → {} ({}){}",
        th(d.total_before),
        th(d.total_after),
        signed(d.total_after as i64 - d.total_before as i64),
        // A recorded request's total has its tools; an assembly's does not.
        if d.recorded || d.tools_before == d.tools_after {
            String::new()
        } else {
            format!(
                " · tool definitions: {} → {} ({})",
                th(d.tools_before),
                th(d.tools_after),
                signed(d.tools_after as i64 - d.tools_before as i64)
            )
        }
    )];
    for t in &d.tool_changes {
        o.push(format!("{}{t}", if md { "- " } else { "  " }));
    }
    for f in &d.fragments {
        o.push(format!(
            "{}{} {}{}: {}, {} → {} tokens ({}){}",
            if md { "- " } else { "  " },
            if d.recorded { "part" } else { "fragment" },
            code(&f.id),
            if d.recorded {
                String::new()
            } else {
                format!(" (layer {})", f.layer)
            },
            f.describe(),
            th(f.before_tokens),
            th(f.after_tokens),
            signed(f.after_tokens as i64 - f.before_tokens as i64),
            if f.text_changed && f.kind == ChangeKind::StatusChanged {
                ", text changed"
            } else {
                ""
            }
        ));
    }
    let deltas = layer_deltas(d);
    if !deltas.is_empty() && !d.recorded {
        o.push(format!("layers: {}", deltas.join(" · ")));
    }
    o.push(match &d.divergence {
        Some(v) => format!(
            "cache: the shared prefix first diverges in {}{} at character {}: “{}{}” → “{}{}”",
            v.position,
            v.fragment
                .as_ref()
                .filter(|f| **f != v.position)
                .map(|f| format!(", fragment {}", code(f)))
                .unwrap_or_default(),
            crate::thousands(v.offset),
            v.lead,
            v.before,
            v.lead,
            v.after
        ),
        None if d.appended > 0 => format!(
            "cache: the shared prefix is unchanged; {} adds {} after it",
            d.b,
            crate::plural(d.appended, if d.recorded { "part" } else { "block" })
        ),
        None => "cache: the system prefix is unchanged".into(),
    });
    o
}

/// How many tokens the first request would rewrite.
pub fn rewrite_line(d: &Diff) -> String {
    let base = cache_line(d);
    match &d.resume {
        Some(r) => format!(
            "{base}; a session that goes on ({}) keeps its first message as it was, so that prefix is still read, and sends {} again {} ({} of their text)",
            r.agent,
            r.files.join(", "),
            r.how,
            crate::plural(r.tokens, "token")
        ),
        None => base,
    }
}

/// What B's first request would write again, or why nothing is said.
fn cache_line(d: &Diff) -> String {
    if d.breakpoints.is_empty() {
        return if d.divergence.is_some() {
            format!(
                "no cache breakpoints in {}: with automatic prefix caching (OpenAI, Gemini, llama.cpp) what follows the first difference is not read from the cache",
                d.b
            )
        } else {
            format!("no cache breakpoints in {}", d.b)
        };
    }
    if let Some(c) = &d.cause {
        return c.clone();
    }
    if d.recorded {
        // Counted here, with the model's encoding: the provider's own
        // figures for the request are its row's.
        let here = if d.rewrite_tokens > 0 {
            " (counted here; the provider's own figures are in the request's row)"
        } else {
            ""
        };
        return format!(
            "{} of what {} had cached {} written again by {}{here}",
            crate::plural(d.rewrite_tokens, "token"),
            d.a,
            if d.rewrite_tokens == 1 { "was" } else { "were" },
            d.b
        );
    }
    format!(
        "{} would be written instead of read by the first request of {} (what it writes after the last breakpoint still valid, up to as much as {} had cached)",
        crate::plural(d.rewrite_tokens, "token"),
        d.b,
        d.a
    )
}

fn summary(d: &Diff, md: bool) -> String {
    if d.identical {
        return format!("{} and {} assemble to the same prompt.\n", d.a, d.b);
    }
    let mut o: String = change_lines(d, md).into_iter().map(|l| l + "\n").collect();
    for b in &d.breakpoints {
        o += &format!(
            "{}breakpoint {} at {}, {}: {}\n",
            if md { "- " } else { "  " },
            b.index,
            b.name,
            crate::plural(b.prefix_tokens, "token"),
            b.state()
        );
    }
    o += &rewrite_line(d);
    o.push('\n');
    o
}

/// Readable unified diff with fragment headers.
pub fn to_text(d: &Diff) -> String {
    let mut o = format!("--- {}\n+++ {}\n", d.a, d.b);
    o += &summary(d, false);
    o += &hunks(d);
    o
}

fn hunks(d: &Diff) -> String {
    let mut o = String::new();
    let changed: Vec<usize> = d
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.tag != ' ')
        .map(|(i, _)| i)
        .collect();
    let mut last_frag: Option<Option<String>> = None;
    let mut last_i: Option<usize> = None;
    for &i in &changed {
        let lo = i.saturating_sub(2);
        let start = match last_i {
            Some(p) if p + 3 >= lo => p + 1,
            _ => lo,
        };
        for j in start..=i.min(d.lines.len() - 1) {
            let l = &d.lines[j];
            // A recorded request's positions are named by the hunk headers.
            if d.recorded && l.fragment.is_none() && l.text.starts_with("=== ") {
                continue;
            }
            let frag = line_fragment(&d.lines, j);
            if last_frag.as_ref() != Some(&frag) || last_i.is_none_or(|p| j > p + 1) {
                // A block's header line names itself: no hunk header.
                if let Some(f) = &frag {
                    o += &format!("@@ {f} @@\n");
                }
                last_frag = Some(frag);
            }
            o += &format!("{}{}\n", l.tag, l.text);
            last_i = Some(j);
        }
    }
    o
}

/// The fragment line `j` is shown under, in every view of the diff: its
/// own; for a blank separator line (no fragment), an added or removed one
/// joins the fragment added or removed right after it (inserting a
/// fragment adds the join before it, not a line to the fragment before),
/// an unchanged one, or one changed alone, the nearest fragment above it
/// in its block (a recorded request's `=== ` header starts another).
pub fn line_fragment(lines: &[DiffLine], j: usize) -> Option<String> {
    let l = &lines[j];
    if l.fragment.is_some() || !l.text.is_empty() {
        return l.fragment.clone();
    }
    if l.tag != ' '
        && let Some(next) = lines.get(j + 1)
        && next.tag == l.tag
        && next.fragment.is_some()
    {
        return next.fragment.clone();
    }
    lines[..j]
        .iter()
        .rev()
        .take_while(|p| !(p.fragment.is_none() && p.text.starts_with("=== ")))
        .find_map(|p| p.fragment.clone())
}

/// Fit for a pull-request comment.
pub fn to_markdown(d: &Diff) -> String {
    let mut o = format!("### Prompt diff: `{}` → `{}`\n\n", d.a, d.b);
    o += &summary(d, true);
    if !d.identical {
        o += "\n```diff\n";
        o += &hunks(d);
        o += "```\n";
    }
    o
}

/// `diff --format json` and `traffic --diff --format json` (schema 1).
pub fn to_json(d: &Diff) -> serde_json::Value {
    let mut v = serde_json::to_value(d).unwrap_or_default();
    v["schema"] = serde_json::json!(1);
    v
}

/// Each layer's change (`layer 3 +5`), and beside it its changed fragments'
/// sum when that is another figure.
fn layer_deltas(d: &Diff) -> Vec<String> {
    d
        .layers
        .iter()
        .filter(|l| l.delta != 0)
        .map(|l| {
            // The layer's figure is its block's cost; its changed
            // fragments, counted apart, may sum to another (the joins
            // between texts cost tokens too): both said, so the sums read.
            let parts: i64 = d
                .fragments
                .iter()
                .filter(|f| f.layer == l.layer)
                .map(|f| f.after_tokens as i64 - f.before_tokens as i64)
                .sum();
            if parts == l.delta {
                format!("layer {} {}", l.layer, crate::text::signed(l.delta))
            } else {
                format!(
                    "layer {} {} (its block as sent; its fragments above add up to {}, the separators between them making the difference)",
                    l.layer,
                    crate::text::signed(l.delta),
                    crate::text::signed(parts)
                )
            }
        })
        .collect()
}
