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

#[path = "gemini_imports.rs"]
mod imports;
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
    // the start: listed, not sent, saying so; one elsewhere is not read.
    let mut ex = super::expand::Expander::new(p);
    let top = r.exists("GEMINI.md").then(|| "GEMINI.md".to_string());
    for rel in top.into_iter().chain(subfolder_files(r)) {
        let folder = rel
            .strip_suffix("GEMINI.md")
            .unwrap_or("")
            .trim_end_matches('/');
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
            not_read(p, r, workdir, folder)
        };
        let id = match folder {
            "" => "gemini".to_string(),
            f => format!("gemini.{}", f.replace('/', ".")),
        };
        let mut f = base(id, 2, 0, text, &rel, 1, FragmentKind::Markdown);
        f.interpolate = false;
        f.preset = Some(crate::workspace::types::Preset::Disabled(why));
        out.push(f);
    }
    ex.finish(diags);
}

/// Why the GEMINI.md of `folder` (`""`: the folder opened) is not read by
/// Gemini CLI run in `workdir`: above its repository's root, outside any
/// repository (its own folder's alone), or off its way.
fn not_read(p: &Profile, r: &Reader, workdir: &str, folder: &str) -> String {
    let above = folder.is_empty() || workdir.starts_with(&format!("{folder}/"));
    let agent = &p.agent;
    match r.git_root(workdir) {
        GitRoot::Inside(top) if above => format!(
            "not read: {agent} reads GEMINI.md up to the repository's root ({top}/, which holds .git), not above it"
        ),
        GitRoot::None if above => format!(
            "not read: outside a git repository {agent} reads only the GEMINI.md of the folder it runs in ({workdir}/)"
        ),
        _ => format!(
            "not read: {agent} runs in {workdir}/ (--workdir) and reads GEMINI.md there, above it up to the repository's root and below it"
        ),
    }
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
    let mut cuts = Vec::new();
    let inlined = imports::inlined(r, &file.rel, text, &mut cuts, diags);
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
