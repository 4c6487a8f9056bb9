//! The usage: what a provider reported for one request (input tokens
//! uncached, read from the cache, written to it with the 5-minute/1-hour
//! split, output, reasoning), in one type for every provider, and the one
//! parser of every provider's shape: Anthropic's Messages (a body, or a
//! stream's `message_start` usage updated by each `message_delta`), OpenAI's
//! Chat Completions (`prompt_tokens`, of which
//! `prompt_tokens_details.cached_tokens`; a stream's final chunk) and
//! Responses (`input_tokens`, of which `input_tokens_details.cached_tokens`;
//! a stream's `response.completed`, `.incomplete` or `.failed`). The proxy,
//! `send`, test runs and `traffic` all read usage here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// THE type of a token count, in every room: a text counted, a block, a
/// layer, a budget, a usage figure. (Sums of a long capture's figures
/// outgrow 32 bits; one type means no cast between rooms.)
pub type Tokens = u64;

/// Largest token figure read (a larger one is a broken or hostile answer
/// or line: it is read as this, so that sums cannot overflow).
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// The usage of one request, in Anthropic's terms: `input_tokens` are the
/// prompt's tokens neither read from the cache nor written to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    /// Of the writes, those with a 5-minute TTL, when the provider split
    /// them (Anthropic's `cache_creation`).
    pub ephemeral_5m_input_tokens: Option<u64>,
    /// Of the writes, those with a 1-hour TTL, when the provider split them.
    pub ephemeral_1h_input_tokens: Option<u64>,
    /// Of the output, the reasoning tokens (OpenAI's
    /// `*_tokens_details.reasoning_tokens`).
    pub reasoning_tokens: u64,
    /// The answer carried a cache-write figure at all (llama.cpp's
    /// `/v1/messages` leaves `cache_creation_input_tokens` out).
    pub reports_creation: bool,
    /// Generated at the fast speed (`speed: "fast"`), priced at the model's
    /// fast rates.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fast: bool,
}

/// The input part of a usage: a prompt's tokens as read, written or
/// uncached. A prediction is this part; a recorded usage has it too
/// ([`Usage::input`]), so both are drawn and summed alike.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Input {
    pub fn total(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }

    pub fn add(&mut self, o: &Input) {
        self.input_tokens += o.input_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
    }
}

impl Usage {
    /// The input part (read / written / uncached).
    pub fn input(&self) -> Input {
        Input {
            input_tokens: self.input_tokens,
            cache_creation_input_tokens: self.cache_creation_input_tokens,
            cache_read_input_tokens: self.cache_read_input_tokens,
        }
    }

    /// The prompt's tokens: read, written and uncached.
    pub fn prompt(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }

    /// The 1-hour part of the writes (0 when not split).
    pub fn written_1h(&self) -> u64 {
        self.ephemeral_1h_input_tokens.unwrap_or(0)
    }

    /// A provider's `usage` object read, whatever its shape; None when it
    /// has no input figure (not a usage). Figures are capped at
    /// [`MAX_TOKENS`]; a cached figure larger than its prompt is read as
    /// the prompt.
    pub fn parse(u: &Value) -> Option<Usage> {
        let mut out = Usage::parse_shape(u)?;
        out.fast = u.get("speed").and_then(Value::as_str) == Some("fast");
        Some(out)
    }

    /// The first figure of a `usage` object (or of an object in it) that
    /// is there but is not a count of tokens (`-5`, `"12"`, `1.5`), as
    /// `"name": value`: [`Usage::parse`] reads it as absent. None when every
    /// figure is a count.
    pub fn unreadable_figure(u: &Value) -> Option<String> {
        let counts = |k: &str| k.ends_with("tokens") || k.ends_with("TokenCount");
        let bad = |v: &Value| !v.is_u64() && !v.is_null();
        let obj = u.as_object()?;
        let nested = obj
            .iter()
            .filter_map(|(_, v)| v.as_object())
            .flat_map(|o| o.iter());
        obj.iter()
            .chain(nested)
            .find(|(k, v)| counts(k) && bad(v))
            .map(|(k, v)| {
                format!(
                    "\"{}\": {}",
                    crate::clean(k, 60),
                    crate::clean(&v.to_string(), 40)
                )
            })
    }

