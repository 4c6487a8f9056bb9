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
            let first = profile_check::chain_first(&x, index);
            crate::engine::against_request(root, options, &self.table, &self.counter, picked, first)
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
                let json = serde_json::to_string_pretty(&body).unwrap_or_default();
                Ok(crate::ui::traffic::RequestText {
                    json: crate::net::guard::redact_shapes(&json).into_owned(),
                    headers: exchange.headers.as_deref().map(headers_shown),
                    response: exchange
                        .response
                        .as_deref()
                        .map(|r| crate::net::guard::redact_shapes(r).into_owned()),
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
            .map(|mut t| {
                // What the folder views assume now (an observation learned
                // since the window opened included).
                t.assumed = crate::assumed_releases();
                t
            })
        };
        self.send(Done::Traffic {
            ticket: ticket.id,
            result: Box::new(result),
        });
    }
}

/// Headers as the window shows them: a credential's value as
/// `[REDACTED]` and key shapes redacted from the rest, whoever wrote the
/// capture (the proxy has done it already; a hand-made one may not have).
fn headers_shown(h: &crate::engine::traffic::Headers) -> crate::engine::traffic::Headers {
    use crate::net::guard;
    let pair = |(name, value): &(String, String)| {
        let value = if !guard::credential_header(&name.to_ascii_lowercase()) {
            guard::redact_shapes(value).into_owned()
        } else if value.ends_with(guard::REDACTED) {
            value.clone()
        } else {
            guard::REDACTED.to_string()
        };
        (name.clone(), value)
    };
    crate::engine::traffic::Headers {
        request: h.request.iter().map(pair).collect(),
        response: h.response.iter().map(pair).collect(),
    }
}

/// A diff as the window shows it: every string shaped like a provider's
/// key redacted from its text (a transcript or a hand-made capture may hold
/// one the proxy never saw), as the command line's output is.
pub(super) fn key_shapes_redacted(
    mut d: crate::engine::compare::diff::Diff,
) -> crate::engine::compare::diff::Diff {
    let redact = |s: &mut String| {
        if let std::borrow::Cow::Owned(r) = crate::net::guard::redact_shapes(s) {
            *s = r;
        }
    };
    d.lines.iter_mut().for_each(|l| redact(&mut l.text));
    if let Some(v) = &mut d.divergence {
        [&mut v.lead, &mut v.before, &mut v.after]
            .into_iter()
            .for_each(redact);
    }
    d
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_diff_shows_no_key_of_the_capture() {
        let dir = tempfile::tempdir().unwrap();
        let key = "sk-ant-api03-QWERTYUIOPasdfghjklZXCVBNM1234567890abcdEFGH";
        let line = |i: usize, text: &str| {
            serde_json::json!({"schema": 1, "id": format!("x-{i}"), "endpoint": "/v1/messages",
                "ts_start": format!("2026-11-30T10:00:0{i}Z"), "model": "claude-sonnet-4-6",
                "request": {"model": "claude-sonnet-4-6", "system": format!("key {text}"),
                    "messages": [{"role": "user", "content": "hi"}]}})
            .to_string()
        };
        let capture = dir.path().join("c.jsonl");
        let text = format!("{}\n{}\n", line(1, "none"), line(2, key));
        std::fs::write(&capture, text).unwrap();
        let (_, x, _) = crate::opencode_db::read_exchanges(&capture, &[1, 2]).unwrap();
        let counter = crate::engine::TokenCounter::new();
        let table = crate::model_table().unwrap();
        let d = crate::engine::traffic::diff_between(&x, 1, 2, &counter, &table).unwrap();
        let shown = format!("{:?}", super::key_shapes_redacted(d.clone()));
        assert!(
            format!("{d:?}").contains("QWERTYUIOP"),
            "the diff has the key"
        );
        assert!(!shown.contains("QWERTYUIOP"), "{shown}");
        assert!(shown.contains("[REDACTED]"), "{shown}");
    }
}
