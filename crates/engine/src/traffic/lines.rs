//! A traffic file read line by line, within bounds: at most [`MAX_LINES`]
//! lines, and the requests kept from them at most [`MAX_VALUES`] JSON
//! values in all. Each line becomes what the views need as it is read (its
//! request moved out of it, the rest dropped), so neither the whole file nor
//! a tree per line is held; what was not read is counted in [`Skipped`].

use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use super::parse::{Sent, Transcript, capture_exchanges, sent};
use super::{CaptureLine, Exchange, Source};
use crate::workspace::line_file::{LineFile, Span};

mod head;
mod parallel;
mod skipped;
mod values;

use head::{Parsed, prepare};
pub(super) use parallel::{BATCH_BYTES, BATCH_ITEMS, with_crew};
pub use skipped::Skipped;
pub use values::estimate_values;
use values::parse_cost;

/// Lines read at most (a transcript of a very long session is cut there).
pub const MAX_LINES: usize = 200_000;

/// Largest traffic file read whole, its requests held (a capture or a
/// transcript, for a request's diff or trace).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Largest traffic file analysed ([`read_file_lazy`]): a capture's
/// requests are read again one at a time, so its size costs time, not
/// memory.
pub const MAX_STREAMED_BYTES: u64 = 1 << 40;

/// Longest line read when a file is streamed (a capture's line holds one
/// request of at most 16 MiB and a copy of its answer).
pub const MAX_LINE_BYTES: u64 = 64 * 1024 * 1024;

/// Files read at most from a folder (a project's transcripts, all of
/// `~/.claude/projects`, `~/.codex/sessions`); they share [`MAX_LINES`]
/// and [`MAX_VALUES`].
pub const MAX_FILES: usize = 10_000;

/// Folders gone down at most from the one named (`projects/P/S/subagents`,
/// `sessions/YYYY/MM/DD`).
const MAX_DEPTH: usize = 4;

/// JSON values (object keys included) the requests kept from one file may
/// hold in all. A parsed value costs 80 bytes or more (a one-key object
/// about 530 for its three, an array of one about 400 for its two), and
/// each position of a request (a message, a block) becomes a part of about
/// 72 bytes in every view. Measured on files of [`MAX_FILE_BYTES`] made of
/// tiny values (`[{},…]`, `[{"a":0},…]`, `[{"a":[0]},…]`, a line of long
/// keys) and on 200,000 small requests, the peak stays under 900 MB with
/// this budget (text or JSON), where such files took 20 to 30 times their
/// size. Real captures hold far fewer values than bytes (a text is one
/// value however long).
pub const MAX_VALUES: usize = 4_000_000;

/// The exchanges of a traffic file, built as its lines come.
#[derive(Default)]
pub struct Lines {
    skipped: Skipped,
    /// Lines seen (blank ones too).
    seen: usize,
    /// Lines seen of the file being read, and its name when several are.
    line_in_file: usize,
    file: Option<String>,
    /// Values held by the requests kept.
    values: usize,
    /// A line was a JSON object.
    any: bool,
    /// A line was a capture exchange (endpoint, request).
    capture: bool,
    /// A line was a transcript entry (sessionId, message).
    transcript: bool,
    sent: Vec<Sent>,
    entries: Transcript,
    /// A line was a Codex session file's line.
    codex: bool,
    rollout: super::codex::Rollout,
    pi: bool,
    /// Lines of an OpenClaw trajectory export met (read by Pi's reader).
    openclaw: bool,
    pi_session: super::pi_session::PiSession,
    gemini: super::gemini_session::GeminiSession,
    /// Streamed: a capture's requests are left in the file (where each
    /// line is, to read it again), not held.
    lazy: bool,
    /// The file being read (its index) and where the line is in it.
    file_index: usize,
    span: Option<Span>,
    /// Requests left in their file so far.
    left_in_file: usize,
}

/// Where a capture line is, to read its request again.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BodyAt {
    pub file: usize,
    pub span: Span,
}

