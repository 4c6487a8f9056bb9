//! Pi's session files (`~/.pi/agent/sessions/--CWD--/TIME_ID.jsonl`) read
//! as a transcript: one exchange per assistant message, with the usage Pi
//! recorded for it (`usage: {input, output, cacheRead, cacheWrite, cost}`,
//! taken by Pi from the provider's answer). Each line is an entry of a tree
//! (`{type, id, parentId, timestamp, …}`); `pi -c` appends to the same
//! file, so a resumed session is one chain. A failed call is recorded as
//! an assistant message with `stopReason: "error"`: a request with its
//! error and no usage. A `compaction` entry marks the next request.

use serde_json::Value;

use super::Exchange;
use super::parse::rfc3339;
use crate::clean;
use crate::usage::{MAX_TOKENS, Usage};

/// Whether a JSON line is an entry of a Pi session file: its header
/// (`type: session` with a format `version` and the `cwd`), or an entry
/// of its tree (`id`, `parentId`), which Claude Code's lines (`uuid`,
/// `sessionId`) never are.
pub(super) fn is_session_line(v: &Value) -> bool {
    match v["type"].as_str() {
        Some("session") => v.get("version").is_some() && v.get("cwd").is_some(),
        Some(_) => {
            v.get("parentId").is_some() && v.get("id").is_some() && v.get("sessionId").is_none()
        }
        None => false,
    }
}

/// A Pi session file's exchanges, built line by line.
#[derive(Default)]
pub(super) struct PiSession {
    out: Vec<Exchange>,
    /// The sessions met (a folder of them), in order: the first is `main`.
    sessions: Vec<String>,
    session: String,
    /// A compaction entry came: the next request starts after it.
    compacted: bool,
}

impl PiSession {
    pub(super) fn push(&mut self, l: &Value) {
        match l["type"].as_str() {
            Some("session") => {
                self.session = clean(l["id"].as_str().unwrap_or(""), 64);
                if !self.sessions.contains(&self.session) {
                    self.sessions.push(self.session.clone());
                }
            }
            Some("compaction") => self.compacted = true,
            Some("message") if l["message"]["role"] == "assistant" => {
                let x = self.exchange(l, &l["message"]);
                self.out.push(x);
            }
            _ => {}
        }
    }

    /// A line of an OpenClaw trajectory export (`openclaw export`'s
    /// `events.jsonl`, `traceSchema: openclaw-trajectory`): OpenClaw runs on
    /// Pi's agent, and each `assistant.message` holds Pi's message, its
    /// usage that of the one request that answered it; a session is its
    /// `sessionId`.
    pub(super) fn push_trajectory(&mut self, l: &Value) {
        let id = clean(l["sessionId"].as_str().unwrap_or(""), 64);
        if !self.sessions.contains(&id) {
            self.sessions.push(id.clone());
        }
        self.session = id;
        let m = &l["data"]["message"];
        if l["type"] == "assistant.message" && m["role"] == "assistant" {
            let line = serde_json::json!({ "timestamp": l["ts"] });
            let x = self.exchange(&line, m);
            self.out.push(x);
        }
    }

    fn exchange(&mut self, l: &Value, m: &Value) -> Exchange {
        let time = clean(l["timestamp"].as_str().unwrap_or(""), 40);
        let chain = super::codex::session_chain(&self.sessions, &self.session);
        let failed = m["stopReason"] == "error";
        let n = |k: &str| m["usage"][k].as_u64().unwrap_or(0).min(MAX_TOKENS);
        let usage = (!failed && m["usage"].is_object()).then(|| Usage {
            input_tokens: n("input"),
            cache_creation_input_tokens: n("cacheWrite"),
            cache_read_input_tokens: n("cacheRead"),
            output_tokens: n("output"),
            reports_creation: m["usage"].get("cacheWrite").is_some(),
            ..Usage::default()
        });
        let error =
            failed.then(|| clean(m["errorMessage"].as_str().unwrap_or("the call failed"), 300));
        Exchange {
            api: match m["api"].as_str() {
                Some(a) if a.starts_with("anthropic") => Some("anthropic"),
                Some(a) if a.starts_with("openai") => Some("openai"),
                Some(a) if a.starts_with("google") => Some("gemini"),
                _ => None,
            },
            at: rfc3339(&time),
            time,
            chain,
            model: clean(m["model"].as_str().unwrap_or("?"), 200),
            usage,
            error,
            agent_cost_usd: m["usage"]["cost"]["total"]
                .as_f64()
                .filter(|c| c.is_finite() && *c >= 0.0),
            after_compaction: std::mem::take(&mut self.compacted),
            ..Exchange::default()
        }
    }

    pub(super) fn finish(self) -> Vec<Exchange> {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Vec<Exchange> {
        let mut s = PiSession::default();
        for l in lines {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(is_session_line(&v), "{l}");
            s.push(&v);
        }
        s.finish()
    }

    #[test]
    fn each_assistant_message_is_a_request_with_its_usage_and_a_failure_has_none() {
        let head = r#"{"type":"session","version":3,"id":"01a2","timestamp":"2026-12-03T18:28:04.176Z","cwd":"/w"}"#;
        let user = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-03T18:28:04.233Z","message":{"role":"user","content":[]}}"#;
        let ok = r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-12-03T18:28:04.361Z","message":{"role":"assistant","api":"anthropic-messages","model":"claude-opus-4-7","usage":{"input":3,"output":34,"cacheRead":1200,"cacheWrite":1461,"cost":{"total":0.01}},"stopReason":"toolUse"}}"#;
        let compaction =
            r#"{"type":"compaction","id":"a3","parentId":"a2","timestamp":"2026-12-03T18:29:00Z"}"#;
        let failed = r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-12-03T18:29:01Z","message":{"role":"assistant","api":"anthropic-messages","model":"claude-opus-4-7","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"stopReason":"error","errorMessage":"Connection error."}}"#;
        let x = read(&[head, user, ok, compaction, failed]);
        assert_eq!(x.len(), 2);
        let u = x[0].usage.unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_input_tokens,
                u.output_tokens
            ),
            (3, 1200, 1461, 34)
        );
        assert_eq!((x[0].api, x[0].chain.as_str()), (Some("anthropic"), "main"));
        assert_eq!(x[0].agent_cost_usd, Some(0.01));
        assert!(x[1].usage.is_none() && x[1].after_compaction);
        assert_eq!(x[1].error.as_deref(), Some("Connection error."));
        // Claude Code's lines are not Pi's.
        let claude: Value = serde_json::from_str(
            r#"{"type":"assistant","uuid":"u","parentUuid":null,"sessionId":"s","message":{}}"#,
        )
        .unwrap();
        assert!(!is_session_line(&claude));
    }
}
