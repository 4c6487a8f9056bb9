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

use serde::Serialize;

use crate::assembly::tokens::Encoding;
use crate::{TokenCounter, clean};

#[path = "attribution_match.rs"]
mod matching;
use matching::{Indexed, index_file, request_lines, runs, starts_of, widened};
#[path = "attribution_listed.rs"]
mod listed;

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
    /// None of its lines, but its description (a skill's, a subagent's):
    /// the agent lists it and reads the body when it uses it.
    Listed,
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
    /// The file's description in the agent's listing, not its lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub listed: bool,
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
    /// Text no file holds between two of its lines that follow each other
    /// in the file today, as sent: the agent's own insertion, or, for a
    /// file modified after the request, what it held then ([`Sent::Changed`]
    /// with nothing missing: lines deleted since).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub between: Vec<String>,
    /// Each part it is in, whole or cut there.
    pub occurrences: Vec<Occurrence>,
    pub spans: Vec<Span>,
    /// For a file that changed since the request: when it was modified and
    /// when the request was sent (Unix seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<(f64, f64)>,
}

impl FileInRequest {
    /// How a file that changed since the request was sent, in words (one
    /// wording in every view).
    pub fn changed_words(&self) -> String {
        if self.missing.is_empty() {
            "changed since: every line of today's file sent, and text it no longer holds".into()
        } else {
            format!(
                "changed since: {} of {} lines as sent",
                self.lines_sent, self.lines
            )
        }
    }
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

/// What the agent put between two spans of the same file, when it is short
/// enough to be a marker (`... [truncated] ...`).
fn marker(between: &str) -> Option<String> {
    let between = between.trim();
    // Bytes first: a long gap is not counted character by character for
    // every span.
    (!between.is_empty()
        && between.len() <= 4 * MAX_MARKER_CHARS
        && between.chars().count() <= MAX_MARKER_CHARS)
        .then(|| clean(between, MAX_MARKER_CHARS))
}

/// Adds `n` tokens of file `path` to a part's files, in the part's order
/// (a file met again right after itself is one entry).
fn add_to(from_files: &mut Vec<(String, u64)>, path: &str, n: u64) {
    match from_files.last_mut() {
        Some((p, t)) if p == path => *t += n,
        _ => from_files.push((path.to_string(), n)),
    }
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
    let file_lines: Vec<Vec<&str>> = files.iter().map(|f| f.text.lines().collect()).collect();
    let mut t = Tracer {
        files,
        file_lines: &file_lines,
        index: starts_of(&indexed),
        kept: indexed
            .iter()
            .map(|ix| vec![false; ix.keys.len()])
            .collect(),
        indexed: &indexed,
        probes: listed::probes(files),
        counter,
        enc,
        spans: vec![Vec::new(); files.len()],
        markers: vec![Vec::new(); files.len()],
        between: vec![Vec::new(); files.len()],
    };
    let parts: Vec<PartSource> = request
        .positions()
        .into_iter()
        .map(|p| t.part(p.label, &p.text))
        .collect();
    let files: Vec<FileInRequest> = files
        .iter()
        .enumerate()
        .map(|(f, file)| {
            file_in_request(
                file,
                &indexed[f],
                &t.kept[f],
                std::mem::take(&mut t.spans[f]),
                (
                    std::mem::take(&mut t.markers[f]),
                    std::mem::take(&mut t.between[f]),
                ),
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

/// The tracing of one request's parts, one after the other: each file's
/// lines found so far, its spans and the agent's markers between them.
struct Tracer<'a> {
    files: &'a [SourceFile],
    /// Each file's lines, split once for [`widened`].
    file_lines: &'a [Vec<&'a str>],
    indexed: &'a [Indexed],
    index: HashMap<u64, Vec<(usize, usize)>>,
    probes: Vec<listed::Probe<'a>>,
    counter: &'a TokenCounter,
    enc: Encoding,
    kept: Vec<Vec<bool>>,
    spans: Vec<Vec<Span>>,
    markers: Vec<Vec<String>>,
    between: Vec<Vec<String>>,
}

impl Tracer<'_> {
    /// One part traced: its runs of file lines and the descriptions listed
    /// in it, in the part's order.
    fn part(&mut self, label: String, text: &str) -> PartSource {
        let lines = request_lines(text);
        let found = runs(&lines, self.indexed, &self.index);
        let tokens = self.counter.count(self.enc, text);
        let mut from_files: Vec<(String, u64)> = Vec::new();
        let mut last_end: Vec<Option<(usize, usize)>> = vec![None; self.files.len()];
        // Each run's bytes and the file's lines it holds, widened over the
        // file's lines no key holds that the request has around it.
        let widths: Vec<((usize, usize), (usize, usize))> = found
            .iter()
            .map(|r| {
                let keys = &self.indexed[r.f].keys;
                widened(
                    &self.file_lines[r.f],
                    text,
                    (lines[r.rfrom].start, lines[r.rto - 1].end),
                    (keys[r.from].1, keys[r.to - 1].1),
                )
            })
            .collect();
        let covered: Vec<(usize, usize)> = widths.iter().map(|w| w.0).collect();
        let mut listings = listed::find(text, &self.probes, &covered)
            .into_iter()
            .peekable();
        // Runs come in the part's order: character offsets counted on from
        // the last one, not from the part's start each time.
        let mut chars = CharCursor::default();
        // The file of the span before (a run's or a description's).
        let mut before = None;
        for (r, &((start, end), (first_line, last_line))) in found.iter().zip(&widths) {
            // The descriptions listed before this run.
            while let Some(l) = listings.next_if(|l| l.start < start) {
                let n = self.listed_span(&l, text, &label, &mut chars);
                add_to(&mut from_files, &self.files[l.file].path, n);
                before = Some(l.file);
            }
            let n = self.counter.count(self.enc, &text[start..end]);
            self.kept[r.f][r.from..r.to].fill(true);
            // What the agent put between two spans of the same file: in
            // place of lines it left out (a marker), or between two lines
            // that follow each other, no other file's text in between.
            if let Some((prev_end, prev_to)) = last_end[r.f]
                && let Some(m) = marker(&text[prev_end..start])
            {
                if prev_to < r.from {
                    self.markers[r.f].push(m);
                } else if prev_to == r.from && before == Some(r.f) {
                    self.between[r.f].push(m);
                }
            }
            last_end[r.f] = Some((end, r.to));
            before = Some(r.f);
            self.spans[r.f].push(Span {
                part: label.clone(),
                start: chars.at(text, start),
                end: chars.at(text, end),
                first_line,
                last_line,
                tokens: n,
                listed: false,
            });
            add_to(&mut from_files, &self.files[r.f].path, n);
        }
        for l in listings {
            let n = self.listed_span(&l, text, &label, &mut chars);
            add_to(&mut from_files, &self.files[l.file].path, n);
        }
        let attributed: u64 = from_files.iter().map(|(_, t)| t).sum();
        PartSource {
            label,
            tokens,
            from_files,
            from_no_file: tokens.saturating_sub(attributed),
            agent: None,
        }
    }

    /// A file's description found in a part: its span (tokens as sent).
    fn listed_span(
        &mut self,
        l: &listed::Listing,
        text: &str,
        part: &str,
        chars: &mut CharCursor,
    ) -> u64 {
        let n = self.counter.count(self.enc, &text[l.start..l.end]);
        self.spans[l.file].push(Span {
            part: part.to_string(),
            start: chars.at(text, l.start),
            end: chars.at(text, l.end),
            first_line: l.line,
            last_line: l.line,
            tokens: n,
            listed: true,
        });
        n
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
            let here: Vec<&Span> = spans.iter().filter(|s| s.part == part).collect();
            if here.iter().all(|s| s.listed) {
                return Occurrence {
                    part: part.to_string(),
                    sent: Sent::Listed,
                    missing: Vec::new(),
                };
            }
            for s in here.into_iter().filter(|s| !s.listed) {
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
    (markers, between): (Vec<String>, Vec<String>),
) -> FileInRequest {
    let lines_sent = kept.iter().filter(|k| **k).count();
    let (mut stripped, missing) = missing_of(ix, kept);
    let sent = match status(lines_sent, &missing) {
        Sent::Absent if !spans.is_empty() => Sent::Listed,
        s => s,
    };
    if matches!(sent, Sent::Absent | Sent::Listed) {
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
        between,
        occurrences: occurrences(ix, &spans),
        spans,
        changed_since: None,
    }
}

/// Tells the files that changed after the request (modified later than
/// `sent_at`, lines missing and no marker of the agent's between the spans
/// kept) from the files the agent cut: only the latter stay [`Sent::Cut`].
/// A file sent whole with text between two of its lines that no file
/// holds, modified after the request, changed since too: it held that
/// text then (lines deleted since).
pub fn mark_changed_since(a: &mut Attribution, files: &[SourceFile], sent_at: Option<f64>) {
    let Some(at) = sent_at else { return };
    let by_path: HashMap<&str, Option<f64>> = files
        .iter()
        .map(|s| (s.path.as_str(), s.modified))
        .collect();
    for f in &mut a.files {
        let modified = by_path.get(f.path.as_str()).copied().flatten();
        // Text between two of its spans that is no agent's cut marker is
        // the file's own, as it was when sent.
        let grown = f.sent == Sent::Whole && !f.between.is_empty();
        if (f.sent == Sent::Cut || grown)
            && !f.markers.iter().any(|m| says_cut(m))
            && let Some(m) = modified.filter(|m| *m > at)
        {
            f.sent = Sent::Changed;
            f.changed_since = Some((m, at));
            for oc in &mut f.occurrences {
                if oc.sent == Sent::Cut || (grown && oc.sent == Sent::Whole) {
                    oc.sent = Sent::Changed;
                }
            }
        }
    }
}

/// Whether text between two spans of a file reads as an agent's mark of
/// a cut (`[...truncated...]`, `… (omitted)`), not as the file's own
/// words.
fn says_cut(marker: &str) -> bool {
    let m = marker.to_lowercase();
    ["truncat", "omitted", "[...]", "…"]
        .iter()
        .any(|w| m.contains(w))
}

pub use super::attribution_files::{
    MAX_FILES, MAX_TRACED_BYTES, MAX_TRACED_FILE_BYTES, SourceFile, Traced, workspace_files,
};
