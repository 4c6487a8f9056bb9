//! A client's request headers: which are forwarded upstream, which carry
//! a key (to forward, never record, and to redact everywhere), its length.

use hyper::Request;
use hyper::body::Incoming;

use crate::guard;

/// Headers never forwarded (hop by hop, or recomputed).
pub(super) fn hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "host"
            | "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "proxy-authorization"
            | "proxy-connection"
            | "content-length"
            | "accept-encoding"
    )
}

use guard::KEY_HEADERS;

/// The keys a request carries, to redact them from what is recorded: each
/// credential header's value as bytes (a value that is not ASCII is a key too), its
/// `Bearer`/`Basic` scheme dropped.
pub(super) fn keys_of(req: &Request<Incoming>) -> Vec<String> {
    let mut v = Vec::new();
    // Every header that may carry a credential (a gateway's own key header
    // too); cookies are taken apart below.
    let carrying = req
        .headers()
        .iter()
        .filter(|(k, _)| guard::credential_header(k.as_str()) && !k.as_str().contains("cookie"));
    for (_, h) in carrying {
        let value = String::from_utf8_lossy(h.as_bytes()).trim().to_string();
        let key = match value.split_once(' ') {
            Some((scheme, rest))
                if scheme.eq_ignore_ascii_case("bearer")
                    || scheme.eq_ignore_ascii_case("basic") =>
            {
                rest.trim().to_string()
            }
            _ => value,
        };
        v.push(key);
    }
    // Credentials outside the authentication headers (`?key=`, cookies)
    // are keys too: refused over plain HTTP off this machine, redacted.
    let cookies: Vec<String> = req
        .headers()
        .get_all("cookie")
        .iter()
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .collect();
    let cookies: Vec<&str> = cookies.iter().map(String::as_str).collect();
    v.extend(guard::credentials_outside_headers(
        req.uri().query(),
        &cookies,
    ));
    v.retain(|k| !k.is_empty());
    v
}

/// The headers forwarded upstream (all but the hop-by-hop ones) and the
/// ones that carry a key (kept to count with a llama.cpp upstream).
pub(super) fn split_headers(
    req: &Request<Incoming>,
) -> (reqwest::header::HeaderMap, reqwest::header::HeaderMap) {
    let mut headers = reqwest::header::HeaderMap::new();
    let mut auth = reqwest::header::HeaderMap::new();
    for (k, v) in req.headers() {
        if !hop_by_hop(k.as_str()) {
            headers.append(k.clone(), v.clone());
        }
        if KEY_HEADERS.contains(&k.as_str()) {
            auth.append(k.clone(), v.clone());
        }
    }
    (headers, auth)
}

/// Headers as a capture records them: each `[name, value]` in order, at
/// most [`crate::engine::traffic::MAX_HEADERS`], a value cleaned and
/// at most 2,000 characters; the value of a header that carries a
/// credential (a key header, a proxy's or a cookie's) written as
/// `[REDACTED]`, an `Authorization` keeping its scheme (`Bearer
/// [REDACTED]`). The writer redacts any key from the rest.
pub(super) fn recorded<'a>(
    headers: impl IntoIterator<
        Item = (
            &'a hyper::header::HeaderName,
            &'a hyper::header::HeaderValue,
        ),
    >,
) -> Vec<(String, String)> {
    headers
        .into_iter()
        .take(crate::engine::traffic::MAX_HEADERS)
        .map(|(k, v)| {
            let name = k.as_str();
            let value = String::from_utf8_lossy(v.as_bytes());
            let value = match value.split_once(' ') {
                _ if !guard::credential_header(name) => guard::clean(&value, 2000),
                Some((scheme, _)) if name.ends_with("authorization") => {
                    format!("{} {}", guard::clean(scheme, 20), guard::REDACTED)
                }
                _ => guard::REDACTED.to_string(),
            };
            (name.to_string(), value)
        })
        .collect()
}

/// The client's own name and release from its headers, as the capture
/// records them (`user_agent`, Codex's `originator` and `version`), each
/// cleaned and at most 200 characters; None when it sends none of them.
/// These name the agent, never a key (they are redacted too, with the
/// rest of the line).
pub(super) fn client_of(req: &Request<Incoming>) -> Option<serde_json::Value> {
    let mut o = serde_json::Map::new();
    for (header, field) in [
        ("user-agent", "user_agent"),
        ("originator", "originator"),
        ("version", "version"),
    ] {
        if let Some(v) = req.headers().get(header) {
            let v = guard::clean(&String::from_utf8_lossy(v.as_bytes()), 200);
            if !v.is_empty() {
                o.insert(field.into(), v.into());
            }
        }
    }
    (!o.is_empty()).then_some(serde_json::Value::Object(o))
}

/// The request's `content-length`, when it is a number.
pub(super) fn content_length(req: &Request<Incoming>) -> Option<usize> {
    req.headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
}
