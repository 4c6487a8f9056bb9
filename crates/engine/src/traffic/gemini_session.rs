//! Gemini CLI's session files (`~/.gemini/tmp/PROJECT/chats/session-*.jsonl`)
//! read as a transcript: one exchange per answer of the model (a `gemini`
//! message), with the tokens Gemini CLI recorded for it (`tokens: {input,
//! output, cached, thoughts, tool, total}`, taken from the answer's
//! `usageMetadata`: `input` is the whole prompt, `cached` the part read
//! from the implicit cache). The file is a header (`sessionId`,
//! `projectHash`, `startTime`), the messages as they come, and `$set` lines
//! that update the session: a message written again with the same `id` (its
//! tool calls added) is the same request, and a resumed session (`gemini
//! -r`) appends to the same file, a new header and its history set again,
//! which is not sent again. The routing calls Gemini CLI makes to a small
//! model before each turn are not in the file (a capture has them).

use std::collections::HashMap;

use serde_json::Value;

use super::Exchange;
use super::parse::rfc3339;
use crate::clean;
use crate::usage::{MAX_TOKENS, Usage};

/// Whether a JSON line is a Gemini CLI session file's: its header (a
/// `sessionId` beside a `projectHash`, which Claude Code's lines never
/// have), an answer of the model (`type: gemini` with its `tokens`), or,
/// once a header was met (`seen`), a `$set` update or a message.
pub(super) fn is_session_line(v: &Value, seen: bool) -> bool {
    if v.get("sessionId").is_some() && v.get("projectHash").is_some() {
        return true;
    }
    if v["type"] == "gemini" && v["tokens"].is_object() && v.get("id").is_some() {
        return true;
    }
    seen && (v.get("$set").is_some()
        || (v.get("id").is_some()
            && v.get("timestamp").is_some()
            && v.get("uuid").is_none()
            && v.get("parentId").is_none()
            && v.get("sessionId").is_none()))
}

/// A Gemini CLI session file's exchanges, built line by line.
#[derive(Default)]
pub(super) struct GeminiSession {
    out: Vec<Exchange>,
    /// Where each answer's exchange is in `out`, by the message's `id`.
    by_id: HashMap<String, usize>,
    /// The sessions met (a folder of them), in order: the first is `main`.
    sessions: Vec<String>,
    session: String,
    /// A header was met.
    pub(super) seen: bool,
}

impl GeminiSession {
    pub(super) fn push(&mut self, l: &Value) {
        if l.get("projectHash").is_some() {
            self.seen = true;
            self.session = clean(l["sessionId"].as_str().unwrap_or(""), 64);
            if !self.sessions.contains(&self.session) {
                self.sessions.push(self.session.clone());
            }
            return;
        }
        if l["type"] == "gemini" {
            self.answer(l);
        }
        // `$set` lines set the history again (a resume) or the time: the
        // answers they hold were read where they were first written.
    }

    /// An answer: a request, or the same one written again (tool calls
    /// added).
    fn answer(&mut self, m: &Value) {
        let id = clean(m["id"].as_str().unwrap_or(""), 80);
        let x = self.exchange(m);
        match self.by_id.get(&id) {
            Some(&i) if !id.is_empty() => {
                // Its first time and chain stay: the rewrite is the same
                // request.
                let first = &self.out[i];
                let (time, at, chain) = (first.time.clone(), first.at, first.chain.clone());
                self.out[i] = Exchange {
                    time,
                    at,
                    chain,
                    ..x
                };
            }
            _ => {
                self.by_id.insert(id, self.out.len());
                self.out.push(x);
            }
        }
    }