    /// [`Usage::parse`] but for the speed.
    fn parse_shape(u: &Value) -> Option<Usage> {
        // A field, or a field of a field (`at(&[object, field])`), looked
        // up without building a pointer.
        let at = |path: &[&str]| {
            path.iter()
                .try_fold(u, |v, k| v.get(k))
                .and_then(Value::as_u64)
                .map(|n| n.min(MAX_TOKENS))
        };
        let n = |k: &str| at(&[k]);
        // Gemini's `usageMetadata`: the prompt's tokens, of which read from
        // its cache (implicit or explicit; Gemini reports no writes); the
        // candidates' tokens and, billed as output too, the thoughts'.
        if let Some(prompt) = n("promptTokenCount") {
            let cached = n("cachedContentTokenCount").unwrap_or(0).min(prompt);
            let thoughts = n("thoughtsTokenCount").unwrap_or(0);
            return Some(Usage {
                input_tokens: prompt - cached,
                cache_read_input_tokens: cached,
                output_tokens: n("candidatesTokenCount")
                    .unwrap_or(0)
                    .saturating_add(thoughts),
                reasoning_tokens: thoughts,
                ..Usage::default()
            });
        }
        // OpenAI Chat Completions: prompt tokens, of which cached.
        if let Some(prompt) = n("prompt_tokens") {
            let cached = at(&["prompt_tokens_details", "cached_tokens"]).unwrap_or(0);
            return Some(Usage {
                input_tokens: prompt.saturating_sub(cached),
                cache_read_input_tokens: cached.min(prompt),
                output_tokens: n("completion_tokens").unwrap_or(0),
                reasoning_tokens: at(&["completion_tokens_details", "reasoning_tokens"])
                    .unwrap_or(0),
                ..Usage::default()
            });
        }
        let reasoning_tokens = at(&["output_tokens_details", "reasoning_tokens"]).unwrap_or(0);
        // Codex's session files: input tokens, of which cached and written.
        if let Some(cached) = n("cached_input_tokens") {
            let input = n("input_tokens").unwrap_or(0);
            let read = cached.min(input);
            let written = n("cache_write_input_tokens").unwrap_or(0).min(input - read);
            return Some(Usage {
                input_tokens: input - read - written,
                cache_read_input_tokens: read,
                cache_creation_input_tokens: written,
                output_tokens: n("output_tokens").unwrap_or(0),
                reasoning_tokens: n("reasoning_output_tokens").unwrap_or(0),
                reports_creation: u.get("cache_write_input_tokens").is_some(),
                ..Usage::default()
            });
        }
        // OpenAI Responses: input tokens, of which cached.
        if let Some(cached) = at(&["input_tokens_details", "cached_tokens"]) {
            let input = n("input_tokens").unwrap_or(0);
            return Some(Usage {
                input_tokens: input.saturating_sub(cached),
                cache_read_input_tokens: cached.min(input),
                output_tokens: n("output_tokens").unwrap_or(0),
                reasoning_tokens,
                ..Usage::default()
            });
        }
        // Anthropic.
        Some(Usage {
            input_tokens: n("input_tokens")?,
            cache_creation_input_tokens: n("cache_creation_input_tokens").unwrap_or(0),
            cache_read_input_tokens: n("cache_read_input_tokens").unwrap_or(0),
            output_tokens: n("output_tokens").unwrap_or(0),
            ephemeral_5m_input_tokens: at(&["cache_creation", "ephemeral_5m_input_tokens"]),
            ephemeral_1h_input_tokens: at(&["cache_creation", "ephemeral_1h_input_tokens"]),
            reasoning_tokens,
            reports_creation: u.get("cache_creation_input_tokens").is_some(),
            fast: false,
        })
    }
}

/// Advisor calls made within one request (Anthropic's
/// `usage.iterations` of type `advisor_message`): each with its own model
/// and usage, billed at that model's rates. At most 64 are read.
pub fn advisor_calls(u: &Value) -> Vec<(String, Usage)> {
    u.get("iterations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "advisor_message")
        .take(64)
        .filter_map(|i| {
            let model = crate::clean(i["model"].as_str()?, 200);
            Some((model, Usage::parse(i)?))
        })
        .collect()
}

/// The data of each SSE event of `text` that mentions `"key"`, parsed (the
/// others are not parsed at all).
pub fn events_with<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = Value> + 'a {
    let quoted = format!("\"{key}\"");
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(move |d| d.contains(&quoted))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
}