/// The files of a streamed read, open, to read each request again when it
/// is analysed.
#[derive(Debug, Default)]
pub struct Bodies {
    /// By file index: the files some request was left in (the others are
    /// closed at once).
    files: Vec<Option<LineFile>>,
}

/// Files held open at most for their requests; a folder's later captures
/// are held in memory as [`read_file`] holds them.
const MAX_OPEN: usize = 256;

/// What a file of no JSON lines is not (OpenCode's record is its
/// database, read by the app).
const NOT_A_RECORD: &str = "neither a capture nor the record of an agent this tool reads (Claude Code, Codex, Gemini CLI, Pi or OpenClaw session files, or OpenCode's opencode.db)";

impl Bodies {
    /// The line of `x`'s request when it was left in its file and is not
    /// back yet.
    fn line_of(&self, x: &Exchange) -> Option<String> {
        let (None, Some(at)) = (&x.request, x.body) else {
            return None;
        };
        let Some(Some(f)) = self.files.get(at.file) else {
            return None;
        };
        f.read_span(at.span).ok()
    }

    /// Puts `x`'s request back from its file (when it was left there).
    pub fn load(&self, x: &mut Exchange) {
        if let Some(line) = self.line_of(x) {
            x.request = head::recorded_request(&line).map(std::sync::Arc::new);
        }
    }

    /// Puts `x`'s request back with its headers and its answer's body (for
    /// the requests a view shows: the analysis reads the request alone).
    pub fn load_with_wire(&self, x: &mut Exchange) {
        if let Some(line) = self.line_of(x) {
            x.request = head::recorded_request(&line).map(std::sync::Arc::new);
            let wire = super::Wire::of_line(&line);
            x.headers = wire.headers.map(Box::new);
            x.response = wire.response.map(Into::into);
        }
    }
}

impl Lines {
    /// Reads the next line (without its line ending; tests).
    #[cfg(test)]
    pub fn push(&mut self, line: &str) {
        self.push_parsed(line, None)
    }

    /// Reads the next line, parsed already (on another core) when `parsed`
    /// holds it (taken only where it would have been parsed).
    pub(super) fn push_parsed(&mut self, line: &str, parsed: Option<(usize, Option<Parsed>)>) {
        let i = self.line_in_file;
        self.line_in_file += 1;
        self.seen += 1;
        if self.seen > MAX_LINES {
            self.skipped.beyond_limit += 1;
            return;
        }
        if line.trim().is_empty() {
            return;
        }
        // The reader's stand-in for a line it did not hold (the only line
        // without a place that reads so).
        if self.span.is_none() && line == crate::workspace::line_file::LONG_LINE {
            self.skipped.too_long += 1;
            self.skipped.first_too_long.get_or_insert(i + 1);
            return;
        }
        // A line is parsed only if its tree fits beside what is held; its
        // text, held with the tree while it is parsed, counts one value per
        // 128 bytes.
        let (cost, parsed) = match parsed {
            Some((cost, v)) => (cost, v),
            None => (parse_cost(line), None),
        };
        if self.values.saturating_add(cost) > MAX_VALUES {
            self.skipped.over_budget += 1;
            self.skipped.first_over_budget.get_or_insert(i + 1);
            return;
        }
        let lazy = self.lazy && self.span.is_some();
        let parsed = parsed.unwrap_or_else(|| prepare(head::first_pass(line, lazy), lazy));
        match parsed {
            Parsed::Exchange { sent, transcript } => {
                if let Some(f) = sent.as_ref().and_then(|s| s.unreadable_usage.as_ref()) {
                    let k = &mut self.skipped;
                    k.usage_unread += 1;
                    if k.first_usage_unread.is_none() {
                        k.first_usage_unread = Some(i + 1);
                        k.usage_unread_figure = Some(f.clone());
                    }
                }
                self.exchange(sent, transcript)
            }
            Parsed::Line(Ok(v)) if v.is_object() => self.object(v),
            Parsed::Line(_) => {
                self.skipped.lines += 1;
                if self.skipped.first.is_none() {
                    self.skipped.first = Some(i + 1);
                    self.skipped.first_file = self.file.clone();
                }
            }
        }
    }

