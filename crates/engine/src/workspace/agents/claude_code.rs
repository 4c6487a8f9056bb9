//! Claude Code's memory files (`CLAUDE.md`, `CLAUDE.local.md`, the user's
//! `~/.claude/CLAUDE.md` when asked) with their `@path` imports, followed to
//! the profile's depth and never out of the workspace, then its skills and
//! subagents listing.

#[path = "claude_rules.rs"]
mod rules;
#[path = "claude_user.rs"]
mod user;

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::Extras;
use super::claude_nested as nested;
use super::expand::Expander;
use super::listing::load_skill_listing;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::{NestedMemory, Profile};
use crate::workspace::reader::Reader;
use crate::workspace::sources::base;
use crate::workspace::types::{FragmentDef, FragmentKind};

/// Most memory files (with their imports) read in one assembly.
pub const MAX_MEMORY_FILES: usize = 500;
/// Most bytes of memory files (with their imports) in one assembly.
pub const MAX_MEMORY_BYTES: usize = 4 * 1024 * 1024;
/// Most `@path` references looked at in one assembly (each may be a
/// diagnostic).
pub const MAX_IMPORT_REFS: usize = 20_000;

/// Claude Code's memory files with their `@path` imports (followed to the
/// profile's depth, never out of the workspace; a loop is one diagnostic;
/// each file included once, as Claude Code does), then its skills and
/// subagents.
pub fn load_claude_code(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut ex = Expander::new(p);
    let mut walk = Walk {
        shown: String::new(),
        root: r.root().display().to_string(),
        import_kind: p.imports.as_ref().and_then(|i| i.kind.clone()),
        strip_frontmatter: p.strip_frontmatter.unwrap_or(false),
        strip_comments: p.strip_html_comments,
        r,
        ex: &mut ex,
        max_depth: p.imports.as_ref().map_or(4, |i| i.max_depth),
        chain: Vec::new(),
        seen: BTreeSet::new(),
        order: 0,
        files: 0,
        bytes: 0,
        refs: 0,
        capped: false,
        nested: None,
        out,
        diags,
    };
    match extras.user_memory(p) {
        Some((_, Ok(text))) => user::user_memory(p, extras, Some(&text), &mut walk),
        Some((path, Err(e))) => {
            walk.diags.push(Diagnostic::user_memory_unread(&path, &e));
            // Its rules are read without it.
            user::user_memory(p, extras, None, &mut walk);
        }
        None => {}
    }
    // The workspace's root first, then each folder down to the one Claude
    // Code runs in (`--workdir`): the farthest ancestor's files first.
    let mut dirs = vec![String::new()];
    dirs.extend(super::codex::on_the_way(extras.workdir.as_deref()));
    for dir in &dirs {
        for f in &p.files {
            let rel = if dir.is_empty() {
                f.name.clone()
            } else {
                format!("{dir}/{}", f.name)
            };
            if !walk.r.exists(&rel) {
                continue;
            }
            if f.rules {
                let kind = f.kind.clone().unwrap_or_default();
                walk.rules(&rel, &kind, p.nested_memory.as_ref());
                continue;
            }
            let kind = f.kind.clone().unwrap_or_else(|| {
                if f.name.contains("local") {
                    "project instructions, local, not checked in".into()
                } else {
                    "project instructions, checked into the codebase".into()
                }
            });
            walk.chain = vec![rel.clone()];
            walk.memory_file(&rel, &kind, 0, None);
        }
    }
    if let Some(nm) = &p.nested_memory {
        nested_memory(p, nm, extras.workdir.as_deref().unwrap_or(""), &mut walk);
    }
    let homes = (extras.home.as_deref(), extras.user_memory_home.as_deref());
    load_skill_listing(p, r, homes, out, diags);
    ex.finish(diags);
}

