//! Gemini CLI's GEMINI.md files (profile `gemini`): those of the folder it
//! runs in (`--workdir`, else the folder opened) and of the folders above
//! it up to its repository's root, in the first user message, inside the
//! `<session_context>` the agent opens with its own head (the date, the
//! system, the folder and its tree), each file as `--- Context from: PATH
//! ---` … `--- End of Context from: PATH ---` with its `@path` imports
//! inlined between `<!-- Imported from: X -->` and `<!-- End of import
//! from: X -->`; the user's `~/.gemini/GEMINI.md` (with `--user-memory`),
//! its imports inlined too, at the end of the system instruction. A
//! subfolder's GEMINI.md is listed, read once the agent works there. The
//! folder's tree, which the agent computes, is drawn as it draws it
//! (`gemini_tree`).

use std::collections::BTreeSet;

#[path = "gemini_user.rs"]
mod user;

use super::Extras;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::{GitRoot, Reader};
use crate::workspace::sources::base;
use crate::workspace::types::{AgentWords, FragmentDef, FragmentKind, WordsKind};

/// How deep imports are followed (Gemini CLI's own limit).
const MAX_IMPORT_DEPTH: usize = 5;
/// How deep subfolders are searched for GEMINI.md, and in how many.
const MAX_DEPTH: usize = 6;
const MAX_FOLDERS: usize = 200;
/// Folders Gemini CLI does not look into for GEMINI.md.
const NOT_OPENED: [&str; 3] = [".git", "node_modules", "__pycache__"];

pub fn load_gemini(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    user::user_memory(p, r, extras, out, diags);
    let workdir = extras.workdir.as_deref().unwrap_or("");
    let sent = project_files(r, workdir, out, diags);
    // A subfolder's GEMINI.md is read when the agent works there, not at
    // the start: listed, not sent, saying so; one outside the folder it
    // runs in is not read.
    let mut ex = super::expand::Expander::new(p);
    for rel in subfolder_files(r) {
        let folder = rel.trim_end_matches("/GEMINI.md");
        if sent.iter().any(|d| d == folder) {
            continue;
        }
        let Some(text) = r.read(&rel) else { continue };
        let why = if workdir.is_empty() || folder.starts_with(&format!("{workdir}/")) {
            let note = p
                .nested_note
                .as_deref()
                .unwrap_or("read when the agent works in {path}/");
            ex.expand("nested_note", note, &[("path", folder)])
        } else {
            format!(
                "not read: {} runs in {workdir}/ (--workdir) and reads GEMINI.md there, above it up to the repository's root and below it",
                p.agent
            )
        };
        let mut f = base(
            format!("gemini.{}", folder.replace('/', ".")),
            2,
            0,
            text,
            &rel,
            1,
            FragmentKind::Markdown,
        );
        f.interpolate = false;
        f.preset = Some(crate::workspace::types::Preset::Disabled(why));
        out.push(f);
    }
    ex.finish(diags);
}

/// The GEMINI.md files of the folder it runs in (`workdir`) and of those
/// above it up to its repository's root (only its own outside a
/// repository), in the order of their paths as it sorts them, each whole
/// before the next and joined by a blank line. Returns those folders.
fn project_files(
    r: &mut Reader,
    workdir: &str,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let root = r.root().display().to_string();
    let mut sent: Vec<String> = match r.git_root(workdir) {
        GitRoot::None => vec![workdir.to_string()],
        GitRoot::AtOrAbove => std::iter::once(String::new())
            .chain(super::on_the_way(Some(workdir)))
            .collect(),
        GitRoot::Inside(top) => super::on_the_way(Some(workdir))
            .into_iter()
            .filter(|d| d == &top || d.starts_with(&format!("{top}/")))
            .collect(),
    };
    sent.sort_by(|a, b| {
        let abs = |d: &str| format!("{root}/{}", at(d, "GEMINI.md"));
        abs(a).encode_utf16().cmp(abs(b).encode_utf16())
    });
    // Their pieces numbered on from one file to the next: the files in
    // this order, each whole before the next.
    let mut pieces = 0;
    for dir in &sent {
        let rel = at(dir, "GEMINI.md");
        if r.exists(&rel)
            && let Some(text) = r.read(&rel)
        {
            let file = File {
                id: if dir.is_empty() {
                    "gemini".into()
                } else {
                    format!("gemini.{}", dir.replace('/', "."))
                },
                priority: 1000,
                layer: 2,
                abs: format!("{root}/{rel}"),
                rel,
                shown: String::new(),
            };
            let mut frags = context_file(r, &file, &text, diags);
            for f in &mut frags {
                f.piece += pieces;
            }
            // Files are joined by a blank line.
            if pieces > 0
                && let Some(first) = frags.first_mut()
            {
                first.prefix.insert(0, '\n');
            }
            pieces += frags.len() as u32;
            out.append(&mut frags);
        }
    }
    sent
}

