//! What an upstream answered: usage, cache diagnostics and errors read
//! out of a JSON body or an SSE stream, and where a stream ends.

use serde_json::Value;

/// Whether the stream's last event (Anthropic's `message_stop`, OpenAI's
/// `data: [DONE]`) ends what has come so far; `tail` keeps the end of the
/// previous chunks, for an event split across chunks.
pub(super) fn stream_ended(tail: &mut Vec<u8>, chunk: &[u8]) -> bool {
    tail.extend_from_slice(&chunk[chunk.len().saturating_sub(256)..]);
    if tail.len() > 256 {
        tail.drain(..tail.len() - 256);
    }
    let text = String::from_utf8_lossy(tail);
    let last = text.trim_end().rsplit("\n\n").next().unwrap_or("");
    last.contains("data: [DONE]")
        || last.contains("\"type\":\"message_stop\"")
        || last.contains("event: message_stop")
}

/// The data of each SSE event of `text` that mentions `"key"`, parsed (the
/// others are not parsed at all).
fn events_with<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = Value> + 'a {
    let quoted = format!("\"{key}\"");
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(move |d| d.contains(&quoted))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
}

/// A field of a JSON body.
fn body_field(text: &str, key: &str) -> Value {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get(key).cloned())
        .unwrap_or(Value::Null)
}

/// The usage of a response: the JSON body's `usage`, or, for a stream,
/// Anthropic's `message_start` usage updated by each `message_delta`, or
/// OpenAI's final chunk's `usage`.
pub fn usage_of(body: &[u8], stream: bool) -> Value {
    let text = String::from_utf8_lossy(body);
    if !stream {
        return body_field(&text, "usage");
    }
    let mut usage = Value::Null;
    for v in events_with(&text, "usage") {
        let found = match v["type"].as_str() {
            Some("message_start") => v.pointer("/message/usage").cloned(),
            Some("message_delta") => v.get("usage").cloned(),
            _ => v.get("usage").filter(|u| u.is_object()).cloned(),
        };
        if let Some(Value::Object(new)) = found {
            match &mut usage {
                Value::Object(old) => {
                    for (k, x) in new {
                        if !x.is_null() {
                            old.insert(k, x);
                        }
                    }
                }
                _ => usage = Value::Object(new),
            }
        }
    }
    usage
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

    #[test]
    fn the_end_of_a_stream_is_its_last_event_even_split_across_chunks() {
        let mut tail = Vec::new();
        assert!(!stream_ended(
            &mut tail,
            b"event: message_delta\ndata: {}\n\nevent: message_st"
        ));
        assert!(stream_ended(
            &mut tail,
            b"op\ndata: {\"type\":\"message_stop\"}\n\n"
        ));
        let mut tail = Vec::new();
        assert!(!stream_ended(&mut tail, b"data: {\"choices\":[]}\n\n"));
        assert!(stream_ended(&mut tail, b"data: [DONE]\n\n"));
        // A stop mentioned in text is not the end.
        let mut tail = Vec::new();
        assert!(!stream_ended(
            &mut tail,
            b"data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"message_stop\"}}\n\ndata: {\"type\":\"ping\"}\n\n"
        ));
    }
}