/// The memory files in the folders below the working folder (`workdir`),
/// with their imports: listed as on demand, one block each as the agent
/// adds them; between two blocks of one folder the agent puts a newline,
/// which the first one carries.
fn nested_memory(p: &Profile, nm: &NestedMemory, workdir: &str, walk: &mut Walk) {
    for folder in nested::folders_below(walk.r, workdir, walk.diags) {
        let first = walk.out.len();
        walk.nested = Some((nm.clone(), folder.clone()));
        for f in &p.files {
            let rel = format!("{folder}/{}", f.name);
            if f.rules && walk.r.exists(&rel) {
                walk.rules(&rel, "", Some(nm));
            } else if walk.r.exists(&rel) {
                walk.chain = vec![rel.clone()];
                walk.memory_file(&rel, "", 0, None);
            }
        }
        let n = walk.out.len();
        for frag in &mut walk.out[first..n.saturating_sub(1).max(first)] {
            frag.body.push('\n');
        }
    }
    walk.nested = None;
}

/// One walk over the memory files and their imports: every file read once
/// (by its real path), all of them within [`MAX_MEMORY_FILES`] and
/// [`MAX_MEMORY_BYTES`].
struct Walk<'a, 'p> {
    /// How the files of this walk are shown (`~/.claude/` for the user's
    /// own memory; empty for the workspace's).
    shown: String,
    r: &'a mut Reader,
    ex: &'a mut Expander<'p>,
    root: String,
    /// An import's kind (`imported`); none: its parent's.
    import_kind: Option<String>,
    strip_frontmatter: bool,
    strip_comments: bool,
    max_depth: usize,
    /// The imports that led here (to name a loop).
    chain: Vec<String>,
    /// Files already included (or refused), by [`Walk::key`].
    seen: BTreeSet<PathBuf>,
    order: i64,
    files: usize,
    bytes: usize,
    refs: usize,
    capped: bool,
    /// Walking a folder's nested memory files (the profile's blocks, the
    /// folder): listed as on demand, not sent.
    nested: Option<(NestedMemory, String)>,
    out: &'a mut Vec<FragmentDef>,
    diags: &'a mut Vec<Diagnostic>,
}

impl Walk<'_, '_> {
    /// A memory file's text as the agent sends it: its frontmatter and
    /// block-level HTML comments left out when the profile says so,
    /// trimmed.
    fn clean(&self, text: &str) -> String {
        self.clean_untrimmed(text).trim().to_string()
    }

    /// [`Walk::clean`] without the trimming.
    fn clean_untrimmed(&self, text: &str) -> String {
        let text = if self.strip_frontmatter {
            super::strip_frontmatter(text)
        } else {
            text
        };
        if self.strip_comments && text.contains("<!--") {
            strip_comment_blocks(text)
        } else {
            text.to_string()
        }
    }

    /// What a file is known by: its real path, else (a link out, a broken
    /// link: refused once when read) the path as written.
    fn key(&self, rel: &str) -> PathBuf {
        self.r.canonical(rel).unwrap_or_else(|| PathBuf::from(rel))
    }

    /// Whether one more file of `len` bytes fits the walk's limits; the
    /// first refusal is one diagnostic on the import (`from`: file, line,
    /// target) that reached them, and nothing is read after it.
    fn fits(&mut self, len: usize, rel: &str, from: Option<(&str, usize)>) -> bool {
        if self.capped {
            return false;
        }
        let files = self.files >= MAX_MEMORY_FILES;
        if !files && self.bytes.saturating_add(len) <= MAX_MEMORY_BYTES {
            return true;
        }
        // Past the count, the walk stops; one file too big for the bytes
        // left is passed over, and smaller ones after it still read.
        self.capped = files;
        let (file, line) = from.map_or((rel, None), |(f, l)| (f, Some(l)));
        // The file named once: as the diagnostic's file, or as the
        // import's target.
        let what = if from.is_some() {
            format!("{rel}: not included")
        } else {
            "not included".to_string()
        };
        let why = if files {
            format!(
                "the memory files and their imports reached this tool's limit of {MAX_MEMORY_FILES} files; it and the rest are left out"
            )
        } else {
            format!(
                " ({:.1} MiB): with it the memory files and their imports would pass this tool's limit of {} MiB in all; the files after it are still read",
                len as f64 / (1024.0 * 1024.0),
                MAX_MEMORY_BYTES / (1024 * 1024)
            )
        };
        let sep = if files { ": " } else { "" };
        self.diags
            .push(Diagnostic::warning(file, line, format!("{what}{sep}{why}")));
        false
    }

