//! The Traffic tab's jobs on the worker thread: a capture read (its
//! requests analysed as they stream past), a request's body read again from
//! its capture, a request traced to the open folder, the agent's own parts
//! learned from it.

use std::path::Path;

use super::{Done, Shared, Ticket};
use crate::engine::Options;

impl Shared {
    /// Request `index` of `capture` against the workspace at `root`: the
    /// road of `traffic --against`.
    pub(super) fn trace(&self, capture: &Path, index: usize, root: &Path, options: &Options) {
        use crate::engine::traffic::profile_check;
        let result = crate::opencode_db::read_exchanges(capture, &[index]).and_then(|(_, x, _)| {
            let picked = profile_check::pick(&x, Some(index))?;
            crate::engine::against_request(root, options, &self.table, &self.counter, picked)
        });
        let result = result.map_err(String::from);
        self.send(Done::Traced {
            index,
            result: Box::new(result),
        });
    }

    /// The own parts of the sender of request `index` of `capture`, learned
    /// and kept (`agents learn`), said in a sentence.
    pub(super) fn learn(&self, capture: &Path, index: usize, root: &Path, keep_in: &Path) {
        let result = crate::learn::learn(capture, Some(index), root, None, Some(keep_in)).map(|l| {
            let b = &l.parts;
            format!(
                "learned {}'s own parts from request #{index}: {} blocks ({} tokens), {} tools ({} tokens); kept in {}, and this folder's views now use them (`prompt-inspector agents forget {}` goes back)",
                b.source(),
                b.blocks.len(),
                crate::engine::thousands(l.tokens.0),
                b.tools.len(),
                crate::engine::thousands(l.tokens.1),
                l.saved
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string()),
                crate::learn::id_of(b),
            )
        });
        self.send(Done::Learned { index, result });
    }

    /// Request `index` of `capture` as recorded: its body, pretty, and the
    /// curl command that sends it again (no key in it).
    pub(super) fn request_body(&self, capture: &Path, index: usize) {
        use crate::engine::traffic::profile_check;
        let result = crate::opencode_db::read_exchanges(capture, &[index])
            .and_then(|(_, x, _)| {
                let (_, exchange, request) = profile_check::pick(&x, Some(index))?;
                // The typed request written back as its API's wire: the
                // body as recorded (every adapter round-trips).
                let body = request.to_wire();
                Ok(crate::ui::traffic::RequestText {
                    json: serde_json::to_string_pretty(&body).unwrap_or_default(),
                    curl: crate::engine::traffic::curl::command(
                        exchange.api,
                        &exchange.model,
                        &body,
                    ),
                })
            })
            .map_err(String::from);
        self.send(Done::RequestBody {
            index,
            result: Box::new(result),
        });
    }

    /// A capture or transcript read as the `traffic` command reads it
    /// (streamed, bounded), saying how far it has come.
    /// Reads a capture until it is read or its ticket is cancelled (checked
    /// at every progress report: 4 MiB read, 1,000 requests explained).
    pub(super) fn traffic(&self, path: &Path, ticket: &Ticket) {
        let result = if ticket.cancelled() {
            Err(crate::engine::error::Error::Cancelled)
        } else {
            crate::opencode_db::read_traffic(path, &self.table, &self.counter, &mut |progress| {
                if ticket.cancelled() {
                    return std::ops::ControlFlow::Break(());
                }
                self.send(Done::TrafficProgress {
                    ticket: ticket.id,
                    progress,
                });
                std::ops::ControlFlow::Continue(())
            })
        };
        self.send(Done::Traffic {
            ticket: ticket.id,
            result: Box::new(result),
        });
    }
}
