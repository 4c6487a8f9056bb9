//! The capture line, defined once: one JSON line per exchange the recording
//! proxy forwarded. The proxy writes it ([`CaptureLine::to_line`]: the head
//! serialized field by field, then the request body as it came, keys
//! redacted), and `traffic` reads it ([`CaptureLine::from_value`]),
//! leniently: a field of the wrong type is read as absent (an empty text,
//! no status, no error), never dropping the line.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// One exchange as the capture records it, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CaptureLine {
    /// The line's format (1).
    #[serde(default, deserialize_with = "number")]
    pub schema: u64,
    /// `TS_START-INSTANCE-SEQ`: unique even when two proxies append to one
    /// capture.
    #[serde(default, deserialize_with = "text")]
    pub id: String,
    /// RFC 3339, when the request came in (the order it was sent).
    #[serde(default, deserialize_with = "text")]
    pub ts_start: String,
    /// RFC 3339, when the exchange ended (the line is written then).
    #[serde(default, deserialize_with = "text")]
    pub ts_end: String,
    /// The path forwarded (`/v1/messages`, `/v1/responses`…).
    #[serde(default, deserialize_with = "text")]
    pub endpoint: String,
    /// The request's `model` as it named it (any JSON: read when a text).
    #[serde(default)]
    pub model: Value,
    #[serde(default, deserialize_with = "status")]
    pub status: Option<u16>,
    /// The answer was an SSE stream.
    #[serde(default, deserialize_with = "flag")]
    pub stream: bool,
    /// The usage as the provider reported it (read by
    /// [`crate::usage::Usage::parse`]).
    #[serde(default)]
    pub usage: Value,
    #[serde(default, deserialize_with = "number")]
    pub latency_ms: u64,
    #[serde(default, deserialize_with = "optional_text")]
    pub error: Option<String>,
    /// The parts as a llama.cpp upstream counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<Value>,
    /// Anthropic's cache diagnostics of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Value>,
    /// The client's own name and release, from its request headers
    /// (`user_agent`, Codex's `originator` and `version`): what says which
    /// agent release sent the request. Never a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<Value>,
    /// The request's and the answer's HTTP headers as the proxy saw them,
    /// a credential's value never among them.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "headers"
    )]
    pub headers: Option<Headers>,
    /// The answer's body as it came (a JSON body, or an SSE stream's
    /// events), keys redacted, at most [`MAX_RESPONSE_BYTES`] (cut there
    /// with a line saying so).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_text"
    )]
    pub response: Option<String>,
    /// The request body (`null` when it was not a JSON object); None when
    /// the line has none (not an exchange). Written raw by
    /// [`CaptureLine::to_line`], last.
    #[serde(default, skip_serializing, deserialize_with = "present")]
    pub request: Option<Value>,
}

/// An exchange's HTTP headers, each a `[name, value]` pair in the order
/// sent (a name may come twice). The proxy writes the value of a header
/// that carries a credential (`authorization`, `x-api-key`, cookies…) as
/// `[REDACTED]` and redacts any key from the others.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Headers {
    #[serde(default, deserialize_with = "pairs")]
    pub request: Vec<(String, String)>,
    #[serde(default, deserialize_with = "pairs")]
    pub response: Vec<(String, String)>,
}

/// An answer's body recorded at most, in bytes.
pub const MAX_RESPONSE_BYTES: usize = 1 << 20;

/// Headers read of one exchange at most (a request has a few dozen).
pub const MAX_HEADERS: usize = 200;

/// `[name, value]` pairs, at most [`MAX_HEADERS`]; anything else is left out.
fn pairs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    let v = Value::deserialize(d)?;
    let pair = |p: &Value| match p.as_array().map(Vec::as_slice) {
        Some([Value::String(k), Value::String(v)]) => Some((k.clone(), v.clone())),
        _ => None,
    };
    Ok(v.as_array()
        .map(|a| a.iter().filter_map(pair).take(MAX_HEADERS).collect())
        .unwrap_or_default())
}

/// The headers when they are an object; anything else reads as absent.
fn headers<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Headers>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(v.is_object()
        .then(|| Headers::deserialize(v).ok())
        .flatten())
}

/// What a capture's line recorded of the wire besides the request: its
/// headers and the answer's body, read again from the line's text (the
/// rest of it skipped, not built).
#[derive(Debug, Default, Deserialize)]
pub struct Wire {
    #[serde(default, deserialize_with = "headers")]
    pub headers: Option<Headers>,
    #[serde(default, deserialize_with = "optional_text")]
    pub response: Option<String>,
}

impl Wire {
    pub fn of_line(line: &str) -> Wire {
        serde_json::from_str(line).unwrap_or_default()
    }
}

/// A text field; anything else reads as empty.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        _ => String::new(),
    })
}

/// A text field that may be absent; anything but a text reads as absent.
fn optional_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// A whole number; anything else reads as 0.
fn number<'de, D: Deserializer<'de>, N: TryFrom<u64> + Default>(d: D) -> Result<N, D::Error> {
    Ok(Value::deserialize(d)?
        .as_u64()
        .and_then(|n| N::try_from(n).ok())
        .unwrap_or_default())
}

