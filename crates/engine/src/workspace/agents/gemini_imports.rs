//! Gemini CLI's `@path` imports in a GEMINI.md, inlined as its
//! `processImports` (0.61.0) inlines them: an `@` at the text's start or
//! after a space, tab or line break, its path running to the next of those
//! and starting with `.`, `/` or a letter; none inside a backtick span (a
//! run of backticks up to the next equal run, fences included); each
//! resolved from its file's folder and kept inside the project's root (the
//! folder holding `.git` at or above the first file, else that file's
//! folder: `Path traversal attempt` outside it); a file already in the
//! chain of imports is `File already processed`; a file five imports deep
//! keeps its own `@` as written. `scripts/gemini-imports.sh` compares this
//! with Gemini CLI's own code.

use std::collections::BTreeSet;

use super::{Cut, MAX_IMPORT_DEPTH};
use crate::workspace::diag::Diagnostic;
use crate::workspace::reader::{GitRoot, Reader};

/// Where imports may lead and the reader's root as the agent writes it.
struct Walk<'a> {
    r: &'a mut Reader,
    /// The project's root, relative to the reader's (`""`: its root).
    allowed: String,
    /// The reader's root as an absolute path (the agent's paths).
    root: String,
    /// The project's root is above the reader's: a file there is the
    /// agent's to read, not this view's.
    above: bool,
    /// The files of the chain of imports being inlined.
    chain: BTreeSet<String>,
    diags: &'a mut Vec<Diagnostic>,
}

/// `text` of `rel` (a file of `r`) with its imports inlined; where each
/// imported file's text lies in the result is pushed to `cuts` (in order,
/// the ones nested in an import after it). A failed import is Gemini CLI's
/// marker and a diagnostic.
pub(super) fn inlined(
    r: &mut Reader,
    rel: &str,
    text: &str,
    cuts: &mut Vec<Cut>,
    diags: &mut Vec<Diagnostic>,
) -> String {
    let dir = parent(rel);
    let allowed = match r.git_root(dir) {
        GitRoot::AtOrAbove => String::new(),
        GitRoot::Inside(top) => top,
        GitRoot::None => dir.to_string(),
    };
    let root = r.root().display().to_string();
    let above = r.git_root(dir) == GitRoot::AtOrAbove && !r.root().join(".git").exists();
    let mut w = Walk {
        r,
        allowed,
        root,
        above,
        chain: BTreeSet::new(),
        diags,
    };
    w.inline(rel, text, 0, cuts)
}

/// The folder of a workspace path (`""`: the root).
fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// What an `@path` becomes.
enum Import {
    /// The file's text, its own imports inlined, with where they lie.
    Inlined {
        target: String,
        inner: String,
        nested: Vec<Cut>,
    },
    /// Gemini CLI's marker in its place.
    Marker(String),
}

impl Walk<'_> {
    /// `text` of `rel`, a file `depth` imports deep (0: the GEMINI.md).
    fn inline(&mut self, rel: &str, text: &str, depth: usize, cuts: &mut Vec<Cut>) -> String {
        if depth >= MAX_IMPORT_DEPTH {
            return text.to_string();
        }
        let code = code_spans(text);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end) in imports(text) {
            out.push_str(&text[last..start]);
            last = end;
            let path = &text[start + 1..end];
            if code.iter().any(|&(s, e)| start >= s && start < e) {
                out.push_str(&text[start..end]);
                continue;
            }
            let line = text[..start].matches('\n').count() + 1;
            match self.import(rel, line, path, depth) {
                Import::Inlined {
                    target,
                    inner,
                    nested,
                } => {
                    out.push_str(&format!("<!-- Imported from: {path} -->\n"));
                    let at = out.len();
                    cuts.push(Cut {
                        target,
                        start: at,
                        end: at + inner.len(),
                        line,
                    });
                    cuts.extend(nested.into_iter().map(|c| Cut {
                        start: c.start + at,
                        end: c.end + at,
                        ..c
                    }));
                    out.push_str(&inner);
                    out.push_str(&format!("\n<!-- End of import from: {path} -->"));
                }
                Import::Marker(m) => out.push_str(&m),
            }
        }
        out.push_str(&text[last..]);
        out
    }

    /// One import of `from` (its `line`), as written (`path`).
    fn import(&mut self, from: &str, line: usize, path: &str, depth: usize) -> Import {
        let target = self.resolved(parent(from), path);
        let inside = target.as_deref().is_some_and(|t| {
            self.allowed.is_empty()
                || t == self.allowed
                || t.starts_with(&format!("{}/", self.allowed))
        });
        let lexical = target.clone();
        let Some(target) = target.filter(|_| inside) else {
            let why = if is_url(path) {
                "a URL: Gemini CLI refuses it as a path"
            } else if lexical.is_none() && self.above {
                "leaves the folder this view reads; Gemini CLI reads it if it lies in its repository, above this folder: not counted here"
            } else {
                "outside the project's root (the folder holding .git, else the file's own): Gemini CLI refuses it"
            };
            self.said(from, line, path, why);
            return Import::Marker(format!(
                "<!-- Import failed: {path} - Path traversal attempt -->"
            ));
        };
        if !self.chain.insert(target.clone()) {
            return Import::Marker(format!("<!-- File already processed: {path} -->"));
        }
        let text = match self.r.read_checked(&target) {
            Ok(t) => t,
            Err((_, why)) => {
                self.chain.remove(&target);
                let abs = self.abs(&target);
                let message = if !self.r.exists(&target) {
                    format!("ENOENT: no such file or directory, access '{abs}'")
                } else if self.r.root().join(&target).is_dir() {
                    "EISDIR: illegal operation on a directory, read".to_string()
                } else {
                    why.to_string()
                };
                self.said(from, line, path, &message);
                return Import::Marker(format!("<!-- Import failed: {path} - {message} -->"));
            }
        };
        let mut nested = Vec::new();
        let inner = self.inline(&target, &text, depth + 1, &mut nested);
        self.chain.remove(&target);
        Import::Inlined {
            target,
            inner,
            nested,
        }
    }

    /// A failed import, said at its line.
    fn said(&mut self, from: &str, line: usize, path: &str, why: &str) {
        self.diags.push(Diagnostic::warning(
            from,
            Some(line),
            format!("@{path}: {why}"),
        ));
    }

    /// A workspace path as the agent writes it.
    fn abs(&self, rel: &str) -> String {
        if rel.is_empty() {
            self.root.clone()
        } else {
            format!("{}/{rel}", self.root.trim_end_matches('/'))
        }
    }

    /// `path` resolved from the folder `dir`, as a workspace path: an
    /// absolute one under the reader's root taken relative to it; none
    /// when it leaves the root, is elsewhere, or is a URL.
    fn resolved(&self, dir: &str, path: &str) -> Option<String> {
        if is_url(path) {
            return None;
        }
        match path.strip_prefix('/') {
            Some(_) => {
                let root = format!("{}/", self.root.trim_end_matches('/'));
                path.strip_prefix(&root).and_then(|rest| join("", rest))
            }
            None => join(dir, path),
        }
    }
}

