//! Claude Code's settings files, for what in them changes the request: the
//! model it starts with (`model`), and the output style (`outputStyle`,
//! which rewrites part of its system prompt: said, not rendered). Read in
//! Claude Code's order, the first that sets a key wins:
//! `.claude/settings.local.json`, `.claude/settings.json` (the folder's,
//! through the workspace's reader), then `~/.claude/settings.json` (with
//! the user-level files, `--user-memory`, through a reader of its own).
//! Each is bounded JSON; one that is not is a diagnostic naming the file.

use serde_json::Value;

use crate::json_bounds::{JsonBounds, check};
use crate::workspace::diag::Diagnostic;
use crate::workspace::reader::Reader;

const BOUNDS: JsonBounds = JsonBounds {
    max_values: 100_000,
    max_depth: 64,
    max_string_bytes: 1 << 20,
};

/// A value and the file that set it (`.claude/settings.json`).
pub type FromFile = (String, String);

/// What the settings files set that changes the request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeSettings {
    pub model: Option<FromFile>,
    pub output_style: Option<FromFile>,
}

/// The settings as Claude Code reads them in the folder of `r` (and the
/// home folder's, when `home` is given).
pub fn read(
    r: &mut Reader,
    home: Option<&std::path::Path>,
    diags: &mut Vec<Diagnostic>,
) -> ClaudeSettings {
    let mut files: Vec<(String, Value)> = Vec::new();
    for rel in [".claude/settings.local.json", ".claude/settings.json"] {
        if r.exists(rel)
            && let Some(text) = r.read(rel)
            && let Some(v) = parse(rel, &text, diags)
        {
            files.push((rel.to_string(), v));
        }
    }
    if let Some(home) = home
        && let Ok(mut hr) = Reader::new(&home.join(".claude"))
        && hr.exists("settings.json")
    {
        let shown = "~/.claude/settings.json";
        match hr.read_checked("settings.json") {
            Ok(text) => {
                if let Some(v) = parse(shown, &text, diags) {
                    files.push((shown.to_string(), v));
                }
            }
            Err((line, m)) => diags.push(Diagnostic::warning(shown, line, m)),
        }
    }
    let first = |key: &str| {
        files.iter().find_map(|(f, v)| {
            v[key]
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 200)
                .map(|s| (s.to_string(), f.clone()))
        })
    };
    ClaudeSettings {
        model: first("model"),
        output_style: first("outputStyle"),
    }
}

fn parse(shown: &str, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Value> {
    if let Err(e) = check(text, BOUNDS) {
        diags.push(Diagnostic::warning(shown, None, format!("{e} (not read)")));
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v.is_object() => Some(v),
        Ok(_) => {
            diags.push(Diagnostic::warning(
                shown,
                None,
                "not a JSON object (not read)",
            ));
            None
        }
        Err(e) => {
            diags.push(Diagnostic::warning(
                shown,
                Some(e.line()),
                format!("not JSON: {e} (not read)"),
            ));
            None
        }
    }
}