    fn exchange(&self, m: &Value) -> Exchange {
        let time = clean(m["timestamp"].as_str().unwrap_or(""), 40);
        let t = &m["tokens"];
        let n = |k: &str| t[k].as_u64().unwrap_or(0).min(MAX_TOKENS);
        // As Gemini's `usageMetadata` reads: the prompt's tokens, of which
        // read from the cache; the answer's and, billed as output too, the
        // thoughts'.
        let usage = t.is_object().then(|| {
            let (prompt, thoughts) = (n("input"), n("thoughts"));
            let cached = n("cached").min(prompt);
            Usage {
                input_tokens: prompt - cached,
                cache_read_input_tokens: cached,
                output_tokens: n("output").saturating_add(thoughts),
                reasoning_tokens: thoughts,
                ..Usage::default()
            }
        });
        Exchange {
            api: Some("gemini"),
            at: rfc3339(&time),
            time,
            chain: super::codex::session_chain(&self.sessions, &self.session),
            model: clean(m["model"].as_str().unwrap_or("?"), 200),
            usage,
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
        let mut s = GeminiSession::default();
        for l in lines {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(is_session_line(&v, s.seen), "{l}");
            s.push(&v);
        }
        s.finish()
    }

    #[test]
    fn each_answer_is_a_request_once_with_the_prompt_it_read() {
        let x = read(&[
            r#"{"sessionId":"s1","projectHash":"p","startTime":"2026-12-03T12:00:00Z","kind":"main"}"#,
            r#"{"id":"u1","timestamp":"2026-12-03T12:00:01Z","type":"user","content":[{"text":"hi"}]}"#,
            r#"{"id":"a1","timestamp":"2026-12-03T12:00:02Z","type":"gemini","content":"","tokens":{"input":10601,"output":18,"cached":0,"thoughts":4,"tool":0,"total":10623},"model":"gemini-3.8-flash"}"#,
            r#"{"$set":{"lastUpdated":"2026-12-03T12:00:02Z"}}"#,
            r#"{"id":"a1","timestamp":"2026-12-03T12:00:02Z","type":"gemini","content":"","tokens":{"input":10601,"output":18,"cached":0,"thoughts":4,"tool":0,"total":10623},"model":"gemini-3.8-flash","toolCalls":[]}"#,
            r#"{"id":"a2","timestamp":"2026-12-03T12:00:03Z","type":"gemini","content":"Done","tokens":{"input":10722,"output":15,"cached":10601,"thoughts":0,"tool":0,"total":10737},"model":"gemini-3.8-flash"}"#,
            // A resume: a new header, the history set again, a new answer.
            r#"{"sessionId":"s1","projectHash":"p","startTime":"2026-12-03T12:05:00Z","kind":"main"}"#,
            r#"{"$set":{"messages":[{"id":"a1","type":"gemini","tokens":{"input":1}}]}}"#,
            r#"{"id":"a3","timestamp":"2026-12-03T12:05:01Z","type":"gemini","content":"Done","tokens":{"input":10822,"output":15,"cached":10235,"thoughts":0,"tool":0,"total":10837},"model":"gemini-3.8-flash"}"#,
        ]);
        assert_eq!(x.len(), 3);
        let u: Vec<Usage> = x.iter().map(|e| e.usage.unwrap()).collect();
        assert_eq!(u[0].input_tokens, 10601);
        assert_eq!(u[0].output_tokens, 22);
        assert_eq!(u[0].reasoning_tokens, 4);
        assert_eq!(
            (u[1].input_tokens, u[1].cache_read_input_tokens),
            (121, 10601)
        );
        assert_eq!(
            (u[2].input_tokens, u[2].cache_read_input_tokens),
            (587, 10235)
        );
        assert!(
            x.iter()
                .all(|e| e.chain == x[0].chain && e.api == Some("gemini"))
        );
        assert_eq!(x[0].time, "2026-12-03T12:00:02Z");
    }

    #[test]
    fn claude_code_and_pi_lines_are_not_gemini_clis() {
        let claude: Value = serde_json::from_str(
            r#"{"type":"user","sessionId":"s","uuid":"u","timestamp":"t","message":{}}"#,
        )
        .unwrap();
        let pi: Value =
            serde_json::from_str(r#"{"type":"message","id":"a","parentId":"b","timestamp":"t"}"#)
                .unwrap();
        for v in [&claude, &pi] {
            assert!(!is_session_line(v, true), "{v}");
            assert!(!is_session_line(v, false), "{v}");
        }
    }
}
