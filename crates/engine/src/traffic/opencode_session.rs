//! OpenCode's sessions (its SQLite database, `~/.local/share/opencode/
//! opencode.db`) read as a transcript: one exchange per answer of the model
//! (an `assistant` message), with the tokens OpenCode recorded for it
//! (`tokens: {input, output, reasoning, cache: {read, write}}`: `input` is
//! what was neither read from nor written to the cache, as Anthropic counts
//! it) and the cost it computed. The engine reads no database: the window
//! and the command line read its rows ([`OpenCodeSession`]) and hand them
//! here. A session started by another (a subagent's: `parent_id`) is a
//! chain of its own; the title OpenCode asks its small model for is not a
//! message (a capture has it).

use serde_json::Value;

use super::{Exchange, format_rfc3339};
use crate::clean;
use crate::usage::{MAX_TOKENS, Usage};

/// One session as OpenCode's database holds it: its row of `session` and
/// its rows of `message`, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenCodeSession {
    pub id: String,
    /// The session that started it (a subagent's task), if any.
    pub parent_id: Option<String>,
    /// OpenCode's release that wrote it (`1.18.33`).
    pub version: String,
    pub messages: Vec<OpenCodeMessage>,
}

/// One row of `message`: its id, when it was created (Unix milliseconds)
/// and its `data` (the message as JSON text, as OpenCode wrote it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenCodeMessage {
    pub id: String,
    pub created_ms: i64,
    pub data: String,
}

/// The sessions' answers as exchanges, in the order they were sent, with
/// how many messages could not be read (not JSON).
pub fn exchanges(sessions: &[OpenCodeSession]) -> (Vec<Exchange>, usize) {
    let top: Vec<String> = sessions
        .iter()
        .filter(|s| s.parent_id.is_none())
        .map(|s| s.id.clone())
        .collect();
    let mut out = Vec::new();
    let mut unread = 0;
    for s in sessions {
        let chain = match &s.parent_id {
            None => super::codex::session_chain(&top, &s.id),
            Some(_) => format!("sidechain {}", clean(&short(&s.id), 16)),
        };
        for m in &s.messages {
            let Ok(v) = serde_json::from_str::<Value>(&m.data) else {
                unread += 1;
                continue;
            };
            if v["role"] == "assistant" {
                out.push(answer(&v, m, &chain, &s.version));
            }
        }
    }
    out.sort_by(|a, b| a.at.partial_cmp(&b.at).unwrap_or(std::cmp::Ordering::Equal));
    (out, unread)
}

/// OpenCode's sessions (read from its database by the caller) analysed as
/// a transcript is: what `traffic` and the Traffic tab show of them.
/// `unread` messages could not be read (each counts as a skipped line).
pub fn read_opencode(
    sessions: &[OpenCodeSession],
    table: &crate::assembly::models::ModelTable,
    counter: &crate::TokenCounter,
) -> Result<super::Traffic, crate::error::Error> {
    let (exchanges, skipped) = opencode_exchanges(sessions);
    let mut t = super::analyze(
        super::Source::OpenCode,
        exchanges,
        &super::lines::Bodies::default(),
        table,
        counter,
        &mut |_| std::ops::ControlFlow::Continue(()),
    )?;
    t.skipped = skipped;
    Ok(t)
}

/// OpenCode's sessions as exchanges (no bodies: its database keeps the
/// messages, not the requests), with what could not be read.
pub fn opencode_exchanges(sessions: &[OpenCodeSession]) -> (Vec<Exchange>, super::Skipped) {
    let (exchanges, unread) = exchanges(sessions);
    let skipped = super::Skipped {
        lines: unread,
        ..super::Skipped::default()
    };
    (exchanges, skipped)
}

/// A session id without OpenCode's `ses_` prefix, its first characters.
fn short(id: &str) -> String {
    id.trim_start_matches("ses_").chars().take(8).collect()
}

