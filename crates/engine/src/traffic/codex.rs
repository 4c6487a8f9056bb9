//! Codex's session files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
//! read as a transcript: one exchange per model response, with the usage
//! Codex recorded for it. Each line is `{timestamp, type, payload}`; the
//! usage of a response is a `token_usage_record` line (keyed by its
//! `response_id`, so a resumed or forked session's copied lines count
//! once); files of Codex versions without those lines give the same figure
//! in `event_msg` `token_count` events (`info.last_token_usage`, taken when
//! the running total moves). The model is the last `turn_context`'s.

use std::collections::HashSet;

use serde_json::Value;

use super::Exchange;
use super::parse::rfc3339;
use crate::clean;
use crate::usage::Usage;

/// Whether a JSON line is a Codex session file's line.
pub(super) fn is_rollout_line(v: &Value) -> bool {
    v.get("payload").is_some_and(Value::is_object)
        && matches!(
            v["type"].as_str(),
            Some("session_meta" | "turn_context" | "response_item" | "event_msg")
                | Some("token_usage_record")
        )
}

/// Codex's usage (`input_tokens` counts the cached and written ones too),
/// read by the one parser of every provider's usage.
fn usage_of(u: &Value) -> Option<Usage> {
    Usage::parse(u)
}

/// A Codex session file's exchanges, built line by line.
#[derive(Default)]
pub(super) struct Rollout {
    out: Vec<Exchange>,
    /// Responses already counted (`response_id`).
    seen: HashSet<String>,
    /// The sessions met, in order (the first one's chain is `main`).
    sessions: Vec<String>,
    /// The session and model of the lines being read.
    session: String,
    model: String,
    /// `token_usage_record` lines were met: `token_count` events, which
    /// repeat them, are not read.
    records: bool,
    /// The running total of the last `token_count` read.
    last_total: Option<Value>,
    /// Exchanges taken from `token_count` events (dropped if records come).
    from_counts: Vec<Exchange>,
    /// The release of the session being read (`cli_version`).
    release: Option<super::release::Release>,
}

impl Rollout {
    pub(super) fn push(&mut self, l: &Value) {
        let p = &l["payload"];
        match l["type"].as_str() {
            Some("session_meta") => {
                let id = p["session_id"].as_str().or(p["id"].as_str()).unwrap_or("");
                self.session = clean(id, 64);
                self.release =
                    super::release::of_transcript("Codex CLI", p["cli_version"].as_str());
                if !self.sessions.contains(&self.session) {
                    self.sessions.push(self.session.clone());
                }
            }
            Some("turn_context") => {
                if let Some(m) = p["model"].as_str() {
                    self.model = clean(m, 200);
                }
            }
            Some("token_usage_record") => {
                self.records = true;
                self.from_counts.clear();
                let id = p["response_id"].as_str().unwrap_or("");
                if !id.is_empty() && !self.seen.insert(id.to_string()) {
                    return;
                }
                if let Some(u) = p.get("usage").and_then(usage_of) {
                    let x = self.exchange(l, u);
                    self.out.push(x);
                }
            }
            Some("event_msg") if !self.records && p["type"] == "token_count" => {
                let total = p.pointer("/info/total_token_usage").cloned();
                if total.is_none() || total == self.last_total {
                    return;
                }
                self.last_total = total;
                if let Some(u) = p.pointer("/info/last_token_usage").and_then(usage_of) {
                    let x = self.exchange(l, u);
                    self.from_counts.push(x);
                }
            }
            _ => {}
        }
    }

    fn exchange(&self, l: &Value, usage: Usage) -> Exchange {
        let time = clean(l["timestamp"].as_str().unwrap_or(""), 40);
        let chain = session_chain(&self.sessions, &self.session);
        Exchange {
            api: Some("openai"),
            at: rfc3339(&time),
            time,
            chain,
            model: if self.model.is_empty() {
                "?".into()
            } else {
                self.model.clone()
            },
            usage: Some(usage),
            release: self.release.clone(),
            ..Exchange::default()
        }
    }

    pub(super) fn finish(mut self) -> Vec<Exchange> {
        if !self.records {
            self.out = std::mem::take(&mut self.from_counts);
        }
        self.out
    }
}

/// The chain of a session file's session: `main` for the first met, else
/// `session ID8` (Codex's and Pi's session files).
pub(super) fn session_chain(sessions: &[String], session: &str) -> String {
    match sessions.iter().position(|s| s == session) {
        Some(0) | None => "main".to_string(),
        Some(_) => format!("session {}", session.chars().take(8).collect::<String>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Vec<Exchange> {
        let mut r = Rollout::default();
        for l in lines {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(is_rollout_line(&v), "{l}");
            r.push(&v);
        }
        r.finish()
    }

    const META: &str = r#"{"timestamp":"2026-12-01T02:42:06.541Z","type":"session_meta","payload":{"session_id":"01a22f7b-19fa"}}"#;
    const TURN: &str = r#"{"timestamp":"2026-12-01T02:42:06.588Z","type":"turn_context","payload":{"model":"gpt-6.1-sol"}}"#;

    #[test]
    fn each_response_counts_once_with_its_cached_part() {
        let rec = |id: &str, input: u64, cached: u64| {
            format!(
                r#"{{"timestamp":"2026-12-01T02:42:07Z","type":"token_usage_record","payload":{{"response_id":"{id}","usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"cache_write_input_tokens":0,"output_tokens":7,"reasoning_output_tokens":3}}}}}}"#
            )
        };
        let count = r#"{"timestamp":"2026-12-01T02:42:07Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1},"last_token_usage":{"input_tokens":1}}}}"#;
        let (a, b) = (rec("resp_1", 13824, 0), rec("resp_2", 13946, 13696));
        let x = read(&[META, TURN, &a, count, &b, &a]);
        assert_eq!(
            x.len(),
            2,
            "the copied record and the token_count are not requests"
        );
        let u = x[1].usage.unwrap();
        assert_eq!((u.input_tokens, u.cache_read_input_tokens), (250, 13696));
        assert_eq!(x[1].model, "gpt-6.1-sol");
        assert_eq!(x[1].chain, "main");
    }

    #[test]
    fn older_files_are_read_from_their_token_counts() {
        let count = |total: u64, last: u64| {
            format!(
                r#"{{"timestamp":"2026-12-01T02:42:07Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total}}},"last_token_usage":{{"input_tokens":{last},"cached_input_tokens":{c}}}}}}}}}"#,
                c = last / 2
            )
        };
        let x = read(&[
            META,
            TURN,
            &count(100, 100),
            &count(100, 100),
            &count(300, 200),
        ]);
        assert_eq!(x.len(), 2, "a repeated total is the same response");
        assert_eq!(x[1].usage.unwrap().cache_read_input_tokens, 100);
    }
}