    /// One memory file, then what it imports (depth first, in order).
    fn memory_file(&mut self, rel: &str, kind: &str, depth: usize, from: Option<(&str, usize)>) {
        if self.capped {
            return;
        }
        if !self.seen.insert(self.key(rel)) {
            return;
        }
        if !self.fits(0, rel, from) {
            return;
        }
        let Some(text) = self.r.read(rel) else { return };
        self.memory_text(rel, &text, kind, depth, from);
    }

    /// A memory file read (`text`), then what it imports.
    fn memory_text(
        &mut self,
        rel: &str,
        text: &str,
        kind: &str,
        depth: usize,
        from: Option<(&str, usize)>,
    ) {
        if !self.fits(text.len(), rel, from) {
            return;
        }
        self.files += 1;
        self.bytes += text.len();
        if let Some((nm, folder)) = &self.nested {
            // Sent as read: not trimmed (its comments and frontmatter out).
            let body = self.clean_untrimmed(text);
            self.order += 1;
            let f = nested::fragment(
                self.ex,
                nm,
                &self.root,
                rel,
                &body,
                folder,
                1000 - self.order,
            );
            self.out.push(f);
            self.follow_imports(rel, &body, kind, depth);
            return;
        }
        let body = self.clean(text);
        let body = body.as_str();
        let user = !self.shown.is_empty();
        let id = match (depth, user) {
            (0, true) if rel.ends_with("CLAUDE.md") => "user.claude".to_string(),
            (0, true) => format!(
                "user.{}",
                rel.to_ascii_lowercase()
                    .trim_end_matches(".md")
                    .replace('/', ".")
            ),
            (0, false) => rel
                .to_ascii_lowercase()
                .trim_end_matches(".md")
                .replace('/', "."),
            (_, user) => format!(
                "{}import.{}",
                if user { "user." } else { "" },
                rel.trim_end_matches(".md").replace('/', ".")
            ),
        };
        self.order += 1;
        let heading = self.ex.heading(&self.root, rel, kind);
        let shown = format!("{}{rel}", self.shown);
        let mut f = base(
            id,
            2,
            1000 - self.order,
            format!("{heading}\n\n{body}"),
            &shown,
            1,
            FragmentKind::Markdown,
        );
        f.interpolate = false;
        f.agent_words = crate::workspace::types::AgentWords::heading(heading.len() + 2);
        self.out.push(f);
        self.follow_imports(rel, body, kind, depth);
    }

    /// The `@path` imports of `rel` (its text `body`), each followed in turn.
    fn follow_imports(&mut self, rel: &str, body: &str, kind: &str, depth: usize) {
        for (line, target) in imports(body) {
            if self.capped {
                return;
            }
            self.refs += 1;
            if self.refs > MAX_IMPORT_REFS {
                self.capped = true;
                self.diags.push(Diagnostic::warning(
                    rel,
                    Some(line),
                    format!(
                        "@{target}: not followed: the memory files hold more than this tool's limit of {MAX_IMPORT_REFS} imports in all; the rest are left out"
                    ),
                ));
                return;
            }
            if let Some(path) = self.follow(rel, line, &target, depth) {
                self.chain.push(path.clone());
                let kind = self.import_kind.clone().unwrap_or_else(|| kind.to_string());
                self.memory_file(&path, &kind, depth + 1, Some((rel, line)));
                self.chain.pop();
            }
        }
    }

