//! The line diff of two rendered prompts, each line attributed to the
//! fragment it came from, within its bound (a line diff's time grows with
//! the lines times the changes).

use similar::{ChangeTag, TextDiff};

use super::snapshot::Snapshot;
use crate::assembly::assemble::BlockResult;
use serde::Serialize;

/// One line of a block's diff: its tag (`+`, `-`, ` `), its text and the
/// fragment it belongs to.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiffLine {
    pub tag: char,
    pub text: String,
    pub fragment: Option<String>,
}

/// (line, fragment) of the rendered blocks, with block header lines.
fn attributed_lines(blocks: &[BlockResult]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        out.push((format!("=== {} ===", b.name(i)), None));
        let mut offset = 0;
        // The spans are in the text's order and apart (each fragment
        // rendered after the one before): walked beside the lines, so a
        // block of many fragments is not quadratic. Spans out of order (a
        // snapshot edited by hand) are searched for each line.
        let ordered = b.spans.windows(2).all(|w| w[0].end <= w[1].start);
        let mut k = 0;
        for line in b.text.split('\n') {
            let f = if ordered {
                while k < b.spans.len() && b.spans[k].end <= offset {
                    k += 1;
                }
                b.spans
                    .get(k)
                    .filter(|s| s.start <= offset && offset < s.end)
                    .map(|s| s.id.clone())
            } else {
                b.fragment_at(offset).map(str::to_string)
            };
            // A carriage return is shown (`\r`), not taken for a line break:
            // the line diff splits on '\n' only, as here.
            out.push((line.replace('\r', "\\r"), f));
            offset += line.len() + 1;
        }
    }
    out
}

/// Lines of a rendered prompt a line diff is made for at most, a side.
pub const MAX_DIFF_LINES: usize = 20_000;

/// A line diff of the rendered prompts, each line attributed to its fragment.
pub(super) fn line_diff(a: &Snapshot, b: &Snapshot) -> Vec<DiffLine> {
    // A line diff's time grows with the lines times the changes: past
    // MAX_DIFF_LINES on a side it is left out, and said. The lines (a
    // header and the text's lines, a block) are counted before any is
    // built, so a side past the bound costs nothing more.
    let count = |s: &Snapshot| -> usize {
        s.blocks
            .iter()
            .map(|b| 2 + memchr::memchr_iter(b'\n', b.text.as_bytes()).count())
            .sum()
    };
    if count(a) > MAX_DIFF_LINES || count(b) > MAX_DIFF_LINES {
        let (la, lb) = (count(a), count(b));
        return vec![DiffLine {
            tag: ' ',
            text: format!(
                "(the line diff is left out: {} and {} lines, over the {} a side it is made for)",
                crate::thousands(la),
                crate::thousands(lb),
                crate::thousands(MAX_DIFF_LINES)
            ),
            fragment: None,
        }];
    }
    let la = attributed_lines(&a.blocks);
    let lb = attributed_lines(&b.blocks);
    let ta: String = la.iter().map(|(l, _)| format!("{l}\n")).collect();
    let tb: String = lb.iter().map(|(l, _)| format!("{l}\n")).collect();
    let td = TextDiff::from_lines(&ta, &tb);
    td.iter_all_changes()
        .map(|change| {
            let (tag, fragment) = match change.tag() {
                ChangeTag::Equal => (' ', change.new_index().and_then(|i| lb.get(i)?.1.clone())),
                ChangeTag::Delete => ('-', change.old_index().and_then(|i| la.get(i)?.1.clone())),
                ChangeTag::Insert => ('+', change.new_index().and_then(|i| lb.get(i)?.1.clone())),
            };
            DiffLine {
                tag,
                text: change.value().trim_end_matches('\n').to_string(),
                fragment,
            }
        })
        .collect()
}