/// An import Gemini CLI refuses whatever it names (`file://`, `http://`,
/// `https://`).
fn is_url(path: &str) -> bool {
    ["file://", "http://", "https://"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// The `@path` imports of `text` as Gemini CLI finds them: `(start, end)`
/// of each, from its `@` to the end of its path.
fn imports(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find('@').map(|k| k + i) {
        if at > 0 && !blank(b[at - 1]) {
            i = at + 1;
            continue;
        }
        let end = (at + 1..b.len()).find(|&j| blank(b[j])).unwrap_or(b.len());
        let first = b.get(at + 1).copied();
        if end > at + 1 && first.is_some_and(|c| c == b'.' || c == b'/' || c.is_ascii_alphabetic())
        {
            out.push((at, end));
        }
        i = (end + 1).min(b.len());
        if i >= b.len() {
            break;
        }
    }
    out
}

/// The backtick spans of `text` as Gemini CLI's ``/(`+)([\s\S]*?)\1/g``
/// finds them: from a run of backticks to the next equal run (a shorter
/// opening tried when no closing of the whole run follows).
fn code_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|&&c| c == b'`').count();
        let closed = (1..=run).rev().find_map(|n| {
            let fence = "`".repeat(n);
            text[i + n..].find(&fence).map(|k| (n, i + n + k + n))
        });
        match closed {
            Some((_, end)) => {
                out.push((i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// `path` relative to the folder `dir` (both workspace-relative), `..`
/// resolved; none when it leaves the folder.
fn join(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_other_scripts_and_an_at_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "Ä\n").unwrap();
        let mut r = Reader::new(dir.path()).unwrap();
        let mut diags = Vec::new();
        let text = "é café @a.md — ü mail@x.org\n";
        let mut cuts = Vec::new();
        let out = inlined(&mut r, "GEMINI.md", text, &mut cuts, &mut diags);
        assert_eq!(
            out,
            "é café <!-- Imported from: a.md -->\nÄ\n\n<!-- End of import from: a.md --> — ü mail@x.org\n"
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(&out[cuts[0].start..cuts[0].end], "Ä\n");
    }

    #[test]
    fn imports_are_found_as_gemini_cli_finds_them() {
        let found = |t: &str| -> Vec<String> {
            imports(t)
                .into_iter()
                .map(|(s, e)| t[s..e].to_string())
                .collect()
        };
        assert_eq!(
            found("@a.md x@b.md\t@./c @/d @~/e @9 @_f @g"),
            ["@a.md", "@./c", "@/d", "@g"]
        );
        assert_eq!(found("(@a.md) @"), Vec::<String>::new());
        // A no-break space is not a blank to it: the path runs on.
        assert_eq!(found("@a.md\u{a0}b c"), ["@a.md\u{a0}b"]);
    }

    #[test]
    fn backtick_spans_are_found_as_its_regex_finds_them() {
        let t = "a `@x` b ```\n@y\n``` c ``d`e`` f ```g` h";
        let spans: Vec<&str> = code_spans(t).into_iter().map(|(s, e)| &t[s..e]).collect();
        assert_eq!(spans, ["`@x`", "```\n@y\n```", "``d`e``", "``", "`g`"]);
    }

    #[test]
    fn imports_resolve_inside_the_folder_only() {
        assert_eq!(join("docs", "style.md").as_deref(), Some("docs/style.md"));
        assert_eq!(join("docs", "../a.md").as_deref(), Some("a.md"));
        assert_eq!(join("", "../a.md"), None);
    }
}
