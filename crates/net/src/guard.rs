//! The one choke point between a server and the rest of the tool: every text
//! that comes from the network (error bodies, transport errors, headers) is
//! redacted of secrets *first*, then cleaned of control characters, then cut
//! for display. Also: where a key may be sent (no plain HTTP off loopback),
//! how URLs with credentials are shown, and how `retry-after` is read.

use std::time::Duration;

/// Longest server text shown in one message (characters).
pub const MAX_MESSAGE_CHARS: usize = 300;
/// Largest response body read (larger is one clear error).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Redaction lives in its own module; the choke point re-exports it.
pub use crate::redact::{REDACTED, Redactor, redact, redact_shapes};

/// Why an answer was not read whole.
#[derive(Debug)]
pub enum ReadError {
    /// Over the cap (declared or as it came).
    TooLarge,
    /// The connection failed or timed out.
    Transport(reqwest::Error),
}

/// Reads an answer's body, never more than `max` bytes: a larger one (by
/// its declared length or as it streams) is [`ReadError::TooLarge`] as soon
/// as it is known, without reading the rest.
pub async fn read_capped(mut resp: reqwest::Response, max: usize) -> Result<Vec<u8>, ReadError> {
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Err(ReadError::TooLarge);
    }
    let mut body: Vec<u8> = Vec::new();
    while let Some(c) = resp.chunk().await.map_err(ReadError::Transport)? {
        if body.len() + c.len() > max {
            return Err(ReadError::TooLarge);
        }
        body.extend_from_slice(&c);
    }
    Ok(body)
}

/// A line on standard error through the one terminal-safe filter.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        crate::engine::terminal_safe(line)
    );
}

/// Server text made safe to show (the engine's one cleaner).
pub use crate::engine::clean;

/// A URL as it may be shown or saved: `user:password@` and the values of
/// its query string are masked.
pub fn mask_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let had_user = !u.username().is_empty() || u.password().is_some();
            if had_user {
                let _ = u.set_username("***");
                let _ = u.set_password(None);
            }
            if u.query().is_some() {
                let pairs: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, _)| (k.into_owned(), "***".to_string()))
                    .collect();
                u.query_pairs_mut().clear().extend_pairs(pairs);
            }
            let s = u.to_string();
            // `Url` adds a trailing slash to a bare origin; keep the user's form.
            if !url.ends_with('/') && s.ends_with('/') && u.path() == "/" && u.query().is_none() {
                s.trim_end_matches('/').to_string()
            } else {
                s
            }
        }
        // Not a URL: show nothing that may be a secret after a scheme.
        Err(_) => match url.split_once("://") {
            Some((scheme, rest)) => {
                let host = rest.rsplit_once('@').map(|(_, h)| h).unwrap_or(rest);
                let host = host.split(['?', '#']).next().unwrap_or("");
                format!("{scheme}://{host}")
            }
            None => url.split(['?', '#', '@']).next().unwrap_or("").to_string(),
        },
    }
}

/// Headers that carry a key (Anthropic, OpenAI, Azure OpenAI, Google).
pub const KEY_HEADERS: &[&str] = &["x-api-key", "authorization", "api-key", "x-goog-api-key"];

/// Whether a header (its name in lower case) may carry a credential: a key
/// header, or any name with a part (between dashes or underscores) that
/// says so: `key`, `token`, `secret`, `auth`, `authorization`, `password`,
/// `signature`, `cookie`, `credential` (a gateway's `x-portkey-api-key`,
/// `x-amz-security-token`, `set-cookie`; not `…-ratelimit-tokens-…`). Its
/// value is never recorded nor shown.
pub fn credential_header(name: &str) -> bool {
    const PARTS: [&str; 12] = [
        "key",
        "apikey",
        "token",
        "secret",
        "auth",
        "authorization",
        "password",
        "passwd",
        "signature",
        "cookie",
        "credential",
        "credentials",
    ];
    KEY_HEADERS.contains(&name) || name.split(['-', '_']).any(|p| PARTS.contains(&p))
}

/// The secrets a URL carries (password, username, query values), to redact.
pub fn url_secrets(url: &str) -> Vec<String> {
    let Ok(u) = reqwest::Url::parse(url) else {
        return Vec::new();
    };
    let mut v = url_credentials(url);
    if !u.username().is_empty() {
        v.push(u.username().to_string());
    }
    for (_, val) in u.query_pairs() {
        if !val.is_empty() {
            v.push(val.into_owned());
        }
    }
    v
}

