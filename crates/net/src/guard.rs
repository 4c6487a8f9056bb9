//! The one choke point between a server and the rest of the tool: every text
//! that comes from the network (error bodies, transport errors, headers) is
//! redacted of secrets *first*, then cleaned of control characters, then cut
//! for display. Also: where a key may be sent (no plain HTTP off loopback),
//! how URLs with credentials are shown, and how `retry-after` is read.

use std::collections::HashSet;
use std::time::Duration;

/// No fragment of a secret this long (or longer) survives redaction.
pub const MIN_FRAGMENT: usize = 8;
/// Longest server text shown in one message (characters).
pub const MAX_MESSAGE_CHARS: usize = 300;
/// Largest response body read (larger is one clear error).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// What a redacted secret becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Replaces every occurrence of any secret in `text`, and every fragment of
/// one that is [`MIN_FRAGMENT`] characters or longer, by `[REDACTED]`:
/// matched case-insensitively and through percent-encoding, so a server that
/// echoes a key upper-cased, split in two or URL-encoded leaks none of it.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let secrets: Vec<Vec<char>> = secrets
        .iter()
        .map(|s| s.chars().map(fold).collect::<Vec<char>>())
        .filter(|s| !s.is_empty())
        .collect();
    if secrets.is_empty() || text.is_empty() {
        return text.to_string();
    }
    // Plain ASCII text with no `%` and ASCII secrets (a request body, most
    // of the time): each byte is one folded character, nothing to decode.
    if text.is_ascii() && !text.contains('%') && secrets.iter().flatten().all(char::is_ascii) {
        let secrets: Vec<Vec<u8>> = secrets
            .iter()
            .map(|s| s.iter().map(|&c| c as u8).collect())
            .collect();
        let marked = mark_ascii(text.as_bytes(), &secrets);
        return replace_marked(text, &marked, |i| (i, i + 1));
    }
    // Decoded, case-folded characters of `text`, rolled through once per
    // secret without being stored: memory is the output and the spans found.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for secret in &secrets {
        mark_spans(text, secret, &mut spans);
    }
    replace_spans(text, spans)
}

/// [`mark`] for ASCII text and secrets: a window of up to 8 bytes is
/// itself a u64 (no hash, no collision), rolled one byte at a time and
/// tested against a bitmap of the secret's windows before the exact set.
fn mark_ascii(text: &[u8], secrets: &[Vec<u8>]) -> Vec<bool> {
    const _: () = assert!(MIN_FRAGMENT <= 8);
    let mut marked = vec![false; text.len()];
    let pack = |win: &[u8]| win.iter().fold(0u64, |h, &b| (h << 8) | u64::from(b));
    for secret in secrets {
        let w = secret.len().min(MIN_FRAGMENT);
        if text.len() < w {
            continue;
        }
        let windows: HashSet<u64> = secret.windows(w).map(pack).collect();
        let mut filter = vec![0u64; FILTER_WORDS];
        for &x in &windows {
            let k = filter_bit(x);
            filter[k >> 6] |= 1 << (k & 63);
        }
        let mask = if w == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * w)) - 1
        };
        let mut h = 0u64;
        for (i, &b) in text.iter().enumerate() {
            h = ((h << 8) | u64::from(b.to_ascii_lowercase())) & mask;
            if i + 1 >= w {
                let k = filter_bit(h);
                if filter[k >> 6] & (1 << (k & 63)) != 0 && windows.contains(&h) {
                    marked[i + 1 - w..=i].iter_mut().for_each(|m| *m = true);
                }
            }
        }
    }
    marked
}

/// A window of up to [`MIN_FRAGMENT`] characters, padded, as a set key.
type Window = [char; MIN_FRAGMENT];

fn window_of(chars: impl Iterator<Item = char>) -> Window {
    let mut w = ['\0'; MIN_FRAGMENT];
    for (slot, c) in w.iter_mut().zip(chars) {
        *slot = c;
    }
    w
}

