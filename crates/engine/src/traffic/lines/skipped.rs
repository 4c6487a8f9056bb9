//! What of a traffic file was not read, and why: lines that are not JSON,
//! over a bound (lines, values, a line's length), files of a folder left
//! out; said in one sentence every view shows.

use super::{MAX_FILES, MAX_LINE_BYTES, MAX_LINES, MAX_VALUES};
use crate::{plural, thousands};

/// Lines of a traffic file that were not read.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Skipped {
    /// Lines that are not a JSON object (blank lines aside).
    pub lines: usize,
    /// The first of them (1-based).
    pub first: Option<usize>,
    /// The file of the first (when several were read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_file: Option<String>,
    /// Lines after [`MAX_LINES`], not read at all.
    pub beyond_limit: usize,
    /// Lines not parsed: their values would have taken what is held past
    /// [`MAX_VALUES`].
    #[serde(skip_serializing_if = "is_zero")]
    pub over_budget: usize,
    /// The first of them (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_over_budget: Option<usize>,
    /// Lines longer than [`MAX_LINE_BYTES`], not held nor parsed.
    #[serde(skip_serializing_if = "is_zero")]
    pub too_long: usize,
    /// The first of them (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_too_long: Option<usize>,
    /// Requests whose usage has a figure that is not a count of tokens
    /// (read as absent: no figure is made up).
    #[serde(skip_serializing_if = "is_zero")]
    pub usage_unread: usize,
    /// The first of them (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_usage_unread: Option<usize>,
    /// Its figure as written (`"output_tokens": -5`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_unread_figure: Option<String>,
    /// Files of a folder that could not be read (each named in `unread`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// Files of a folder left out past [`MAX_FILES`].
    #[serde(skip_serializing_if = "is_false")]
    pub more_files: bool,
    /// Exchanges recorded again (a capture's line `id` met before: a copy
    /// of a capture in the same folder), counted once.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated: usize,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn first_is(line: Option<usize>) -> String {
    line.map(|f| format!(" (the first is line {})", thousands(f)))
        .unwrap_or_default()
}

impl Skipped {
    /// What was not read, for every view; None when everything was.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.lines > 0 {
            let of = self
                .first_file
                .as_deref()
                .map(|f| format!(" of {f})"))
                .unwrap_or_default();
            let mut first = first_is(self.first);
            if !of.is_empty() {
                first.pop();
                first += &of;
            }
            parts.push(format!(
                "{} not JSON, skipped{first}",
                plural(self.lines, "line"),
            ));
        }
        if self.too_long > 0 {
            parts.push(format!(
                "{} over the {} MiB line limit not read{}",
                plural(self.too_long, "line"),
                MAX_LINE_BYTES >> 20,
                first_is(self.first_too_long)
            ));
        }
        if let (Some(line), Some(figure)) = (self.first_usage_unread, &self.usage_unread_figure) {
            parts.push(format!(
                "{} with a usage figure that is not a count of tokens, read as absent (the first is line {}: {figure})",
                plural(self.usage_unread, "request"),
                thousands(line)
            ));
        }
        if self.repeated > 0 {
            parts.push(format!(
                "{} recorded again (an id met before: a copy of a capture), counted once",
                plural(self.repeated, "exchange")
            ));
        }
        if let Some(f) = self.unread.first() {
            parts.push(format!(
                "{} not read (the first: {f})",
                plural(self.unread.len(), "file")
            ));
        }
        if self.more_files {
            parts.push(format!(
                "files after the first {} not read",
                thousands(MAX_FILES)
            ));
        }
        if self.over_budget > 0 {
            parts.push(format!(
                "{} over the {}-value budget not read{}: parsed, they would take too much memory",
                plural(self.over_budget, "line"),
                thousands(MAX_VALUES),
                first_is(self.first_over_budget)
            ));
        }
        if self.beyond_limit > 0 {
            parts.push(format!(
                "{} after the first {} not read",
                plural(self.beyond_limit, "line"),
                thousands(MAX_LINES)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}
