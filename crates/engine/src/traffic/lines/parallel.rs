//! A traffic read on every core: the lines of a file parsed a batch at a
//! time on every core, then taken in their order; a window of a capture's
//! requests read again and parsed at once before they are explained in
//! order. What is held at once is bounded by the batch's bytes.

use serde_json::Value;

use super::{Bodies, Lines};
use crate::traffic::Exchange;
use crate::workspace::reader::Span;

/// Text of lines (or of requests read again) taken together at most.
pub(in crate::traffic) const BATCH_BYTES: usize = 4 << 20;
/// Lines or requests taken together at most.
pub(in crate::traffic) const BATCH_ITEMS: usize = 256;
/// Below this much text one core does it (threads would cost more).
const PARALLEL_BYTES: usize = 256 << 10;

/// `f` over `items`, in order, the items split in contiguous runs, one run
/// per core.
fn on_every_core<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut T) -> R + Sync) -> Vec<R> {
    let cores = crate::assembly::tokens::cores().min(items.len()).max(1);
    if cores == 1 {
        return items.iter_mut().map(f).collect();
    }
    let per = items.len().div_ceil(cores);
    let f = &f;
    std::thread::scope(|s| {
        let runs: Vec<_> = items
            .chunks_mut(per)
            .map(|run| s.spawn(move || run.iter_mut().map(f).collect::<Vec<R>>()))
            .collect();
        runs.into_iter()
            .flat_map(|h| h.join().expect("a parsing thread panicked"))
            .collect()
    })
}

/// Lines read from a file, waiting to be parsed together.
#[derive(Default)]
pub(in crate::traffic) struct Batch {
    lines: Vec<(String, Option<Span>)>,
    bytes: usize,
}

impl Batch {
    /// Adds a line; a full batch is parsed and taken into `into`.
    pub(in crate::traffic) fn add(&mut self, line: &str, span: Option<Span>, into: &mut Lines) {
        self.bytes += line.len();
        self.lines.push((line.to_string(), span));
        if self.bytes >= BATCH_BYTES || self.lines.len() >= BATCH_ITEMS {
            self.flush(into);
        }
    }

    /// Parses the lines waiting (on every core when there is enough of
    /// them) and takes them into `into` in their order, as they would have
    /// been taken one by one.
    pub(in crate::traffic) fn flush(&mut self, into: &mut Lines) {
        let lazy = into.lazy;
        let parsed: Vec<Option<(usize, Result<Value, ()>)>> = if self.bytes >= PARALLEL_BYTES {
            on_every_core(&mut self.lines, |(l, span)| {
                (!l.trim().is_empty()).then(|| {
                    let cost = super::parse_cost(l);
                    (cost, super::head::first_pass(l, lazy && span.is_some()))
                })
            })
        } else {
            vec![None; self.lines.len()]
        };
        for ((line, span), p) in self.lines.drain(..).zip(parsed) {
            into.span = span;
            into.push_parsed(&line, p);
        }
        self.bytes = 0;
    }
}

impl Bodies {
    /// [`Bodies::load`] for each of `xs`, on every core when there is
    /// enough to read.
    pub fn load_all(&self, xs: &mut [Exchange]) {
        let bytes: usize = xs
            .iter()
            .filter(|x| x.request.is_none())
            .filter_map(|x| x.body.map(|b| b.span.len as usize))
            .sum();
        if bytes >= PARALLEL_BYTES {
            on_every_core(xs, |x| self.load(x));
        } else {
            xs.iter_mut().for_each(|x| self.load(x));
        }
    }
}
