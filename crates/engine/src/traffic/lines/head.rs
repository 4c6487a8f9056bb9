//! A capture's line read for what each pass needs of it, not as a whole
//! tree: the first pass keeps of a request left in the file only what
//! names its chain and model (the request is read again when it is
//! explained); the second reads only the request. A capture's exchange is
//! made into what is kept of it where it was parsed ([`prepare`]).

use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::traffic::CaptureLine;
use crate::traffic::parse::{Sent, sent};

/// A request's fields the first pass reads ([`super::super::parse::sent`]:
/// its chain's key and its model).
const HEAD_FIELDS: [&str; 5] = [
    "model",
    "prompt_cache_key",
    "system",
    "instructions",
    "systemInstruction",
];

/// A line of the first pass. With `lazy` (its request will be read again
/// from the file), the `request` of a capture line (one that named its
/// `endpoint` first, as the proxy writes it) holds only the fields the
/// first pass reads and its first message; the rest of the line is as
/// parsed whole. Anything that is not a JSON object is an error, as it is
/// for the reader.
pub(in crate::traffic) fn first_pass(line: &str, lazy: bool) -> Result<Value, ()> {
    if !lazy {
        return serde_json::from_str::<Value>(line).map_err(|_| ());
    }
    let mut d = serde_json::Deserializer::from_str(line);
    let v = d.deserialize_map(LineVisitor).map_err(|_| ())?;
    d.end().map_err(|_| ())?;
    Ok(v)
}

/// The `request` of a line of the second pass (`None` when there is none,
/// or it is `null`, or the line is not a JSON object).
#[cfg(test)]
fn request_of(line: &str) -> Option<Value> {
    endpoint_and_request(line)?.1
}

/// [`request_of`] read into the typed request, as the API its line's
/// `endpoint` names reads it.
pub(in crate::traffic) fn recorded_request(line: &str) -> Option<crate::request::Request> {
    let (endpoint, body) = endpoint_and_request(line)?;
    let api = endpoint.as_deref().and_then(crate::request::Api::of_path);
    Some(crate::request::Request::of_recorded(api, &body?))
}

fn endpoint_and_request(line: &str) -> Option<(Option<String>, Option<Value>)> {
    let mut d = serde_json::Deserializer::from_str(line);
    let (endpoint, v) = d.deserialize_map(RequestOnly).ok()?;
    d.end().ok()?;
    Some((endpoint, v.filter(|r| !r.is_null())))
}

/// A line as parsed (on any core): a capture's exchange made into what is
/// kept of it, any other line as its tree, taken in order by
/// [`super::Lines::push_parsed`].
#[allow(
    clippy::large_enum_variant,
    reason = "held a batch at a time (256 at most), then moved into what is kept: a box would cost an allocation per line"
)]
pub(in crate::traffic) enum Parsed {
    /// A JSON object with `endpoint` and `request` (not a Codex line): its
    /// exchange (None for what is not a request), and whether the line
    /// also had a transcript's fields.
    Exchange {
        sent: Option<Sent>,
        transcript: bool,
    },
    /// Any other line (or what is not JSON).
    Line(Result<Value, ()>),
}

