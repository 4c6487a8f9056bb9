//! The matcher of a request's lines to the files' lines: each file's lines
//! that say something indexed by the hash of their text with white space
//! collapsed, a request's lines (Gemini CLI's inlined imports rejoined to
//! the line that named them), and the runs of consecutive file lines in the
//! same order, each a span. Linear in the request and the files.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Files a line may be in and still start a span.
const MAX_STARTS: usize = 64;

/// Lines looked ahead to choose where a span starts.
const LOOKAHEAD: usize = 8;

/// Characters (white space aside) a line must have to be a span alone.
const LONE_LINE_CHARS: usize = 40;

/// Lines of the file, and of the request, a single line may be past the
/// run before it and still go on with it (a line edited between them).
const GAP: usize = 3;

/// A line's text with white space collapsed, and its hash; None when it
/// says nothing (under four characters, or no letter or digit).
fn line_key(line: &str) -> Option<u64> {
    line_key_len(line).map(|(k, _)| k)
}

/// [`line_key`] and the line's characters, white space aside.
fn line_key_len(line: &str) -> Option<(u64, usize)> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let (mut n, mut any, mut space) = (0usize, false, false);
    for c in line.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            ' '.hash(&mut h);
            space = false;
        }
        c.hash(&mut h);
        n += 1;
        any |= c.is_alphanumeric();
    }
    (n >= 4 && any).then(|| (h.finish(), n))
}

/// A file's lines that say something: (hash, line number 1-based).
pub(super) struct Indexed {
    pub(super) keys: Vec<(u64, usize)>,
    /// Line numbers inside frontmatter or an HTML comment.
    pub(super) meta: Vec<Option<&'static str>>,
}

pub(super) fn index_file(text: &str) -> Indexed {
    let (mut keys, mut meta) = (Vec::new(), Vec::new());
    let mut in_front = text.starts_with("---");
    let mut in_comment = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let kind = if in_front {
            if i > 0 && (t == "---" || t == "...") {
                in_front = false;
            }
            Some("frontmatter")
        } else if in_comment || t.starts_with("<!--") {
            in_comment = !t.contains("-->");
            Some("HTML comments")
        } else {
            None
        };
        if let Some(k) = line_key(line) {
            keys.push((k, i + 1));
            meta.push(kind);
        }
    }
    Indexed { keys, meta }
}

/// A request line that says something: its hash and byte range in the part.
pub(super) struct ReqLine {
    pub(super) key: u64,
    /// Characters, white space aside.
    pub(super) len: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// How Gemini CLI inlines a memory file's `@path` import: the line's text
/// before it, this and the path, ` -->`, the imported file, then
/// [`IMPORT_END`], the path, ` -->` and the line's text after it.
const IMPORT_START: &str = "<!-- Imported from: ";
const IMPORT_END: &str = "<!-- End of import from: ";

/// An import inlined in the request, from its first line to its last.
struct Inlined {
    path: String,
    /// The importing line's text before the import, and where it is.
    before: String,
    start: usize,
    /// Where the importing line goes in the request's lines.
    at: usize,
}

/// The request's lines that say something. A line whose `@path` import the
/// agent inlined (Gemini CLI) is one line again, as the file has it (the
/// text before the import, `@path`, the text after it), placed before the
/// imported lines: the file's lines follow on, and so do the import's.
pub(super) fn request_lines(text: &str) -> Vec<ReqLine> {
    let mut out = Vec::new();
    let mut open: Vec<Inlined> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(i) = body.find(IMPORT_START)
            && let Some(path) = body[i + IMPORT_START.len()..].strip_suffix(" -->")
            && open.len() < 16
        {
            open.push(Inlined {
                path: path.to_string(),
                before: body[..i].to_string(),
                start: at,
                at: out.len(),
            });
            at += line.len();
            continue;
        }
        let closing = body.trim_start().strip_prefix(IMPORT_END).and_then(|rest| {
            let (path, after) = rest.split_once(" -->")?;
            open.last().filter(|o| o.path == path).map(|_| after)
        });
        if let (Some(after), Some(o)) = (closing, open.last()) {
            let joined = format!("{}@{}{after}", o.before, o.path);
            if let Some((key, len)) = line_key_len(&joined) {
                let end = o.start + o.before.len();
                out.insert(
                    o.at,
                    ReqLine {
                        key,
                        len,
                        start: o.start,
                        end,
                    },
                );
            }
            open.pop();
            at += line.len();
            continue;
        }
        if let Some((key, len)) = line_key_len(body) {
            out.push(ReqLine {
                key,
                len,
                start: at,
                end: at + body.len(),
            });
        }
        at += line.len();
    }
    out
}