    /// A line that is not a capture's exchange ([`prepare`] made those).
    fn object(&mut self, v: Value) {
        self.any = true;
        if super::codex::is_rollout_line(&v) {
            self.codex = true;
            self.rollout.push(&v);
            return;
        }
        if !self.capture && super::gemini_session::is_session_line(&v, self.gemini.seen) {
            self.gemini.push(&v);
            // A line of it met: the messages and updates after it are its.
            self.gemini.seen = true;
            return;
        }
        if !self.capture && v["traceSchema"] == "openclaw-trajectory" {
            self.openclaw = true;
            self.pi_session.push_trajectory(&v);
            return;
        }
        if !self.capture && super::pi_session::is_session_line(&v) {
            self.pi = true;
            self.pi_session.push(&v);
            return;
        }
        self.transcript |= v.get("sessionId").is_some() || v.get("message").is_some();
        if self.capture {
            // A capture's exchanges are its requests: transcript entries
            // are no longer needed.
            self.entries = Transcript::default();
        } else {
            self.entries.push(&v);
        }
        // Only the request is kept (the rest of the line is dropped here).
        if v.get("request").is_some() {
            let lazy = self.lazy && self.span.is_some();
            let sent = CaptureLine::from_value(v).and_then(|l| sent(l, lazy));
            self.keep(sent);
        }
    }

    /// A capture's exchange (an object with `endpoint` and `request`).
    fn exchange(&mut self, sent: Option<Sent>, transcript: bool) {
        self.any = true;
        self.capture = true;
        self.transcript |= transcript;
        // A capture's exchanges are its requests: transcript entries are
        // no longer needed.
        self.entries = Transcript::default();
        self.keep(sent);
    }

    fn keep(&mut self, sent: Option<Sent>) {
        let Some(mut s) = sent else { return };
        match (self.lazy, self.span) {
            // Left in the file, read again when it is analysed.
            (true, Some(span)) => {
                s.x.body = Some(BodyAt {
                    file: self.file_index,
                    span,
                });
                self.left_in_file += 1;
            }
            _ => self.values += s.values,
        }
        self.sent.push(s);
    }

    /// Tells the two formats apart by their fields and returns the
    /// exchanges, in the order they were sent.
    /// The error's place is left empty: the caller names the file.
    pub fn finish(self) -> Result<(Source, Vec<Exchange>, Skipped), crate::error::Error> {
        use crate::error::Error;
        // An empty file (a proxy just started): an empty capture, not an
        // error.
        let unparsed = self.skipped.over_budget + self.skipped.too_long;
        if !self.any && self.skipped.lines == 0 && unparsed == 0 {
            return Ok((Source::Capture, Vec::new(), self.skipped));
        }
        if !self.any {
            return Err(Error::invalid(
                "",
                match self.skipped.describe() {
                    Some(d) if unparsed > 0 => format!("nothing read: {d}"),
                    Some(d) => format!("no JSON lines ({d}): {NOT_A_RECORD}"),
                    None => format!("no JSON lines: {NOT_A_RECORD}"),
                },
            ));
        }
        if self.capture {
            let mut sent = self.sent;
            let mut skipped = self.skipped;
            skipped.repeated = super::parse::without_repeats(&mut sent);
            Ok((Source::Capture, capture_exchanges(sent), skipped))
        } else if self.openclaw {
            Ok((Source::OpenClaw, self.pi_session.finish(), self.skipped))
        } else if self.gemini.seen && !self.transcript {
            Ok((Source::Gemini, self.gemini.finish(), self.skipped))
        } else if self.transcript {
            Ok((Source::ClaudeCode, self.entries.finish(), self.skipped))
        } else if self.codex {
            Ok((Source::Codex, self.rollout.finish(), self.skipped))
        } else if self.pi {
            Ok((Source::Pi, self.pi_session.finish(), self.skipped))
        } else {
            Err(Error::invalid(
                "",
                "the lines are JSON but neither capture exchanges (endpoint, request) nor transcript entries (Claude Code's sessionId, message; Codex's type, payload)",
            ))
        }
    }
}