/// The `usage` object a response reported, as the provider wrote it (what
/// a capture records, read by [`Usage::parse`]): the JSON body's `usage`,
/// or, for a stream, Anthropic's `message_start` usage updated by each
/// `message_delta`, OpenAI's final chunk's `usage`, or the Responses API's
/// terminal event's `response.usage`. Null when there is none.
pub fn reported(body: &[u8], stream: bool) -> Value {
    let text = String::from_utf8_lossy(body);
    if !stream {
        return serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("usage").or_else(|| v.get("usageMetadata")).cloned())
            .unwrap_or(Value::Null);
    }
    let mut usage = Value::Null;
    // Gemini's stream: each chunk may carry `usageMetadata`; the last one
    // has the whole answer's.
    for v in events_with(&text, "usageMetadata") {
        if let Some(u) = v.get("usageMetadata").filter(|u| u.is_object()) {
            usage = u.clone();
        }
    }
    for v in events_with(&text, "usage") {
        let found = match v["type"].as_str() {
            Some("message_start") => v.pointer("/message/usage").cloned(),
            Some("message_delta") => v.get("usage").cloned(),
            // The Responses API: the usage is on the terminal event's response.
            Some("response.completed" | "response.incomplete" | "response.failed") => v
                .pointer("/response/usage")
                .filter(|u| u.is_object())
                .cloned(),
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

/// The usage of a response body or stream, read ([`reported`], then
/// [`Usage::parse`]).
pub fn of_response(body: &[u8], stream: bool) -> Option<Usage> {
    Usage::parse(&reported(body, stream))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_figure_that_is_not_a_count_is_named() {
        let u = json!({"input_tokens": 5, "output_tokens": -5});
        assert_eq!(
            Usage::unreadable_figure(&u).as_deref(),
            Some("\"output_tokens\": -5")
        );
        let u = json!({"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": "3"}});
        assert_eq!(
            Usage::unreadable_figure(&u).as_deref(),
            Some("\"cached_tokens\": \"3\"")
        );
        let fine = json!({"promptTokenCount": 9, "cachedContentTokenCount": null, "speed": "fast",
            "cache_creation": {"ephemeral_5m_input_tokens": 0}});
        assert_eq!(Usage::unreadable_figure(&fine), None);
    }

    #[test]
    fn every_provider_shape_is_read() {
        let u = Usage::parse(&json!({"input_tokens": 5, "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 7, "output_tokens": 3,
            "cache_creation": {"ephemeral_5m_input_tokens": 7, "ephemeral_1h_input_tokens": 0}}))
        .unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_input_tokens
            ),
            (5, 100, 7)
        );
        assert!(u.reports_creation);
        assert_eq!(u.ephemeral_5m_input_tokens, Some(7));
        assert_eq!(u.written_1h(), 0);
        let u = Usage::parse(&json!({"input_tokens": 5, "cache_read_input_tokens": 9})).unwrap();
        assert!(!u.reports_creation);
        let u = Usage::parse(&json!({"prompt_tokens": 1500, "completion_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 1280},
            "completion_tokens_details": {"reasoning_tokens": 12}}))
        .unwrap();
        assert_eq!((u.input_tokens, u.cache_read_input_tokens), (220, 1280));
        assert_eq!((u.output_tokens, u.reasoning_tokens), (40, 12));
        let u = Usage::parse(&json!({"input_tokens": 5200, "output_tokens": 30,
            "input_tokens_details": {"cached_tokens": 4096},
            "output_tokens_details": {"reasoning_tokens": 12}}))
        .unwrap();
        assert_eq!((u.input_tokens, u.cache_read_input_tokens), (1104, 4096));
        assert_eq!((u.output_tokens, u.reasoning_tokens), (30, 12));
        assert_eq!(Usage::parse(&json!({"id": "x"})), None);
        assert_eq!(Usage::parse(&json!("usage")), None);
        let huge = Usage::parse(&json!({"input_tokens": u64::MAX})).unwrap();
        assert_eq!(huge.input_tokens, MAX_TOKENS);
    }

    #[test]
    fn a_stream_s_usage_is_merged_from_its_events() {
        let anthropic = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":100,\"output_tokens\":1}}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":40,\"input_tokens\":null}}\n\n"
        );
        let u = of_response(anthropic.as_bytes(), true).unwrap();
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens, u.output_tokens),
            (5, 100, 40)
        );
        let chat = "data: {\"choices\":[]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";
        assert_eq!(of_response(chat.as_bytes(), true).unwrap().input_tokens, 10);
        assert_eq!(
            reported(br#"{"usage":{"input_tokens":3}}"#, false),
            json!({"input_tokens": 3})
        );
        assert_eq!(reported(b"not json", false), Value::Null);
    }

    #[test]
    fn responses_usage_is_read_from_the_terminal_event() {
        let stream = concat!(
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n",
            "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":5200,\"input_tokens_details\":{\"cached_tokens\":4096},\"output_tokens\":30,\"output_tokens_details\":{\"reasoning_tokens\":12}}}}\n\n"
        );
        let u = reported(stream.as_bytes(), true);
        assert_eq!(u["input_tokens"], 5200);
        assert_eq!(u["input_tokens_details"]["cached_tokens"], 4096);
        assert_eq!(u["output_tokens_details"]["reasoning_tokens"], 12);
    }
}
