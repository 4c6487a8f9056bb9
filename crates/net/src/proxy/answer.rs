//! What an upstream answered: cache diagnostics and errors read out of a
//! JSON body or an SSE stream, and where a stream ends (its usage is read
//! by the engine's `usage`).

use serde_json::Value;

use crate::engine::usage::events_with;

/// Where an SSE stream is: whether its last event so far is a terminal
/// one (Anthropic's `message_stop`, OpenAI's `data: [DONE]`, the Responses
/// API's `response.completed`, `response.failed` and `response.incomplete`,
/// an `error` event). Fed chunk by chunk; an event split across chunks, or
/// a data line of any length (a Responses `response.completed` carries the
/// whole response), is read from the first bytes of each line only.
#[derive(Default)]
pub(super) struct StreamEnd {
    /// The first bytes of the line being read.
    head: Vec<u8>,
    /// The last event line or data line read was terminal.
    ended: bool,
}

/// Bytes of each line kept to tell its event type.
const HEAD: usize = 192;

/// The events that end a stream.
const TERMINAL: &[&str] = &[
    "message_stop",
    "response.completed",
    "response.failed",
    "response.incomplete",
    "error",
];

impl StreamEnd {
    /// Reads `chunk`; whether the stream has ended with it.
    pub(super) fn feed(&mut self, chunk: &[u8]) -> bool {
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.keep(&rest[..i]);
            self.line();
            rest = &rest[i + 1..];
        }
        self.keep(rest);
        self.ended
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// One whole line read: an `event:` or `data:` line decides.
    fn line(&mut self) {
        let line = String::from_utf8_lossy(&self.head);
        let line = line.trim_end_matches('\r');
        if let Some(name) = line.strip_prefix("event:") {
            self.ended = TERMINAL.contains(&name.trim());
        } else if let Some(data) = line.strip_prefix("data:") {
            let data = data.trim_start();
            self.ended = data.starts_with("[DONE]")
                || event_type(data).is_some_and(|t| TERMINAL.contains(&t));
        }
        self.head.clear();
    }
}