/// The files `path` names: a folder's `*.jsonl` files (a Claude Code
/// project folder or all of `~/.claude/projects`, Codex's sessions folder),
/// or one file with its session's subagents
/// (`SESSION/subagents/agent-*.jsonl` beside `SESSION.jsonl`).
fn files_of(path: &Path) -> Result<(Vec<std::path::PathBuf>, bool), crate::error::Error> {
    use crate::workspace::reader::files_under;
    if let Ok((files, more)) = files_under(path, "jsonl", MAX_DEPTH, MAX_FILES) {
        if files.is_empty() {
            // OpenCode keeps its sessions in a database, not in lines.
            let db = path.join("opencode.db");
            let why = if crate::workspace::reader::is_regular_file(&db) {
                format!(
                    "no .jsonl file in this folder; it holds OpenCode's opencode.db: `prompt-inspector traffic {}` reads it",
                    crate::clean(&db.display().to_string(), 500)
                )
            } else {
                "no .jsonl file in this folder".to_string()
            };
            return Err(crate::error::Error::file(path.display(), why));
        }
        return Ok((files, more));
    }
    let mut files = vec![path.to_path_buf()];
    let subagents = path.with_extension("").join("subagents");
    if path.extension().is_some_and(|x| x == "jsonl")
        && let Ok((more, _)) = files_under(&subagents, "jsonl", 0, MAX_FILES)
    {
        files.extend(more);
    }
    Ok((files, false))
}

/// Reads a capture or a transcript from disk line by line through the
/// guarded reader (each a regular file of at most [`MAX_FILE_BYTES`]): a
/// file with its subagents' files, or a folder's files (a file of a folder
/// that cannot be read is named in what was skipped); errors name the file.
/// Every request is held.
pub fn read_file(path: &Path) -> Result<(Source, Vec<Exchange>, Skipped), crate::error::Error> {
    read_files(path, false, &mut |_| ControlFlow::Continue(())).map(|(s, x, k, _)| (s, x, k))
}

/// [`read_file`] for an analysis, streamed: files of up to
/// [`MAX_STREAMED_BYTES`], a capture's requests left in their file (each
/// read again by [`Bodies::load`] when its turn comes), so what is held is
/// a summary per request and one request at a time.
pub fn read_file_lazy(
    path: &Path,
) -> Result<(Source, Vec<Exchange>, Skipped, Bodies), crate::error::Error> {
    read_files(path, true, &mut |_| ControlFlow::Continue(()))
}

/// How far a long read or analysis has come (for a progress bar).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// Bytes of the file(s) read, of the total.
    Reading { bytes: u64, total: u64 },
    /// Requests explained, of the total.
    Explaining { done: usize, total: usize },
}

/// Bytes read between two [`Progress::Reading`] reports.
const REPORT_BYTES: u64 = 4 << 20;

/// [`read_file`] for some requests only: the file streamed, and the
/// requests `wanted` (1-based, as listed; none: the last with a body) read
/// again with the previous request of each one's chain (what it is
/// compared with). What a diff or a trace needs, from a capture of any size.
pub fn read_file_for(
    path: &Path,
    wanted: &[usize],
) -> Result<(Source, Vec<Exchange>, Skipped), crate::error::Error> {
    let (source, mut x, skipped, bodies) = read_file_lazy(path)?;
    let mut idx: Vec<usize> = wanted
        .iter()
        .filter(|&&n| n >= 1 && n <= x.len())
        .map(|n| n - 1)
        .collect();
    if wanted.is_empty()
        && let Some(i) = x
            .iter()
            .rposition(|e| e.request.is_some() || e.body.is_some())
    {
        idx.push(i);
    }
    // The request before each in its chain (a diff's), and its chain's
    // first (what the agent sent before anything was loaded on the way).
    for i in idx.clone() {
        let same = |e: &Exchange| e.chain == x[i].chain;
        idx.extend(x[..i].iter().rposition(same));
        idx.extend(x[..i].iter().position(same));
    }
    for i in idx {
        bodies.load_with_wire(&mut x[i]);
    }
    Ok((source, x, skipped))
}

