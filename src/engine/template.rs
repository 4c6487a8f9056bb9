//! Template interpolation and the facts `enabled_when` sees.

use super::expr::SessionFacts;
use super::session::Session;
use super::workspace::Workspace;

/// Replaces `{{workspaceDir}}` and `{{session.NAME}}`; unknown variables stay
/// verbatim and are returned.
pub fn interpolate(text: &str, root: &str, session: &Session) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut unknown = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return (out, unknown);
        };
        let name = after[..end].trim();
        let value = match name {
            "workspaceDir" => Some(root.to_string()),
            "session.name" => Some(session.name.clone()),
            _ => name
                .strip_prefix("session.")
                .and_then(|v| session.vars.get(v).cloned()),
        };
        match value {
            Some(v) => out.push_str(&v),
            None => {
                unknown.push(name.to_string());
                out.push_str(&rest[start..start + 2 + end + 2]);
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    (out, unknown)
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
