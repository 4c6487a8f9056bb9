//! A request body and every recorded string as a capture holds them: keys
//! redacted (their shapes, then every fragment of the exchange's secrets,
//! through JSON escapes), the body kept verbatim on one line where it can
//! be, parsed only when redaction would otherwise break it.

use std::borrow::Cow;

use serde_json::Value;

use crate::guard;

/// A request body as a capture records it: the body verbatim, any key in it
/// redacted, on one line (line breaks outside JSON strings are whitespace);
/// `null` when it is not a JSON object. With the request's model.
pub(in crate::proxy) fn recorded_request<'a>(
    body: &'a [u8],
    redactor: &guard::Redactor,
) -> (Cow<'a, str>, Value) {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        model: Value,
    }
    let null = || (Cow::Borrowed("null"), Value::Null);
    let Ok(text) = simdutf8::basic::from_utf8(body) else {
        return null();
    };
    // A key spelled with JSON escapes (`\u0073k-…`) is not in the raw text:
    // those escapes are written plainly first (the same JSON, no tree).
    let text = if escapes_ascii(text) {
        Cow::Owned(unescape_ascii(text))
    } else {
        Cow::Borrowed(text)
    };
    // Copied only where something changes: most bodies go to the capture
    // as they came. Key shapes first, so that every key-shaped string is
    // redacted whole whatever the headers held (a header key sharing its
    // prefix with a pasted one would otherwise cut the pasted one's head
    // and leave its tail unshaped); then every fragment of the header keys.
    let mut redacted = match guard::redact_shapes(&text) {
        Cow::Owned(r) => Cow::Owned(r),
        Cow::Borrowed(_) => text.clone(),
    };
    if let Cow::Owned(r) = redactor.redact(&redacted) {
        redacted = Cow::Owned(r);
    }
    if memchr::memchr2(b'\n', b'\r', redacted.as_bytes()).is_some() {
        redacted = Cow::Owned(redacted.replace(['\n', '\r'], " "));
    }
    match serde_json::from_str::<Head>(&redacted) {
        // An object, not an array the struct would also be read from.
        Ok(h) if redacted.trim_start().starts_with('{') => (redacted, h.model),
        Ok(_) => null(),
        // Redaction can only break the JSON where a key's fragment matched
        // outside a string (digits in a number): redact the strings of the
        // parsed body instead, if its tree stays within a few times its
        // size (a body of many tiny values is not parsed: recorded as null).
        Err(_) if tree_is_small(&text) => match serde_json::from_str::<Value>(&text) {
            Ok(mut v) if v.is_object() => {
                redact_value(&mut v, redactor);
                let model = v["model"].clone();
                (Cow::Owned(v.to_string()), model)
            }
            _ => null(),
        },
        Err(_) => null(),
    }
}

/// Values (object keys included) a parsed JSON tree may hold per KiB of
/// its text before it is not parsed: at about 80 bytes a value, 40 a KiB
/// keeps the tree near three times the text (an agent's body has 10–25; a
/// body of tiny values, `[{},{},…]`, over 300).
const MAX_VALUES_PER_KIB: usize = 40;

/// Whether parsing `text` into a tree keeps within about three times its
/// size (the values counted as `traffic` counts them).
pub(in crate::proxy) fn tree_is_small(text: &str) -> bool {
    crate::engine::traffic::estimate_values(text) <= text.len() / 1024 * MAX_VALUES_PER_KIB + 1024
}

/// `text` with each JSON escape of a printable ASCII character
/// (`\u0020`–`\u007e`, but the quote and the backslash, which must stay
/// escaped) written as the character: the same JSON value.
pub(super) fn unescape_ascii(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'u')
            && let Some(hex) = text.get(i + 2..i + 6)
            && let Ok(c) = u8::from_str_radix(hex, 16)
            && hex.bytes().all(|x| x.is_ascii_hexdigit())
            && (0x20..0x7f).contains(&c)
            && c != b'"'
            && c != b'\\'
        {
            out.push_str(&text[copied..i]);
            out.push(c as char);
            i += 6;
            copied = i;
        } else {
            // Any other escape (`\\`, `\"`, `\n`…) is kept whole.
            i += 2;
        }
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// `text` with key shapes redacted first (as for the raw body), then every
/// fragment of the exchange's secrets; borrowed when it holds none.
pub(in crate::proxy) fn redact_text<'a>(text: &'a str, redactor: &guard::Redactor) -> Cow<'a, str> {
    match guard::redact_shapes(text) {
        Cow::Borrowed(b) => redactor.redact(b),
        Cow::Owned(o) => Cow::Owned(redactor.redact(&o).into_owned()),
    }
}

/// Redacts every string (and object key) in `v`; numbers cannot hold a
/// key's text and are left as they are.
pub(in crate::proxy) fn redact_value(v: &mut Value, redactor: &guard::Redactor) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(x) = redact_text(s, redactor) {
                *s = x;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, redactor)),
        // Rebuilt only when a name holds a secret.
        Value::Object(o)
            if o.keys().any(|k| {
                matches!(redactor.redact(k), Cow::Owned(_))
                    || matches!(guard::redact_shapes(k), Cow::Owned(_))
            }) =>
        {
            let entries = std::mem::take(o);
            for (k, mut x) in entries {
                redact_value(&mut x, redactor);
                let k = guard::redact_shapes(&k).into_owned();
                o.insert(redactor.redact(&k).into_owned(), x);
            }
        }
        Value::Object(o) => o.values_mut().for_each(|x| redact_value(x, redactor)),
        _ => {}
    }
}

/// Whether `text` has a JSON escape of a printable ASCII character
/// (`\u0020`–`\u007f`), the only escapes a key's characters could hide in.
pub(super) fn escapes_ascii(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, b"\\u00").any(|i| {
        matches!(b.get(i + 4), Some(b'2'..=b'7')) && b.get(i + 5).is_some_and(u8::is_ascii_hexdigit)
    })
}
