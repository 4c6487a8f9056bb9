//! A real request traced back to a workspace's files: where each file's
//! text appears in the request (which part, which characters), whether it
//! was sent whole, cut (the spans kept, the marker the agent put between
//! them) or not at all, and which text of each part comes from no file (the
//! agent's own prompt, its tools, runtime context).
//!
//! Matching is by lines, so that what agents do to whitespace (indentation,
//! runs of spaces, CRLF) does not matter: every line of the files that
//! says something (four characters or more, a letter or digit among them)
//! is indexed by the hash of its text with white space collapsed; a request
//! line is looked up once, and a run of consecutive file lines in the same
//! order is a span. The work is linear in the text of the request and the
//! files; a line found in many files is only followed, never a start.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde::Serialize;

use crate::assembly::tokens::Encoding;
use crate::{TokenCounter, clean};

/// How a file was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sent {
    /// Every line that says something is in the request.
    Whole,
    /// Some of its lines are, cut by the agent (its marker between the
    /// spans kept), or by no sign of a change since.
    Cut,
    /// Some of its lines are, and the file was modified after the request
    /// and the agent left no marker: it changed since, the agent cut
    /// nothing (what is not in the request was written after it).
    Changed,
    /// None.
    Absent,
}

/// A run of a file's lines found in one part of the request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    /// The part (`system block 2`, `message 1 (user)`).
    pub part: String,
    /// Character offsets of the span in the part's text.
    pub start: usize,
    pub end: usize,
    /// The file's lines it holds (1-based, inclusive).
    pub first_line: usize,
    pub last_line: usize,
    /// Tokens of the span as sent.
    pub tokens: u64,
}

/// One workspace file in the request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileInRequest {
    pub path: String,
    pub sent: Sent,
    /// Tokens of its text as sent (the spans').
    pub tokens: u64,
    /// Lines that say something: in the file, and found in the request.
    pub lines: usize,
    pub lines_sent: usize,
    /// What was left out although the file was otherwise whole
    /// (`frontmatter`, `HTML comments`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stripped: Vec<&'static str>,
    /// Ranges of lines (1-based, inclusive) of the file's body not sent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<(usize, usize)>,
    /// Text the agent put between two kept spans of the file (a truncation
    /// marker), as sent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<String>,
    /// Each part it is in, whole or cut there.
    pub occurrences: Vec<Occurrence>,
    pub spans: Vec<Span>,
    /// For a file that changed since the request: when it was modified and
    /// when the request was sent (Unix seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<(f64, f64)>,
}

/// A file in one part of the request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Occurrence {
    pub part: String,
    pub sent: Sent,
    /// Ranges of lines of the body not in this part.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<(usize, usize)>,
}

/// A part of the request and where its text comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartSource {
    pub label: String,
    pub tokens: u64,
    /// Tokens of the part from each file, in the order they appear.
    pub from_files: Vec<(String, u64)>,
    /// The rest: the agent's own text (its prompt, tools, runtime context).
    pub from_no_file: u64,
    /// The part is, as sent, one of the agent's own parts its profile
    /// recorded (`Claude Code 2.1.328: system prompt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// A request traced back to the files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    pub files: Vec<FileInRequest>,
    /// Files left out of the tracing by its caps, each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_traced: Vec<String>,
    pub parts: Vec<PartSource>,
    pub tokens: u64,
    /// Of them, from the workspace's files, and from none.
    pub from_files: u64,
    pub from_no_file: u64,
}

/// Largest marker kept between two spans (longer text is the agent's own
/// content, not a marker).
const MAX_MARKER_CHARS: usize = 400;

/// Files a line may be in and still start a span.
const MAX_STARTS: usize = 64;

/// Lines looked ahead to choose where a span starts.
const LOOKAHEAD: usize = 8;

/// Characters (white space aside) a line must have to be a span alone.
const LONE_LINE_CHARS: usize = 40;

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
struct Indexed {
    keys: Vec<(u64, usize)>,
    /// Line numbers inside frontmatter or an HTML comment.
    meta: Vec<Option<&'static str>>,
}