/// Adds to `spans` the byte spans of `text` (decoded, case-folded) that
/// are a window of [`MIN_FRAGMENT`] characters (or a whole shorter secret)
/// found in `secret`; spans are added in order, touching ones merged.
fn mark_spans(text: &str, secret: &[char], spans: &mut Vec<(usize, usize)>) {
    let w = secret.len().min(MIN_FRAGMENT);
    let windows: HashSet<Window> = secret
        .windows(w)
        .map(|x| window_of(x.iter().copied()))
        .collect();
    // A rolling hash of each window of the text, tested against a bitmap
    // of the secret's windows' hashes: one bit test per position, the
    // exact comparison only where the bit is set.
    let mut filter = vec![0u64; FILTER_WORDS];
    for win in secret.windows(w) {
        let k = filter_bit(poly(win));
        filter[k >> 6] |= 1 << (k & 63);
    }
    let out_weight = HASH_BASE.wrapping_pow(w as u32 - 1);
    let mut ring: std::collections::VecDeque<(char, usize)> =
        std::collections::VecDeque::with_capacity(w);
    let mut h = 0u64;
    let first = spans.len();
    for (c, start, end) in Decoded::new(text) {
        if ring.len() == w
            && let Some((old, _)) = ring.pop_front()
        {
            h = h.wrapping_sub(u64::from(old).wrapping_mul(out_weight));
        }
        h = h.wrapping_mul(HASH_BASE).wrapping_add(u64::from(c));
        ring.push_back((c, start));
        if ring.len() < w {
            continue;
        }
        let k = filter_bit(h);
        if filter[k >> 6] & (1 << (k & 63)) != 0
            && windows.contains(&window_of(ring.iter().map(|x| x.0)))
        {
            let from = ring[0].1;
            let n = spans.len();
            match spans.last_mut() {
                Some(last) if n > first && from <= last.1 => last.1 = end,
                _ => spans.push((from, end)),
            }
        }
    }
}