/// What [`super::Lines::push_parsed`] takes of a parsed line, made where it was
/// parsed: a capture's exchange needs nothing of the lines before it. With
/// `lazy` its request is left out (it is read again from the file).
pub(in crate::traffic) fn prepare(v: Result<Value, ()>, lazy: bool) -> Parsed {
    match v {
        Ok(v)
            if v.get("endpoint").is_some()
                && v.get("request").is_some()
                && !crate::traffic::codex::is_rollout_line(&v) =>
        {
            let transcript = v.get("sessionId").is_some() || v.get("message").is_some();
            Parsed::Exchange {
                sent: CaptureLine::from_value(v).and_then(|l| sent(l, lazy)),
                transcript,
            }
        }
        v => Parsed::Line(v),
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut endpoint = false;
        while let Some(k) = map.next_key::<String>()? {
            let v = if k == "request" && endpoint {
                map.next_value_seed(Keep::Head)?
            } else if (k == "headers" || k == "response") && endpoint {
                // Read again with the request, when it is: not held for
                // every line of a long capture.
                map.next_value::<IgnoredAny>()?;
                continue;
            } else {
                map.next_value::<Value>()?
            };
            endpoint |= k == "endpoint";
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

struct RequestOnly;

impl<'de> Visitor<'de> for RequestOnly {
    type Value = (Option<String>, Option<Value>);
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut endpoint, mut request) = (None, None);
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if k == "request" {
                request = Some(map.next_value::<Value>()?);
            } else if k == "endpoint" {
                endpoint = map.next_value::<Value>()?.as_str().map(str::to_string);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok((endpoint, request))
    }
}

/// How much of a value the first pass keeps: of a request ([`Keep::Head`])
/// an object's [`HEAD_FIELDS`], its first message and its messages'
/// hashes ([`crate::traffic::history`]; the messages read past); anything
/// else whole.
#[derive(Clone, Copy)]
enum Keep {
    Head,
}

impl<'de> DeserializeSeed<'de> for Keep {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Keep {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        serde::Deserialize::deserialize(de::value::SeqAccessDeserializer::new(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if crate::traffic::history::MESSAGE_FIELDS.contains(&k.as_str()) {
                // Each message hashed as it streams past; of `messages`
                // the first one kept.
                use crate::traffic::history::{FIELD, Hashes, Streamed};
                let keep_first = k == "messages";
                match map.next_value_seed(Hashes { keep_first })? {
                    Streamed::List(first, hashes) => {
                        if keep_first {
                            out.insert(k, Value::Array(first.into_iter().collect()));
                        }
                        out.insert(FIELD.into(), hashes.into_iter().map(Value::from).collect());
                    }
                    Streamed::Other(v) if keep_first => {
                        out.insert(k, v);
                    }
                    Streamed::Other(_) => {}
                }
            } else if HEAD_FIELDS.contains(&k.as_str()) {
                let v = map.next_value::<Value>()?;
                out.insert(k, v);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_pass_keeps_what_names_the_chain_and_the_second_only_the_request() {
        let line = r#"{"schema":1,"endpoint":"/v1/messages","usage":{"input_tokens":3},"request":{"model":"m","max_tokens":9,"system":[{"type":"text","text":"You are K."}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}],"tools":[{"name":"t"}]}}"#;
        let full: Value = serde_json::from_str(line).unwrap();
        let head = first_pass(line, true).unwrap();
        assert_eq!(head["usage"], full["usage"]);
        assert_eq!(head["request"]["system"], full["request"]["system"]);
        assert_eq!(head["request"]["model"], "m");
        assert_eq!(
            head["request"]["messages"],
            serde_json::json!([{"role":"user","content":"hi"}])
        );
        assert!(head["request"].get("tools").is_none());
        assert_eq!(first_pass(line, false).unwrap(), full);
        assert_eq!(request_of(line).unwrap(), full["request"]);
        // No endpoint before it: the request is whole.
        let t = r#"{"request":{"a":[1,2]},"endpoint":"/x"}"#;
        assert_eq!(
            first_pass(t, true).unwrap(),
            serde_json::from_str::<Value>(t).unwrap()
        );
        // Non-object requests, duplicates (the last wins, as for a tree),
        // and what is not an object or not JSON.
        for t in [
            r#"{"endpoint":"/x","request":null}"#,
            r#"{"endpoint":"/x","request":[1,{"a":2}]}"#,
            r#"{"endpoint":"/x","request":{"messages":"text","system":1}}"#,
            r#"{"endpoint":"/x","request":{"system":"a","system":"b"},"request":{"model":"z"}}"#,
        ] {
            let full: Value = serde_json::from_str(t).unwrap();
            assert_eq!(first_pass(t, true).unwrap(), full, "{t}");
        }
        assert_eq!(request_of(r#"{"endpoint":"/x","request":null}"#), None);
        assert_eq!(
            request_of(r#"{"request":1,"request":2}"#),
            Some(Value::from(2))
        );
        for bad in ["[1]", "3", "{\"a\":", "{\"endpoint\":1} x", ""] {
            assert!(first_pass(bad, true).is_err(), "{bad}");
            assert_eq!(request_of(bad), None, "{bad}");
        }
    }
}