fn answer(v: &Value, m: &OpenCodeMessage, chain: &str, version: &str) -> Exchange {
    let t = &v["tokens"];
    let n = |x: &Value| x.as_u64().unwrap_or(0).min(MAX_TOKENS);
    let usage = t.is_object().then(|| Usage {
        input_tokens: n(&t["input"]),
        cache_creation_input_tokens: n(&t["cache"]["write"]),
        cache_read_input_tokens: n(&t["cache"]["read"]),
        // Reasoning is billed as output.
        output_tokens: n(&t["output"]).saturating_add(n(&t["reasoning"])),
        reasoning_tokens: n(&t["reasoning"]),
        reports_creation: true,
        ..Usage::default()
    });
    let created = v["time"]["created"].as_i64().unwrap_or(m.created_ms);
    let at = created as f64 / 1000.0;
    let latency_ms = v["time"]["completed"]
        .as_i64()
        .and_then(|c| u64::try_from(c - created).ok());
    let api = match v["providerID"].as_str() {
        Some("anthropic") => Some("anthropic"),
        Some("openai") => Some("openai"),
        Some("google") => Some("gemini"),
        _ => None,
    };
    Exchange {
        at: Some(at),
        time: format_rfc3339(at),
        chain: chain.to_string(),
        model: clean(v["modelID"].as_str().unwrap_or("?"), 200),
        usage,
        error: v["error"]
            .get("data")
            .and_then(|d| d["message"].as_str())
            .map(|e| clean(e, 2_000)),
        agent_cost_usd: v["cost"].as_f64().filter(|c| c.is_finite() && *c >= 0.0),
        latency_ms,
        api,
        release: super::release::Release::new("OpenCode", version, "its session database"),
        ..Exchange::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, at: i64, data: &str) -> OpenCodeMessage {
        OpenCodeMessage {
            id: id.into(),
            created_ms: at,
            data: data.into(),
        }
    }

    #[test]
    fn each_answer_is_a_request_with_the_tokens_and_cost_opencode_recorded() {
        let main = OpenCodeSession {
            id: "ses_abc123456789".into(),
            parent_id: None,
            version: "1.18.33".into(),
            messages: vec![
                message(
                    "m1",
                    1_796_409_845_448,
                    r#"{"role":"user","time":{"created":1796409845448}}"#,
                ),
                message(
                    "m2",
                    1_796_409_846_405,
                    r#"{"role":"assistant","cost":0.0294,"tokens":{"total":7738,"input":0,"output":34,"reasoning":0,"cache":{"write":7704,"read":0}},"modelID":"claude-sonnet-4-6","providerID":"anthropic","time":{"created":1796409846405,"completed":1796409847782}}"#,
                ),
                message("m3", 1_796_409_847_000, "not json"),
            ],
        };
        let sub = OpenCodeSession {
            id: "ses_sub98765432".into(),
            parent_id: Some("ses_abc123456789".into()),
            version: "1.18.33".into(),
            messages: vec![message(
                "s1",
                1_796_409_846_000,
                r#"{"role":"assistant","tokens":{"input":12,"output":3,"reasoning":2,"cache":{"write":0,"read":100}},"modelID":"gpt-5","providerID":"openai","time":{"created":1796409846000}}"#,
            )],
        };
        let (x, unread) = exchanges(&[main, sub]);
        assert_eq!(unread, 1);
        assert_eq!(x.len(), 2);
        // In the order they were sent: the subagent's first.
        assert_eq!(x[0].chain, "sidechain sub98765");
        assert_eq!(x[0].api, Some("openai"));
        let u = x[0].usage.unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_read_input_tokens,
                u.output_tokens,
                u.reasoning_tokens
            ),
            (12, 100, 5, 2)
        );
        assert_eq!(x[1].chain, "main");
        let u = x[1].usage.unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens
            ),
            (0, 7704, 0)
        );
        assert_eq!(x[1].agent_cost_usd, Some(0.0294));
        assert_eq!(x[1].latency_ms, Some(1377));
        assert_eq!(x[1].time, "2026-12-04T18:44:06.405Z");
        assert_eq!(x[1].release.as_ref().unwrap().name(), "OpenCode 1.18.33");
    }
}
