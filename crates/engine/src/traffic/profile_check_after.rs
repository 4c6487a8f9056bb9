//! A file as the agent read it, when that is not the file as it is now:
//! changed after the request (what the profile renders is today's text),
//! or lines the agent sent right after it that the profile's rendering
//! does not hold (the file as the agent read it had them, or the agent
//! added them), found where the rendering goes on with the same text as
//! the request.

use std::collections::HashSet;

use crate::traffic::attribution::{FileInRequest, Sent};

/// A file changed since the request: what the profile renders (today's
/// text) and what the agent sent (the text before).
pub(super) fn changed_since(a: &FileInRequest) -> (String, String) {
    let (m, at) = a.changed_since.unwrap_or_default();
    (
        format!(
            "today's text (modified {}, after the request of {})",
            crate::traffic::format_rfc3339(m),
            crate::traffic::format_rfc3339(at)
        ),
        if a.missing.is_empty() {
            format!(
                "the text before the change; it held too: {}",
                a.between.join(" | ")
            )
        } else {
            format!(
                "the text before the change; not in it: {}",
                crate::text::lines(&a.missing)
            )
        },
    )
}

/// Most lines of the request looked at after a file.
const LOOK_AHEAD: usize = 20;

/// A line with its white space collapsed and each absolute path in it
/// cut to its file's name (a heading names the folder the agent ran in,
/// the rendering the folder opened).
pub(super) fn norm(line: &str) -> String {
    line.split_whitespace()
        .map(|w| match w.rsplit_once('/') {
            Some((dir, name)) if (w.starts_with('/') || w.starts_with("~/")) && !dir.is_empty() => {
                format!(".../{name}")
            }
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text of the part after a file's last span of its lines.
fn after<'t>(f: &FileInRequest, texts: &'t [(String, String)]) -> Option<&'t str> {
    let s = f.spans.iter().rfind(|s| !s.listed)?;
    let text = &texts.iter().find(|(l, _)| *l == s.part)?.1;
    let at = text
        .char_indices()
        .nth(s.end)
        .map_or(text.len(), |(b, _)| b);
    Some(&text[at..])
}

/// The difference of the lines the agent sent right after file `a` where
/// the profile's rendering (`p`) goes straight on ([`lines_after`]), if
/// any.
pub(super) fn sent_after(
    p: &FileInRequest,
    a: &FileInRequest,
    texts: (&super::Texts, &super::Texts),
    file_lines: &HashSet<String>,
) -> Option<super::Difference> {
    let extra = lines_after(p, a, texts, file_lines);
    (!extra.is_empty()).then(|| super::Difference {
        point: super::Point::SentAfter,
        file: Some(p.path.clone()),
        profile: "nothing more after it".into(),
        agent: format!(
            "after it, from no file today: {} (the file as the agent read it, or its own text)",
            extra.join(" | ")
        ),
    })
}

/// The request's lines right after file `a` before the first line that
/// follows the file in the profile's rendering (`p`), none of them
/// anywhere in the rendering nor a line of the workspace's files
/// (`file_lines`, as [`norm`] writes them). None when the rendering's next
/// line is not found a few lines on: nothing is said that cannot be
/// placed.
fn lines_after(
    p: &FileInRequest,
    a: &FileInRequest,
    (ptexts, atexts): (&super::Texts, &super::Texts),
    file_lines: &HashSet<String>,
) -> Vec<String> {
    let whole = |f: &FileInRequest| {
        f.sent == Sent::Whole || (f.sent == Sent::Changed && f.missing.is_empty())
    };
    if p.sent != Sent::Whole || !whole(a) {
        return Vec::new();
    }
    let (Some(pa), Some(aa)) = (after(p, ptexts), after(a, atexts)) else {
        return Vec::new();
    };
    let Some(next) = pa.lines().map(norm).find(|l| !l.is_empty()) else {
        return Vec::new();
    };
    let lines: Vec<String> = aa
        .lines()
        .map(norm)
        .filter(|l| !l.is_empty())
        .take(LOOK_AHEAD)
        .collect();
    let Some(k) = lines.iter().position(|l| *l == next) else {
        return Vec::new();
    };
    let rendered: HashSet<String> = ptexts
        .iter()
        .flat_map(|(_, t)| t.lines().map(norm))
        .collect();
    lines[..k]
        .iter()
        .filter(|l| !rendered.contains(*l) && !file_lines.contains(*l))
        .map(|l| crate::clean(l, 200))
        .collect()
}
