//! Claude Code's memory files (`CLAUDE.md`, `CLAUDE.local.md`, the user's
//! `~/.claude/CLAUDE.md` when asked) with their `@path` imports, followed to
//! the profile's depth and never out of the workspace, then its skills and
//! subagents listing.

use super::{Extras, heading, load_skill_listing};
use crate::engine::workspace::diag::Diagnostic;
use crate::engine::workspace::profile::Profile;
use crate::engine::workspace::reader::Reader;
use crate::engine::workspace::sources::base;
use crate::engine::workspace::types::{FragmentDef, FragmentKind};

/// Claude Code's memory files with their `@path` imports (followed to the
/// profile's depth, never out of the workspace; a loop is one diagnostic),
/// then its skills and subagents.
pub fn load_claude_code(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = r.root().display().to_string();
    let max_depth = p.imports.as_ref().map_or(4, |i| i.max_depth);
    let mut order = 0i64;
    if let Some(Err(e)) = &extras.user_memory {
        diags.push(Diagnostic::warning(
            "~/.claude/CLAUDE.md",
            None,
            format!("--user-memory: {e} (not read)"),
        ));
    }
    if let Some(Ok(text)) = &extras.user_memory {
        // The user's own memory file comes first (user level, then project).
        order += 1;
        let mut f = base(
            "user.claude".into(),
            2,
            1000 - order,
            format!(
                "{}\n\n{}",
                heading(
                    p,
                    "~/.claude",
                    "CLAUDE.md",
                    "user's private global instructions for all projects"
                ),
                text.trim_end()
            ),
            "~/.claude/CLAUDE.md",
            1,
            FragmentKind::Markdown,
        );
        f.interpolate = false;
        out.push(f);
    }
    for f in &p.files {
        if !r.exists(&f.name) {
            continue;
        }
        let kind = if f.name.contains("local") {
            "project instructions, local, not checked in"
        } else {
            "project instructions, checked into the codebase"
        };
        let mut chain = vec![f.name.clone()];
        memory_file(
            p, r, &f.name, kind, &root, 0, max_depth, &mut chain, &mut order, out, diags,
        );
    }
    load_skill_listing(p, r, out, diags);
}

#[allow(clippy::too_many_arguments)]
fn memory_file(
    p: &Profile,
    r: &mut Reader,
    rel: &str,
    kind: &str,
    root: &str,
    depth: usize,
    max_depth: usize,
    chain: &mut Vec<String>,
    order: &mut i64,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(text) = r.read(rel) else { return };
    let body = text.trim_end().to_string();
    let id = if depth == 0 {
        rel.to_ascii_lowercase()
            .trim_end_matches(".md")
            .replace('/', ".")
    } else {
        format!("import.{}", rel.trim_end_matches(".md").replace('/', "."))
    };
    *order += 1;
    let mut f = base(
        id,
        2,
        1000 - *order,
        format!("{}\n\n{body}", heading(p, root, rel, kind)),
        rel,
        1,
        FragmentKind::Markdown,
    );
    f.interpolate = false;
    out.push(f);
    for (line, target) in imports(&body) {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let path = normalize(&if dir.is_empty() {
            target.clone()
        } else {
            format!("{dir}/{target}")
        });
        let Some(path) = path else {
            diags.push(Diagnostic::warning(
                rel,
                Some(line),
                format!("@{target}: leaves the workspace (not followed)"),
            ));
            continue;
        };
        if chain.contains(&path) {
            diags.push(Diagnostic::warning(
                rel,
                Some(line),
                format!(
                    "@{target}: an import loop ({} → {path}); not followed again",
                    chain.join(" → ")
                ),
            ));
            continue;
        }
        if depth + 1 > max_depth {
            diags.push(Diagnostic::warning(
                rel,
                Some(line),
                format!(
                    "@{target}: deeper than Claude Code's {max_depth} import hops (not followed)"
                ),
            ));
            continue;
        }
        if !r.exists(&path) {
            diags.push(Diagnostic::warning(
                rel,
                Some(line),
                format!("@{target}: no such file in the workspace"),
            ));
            continue;
        }
        chain.push(path.clone());
        memory_file(
            p,
            r,
            &path,
            "imported",
            root,
            depth + 1,
            max_depth,
            chain,
            order,
            out,
            diags,
        );
        chain.pop();
    }
}

/// `@path` imports of a memory file, with their 1-based lines: outside code
/// spans and fenced blocks; `@~/…` (the home folder) is not the
/// workspace's and is skipped.
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        let mut rest = line;
        let mut prev = ' ';
        while let Some(c) = rest.chars().next() {
            if c == '`' {
                in_code = !in_code;
            } else if c == '@' && !in_code && (prev.is_whitespace() || prev == '(') {
                let target: String = rest[1..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && !matches!(c, ')' | ',' | ';'))
                    .collect();
                let looks_like_path = target.contains('/') || target.contains('.');
                if !target.is_empty() && looks_like_path && !target.starts_with('~') {
                    out.push((i + 1, target.trim_end_matches('.').to_string()));
                }
            }
            prev = c;
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// `a/./b/../c` → `a/c`; `None` when it leaves the workspace or is absolute.
fn normalize(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_skip_code_and_home() {
        let t = "See @docs/style.md and @README.md.\n`@not/this.md`\n```\n@nor/this.md\n```\n@~/.claude/x.md email a@b.com";
        let found: Vec<String> = imports(t).into_iter().map(|x| x.1).collect();
        assert_eq!(found, vec!["docs/style.md", "README.md"]);
        assert_eq!(normalize("a/./b/../c.md").as_deref(), Some("a/c.md"));
        assert_eq!(normalize("../x.md"), None);
    }
}