/// `name` in the workspace's folder `dir` (`""`: the root).
fn at(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// A GEMINI.md: where it is and what it is called.
struct File {
    id: String,
    priority: i64,
    /// 2: the project's, in the first user message; 4: the user's, at the
    /// end of the system instruction.
    layer: u8,
    abs: String,
    /// Its path for its reader (the workspace's, or the user's folder's).
    rel: String,
    /// What its reader's paths are shown under (`~/.gemini/`; empty: the
    /// workspace's).
    shown: String,
}

/// One GEMINI.md as sent, its imports inlined, in pieces: the file's own
/// text up to each import it makes (the import's start marker included),
/// the imported file (its own pieces, named for it, around the imports it
/// makes in turn), and the rest after it. Joined by the block's newline,
/// the pieces are the bytes of the file as sent; the report then counts
/// every imported file, however deep, where the request's trace finds it.
fn context_file(
    r: &mut Reader,
    file: &File,
    text: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<FragmentDef> {
    let mut seen = BTreeSet::from([file.rel.clone()]);
    let mut cuts = Vec::new();
    let inlined = inline_imports(r, &file.rel, text, 1, &mut seen, &mut cuts, diags);
    let trimmed = inlined.trim();
    let lead = inlined.len() - inlined.trim_start().len();
    let head = format!("--- Context from: {} ---\n", file.abs);
    let body = format!("{head}{trimmed}\n--- End of Context from: {} ---", file.abs);
    let shift = head.len() - lead;
    for cut in &mut cuts {
        (cut.start, cut.end) = (cut.start + shift, cut.end + shift);
    }
    let mut split = Split {
        body: &body,
        file,
        ids: BTreeSet::new(),
        out: Vec::new(),
    };
    let whole = Cut {
        target: file.rel.clone(),
        start: 0,
        end: body.len(),
        line: 1,
    };
    split.owner(&whole, file.id.clone(), &cuts);
    split.out
}

/// A GEMINI.md as sent, cut into pieces at its imports.
struct Split<'a> {
    body: &'a str,
    file: &'a File,
    /// The fragment ids given so far (a file imported twice is inlined
    /// twice, and named apart).
    ids: BTreeSet<String>,
    out: Vec<FragmentDef>,
}

impl Split<'_> {
    /// The pieces of `owner` (the GEMINI.md itself, or a file it imports)
    /// named from `id`, and between them those of the imports it makes
    /// (`cuts`: in order, nested ones after the one holding them). An
    /// empty import stays in its importer's text (an empty fragment is not
    /// sent, and its line breaks would go with it).
    fn owner(&mut self, owner: &Cut, id: String, cuts: &[Cut]) {
        let (mut at, mut line, mut part) = (owner.start, owner.line, 1);
        let mut i = 0;
        while i < cuts.len() {
            let cut = &cuts[i];
            let inside = cuts[i + 1..]
                .iter()
                .take_while(|c| c.start < cut.end)
                .count();
            let nested = &cuts[i + 1..i + 1 + inside];
            i += 1 + inside;
            if self.body[cut.start..cut.end].trim().is_empty() {
                continue;
            }
            self.piece(&id, part, owner, (at, cut.start - 1), line);
            let name = format!("{}.import.{}", self.file.id, fragment_name(&cut.target));
            let taken = (1..).map(|n| match n {
                1 => name.clone(),
                n => format!("{name}.{n}"),
            });
            let import_id = taken
                .into_iter()
                .find(|id| !self.ids.contains(id))
                .unwrap_or(name);
            let inner = Cut {
                line: 1,
                ..cut.clone()
            };
            self.owner(&inner, import_id, nested);
            (at, line, part) = (cut.end + 1, cut.line, part + 1);
        }
        self.piece(&id, part, owner, (at, owner.end), line);
    }

    /// One piece, `body[from..to]`: its line breaks at either end are the
    /// join's, its Gemini CLI markers (`--- Context from: …` and its line
    /// break or an import's end before it, an import's start or `--- End
    /// of Context from: …` after it) are the agent's words.
    fn piece(
        &mut self,
        id: &str,
        part: usize,
        owner: &Cut,
        (from, to): (usize, usize),
        line: usize,
    ) {
        let raw = &self.body[from..to];
        let text = raw.trim_matches('\n');
        let lead = raw.len() - raw.trim_start_matches('\n').len();
        let mut f = base(
            match part {
                1 => id.to_string(),
                n => format!("{id}.part{n}"),
            },
            self.file.layer,
            self.file.priority,
            text.to_string(),
            &format!("{}{}", self.file.shown, owner.target),
            line,
            FragmentKind::Markdown,
        );
        f.prefix = raw[..lead].into();
        f.suffix = raw[lead + text.len()..].into();
        let head = if from == 0 {
            text.find('\n').map_or(0, |i| i + 1)
        } else if from > owner.start {
            text.find(" -->").map_or(0, |i| i + 4)
        } else {
            0
        };
        let tail = if to == self.body.len() {
            text.rfind("\n--- End of Context from: ")
                .map_or(0, |i| text.len() - i)
        } else if to < owner.end {
            text.rfind("<!-- Imported from: ")
                .map_or(0, |i| text.len() - i)
        } else {
            0
        };
        f.agent_words = (head + tail > 0).then_some(AgentWords {
            head,
            tail,
            kind: WordsKind::Markers,
        });
        f.interpolate = false;
        f.piece = self.out.len() as u32;
        self.ids.insert(f.id.clone());
        self.out.push(f);
    }
}