/// The credentials of a URL's `user:password@` part as they may come back:
/// the password (or the user name when it has none: a token in its place),
/// decoded as the client sends it, and `Authorization: Basic …`'s base64 of
/// the pair, which a server may echo. A user name beside a password is not
/// a secret (redacting a common word would blank it out of prompts).
pub fn url_credentials(url: &str) -> Vec<String> {
    let Ok(u) = reqwest::Url::parse(url) else {
        return Vec::new();
    };
    let decoded = |s: &str| percent_decode(s);
    let (user, pass) = (decoded(u.username()), u.password().map(decoded));
    let mut v = Vec::new();
    match &pass {
        Some(p) if !p.is_empty() => v.push(p.clone()),
        _ if !user.is_empty() => v.push(user.clone()),
        _ => return v,
    }
    v.push(base64(
        format!("{user}:{}", pass.as_deref().unwrap_or("")).as_bytes(),
    ));
    v
}

/// Standard base64 (with padding), for the forms a secret takes on the wire.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether an address is on this machine (127.0.0.0/8, ::1, and
/// 127.0.0.0/8 mapped into IPv6).
pub fn is_loopback_ip(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => v4.is_loopback(),
        std::net::IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Where a connection to a host goes: the host name and the addresses it
/// resolved to, which the client is then pinned to (so what was checked is
/// what is used).
pub type Pin = (String, Vec<std::net::SocketAddr>);

/// Whether `host` (a name or an address literal) is on this machine,
/// decided on the addresses a connection would use, not on the name: a
/// name must resolve, and every address it resolves to must be loopback.
/// Returns those addresses (empty for an address literal).
pub fn resolve_loopback(host: &str, port: u16) -> Result<Vec<std::net::SocketAddr>, Refused> {
    use std::net::ToSocketAddrs;
    let h = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = h.parse::<std::net::IpAddr>() {
        return if is_loopback_ip(ip) {
            Ok(Vec::new())
        } else {
            Err(Refused::NotThisMachine { host: h.into() })
        };
    }
    let addrs: Vec<std::net::SocketAddr> = (h, port)
        .to_socket_addrs()
        .map_err(|e| Refused::DoesNotResolve {
            host: h.into(),
            why: e.to_string(),
        })?
        .collect();
    if addrs.is_empty() {
        return Err(Refused::NoAddress { host: h.into() });
    }
    if let Some(away) = addrs.iter().find(|a| !is_loopback_ip(a.ip())) {
        return Err(Refused::ResolvesAway {
            host: h.into(),
            ip: away.ip().to_string(),
        });
    }
    Ok(addrs)
}

/// Why an address or a base URL is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// An address literal that is not this machine's.
    NotThisMachine { host: String },
    /// A name that does not resolve.
    DoesNotResolve { host: String, why: String },
    /// A name that resolves to nothing.
    NoAddress { host: String },
    /// A name with an address of another machine.
    ResolvesAway { host: String, ip: String },
    /// Not a URL (shown masked).
    InvalidUrl { shown: String, why: String },
    /// Something no one on the way may read, over plain HTTP to another
    /// machine.
    PlainHttp {
        what: String,
        host: String,
        why: Box<Refused>,
    },
    /// A scheme other than http(s).
    Scheme { scheme: String, shown: String },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotThisMachine { host } => write!(f, "{host} is not this machine"),
            Refused::DoesNotResolve { host, why } => write!(f, "{host} does not resolve ({why})"),
            Refused::NoAddress { host } => write!(f, "{host} resolves to no address"),
            Refused::ResolvesAway { host, ip } => {
                write!(f, "{host} resolves to {ip}, not this machine")
            }
            Refused::InvalidUrl { shown, why } => write!(f, "invalid base URL {shown}: {why}"),
            Refused::PlainHttp { what, host, why } => write!(
                f,
                "refusing to send {what} over plain HTTP to {host} ({why}; anyone on the way could read it): use https://, or pass --allow-insecure-http if this network is yours"
            ),
            Refused::Scheme { scheme, shown } => write!(
                f,
                "unsupported scheme '{scheme}' in base URL {shown} (use https:// or http://)"
            ),
        }
    }
}

impl std::error::Error for Refused {}

impl From<Refused> for String {
    fn from(r: Refused) -> String {
        r.to_string()
    }
}

/// Refuses a base URL a key must not be sent to: not http(s), or plain HTTP
/// to another machine (unless explicitly allowed). "Another machine" is
/// decided on the resolved addresses; when they are all loopback, the
/// returned [`Pin`] holds them, and the client must connect to those only.
/// `Err` is one clear line.
pub fn check_transport(
    base_url: &str,
    has_key: bool,
    allow_insecure: bool,
) -> Result<Option<Pin>, Refused> {
    check_transport_of(base_url, has_key.then_some("an API key"), allow_insecure)
}