/// An HTTP status: a whole number, kept in 16 bits as it always was read.
fn status<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64().map(|s| s as u16))
}

fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Value::deserialize(d)?.as_bool().unwrap_or(false))
}

/// A field that is there, even as `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl CaptureLine {
    /// A parsed line read as a capture line (its request moved out of the
    /// tree, not copied); None when it is not a JSON object.
    pub fn from_value(mut line: Value) -> Option<CaptureLine> {
        let request = line.as_object_mut()?.remove("request");
        // Every field is optional and read leniently: an object always reads.
        let mut l = CaptureLine::deserialize(line).ok()?;
        l.request = request;
        Some(l)
    }

    /// A line of text read as a capture line.
    pub fn parse(line: &str) -> Option<CaptureLine> {
        CaptureLine::from_value(serde_json::from_str(line).ok()?)
    }

    /// The line as the capture holds it, up to its request: the fields in
    /// order, then `"request":`. The writer adds the body's JSON text as
    /// given, then `}` and the line break.
    pub fn line_head(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_else(|_| "{}".into());
        line.pop();
        if line.len() > 1 {
            line.push(',');
        }
        line.push_str("\"request\":");
        line
    }

    /// Whether the line is a token count (`/count_tokens`: no generation,
    /// no cache).
    pub fn is_count(&self) -> bool {
        self.endpoint.ends_with("/count_tokens") || self.endpoint.ends_with(":countTokens")
    }

    /// The API its endpoint speaks: `anthropic` (`/v1/messages`), `openai`
    /// (`/v1/chat/completions`, `/v1/responses`) or `gemini`
    /// (`models/M:generateContent`).
    pub fn api(&self) -> Option<&'static str> {
        use crate::request::Api;
        Api::of_path(&self.endpoint).map(|a| match a {
            Api::AnthropicMessages => "anthropic",
            Api::ChatCompletions | Api::Responses => "openai",
            Api::Gemini => "gemini",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_is_written_in_its_order_with_the_request_verbatim_last() {
        let l = CaptureLine {
            schema: 1,
            id: "t-1".into(),
            ts_start: "2026-11-30T10:00:00.000Z".into(),
            ts_end: "2026-11-30T10:00:00.900Z".into(),
            endpoint: "/v1/messages".into(),
            model: json!("m"),
            status: Some(200),
            stream: true,
            usage: json!({"input_tokens": 4}),
            latency_ms: 900,
            error: None,
            counted: None,
            diagnostics: Some(json!({"cache_miss_reason": null})),
            client: None,
            headers: Some(Headers {
                request: vec![("anthropic-version".into(), "2023-06-01".into())],
                response: vec![],
            }),
            response: Some("{}".into()),
            request: None,
        };
        let text = format!("{}{}}}", l.line_head(), r#"{ "model": "m" }"#);
        assert_eq!(
            text,
            r#"{"schema":1,"id":"t-1","ts_start":"2026-11-30T10:00:00.000Z","ts_end":"2026-11-30T10:00:00.900Z","endpoint":"/v1/messages","model":"m","status":200,"stream":true,"usage":{"input_tokens":4},"latency_ms":900,"error":null,"diagnostics":{"cache_miss_reason":null},"headers":{"request":[["anthropic-version","2023-06-01"]],"response":[]},"response":"{}","request":{ "model": "m" }}"#
        );
        let wire = Wire::of_line(&text);
        assert_eq!(
            (wire.headers, wire.response),
            (l.headers.clone(), l.response.clone())
        );
        let back = CaptureLine::parse(&text).unwrap();
        assert_eq!(back.request, Some(json!({"model": "m"})));
        assert_eq!(
            CaptureLine {
                request: None,
                ..back
            },
            l
        );
    }

    #[test]
    fn fields_of_the_wrong_type_read_as_absent() {
        let l = CaptureLine::parse(
            r#"{"ts_start":5,"endpoint":["x"],"status":"200","error":{"m":1},"latency_ms":-1,"stream":"yes","request":null,"counted":null}"#,
        )
        .unwrap();
        assert_eq!((l.ts_start.as_str(), l.endpoint.as_str()), ("", ""));
        assert_eq!(
            (l.status, l.error, l.latency_ms, l.stream),
            (None, None, 0, false)
        );
        assert_eq!(l.request, Some(Value::Null));
        assert_eq!(l.counted, None);
        assert_eq!(CaptureLine::parse(r#"{"a":1}"#).unwrap().request, None);
        assert_eq!(CaptureLine::parse("[1]"), None);
        // Headers: not an object, or pairs that are not two texts.
        let h = |text: &str| CaptureLine::parse(text).unwrap().headers;
        assert_eq!(h(r#"{"headers":[["a","b"]]}"#), None);
        assert_eq!(
            h(r#"{"headers":{"request":[["a","b"],["c"],[1,"d"],"e"],"response":7}}"#),
            Some(Headers {
                request: vec![("a".into(), "b".into())],
                response: vec![],
            })
        );
        // A status beyond 16 bits is read as it always was.
        assert_eq!(
            CaptureLine::parse(r#"{"status":70000}"#).unwrap().status,
            Some(70000u64 as u16)
        );
    }
}