/// `text` with every span (merged where they overlap or touch) replaced by
/// [`REDACTED`].
fn replace_spans(text: &str, mut spans: Vec<(usize, usize)>) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let (start, mut end) = spans[i];
        while i + 1 < spans.len() && spans[i + 1].0 <= end {
            end = end.max(spans[i + 1].1);
            i += 1;
        }
        out.push_str(&text[at..start.max(at)]);
        out.push_str(REDACTED);
        at = end.max(at);
        i += 1;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` with each run of marked units (unit `i` spans the bytes
/// `span(i)`) replaced by [`REDACTED`].
fn replace_marked(text: &str, marked: &[bool], span: impl Fn(usize) -> (usize, usize)) -> String {
    if !marked.iter().any(|m| *m) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < marked.len() {
        let (start, end) = span(i);
        if marked[i] {
            while i + 1 < marked.len() && marked[i + 1] {
                i += 1;
            }
            out.push_str(REDACTED);
        } else {
            out.push_str(&text[start..end]);
        }
        i += 1;
    }
    out
}

const HASH_BASE: u64 = 0x0100_0000_01b3;
/// 2^16 bits.
const FILTER_WORDS: usize = 1 << 10;

/// A polynomial hash of a window of characters (rolled in [`redact`]).
fn poly(win: &[char]) -> u64 {
    win.iter().fold(0u64, |h, &c| {
        h.wrapping_mul(HASH_BASE).wrapping_add(u64::from(c))
    })
}

/// The bit of the filter a hash sets (its mixed top 16 bits).
fn filter_bit(h: u64) -> usize {
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as usize
}

fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    c.to_lowercase().next().unwrap_or(c)
}

/// The characters of `text` with `%XX` decoded (ASCII only), case-folded,
/// each with the byte range it came from, one at a time.
struct Decoded<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Decoded<'a> {
    fn new(text: &'a str) -> Self {
        Decoded { text, at: 0 }
    }
}

impl Iterator for Decoded<'_> {
    type Item = (char, usize, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.at;
        let c = self.text[i..].chars().next()?;
        if c == '%' {
            let hex = self.text.get(i + 1..i + 3).unwrap_or("");
            if hex.len() == 2
                && hex.bytes().all(|b| b.is_ascii_hexdigit())
                && let Ok(b) = u8::from_str_radix(hex, 16)
                && b.is_ascii()
            {
                self.at = i + 3;
                return Some((fold(b as char), i, i + 3));
            }
        }
        self.at = i + c.len_utf8();
        Some((fold(c), i, self.at))
    }
}

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

/// The secrets a URL carries (password, username, query values), to redact.
pub fn url_secrets(url: &str) -> Vec<String> {
    let Ok(u) = reqwest::Url::parse(url) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    if let Some(p) = u.password() {
        v.push(p.to_string());
        // As sent in `Authorization: Basic …`, which a server may echo.
        v.push(base64(format!("{}:{p}", u.username()).as_bytes()));
    }
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
pub fn resolve_loopback(host: &str, port: u16) -> Result<Vec<std::net::SocketAddr>, String> {
    use std::net::ToSocketAddrs;
    let h = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = h.parse::<std::net::IpAddr>() {
        return if is_loopback_ip(ip) {
            Ok(Vec::new())
        } else {
            Err(format!("{h} is not this machine"))
        };
    }
    let addrs: Vec<std::net::SocketAddr> = (h, port)
        .to_socket_addrs()
        .map_err(|e| format!("{h} does not resolve ({e})"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{h} resolves to no address"));
    }
    if let Some(away) = addrs.iter().find(|a| !is_loopback_ip(a.ip())) {
        return Err(format!("{h} resolves to {}, not this machine", away.ip()));
    }
    Ok(addrs)
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
) -> Result<Option<Pin>, String> {
    let shown = mask_url(base_url);
    let u = reqwest::Url::parse(base_url).map_err(|e| format!("invalid base URL {shown}: {e}"))?;
    match u.scheme() {
        "https" => Ok(None),
        "http" => {
            let host = u.host_str().unwrap_or("");
            if !has_key || allow_insecure {
                return Ok(None);
            }
            match resolve_loopback(host, u.port_or_known_default().unwrap_or(80)) {
                Ok(addrs) if addrs.is_empty() => Ok(None),
                Ok(addrs) => Ok(Some((host.to_string(), addrs))),
                Err(why) => Err(format!(
                    "refusing to send an API key over plain HTTP to {host} ({why}; anyone on the way could read it): use https://, or pass --allow-insecure-http if this network is yours"
                )),
            }
        }
        other => Err(format!(
            "unsupported scheme '{other}' in base URL {shown} (use https:// or http://)"
        )),
    }
}

/// Query parameters that carry a credential (Google's `key`, and the
/// usual spellings of API keys and tokens).
pub fn is_credential_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace(['-', '_'], "");
    matches!(
        n.as_str(),
        "key"
            | "apikey"
            | "xapikey"
            | "accesstoken"
            | "token"
            | "authtoken"
            | "auth"
            | "secret"
            | "password"
            | "sig"
            | "signature"
    )
}

/// The credentials a request carries outside its authentication headers:
/// the values of credential query parameters and of every cookie.
pub fn credentials_outside_headers(query: Option<&str>, cookies: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(q) = query {
        for pair in q.split('&') {
            if let Some((k, val)) = pair.split_once('=')
                && is_credential_param(k)
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

/// Text with every string shaped like a provider's key (`sk-ant-…`,
/// `sk-proj-…`, `sk-…`, Google's `AIza…`) and every value of a key-style
/// field or parameter (`"api_key": "…"`, `?key=…`) replaced by
/// [`REDACTED`], whatever header the request came with.
pub fn redact_shapes(text: &str) -> std::borrow::Cow<'_, str> {
    use std::sync::LazyLock;
    static SHAPES: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(concat!(
            r"(?:\b(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-proj-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,}))",
            r#"|(?P<f>"(?i:api[_-]?key|x[_-]api[_-]key|x[_-]goog[_-]api[_-]key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password)"\s*:\s*")(?:[^"\\]|\\.)+"#,
            r"|(?P<q>[?&](?i:key|api[_-]?key|access[_-]?token|auth[_-]?token)=)[^&\s#\x22\\]+",
        ))
        .expect("a valid pattern")
    });
    SHAPES.replace_all(text, |c: &regex::Captures| {
        let keep = c.name("f").or(c.name("q")).map_or("", |m| m.as_str());
        format!("{keep}{REDACTED}")
    })
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
mod tests {

    /// The plain definition of [`redact`]: every window of the decoded text
    /// compared with every window of the secret.
    fn reference(text: &str, secret: &str) -> String {
        let secret: Vec<char> = secret.chars().map(fold).collect();
        let decoded: Vec<(char, usize, usize)> = Decoded::new(text).collect();
        let w = secret.len().min(MIN_FRAGMENT);
        let mut marked = vec![false; decoded.len()];
        for i in 0..decoded.len().saturating_sub(w - 1) {
            let win: Vec<char> = decoded[i..i + w].iter().map(|d| d.0).collect();
            if secret.windows(w).any(|s| s == win.as_slice()) {
                marked[i..i + w].iter_mut().for_each(|m| *m = true);
            }
        }
        let mut out = String::new();
        let mut i = 0;
        while i < decoded.len() {
            if marked[i] {
                while i < decoded.len() && marked[i] {
                    i += 1;
                }
                out.push_str(REDACTED);
            } else {
                out.push_str(&text[decoded[i].1..decoded[i].2]);
                i += 1;
            }
        }
        out
    }

    #[test]
    fn the_rolling_filter_finds_what_the_plain_definition_finds() {
        let key = "sk-ant-api03-Zq8_Lm-77xY";
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let pieces = [
            "hello ",
            "sk-ant-",
            "API03-zq8_l",
            "m-77XY",
            "%2D",
            "%41",
            "中文 ",
            "Zq8_Lm-7",
            "7xY\n",
            "api03-Zq",
            "8_Lm",
            " ",
            "-",
            "{\"k\":\"",
        ];
        for _ in 0..400 {
            let text: String = (0..next() % 12)
                .map(|_| pieces[next() % pieces.len()])
                .collect();
            assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
        }
    }

    use super::*;

    const KEY: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    #[test]
    fn redaction_covers_case_splits_and_encoding() {
        for echoed in [
            format!("bad key {KEY}!"),
            format!("bad key {}", KEY.to_uppercase()),
            format!("first {} and then {}", &KEY[..20], &KEY[20..]),
            format!("url ?key={}", KEY.replace('-', "%2D")),
            format!("tail only {}", &KEY[KEY.len() - 9..]),
        ] {
            let r = redact(&echoed, &[KEY]);
            for w in KEY.as_bytes().windows(MIN_FRAGMENT) {
                let w = std::str::from_utf8(w).unwrap();
                assert!(
                    !r.to_lowercase().contains(&w.to_lowercase()),
                    "{w} survives in {r}"
                );
            }
            assert!(r.contains(REDACTED), "{r}");
        }
        assert_eq!(redact("nothing here", &[KEY]), "nothing here");
        assert_eq!(redact("50% off", &[KEY]), "50% off");
    }

    #[test]
    fn server_text_is_cleaned() {
        let t = "line one\n\u{1b}[31mprompt-inspector: fake\u{1b}[0m\r\n\u{7}x";
        assert_eq!(clean(t, 100), "line one prompt-inspector: fake x");
        assert_eq!(clean(&"a".repeat(500), 10), format!("{}…", "a".repeat(10)));
    }

    #[test]
    fn urls_are_masked() {
        assert_eq!(
            mask_url("https://bob:hunter2hunter2@proxy.example:8443/v1?key=abc&x=1"),
            "https://***@proxy.example:8443/v1?key=***&x=***"
        );
        assert_eq!(mask_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert!(url_secrets("https://u:p4ss@h/?k=v").contains(&"p4ss".to_string()));
        assert_eq!(base64(b"alice:hunter2"), "YWxpY2U6aHVudGVyMg==");
        assert!(
            url_secrets("https://alice:hunter2@h/").contains(&"YWxpY2U6aHVudGVyMg==".to_string())
        );
    }

    #[test]
    fn transport_rules() {
        assert!(check_transport("https://api.anthropic.com", true, false).is_ok());
        assert!(check_transport("http://127.0.0.5:1", true, false).is_ok());
        assert!(check_transport("http://[::1]:1", true, false).is_ok());
        assert!(check_transport("http://localhost:1", true, false).is_ok());
        let e = check_transport("http://api.example.com", true, false).unwrap_err();
        assert!(e.contains("--allow-insecure-http"), "{e}");
        assert!(check_transport("http://api.example.com", true, true).is_ok());
        assert!(check_transport("http://api.example.com", false, false).is_ok());
        assert!(check_transport("ftp://x", true, false).is_err());
        // Loopback is an address, not a name: a name that does not resolve
        // (or resolves elsewhere) is refused, a loopback one is pinned.
        let e = check_transport("http://api.localhost.invalid:1", true, false).unwrap_err();
        assert!(e.contains("does not resolve"), "{e}");
        let pin = check_transport("http://localhost:1", true, false)
            .unwrap()
            .unwrap();
        assert!(pin.1.iter().all(|a| a.ip().is_loopback()), "{pin:?}");
        assert!(check_transport("http://[::ffff:127.0.0.1]:1", true, false).is_ok());
        assert!(check_transport("http://[::ffff:10.0.0.1]:1", true, false).is_err());
    }

    #[test]
    fn key_shapes_and_credential_parameters_are_redacted() {
        let t = r#"{"a":"use sk-ant-api03-abcDEF123_xyz-987 or sk-proj-ABCdef1234567 or sk-abcdefghijklmnopqrstuvwx","api_key": "hunter2-secret","g":"AIzaSyA1234567890abcdefghijklmnopqrstu","u":"https://x/v1?alt=sse&key=s3cr3t&b=1","ok":"sk-short and task-list"}"#;
        let r = redact_shapes(t);
        for gone in [
            "abcDEF123",
            "ABCdef1234567",
            "abcdefghijklmnop",
            "hunter2",
            "SyA12345",
            "s3cr3t",
        ] {
            assert!(!r.contains(gone), "{gone} in {r}");
        }
        assert!(r.contains(r#""api_key": "[REDACTED]""#), "{r}");
        assert!(r.contains("&key=[REDACTED]&b=1"), "{r}");
        assert!(r.contains("sk-short and task-list"), "{r}");
        serde_json::from_str::<serde_json::Value>(&r).expect("still JSON");
        let c = credentials_outside_headers(
            Some("alt=sse&key=abc%2Bdef&x=1"),
            &["session=tok123; theme=dark"],
        );
        assert!(
            c.contains(&"abc%2Bdef".to_string()) && c.contains(&"abc+def".to_string()),
            "{c:?}"
        );
        assert!(
            c.contains(&"tok123".to_string()) && !c.contains(&"1".to_string()),
            "{c:?}"
        );
    }

    #[test]
    fn retry_after_never_panics() {
        let cap = Duration::from_secs(60);
        for v in ["inf", "1e20", "-5", "NaN", "garbage", "", "1e400", "-inf"] {
            let _ = retry_after(v, 0, cap);
        }
        assert_eq!(retry_after("inf", 0, cap).unwrap().wait, cap);
        assert!(retry_after("1e20", 0, cap).unwrap().capped);
        assert_eq!(retry_after("-5", 0, cap).unwrap().wait, Duration::ZERO);
        assert_eq!(retry_after("garbage", 0, cap), None);
        assert_eq!(
            retry_after("2.5", 0, cap).unwrap().wait,
            Duration::from_millis(2500)
        );
        let r = retry_after("Wed, 21 Oct 2015 07:28:30 GMT", 1_445_412_480, cap).unwrap();
        assert_eq!(r.wait, Duration::from_secs(30));
    }
}