/// [`check_transport`] for what a request carries that no one on the way
/// may read (`an API key`, `spans`); `None` when it carries nothing such.
pub fn check_transport_of(
    base_url: &str,
    carrying: Option<&str>,
    allow_insecure: bool,
) -> Result<Option<Pin>, Refused> {
    let shown = mask_url(base_url);
    let u = reqwest::Url::parse(base_url).map_err(|e| Refused::InvalidUrl {
        shown: shown.clone(),
        why: e.to_string(),
    })?;
    // Credentials in the URL itself (`user:password@` goes out as
    // `Authorization: Basic`, `?key=` in the request line) are a key like
    // any other: plain HTTP only to this machine.
    let carrying = carrying.or(url_has_credentials(&u).then_some("the credentials in the URL"));
    match u.scheme() {
        "https" => Ok(None),
        "http" => {
            let host = u.host_str().unwrap_or("");
            let Some(what) = carrying.filter(|_| !allow_insecure) else {
                return Ok(None);
            };
            match resolve_loopback(host, u.port_or_known_default().unwrap_or(80)) {
                Ok(addrs) if addrs.is_empty() => Ok(None),
                Ok(addrs) => Ok(Some((host.to_string(), addrs))),
                Err(why) => Err(Refused::PlainHttp {
                    what: what.to_string(),
                    host: host.to_string(),
                    why: Box::new(why),
                }),
            }
        }
        other => Err(Refused::Scheme {
            scheme: other.to_string(),
            shown,
        }),
    }
}

/// Whether a proxy from the environment (`HTTP_PROXY`, `HTTPS_PROXY`,
/// `ALL_PROXY`) may carry a request to `url`: only over TLS, where the
/// proxy sees a tunnel, never the request (and the destination's answer is
/// the destination's). A plain-HTTP request goes straight to its host, so
/// neither a key nor a span crosses a proxy in the clear and a success is
/// the destination's. Every client of the tool builds with this rule.
pub fn env_proxy_allowed(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| u.scheme() == "https")
}

/// Query parameters that carry a credential (Google's `key`, and the
/// usual spellings of API keys and tokens).
pub fn is_credential_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace(['-', '_', '.'], "");
    matches!(n.as_str(), "key" | "auth" | "sig" | "pass" | "pwd")
        || ["key", "token", "secret", "signature"]
            .iter()
            .any(|end| n.ends_with(end))
        || ["password", "passwd", "credential"]
            .iter()
            .any(|w| n.contains(w))
}

/// The credentials a request carries outside its authentication headers:
/// the values of credential query parameters and of every cookie.
pub fn credentials_outside_headers(query: Option<&str>, cookies: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(q) = query {
        // `&` and `;` both separate parameters for some servers.
        for pair in q.split(['&', ';']) {
            // The name decoded as the server decodes it (`%6Bey` is `key`,
            // `api%5Fkey` is `api_key`), before it is checked.
            if let Some((k, val)) = pair.split_once('=')
                && is_credential_param(&percent_decode(k))
                && !val.is_empty()
            {
                v.push(val.to_string());
                // As it may appear decoded elsewhere.
                if let Ok(u) = reqwest::Url::parse(&format!("x:?v={val}"))
                    && let Some((_, d)) = u.query_pairs().next()
                    && d != val
                {
                    v.push(d.into_owned());
                }
            }
        }
    }
    for c in cookies {
        for pair in c.split(';') {
            if let Some((_, val)) = pair.split_once('=') {
                let val = val.trim().trim_matches('"');
                if !val.is_empty() {
                    v.push(val.to_string());
                }
            }
        }
    }
    v
}

/// A query string's part decoded as a server decodes it: `%XX` escapes
/// (of any byte; bytes that are not UTF-8 become U+FFFD) and `+` as a space.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(x) => {
                        out.push(x);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            x => {
                out.push(x);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a URL carries a credential in itself: `user:password@`, or a
/// credential query parameter (its name decoded).
pub fn url_has_credentials(u: &reqwest::Url) -> bool {
    !u.username().is_empty()
        || u.password().is_some()
        || u.query()
            .is_some_and(|q| !credentials_outside_headers(Some(q), &[]).is_empty())
}

/// How long a `retry-after` header asks to wait, capped at `cap`. Any form
/// is accepted without panicking: seconds (also fractional or huge), an
/// HTTP date (relative to `now_unix`), or garbage (ignored).
#[derive(Debug, Clone, PartialEq)]
pub struct RetryAfter {
    pub wait: Duration,
    /// The server asked for longer than the cap.
    pub capped: bool,
}

pub fn retry_after(value: &str, now_unix: u64, cap: Duration) -> Option<RetryAfter> {
    let v = value.trim();
    let asked: f64 = match v.parse::<f64>() {
        Ok(s) if s.is_nan() => return None,
        Ok(s) => s.max(0.0),
        Err(_) => {
            let when = httpdate::parse_http_date(v).ok()?;
            let when = when
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            when.saturating_sub(now_unix) as f64
        }
    };
    let capped = asked > cap.as_secs_f64();
    let wait = if capped {
        cap
    } else {
        Duration::try_from_secs_f64(asked).unwrap_or(cap)
    };
    Some(RetryAfter { wait, capped })
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