    /// Where an import of `rel` leads, when it is to be followed; a
    /// refusal is one diagnostic on the import. A file already included is
    /// skipped without one (Claude Code includes a file once).
    fn follow(&mut self, rel: &str, line: usize, target: &str, depth: usize) -> Option<String> {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let joined = if dir.is_empty() {
            target.to_string()
        } else {
            format!("{dir}/{target}")
        };
        let file = format!("{}{rel}", self.shown);
        let warn = |diags: &mut Vec<Diagnostic>, msg: String| {
            diags.push(Diagnostic::warning(file.as_str(), Some(line), msg));
            None
        };
        let place = if self.shown.is_empty() {
            "the workspace".to_string()
        } else {
            self.shown.trim_end_matches('/').to_string()
        };
        let outside = if target.starts_with('~') {
            "is in your home folder".to_string()
        } else {
            format!("leaves {place}")
        };
        let Some(path) = normalize(&joined).filter(|_| !target.starts_with('~')) else {
            return warn(
                self.diags,
                format!(
                    "@{target}: {outside}: Claude Code follows it once you allow its external \
                     imports; this tool reads nothing outside {place}, so it is not counted"
                ),
            );
        };
        if self.chain.contains(&path) {
            let msg = format!(
                "@{target}: an import loop ({} → {path}); not followed again",
                self.chain.join(" → ")
            );
            return warn(self.diags, msg);
        }
        if self.seen.contains(&self.key(&path)) {
            return None;
        }
        if depth + 1 > self.max_depth {
            let msg = format!(
                "@{target}: deeper than Claude Code's {} import hops (not followed)",
                self.max_depth
            );
            return warn(self.diags, msg);
        }
        if !self.r.exists(&path) {
            return warn(self.diags, format!("@{target}: no such file in {place}"));
        }
        Some(path)
    }
}

/// Block-level HTML comments left out, as Claude Code's markdown pass
/// (marked's HTML block) does: a block starts with `<!--` at a line's start
/// (outside fenced code, indented less than four) and runs to the end of
/// the line holding `-->`, then over the empty lines after it; it goes
/// whole, unless text is left once its comments are out (that text stays).
/// A comment inside a paragraph stays. Checked against Claude Code
/// 2.1.332's requests (tests/claude_nested.rs).
fn strip_comment_blocks(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut fenced) = (0, false);
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        let indent = line.len() - t.len();
        if !fenced && indent < 4 && t.starts_with("<!--") {
            let end = (i..lines.len()).find(|&j| lines[j].contains("-->"));
            if let Some(end) = end {
                let mut last = end;
                while last + 1 < lines.len() && lines[last + 1] == "\n" {
                    last += 1;
                }
                let block: String = lines[i..=last].concat();
                let rest = remove_comments(&block);
                if !rest.trim().is_empty() {
                    out.push_str(&rest);
                }
                i = last + 1;
                continue;
            }
        }
        out.push_str(line);
        i += 1;
    }
    out
}

/// Every `<!-- … -->` of `s` left out.
fn remove_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(a) = rest.find("<!--") {
        out.push_str(&rest[..a]);
        match rest[a..].find("-->") {
            Some(b) => rest = &rest[a + b + 3..],
            None => {
                rest = &rest[a..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
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
                if !target.is_empty() && looks_like_path {
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
    fn imports_skip_code_and_keep_home() {
        let t = "See @docs/style.md and @README.md.\n`@not/this.md`\n```\n@nor/this.md\n```\n@~/.claude/x.md email a@b.com";
        let found: Vec<String> = imports(t).into_iter().map(|x| x.1).collect();
        // A home import is one: said, as the agent follows it.
        assert_eq!(found, vec!["docs/style.md", "README.md", "~/.claude/x.md"]);
        assert_eq!(normalize("a/./b/../c.md").as_deref(), Some("a/c.md"));
        assert_eq!(normalize("../x.md"), None);
    }
}