/// An imported file's path as a fragment name: `docs/style.md` is
/// `docs.style`.
fn fragment_name(path: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    stem.replace('/', ".")
}

/// Where the text of an import lies in the inlined text, the file it
/// imports, and the line of its importer it is made on.
#[derive(Clone)]
struct Cut {
    target: String,
    start: usize,
    end: usize,
    line: usize,
}

/// The folder's GEMINI.md, then those of its subfolders (breadth first,
/// sorted, hidden folders and `node_modules` left out), within bounds.
fn subfolder_files(r: &mut Reader) -> Vec<String> {
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<(String, usize)> =
        std::collections::VecDeque::from([(String::new(), 0)]);
    let mut folders = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        folders += 1;
        if folders > MAX_FOLDERS {
            break;
        }
        let listed = r.list(if dir.is_empty() { "." } else { &dir });
        for (name, is_dir) in listed {
            if !is_dir || NOT_OPENED.contains(&name.as_str()) || depth >= MAX_DEPTH {
                continue;
            }
            let sub = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            let file = format!("{sub}/GEMINI.md");
            if r.exists(&file) {
                out.push(file);
            }
            queue.push_back((sub, depth + 1));
        }
    }
    out
}

/// `text` of `rel` with each `@path` (after a space or at a line's start,
/// outside code) replaced by that file's text between Gemini CLI's
/// markers, followed `MAX_IMPORT_DEPTH` deep, where each lies in `cuts`
/// (in order, the ones nested in an import after it); a file imported
/// again in its own chain, or that cannot be read, is a marker and a
/// diagnostic. A file imported twice, not in its own chain, is inlined
/// twice, as Gemini CLI does.
fn inline_imports(
    r: &mut Reader,
    rel: &str,
    text: &str,
    depth: usize,
    seen: &mut BTreeSet<String>,
    cuts: &mut Vec<Cut>,
    diags: &mut Vec<Diagnostic>,
) -> String {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.contains('@') {
            out.push_str(line);
            continue;
        }
        let mut in_code = false;
        let mut rest = line;
        let mut prev = ' ';
        while let Some(c) = rest.chars().next() {
            if c == '`' {
                in_code = !in_code;
            }
            if c == '@' && !in_code && prev.is_whitespace() {
                // `@` is one byte: the path starts right after it.
                let token = &rest[1..];
                let end = token
                    .find(|c: char| c.is_whitespace())
                    .unwrap_or(token.len());
                let path = &token[..end];
                if !path.is_empty() && path.contains('.') {
                    let target = join(dir, path);
                    let at = (rel, n + 1, path);
                    match imported(r, at, target, depth, seen, diags) {
                        Import::Inlined {
                            target,
                            inner,
                            nested,
                        } => {
                            out.push_str(&format!("<!-- Imported from: {path} -->\n"));
                            let start = out.len();
                            cuts.push(Cut {
                                target,
                                start,
                                end: start + inner.len(),
                                line: n + 1,
                            });
                            cuts.extend(nested.into_iter().map(|c| Cut {
                                start: c.start + start,
                                end: c.end + start,
                                ..c
                            }));
                            out.push_str(&inner);
                            out.push_str(&format!("\n<!-- End of import from: {path} -->"));
                        }
                        Import::Marker(m) => out.push_str(&m),
                    }
                    rest = &token[end..];
                    prev = path.chars().last().unwrap_or(' ');
                    continue;
                }
            }
            out.push(c);
            prev = c;
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// What an `@path` becomes: the file's text (its own imports inlined),
/// or a marker saying why not.
enum Import {
    Inlined {
        target: String,
        inner: String,
        /// Where the imports it makes lie in `inner`.
        nested: Vec<Cut>,
    },
    Marker(String),
}

/// One import, made at `(file, line, as written)`.
fn imported(
    r: &mut Reader,
    (from, line, written): (&str, usize, &str),
    target: Option<String>,
    depth: usize,
    seen: &mut BTreeSet<String>,
    diags: &mut Vec<Diagnostic>,
) -> Import {
    let fail = |why: &str, diags: &mut Vec<Diagnostic>| {
        diags.push(Diagnostic::warning(
            from,
            Some(line),
            format!("@{written}: {why}"),
        ));
        Import::Marker(format!("<!-- Import failed: {written} - {why} -->"))
    };
    let Some(target) = target else {
        return fail("leaves the folder", diags);
    };
    if depth > MAX_IMPORT_DEPTH {
        return fail("imports nested deeper than 5", diags);
    }
    if !seen.insert(target.clone()) {
        return Import::Marker(format!("<!-- File already processed: {written} -->"));
    }
    let text = match r.read_checked(&target) {
        Ok(t) => t,
        Err((_, why)) => {
            seen.remove(&target);
            return fail(&why.to_string(), diags);
        }
    };
    let mut nested = Vec::new();
    let inner = inline_imports(r, &target, &text, depth + 1, seen, &mut nested, diags);
    seen.remove(&target);
    Import::Inlined {
        target,
        inner,
        nested,
    }
}

/// `path` relative to the folder `dir` (both workspace-relative), `..`
/// resolved; none when it leaves the folder or is absolute.
fn join(dir: &str, path: &str) -> Option<String> {
    if path.starts_with('/') || path.starts_with('~') {
        return None;
    }
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
        let mut seen = BTreeSet::new();
        let mut diags = Vec::new();
        let text = "é café @a.md — ü mail@x.org\n";
        let mut cuts = Vec::new();
        let out = inline_imports(
            &mut r,
            "GEMINI.md",
            text,
            1,
            &mut seen,
            &mut cuts,
            &mut diags,
        );
        assert_eq!(
            out,
            "é café <!-- Imported from: a.md -->\nÄ\n\n<!-- End of import from: a.md --> — ü mail@x.org\n"
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(&out[cuts[0].start..cuts[0].end], "Ä\n");
    }

    #[test]
    fn imports_resolve_inside_the_folder_only() {
        assert_eq!(join("docs", "style.md").as_deref(), Some("docs/style.md"));
        assert_eq!(join("docs", "../a.md").as_deref(), Some("a.md"));
        assert_eq!(join("", "../a.md"), None);
        assert_eq!(join("", "/etc/passwd"), None);
    }
}