/// The `"type"` of an event's JSON data, read from its first bytes.
fn event_type(data: &str) -> Option<&str> {
    let at = data.find("\"type\"")?;
    let rest = data[at + 6..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// A field of a JSON body.
fn body_field(text: &str, key: &str) -> Value {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get(key).cloned())
        .unwrap_or(Value::Null)
}

/// The usage (as `usage::reported` reads it) and the cache diagnostics
/// ([`diagnostics_of`]) of an answer. A JSON body is read once, its other
/// fields skipped rather than built into a tree.
pub(super) fn usage_and_diagnostics(body: &[u8], stream: bool) -> (Value, Value) {
    #[derive(serde::Deserialize)]
    struct Fields {
        #[serde(default)]
        usage: Value,
        /// Gemini's name for it.
        #[serde(default, rename = "usageMetadata")]
        usage_metadata: Value,
        #[serde(default)]
        diagnostics: Value,
    }
    if !stream {
        let text = String::from_utf8_lossy(body);
        // An object only (the struct would also be read from an array);
        // anything else, a repeated field included, is read as before.
        if text.trim_start().starts_with('{')
            && let Ok(f) = serde_json::from_str::<Fields>(&text)
        {
            let usage = if f.usage.is_null() {
                f.usage_metadata
            } else {
                f.usage
            };
            return (usage, f.diagnostics);
        }
    }
    (
        crate::engine::usage::reported(body, stream),
        diagnostics_of(body, stream),
    )
}

/// Anthropic's cache diagnostics of a response: the JSON body's
/// `diagnostics`, or, for a stream, the one on `message_start`'s message
/// (or any later event's).
pub fn diagnostics_of(body: &[u8], stream: bool) -> Value {
    let text = String::from_utf8_lossy(body);
    if !stream {
        return body_field(&text, "diagnostics");
    }
    events_with(&text, "diagnostics")
        .filter_map(|v| {
            v.pointer("/message/diagnostics")
                .or_else(|| v.get("diagnostics"))
                .filter(|d| !d.is_null())
                .cloned()
        })
        .last()
        .unwrap_or(Value::Null)
}

/// The error event a stream ended with (Anthropic's `event: error`, an
/// OpenAI chunk with an `error`): its type and message.
pub(super) fn stream_error(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    events_with(&text, "error").find_map(|v| {
        let e = v.get("error").filter(|e| e.is_object())?;
        Some(format!(
            "{}: {}",
            e["type"].as_str().unwrap_or("error"),
            e["message"].as_str().unwrap_or("")
        ))
    })
}

/// The message of an error answer: the provider's `error.message` (or
/// `message`), else the start of the body.
pub(super) fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error").filter(|e| e.is_string()))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| text.chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(chunks: &[&[u8]]) -> Vec<bool> {
        let mut end = StreamEnd::default();
        chunks.iter().map(|c| end.feed(c)).collect()
    }

    #[test]
    fn usage_and_diagnostics_read_once_are_what_each_reads_alone() {
        let bodies: &[&[u8]] = &[
            br#"{"id":"m","content":[{"type":"text","text":"hi \u00e9"}],"usage":{"input_tokens":5,"cache_read_input_tokens":1200},"diagnostics":{"cache":"miss"}}"#,
            br#"{"usage":{"input_tokens":1},"usage":{"input_tokens":2}}"#,
            br#"{"usage":null}"#,
            br#"[{"input_tokens":1},{"x":1}]"#,
            br#"{"error":{"type":"overloaded_error","message":"busy"}}"#,
            b"not json",
            br#"{"usage":{"input_tokens":3}} trailing"#,
            b"{\"usage\":{\"input_tokens\":4},\"bad\":\"\xff\"}",
            b"",
            // Gemini's generateContent answer.
            br#"{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}],"usageMetadata":{"promptTokenCount":10,"cachedContentTokenCount":4,"candidatesTokenCount":2}}"#,
        ];
        for body in bodies {
            assert_eq!(
                usage_and_diagnostics(body, false),
                (
                    crate::engine::usage::reported(body, false),
                    diagnostics_of(body, false)
                ),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert_eq!(
            usage_and_diagnostics(bodies[0], false).1,
            serde_json::json!({"cache": "miss"})
        );
        assert_eq!(
            usage_and_diagnostics(bodies[9], false).0["cachedContentTokenCount"],
            4
        );
    }

    #[test]
    fn the_end_of_a_stream_is_its_last_event_even_split_across_chunks() {
        assert_eq!(
            ends(&[
                b"event: message_delta\ndata: {}\n\nevent: message_st",
                b"op\ndata: {\"type\":\"message_stop\"}\n\n"
            ]),
            [false, true]
        );
        assert_eq!(
            ends(&[b"data: {\"choices\":[]}\n\n", b"data: [DONE]\n\n"]),
            [false, true]
        );
        // A stop mentioned in text is not the end.
        assert_eq!(
            ends(&[
                b"data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"message_stop\"}}\n\ndata: {\"type\":\"ping\"}\n\n"
            ]),
            [false]
        );
        // The Responses API ends with response.completed, whose data line
        // carries the whole response (longer than any tail).
        let long = format!(
            "event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"output\":\"{}\",\"usage\":{{\"input_tokens\":5}}}}}}\n\n",
            "x".repeat(5000)
        );
        let (a, b) = long.as_bytes().split_at(2500);
        assert_eq!(
            ends(&[b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\"}\n\n", a, b]),
            [false, true, true]
        );
        for t in ["response.failed", "response.incomplete", "error"] {
            let e = format!("data: {{\"type\":\"{t}\"}}\n\n");
            assert_eq!(ends(&[e.as_bytes()]), [true], "{t}");
        }
    }
}
