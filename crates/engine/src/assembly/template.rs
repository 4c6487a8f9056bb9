//! Template interpolation and the facts `enabled_when` sees.

use crate::workspace::Workspace;
use crate::workspace::expr::SessionFacts;
use crate::workspace::session::Session;

/// Most bytes one interpolated text may grow to (the size of the largest
/// file a workspace may hold): a template that would expand further is cut.
pub const MAX_OUTPUT_BYTES: usize = crate::workspace::MAX_FILE_BYTES as usize;

/// The result of interpolating one text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Interpolated {
    pub text: String,
    /// Variables that are not known, left verbatim.
    pub unknown: Vec<String>,
    /// Set when the output reached [`MAX_OUTPUT_BYTES`] and was cut there.
    pub cut: bool,
}

/// Replaces `{{workspaceDir}}` and `{{session.NAME}}`; unknown variables stay
/// verbatim and are returned. The output never exceeds `max_bytes`: past it,
/// the text is cut (at a character boundary) and `cut` is set.
pub fn interpolate(text: &str, root: &str, session: &Session) -> Interpolated {
    interpolate_capped(text, root, session, MAX_OUTPUT_BYTES)
}

pub fn interpolate_capped(
    text: &str,
    root: &str,
    session: &Session,
    max_bytes: usize,
) -> Interpolated {
    let mut out = String::with_capacity(text.len().min(max_bytes));
    let mut unknown = Vec::new();
    let push = |out: &mut String, s: &str| -> bool {
        let room = max_bytes.saturating_sub(out.len());
        if s.len() <= room {
            out.push_str(s);
            true
        } else {
            let mut end = room;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&s[..end]);
            false
        }
    };
    let done = |text: String, unknown: Vec<String>, cut: bool| Interpolated { text, unknown, cut };
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        if !push(&mut out, &rest[..start]) {
            return done(out, unknown, true);
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            let ok = push(&mut out, &rest[start..]);
            return done(out, unknown, !ok);
        };
        let name = after[..end].trim();
        let value = match name {
            "workspaceDir" => Some(root.to_string()),
            "session.name" => Some(session.name.clone()),
            _ => name
                .strip_prefix("session.")
                .and_then(|v| session.vars.get(v).cloned()),
        };
        let fits = match value {
            Some(v) => push(&mut out, &v),
            None => {
                if unknown.len() < 100 && !unknown.iter().any(|u| u == name) {
                    unknown.push(name.to_string());
                }
                push(&mut out, &rest[start..start + 2 + end + 2])
            }
        };
        if !fits {
            return done(out, unknown, true);
        }
        rest = &after[end + 2..];
    }
    let ok = push(&mut out, rest);
    done(out, unknown, !ok)
}

pub fn facts(ws: &Workspace, session: &Session) -> SessionFacts {
    SessionFacts {
        tools: session
            .tools
            .clone()
            .unwrap_or_else(|| ws.tool_names())
            .into_iter()
            .collect(),
        flags: session.flags.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_capped() {
        let mut s = Session::default();
        s.vars.insert("big".into(), "界".repeat(1000));
        let t = "{{session.big}}".repeat(1000);
        let r = interpolate_capped(&t, "/w", &s, 10_000);
        assert!(r.cut);
        assert!(r.text.len() <= 10_000 && r.text.len() > 9_990);
        let r = interpolate_capped("a {{session.name}} b {{nope}}", "/w", &s, 10_000);
        assert_eq!((r.text.as_str(), r.cut), ("a  b {{nope}}", false));
        assert_eq!(r.unknown, vec!["nope".to_string()]);
    }
}