fn index_file(text: &str) -> Indexed {
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
struct ReqLine {
    key: u64,
    /// Characters, white space aside.
    len: usize,
    start: usize,
    end: usize,
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
fn request_lines(text: &str) -> Vec<ReqLine> {
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
struct Run {
    f: usize,
    from: usize,
    to: usize,
    rfrom: usize,
    rto: usize,
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
fn runs(
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
        // A single line says where it comes from only if it is long and
        // in one file.
        let alone = starts.len() == 1 && lines[j].len >= LONE_LINE_CHARS;
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

/// Traces `request` (a captured body) back to `files`; tokens are counted
/// with `enc`.
pub fn attribute(
    request: &crate::request::Request,
    files: &[SourceFile],
    counter: &TokenCounter,
    enc: Encoding,
) -> Attribution {
    let indexed: Vec<Indexed> = files.iter().map(|f| index_file(&f.text)).collect();
    let mut index: HashMap<u64, Vec<(usize, usize)>> = HashMap::new();
    for (f, ix) in indexed.iter().enumerate() {
        for (k, (key, _)) in ix.keys.iter().enumerate() {
            let starts = index.entry(*key).or_default();
            if starts.len() <= MAX_STARTS {
                starts.push((f, k));
            }
        }
    }
    let mut kept: Vec<Vec<bool>> = indexed
        .iter()
        .map(|ix| vec![false; ix.keys.len()])
        .collect();
    let mut spans: Vec<Vec<Span>> = vec![Vec::new(); files.len()];
    let mut markers: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    let mut parts = Vec::new();
    for crate::request::Position { label, text, .. } in request.positions() {
        let lines = request_lines(&text);
        let found = runs(&lines, &indexed, &index);
        let tokens = counter.count(enc, &text);
        let mut from_files: Vec<(String, u64)> = Vec::new();
        let mut last_end: Vec<Option<(usize, usize)>> = vec![None; files.len()];
        // Runs come in the part's order: character offsets counted on from
        // the last one, not from the part's start each time.
        let mut chars = CharCursor::default();
        for r in &found {
            let (start, end) = (lines[r.rfrom].start, lines[r.rto - 1].end);
            let n = counter.count(enc, &text[start..end]);
            kept[r.f][r.from..r.to].fill(true);
            // What the agent put between two spans of the same file.
            if let Some((prev_end, prev_to)) = last_end[r.f]
                && prev_to < r.from
            {
                let between = text[prev_end..start].trim();
                // Bytes first: a long gap is not counted character by
                // character for every span.
                if !between.is_empty()
                    && between.len() <= 4 * MAX_MARKER_CHARS
                    && between.chars().count() <= MAX_MARKER_CHARS
                {
                    markers[r.f].push(clean(between, MAX_MARKER_CHARS));
                }
            }
            last_end[r.f] = Some((end, r.to));
            let keys = &indexed[r.f].keys;
            spans[r.f].push(Span {
                part: label.clone(),
                start: chars.at(&text, start),
                end: chars.at(&text, end),
                first_line: keys[r.from].1,
                last_line: keys[r.to - 1].1,
                tokens: n,
            });
            match from_files.last_mut() {
                Some((p, t)) if *p == files[r.f].path => *t += n,
                _ => from_files.push((files[r.f].path.clone(), n)),
            }
        }
        let attributed: u64 = from_files.iter().map(|(_, t)| t).sum();
        parts.push(PartSource {
            label,
            tokens,
            from_files,
            from_no_file: tokens.saturating_sub(attributed),
            agent: None,
        });
    }
    let files: Vec<FileInRequest> = files
        .iter()
        .enumerate()
        .map(|(f, file)| {
            file_in_request(
                file,
                &indexed[f],
                &kept[f],
                std::mem::take(&mut spans[f]),
                std::mem::take(&mut markers[f]),
            )
        })
        .collect();
    let tokens = parts.iter().map(|p| p.tokens).sum();
    let from_no_file: u64 = parts.iter().map(|p| p.from_no_file).sum();
    Attribution {
        files,
        not_traced: Vec::new(),
        parts,
        tokens,
        from_files: tokens - from_no_file,
        from_no_file,
    }
}

/// Character offsets of byte offsets that never go back: each counted on
/// from the last (linear in the text for all of them).
#[derive(Default)]
struct CharCursor {
    byte: usize,
    chars: usize,
}

impl CharCursor {
    fn at(&mut self, text: &str, byte: usize) -> usize {
        if byte < self.byte {
            *self = CharCursor::default();
        }
        self.chars += text[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

/// What of a file's indexed lines is not in `kept`: the kinds of lines
/// stripped (frontmatter, comments) and the body's ranges of lines missing.
fn missing_of(ix: &Indexed, kept: &[bool]) -> (Vec<&'static str>, Vec<(usize, usize)>) {
    let mut stripped: Vec<&'static str> = Vec::new();
    let mut missing: Vec<(usize, usize)> = Vec::new();
    for (k, was) in kept.iter().enumerate() {
        if *was {
            continue;
        }
        match ix.meta[k] {
            Some(kind) if !stripped.contains(&kind) => stripped.push(kind),
            Some(_) => {}
            None => {
                let line = ix.keys[k].1;
                match missing.last_mut() {
                    Some((_, to)) if k > 0 && !kept[k - 1] && ix.meta[k - 1].is_none() => {
                        *to = line
                    }
                    _ => missing.push((line, line)),
                }
            }
        }
    }
    (stripped, missing)
}

fn status(lines_sent: usize, missing: &[(usize, usize)]) -> Sent {
    if lines_sent == 0 {
        Sent::Absent
    } else if missing.is_empty() {
        Sent::Whole
    } else {
        Sent::Cut
    }
}

/// Each part the file is in, whole or cut there (an agent that appends an
/// edited file keeps the old text in an earlier message).
fn occurrences(ix: &Indexed, spans: &[Span]) -> Vec<Occurrence> {
    let mut parts: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for s in spans {
        if seen.insert(s.part.as_str()) {
            parts.push(&s.part);
        }
    }
    parts
        .into_iter()
        .map(|part| {
            // Each span marks its own lines (found by binary search among
            // the indexed ones, which are in line order): linear in the
            // lines and spans, not their product.
            let mut kept = vec![false; ix.keys.len()];
            for s in spans.iter().filter(|s| s.part == part) {
                let from = ix.keys.partition_point(|&(_, l)| l < s.first_line);
                for (k, (_, line)) in ix.keys.iter().enumerate().skip(from) {
                    if *line > s.last_line {
                        break;
                    }
                    kept[k] = true;
                }
            }
            let (_, missing) = missing_of(ix, &kept);
            Occurrence {
                part: part.to_string(),
                sent: status(1, &missing),
                missing,
            }
        })
        .collect()
}

fn file_in_request(
    file: &SourceFile,
    ix: &Indexed,
    kept: &[bool],
    spans: Vec<Span>,
    markers: Vec<String>,
) -> FileInRequest {
    let lines_sent = kept.iter().filter(|k| **k).count();
    let (mut stripped, missing) = missing_of(ix, kept);
    let sent = status(lines_sent, &missing);
    if sent == Sent::Absent {
        stripped.clear();
    }
    FileInRequest {
        path: file.path.clone(),
        sent,
        tokens: spans.iter().map(|s| s.tokens).sum(),
        lines: ix.keys.len(),
        lines_sent,
        stripped,
        missing,
        markers,
        occurrences: occurrences(ix, &spans),
        spans,
        changed_since: None,
    }
}

/// Tells the files that changed after the request (modified later than
/// `sent_at`, lines missing and no marker of the agent's between the spans
/// kept) from the files the agent cut: only the latter stay [`Sent::Cut`].
pub fn mark_changed_since(a: &mut Attribution, files: &[SourceFile], sent_at: Option<f64>) {
    let Some(at) = sent_at else { return };
    let by_path: HashMap<&str, Option<f64>> = files
        .iter()
        .map(|s| (s.path.as_str(), s.modified))
        .collect();
    for f in &mut a.files {
        let modified = by_path.get(f.path.as_str()).copied().flatten();
        if f.sent == Sent::Cut
            && f.markers.is_empty()
            && let Some(m) = modified.filter(|m| *m > at)
        {
            f.sent = Sent::Changed;
            f.changed_since = Some((m, at));
            for oc in &mut f.occurrences {
                if oc.sent == Sent::Cut {
                    oc.sent = Sent::Changed;
                }
            }
        }
    }
}

pub use super::attribution_files::{
    MAX_FILES, MAX_TRACED_BYTES, MAX_TRACED_FILE_BYTES, SourceFile, Traced, workspace_files,
};