/// [`read_file_lazy`], saying how far it has come.
pub fn read_file_lazy_with(
    path: &Path,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(Source, Vec<Exchange>, Skipped, Bodies), crate::error::Error> {
    read_files(path, true, progress)
}

fn read_files(
    path: &Path,
    lazy: bool,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(Source, Vec<Exchange>, Skipped, Bodies), crate::error::Error> {
    let (files, more) = files_of(path)?;
    let total: u64 = files
        .iter()
        .map(|f| crate::workspace::reader::size_of(f))
        .sum();
    let (mut done, mut reported) = (0u64, 0u64);
    let mut lines = Lines {
        lazy,
        ..Lines::default()
    };
    let mut bodies = Bodies::default();
    let several = files.len() > 1;
    let (max, max_line) = if lazy {
        (MAX_STREAMED_BYTES, MAX_LINE_BYTES)
    } else {
        (MAX_FILE_BYTES, MAX_FILE_BYTES)
    };
    // The lines are parsed on every core, by threads that last the read.
    let parse: &(dyn Fn(&mut parallel::Waiting) -> parallel::Prepared + Sync) =
        &parallel::parse_waiting;
    parallel::with_crew(parse, |crew| -> Result<(), crate::error::Error> {
        for f in &files {
            lines.line_in_file = 0;
            lines.file_index = bodies.files.len();
            lines.lazy = lazy && bodies.files.iter().flatten().count() < MAX_OPEN;
            let before = lines.left_in_file;
            if several {
                lines.file = Some(crate::clean(&f.display().to_string(), 300));
            }
            let read = LineFile::open(f, max).and_then(|file| {
                let mut batch = parallel::Batch::new(crew);
                let read = file.for_each_line_until(max, max_line, |l, span| {
                    batch.add(l, span, &mut lines);
                    done += l.len() as u64 + 1;
                    if done - reported >= REPORT_BYTES {
                        reported = done;
                        return progress(Progress::Reading {
                            bytes: done.min(total),
                            total,
                        });
                    }
                    ControlFlow::Continue(())
                });
                batch.flush(&mut lines);
                // Kept open only if a request was left in it.
                bodies
                    .files
                    .push((lines.left_in_file > before).then_some(file));
                read
            });
            // One entry per file, read or not: indices stay those of the files.
            if bodies.files.len() == lines.file_index {
                bodies.files.push(None);
            }
            match read {
                Ok(ControlFlow::Break(())) => return Err(crate::error::Error::Cancelled),
                Err(e) if f != path => lines.skipped.unread.push(crate::clean(&e.to_string(), 500)),
                Err(e) => return Err(e),
                Ok(ControlFlow::Continue(())) => {}
            }
        }
        Ok(())
    })?;
    lines.skipped.more_files = more;
    let (source, x, skipped) = finished(lines, path, several)?;
    Ok((source, x, skipped, bodies))
}

/// The exchanges of the lines read from `path` (an error names it), in the
/// order they were sent when `several` files were read one after the
/// other (a capture's already are).
fn finished(
    lines: Lines,
    path: &Path,
    several: bool,
) -> Result<(Source, Vec<Exchange>, Skipped), crate::error::Error> {
    let (source, mut x, skipped) = lines.finish().map_err(|e| match e {
        crate::error::Error::Invalid { reason, line, .. } => crate::error::Error::Invalid {
            place: path.display().to_string(),
            line,
            reason,
        },
        e => e,
    })?;
    if several && source != Source::Capture {
        x.sort_by(|a, b| {
            let at = |x: &Exchange| x.at.unwrap_or(f64::INFINITY);
            at(a).total_cmp(&at(b))
        });
    }
    Ok((source, x, skipped))
}

#[cfg(test)]
mod tests;
