//! A request's conversation as hashes, one per message (`messages`,
//! Responses' `input`, Gemini's `contents`), breakpoints aside: whether a
//! request carries on another's conversation is told on these (its
//! messages begin with all of the other's), so that a request whose system
//! prompt changed in the middle of a conversation keeps its chain. The
//! same hash is made from a parsed tree ([`of_request`]) and while a line
//! streams past the first pass of a capture read lazily ([`Hashes`]), the
//! messages never built: an object's fields are combined in any order.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64;

/// Messages hashed at most per request.
pub const MAX_HASHED_MESSAGES: usize = 4096;

/// The field of a request's head (the first pass) that carries its
/// messages' hashes.
pub const FIELD: &str = "\u{1}history";

/// The fields a request's conversation is in.
pub const MESSAGE_FIELDS: [&str; 3] = ["messages", "input", "contents"];

/// The hashes of a request's messages: read from its head when the first
/// pass made them, else made from its tree.
pub fn of_request(req: &Value) -> Vec<u64> {
    if let Some(Value::Array(h)) = req.get(FIELD) {
        return h.iter().filter_map(Value::as_u64).collect();
    }
    MESSAGE_FIELDS
        .iter()
        .find_map(|k| req.get(*k).and_then(Value::as_array))
        .map_or(Vec::new(), |m| {
            m.iter().take(MAX_HASHED_MESSAGES).map(hash).collect()
        })
}

fn tagged(tag: u8, bytes: &[u8]) -> u64 {
    let mut b = Vec::with_capacity(bytes.len() + 1);
    b.push(tag);
    b.extend_from_slice(bytes);
    xxh3_64(&b)
}

fn entry(key: &str, value: u64) -> u64 {
    let mut b = Vec::with_capacity(key.len() + 16);
    b.extend_from_slice(&(key.len() as u64).to_le_bytes());
    b.extend_from_slice(key.as_bytes());
    b.extend_from_slice(&value.to_le_bytes());
    xxh3_64(&b)
}

fn number(n: &serde_json::Number) -> u64 {
    tagged(b'n', n.to_string().as_bytes())
}

/// One value's hash, `cache_control` fields left out.
pub fn hash(v: &Value) -> u64 {
    match v {
        Value::Null => tagged(b'z', b""),
        Value::Bool(b) => tagged(b'b', &[*b as u8]),
        Value::Number(n) => number(n),
        Value::String(s) => tagged(b's', s.as_bytes()),
        Value::Array(a) => {
            let mut b = Vec::with_capacity(a.len() * 8);
            for x in a {
                b.extend_from_slice(&hash(x).to_le_bytes());
            }
            tagged(b'[', &b)
        }
        Value::Object(o) => {
            let sum = o
                .iter()
                .filter(|(k, _)| *k != "cache_control")
                .fold(0u64, |s, (k, x)| s.wrapping_add(entry(k, hash(x))));
            tagged(b'{', &sum.to_le_bytes())
        }
    }
}

/// A value hashed as it streams past, never built ([`hash`]'s twin).
pub struct Hashed;

impl<'de> DeserializeSeed<'de> for Hashed {
    type Value = u64;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Hashed {
    type Value = u64;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<u64, E> {
        Ok(tagged(b'b', &[v as u8]))
    }
    fn visit_i64<E>(self, v: i64) -> Result<u64, E> {
        Ok(number(&v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<u64, E> {
        Ok(number(&v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<u64, E> {
        Ok(serde_json::Number::from_f64(v).map_or(tagged(b'z', b""), |n| number(&n)))
    }
    fn visit_str<E>(self, v: &str) -> Result<u64, E> {
        Ok(tagged(b's', v.as_bytes()))
    }
    fn visit_unit<E>(self) -> Result<u64, E> {
        Ok(tagged(b'z', b""))
    }
    fn visit_none<E>(self) -> Result<u64, E> {
        Ok(tagged(b'z', b""))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut b = Vec::new();
        while let Some(h) = seq.next_element_seed(Hashed)? {
            b.extend_from_slice(&h.to_le_bytes());
        }
        Ok(tagged(b'[', &b))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let mut sum = 0u64;
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if k == "cache_control" {
                map.next_value::<de::IgnoredAny>()?;
                continue;
            }
            let h = map.next_value_seed(Hashed)?;
            sum = sum.wrapping_add(entry(&k, h));
        }
        Ok(tagged(b'{', &sum.to_le_bytes()))
    }
}

/// A message list as it streams past: each message hashed, the first one
/// kept whole when asked (the first pass reads it). What is not a list is
/// kept whole, as it was written (no conversation to carry on).
pub struct Hashes {
    pub keep_first: bool,
}

/// What [`Hashes`] made of a value.
pub enum Streamed {
    /// A list: its first element (when asked) and each element's hash.
    List(Option<Value>, Vec<u64>),
    /// Anything else, whole.
    Other(Value),
}

impl<'de> DeserializeSeed<'de> for Hashes {
    type Value = Streamed;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Streamed, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Hashes {
    type Value = Streamed;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Streamed, A::Error> {
        let mut hashes = Vec::new();
        let mut first = None;
        if self.keep_first
            && let Some(v) = seq.next_element::<Value>()?
        {
            hashes.push(hash(&v));
            first = Some(v);
        }
        while let Some(h) = seq.next_element_seed(Hashed)? {
            if hashes.len() < MAX_HASHED_MESSAGES {
                hashes.push(h);
            }
        }
        Ok(Streamed::List(first, hashes))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Streamed, A::Error> {
        serde::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))
            .map(Streamed::Other)
    }
    fn visit_str<E>(self, v: &str) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::String(v.to_string())))
    }
    fn visit_unit<E>(self) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::Null))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Streamed, E> {
        Ok(Streamed::Other(Value::from(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_hash_is_the_trees_and_breakpoints_do_not_count() {
        let text = r#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}, {"content": "yo", "role": "assistant", "n": 1.5, "k": -3, "z": null, "t": true}]}"#;
        let v: Value = serde_json::from_str(text).unwrap();
        let tree = of_request(&v);
        let mut d = serde_json::Deserializer::from_str(&text[13..text.len() - 1]);
        let Streamed::List(first, streamed) =
            Hashes { keep_first: true }.deserialize(&mut d).unwrap()
        else {
            panic!("a list");
        };
        assert_eq!(streamed, tree);
        assert_eq!(first.unwrap()["role"], "user");
        let moved: Value = serde_json::from_str(
            r#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}"#,
        )
        .unwrap();
        assert_eq!(of_request(&moved)[0], tree[0]);
        assert_ne!(tree[0], tree[1]);
    }
}