/// A run: file `f`, its indexed lines `from..to`, request lines `rfrom..rto`.
pub(super) struct Run {
    pub(super) f: usize,
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) rfrom: usize,
    pub(super) rto: usize,
}

/// How many request lines from `j` follow file `f` from its indexed line `k`.
fn run_length(
    lines: &[ReqLine],
    j: usize,
    files: &[Indexed],
    f: usize,
    k: usize,
    max: usize,
) -> usize {
    let keys = &files[f].keys;
    (0..max)
        .take_while(|d| {
            j + d < lines.len() && k + d < keys.len() && keys[k + d].0 == lines[j + d].key
        })
        .count()
}

/// The runs of one part's lines.
pub(super) fn runs(
    lines: &[ReqLine],
    files: &[Indexed],
    index: &HashMap<u64, Vec<(usize, usize)>>,
) -> Vec<Run> {
    let mut out = Vec::new();
    let mut j = 0;
    while j < lines.len() {
        let starts = index.get(&lines[j].key).map_or(&[][..], Vec::as_slice);
        let best = starts
            .iter()
            .take(MAX_STARTS)
            .map(|&(f, k)| (run_length(lines, j, files, f, k, LOOKAHEAD), f, k))
            .max_by_key(|&(n, _, _)| n);
        let Some((_, f, k)) = best else {
            j += 1;
            continue;
        };
        // Followed as far as it goes.
        let n = run_length(lines, j, files, f, k, usize::MAX);
        // A single line says where it comes from only if it is in one file
        // and long, or close after a run of the same file (the line
        // between them edited since), or the only line of a file that says
        // anything (a rule of one short line: the whole file).
        let near = out.last().is_some_and(|r: &Run| {
            r.f == f && (r.to..=r.to + GAP).contains(&k) && (r.rto..=r.rto + GAP).contains(&j)
        });
        let whole = files[f].keys.len() == 1;
        let alone = starts.len() == 1 && (lines[j].len >= LONE_LINE_CHARS || near || whole);
        if n >= 2 || alone {
            out.push(Run {
                f,
                from: k,
                to: k + n,
                rfrom: j,
                rto: j + n,
            });
        }
        j += n.max(1);
    }
    out
}

/// Where each line key of the files starts: (file, line key), at most
/// `MAX_STARTS` + 1 places a key.
pub(super) fn starts_of(indexed: &[Indexed]) -> HashMap<u64, Vec<(usize, usize)>> {
    let mut index: HashMap<u64, Vec<(usize, usize)>> = HashMap::new();
    for (f, ix) in indexed.iter().enumerate() {
        for (k, (key, _)) in ix.keys.iter().enumerate() {
            let starts = index.entry(*key).or_default();
            if starts.len() <= MAX_STARTS {
                starts.push((f, k));
            }
        }
    }
    index
}

/// Most lines a span is widened by at either end ([`widened`]).
const MAX_WIDENED: usize = 16;

/// A span of the file's lines `first..=last` (1-based) found at
/// `text[start..end]`, widened over the file's lines next to it that no
/// line key holds (a short heading such as `# Go`, a blank line between)
/// where the request has them too, verbatim and whole: the span then holds
/// the file's text as the other views count it. A blank line is taken
/// only with a line past it. `lines` are the file's lines, split once
/// per file by the caller.
pub(super) fn widened(
    lines: &[&str],
    text: &str,
    (start, end): (usize, usize),
    (first, last): (usize, usize),
) -> ((usize, usize), (usize, usize)) {
    let plain = |l: &str| line_key(l).is_none();
    let (mut s, mut f) = (start, first);
    let (mut at, mut line) = (start, first);
    while line > 1 && first - line < MAX_WIDENED {
        let prev = lines[line - 2];
        let before = &text[..at];
        if !plain(prev) || !before.ends_with('\n') || !before[..at - 1].ends_with(prev) {
            break;
        }
        at -= prev.len() + 1;
        line -= 1;
        // A line that starts the text, or follows a line break.
        if at > 0 && !text[..at].ends_with('\n') {
            break;
        }
        if !prev.trim().is_empty() {
            (s, f) = (at, line);
        }
    }
    let (mut e, mut l) = (end, last);
    let (mut at, mut line) = (end, last);
    while line < lines.len() && line - last < MAX_WIDENED {
        let next = lines[line];
        let after = &text[at..];
        if !plain(next) || !after.starts_with('\n') || !after[1..].starts_with(next) {
            break;
        }
        at += next.len() + 1;
        line += 1;
        if at < text.len() && !text[at..].starts_with('\n') {
            break;
        }
        if !next.trim().is_empty() {
            (e, l) = (at, line);
        }
    }
    ((s, e), (f, l))
}
