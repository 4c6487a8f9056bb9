//! The network floor (tokio, reqwest with rustls, hyper): provider clients
//! for Anthropic Messages and OpenAI-compatible APIs, test runs, and the
//! recording proxy. They return plain engine types. An API key lives in
//! memory only and is never written, logged or shown in full.

pub mod clock;
mod fetch;
pub mod guard;
pub mod llama;
pub mod otlp;
pub mod proxy;
mod redact;
pub mod test_run;

use std::time::{Duration, Instant};

use serde_json::Value;

use prompt_inspector_engine as engine;

use crate::engine::Provider;
use crate::engine::cache::test_run::Actual;

pub use fetch::fetch_text;

pub const ANTHROPIC_BASE: &str = "https://api.anthropic.com";
pub const OPENAI_BASE: &str = "https://api.openai.com";
pub const GEMINI_BASE: &str = "https://generativelanguage.googleapis.com";
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The environment variable that holds a provider's key.
pub fn key_var(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "ANTHROPIC_API_KEY",
        Provider::Gemini => "GEMINI_API_KEY",
        _ => "OPENAI_API_KEY",
    }
}

/// An API key. `Debug` and `Display` show none of it.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: &str) -> Option<ApiKey> {
        let k = key.trim();
        (!k.is_empty()).then(|| ApiKey(k.to_string()))
    }

    pub fn from_env(provider: Provider) -> Option<ApiKey> {
        std::env::var(key_var(provider))
            .ok()
            .and_then(|k| ApiKey::new(&k))
    }

    /// How a key is shown: that one is set, and how long it is; not one of
    /// its characters.
    pub fn masked(&self) -> String {
        format!("[key set, {} chars]", self.0.chars().count())
    }

    /// Redacts the key (and any fragment of 8 or more of its characters,
    /// in any case or percent-encoded) from `text`.
    pub fn redact(&self, text: &str) -> String {
        guard::redact(text, &[&self.0])
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({})", self.masked())
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.masked())
    }
}

/// Where and how to send.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub provider: Provider,
    pub base_url: String,
    pub key: Option<ApiKey>,
    pub timeout: Duration,
    pub max_retries: u32,
    /// Longest wait honoured for `retry-after`.
    pub max_retry_wait: Duration,
    /// Send a key over plain HTTP to another machine (off by default).
    pub allow_insecure_http: bool,
}

impl Endpoint {
    pub fn new(provider: Provider, base_url: Option<&str>, key: Option<ApiKey>) -> Endpoint {
        let default = match provider {
            Provider::Anthropic => ANTHROPIC_BASE,
            Provider::Gemini => GEMINI_BASE,
            _ => OPENAI_BASE,
        };
        Endpoint {
            provider,
            base_url: base_url
                .unwrap_or(default)
                .trim_end_matches('/')
                .to_string(),
            key,
            timeout: Duration::from_secs(60),
            max_retries: 3,
            max_retry_wait: Duration::from_secs(60),
            allow_insecure_http: false,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The base URL as it may be shown or saved (credentials masked).
    pub fn shown_url(&self) -> String {
        guard::mask_url(&self.base_url)
    }

    /// The one way server or transport text reaches the user: secrets
    /// redacted first (the key, the URL's credentials), then control
    /// characters removed and the text cut.
    pub fn clean(&self, text: &str) -> String {
        let mut secrets = guard::url_secrets(&self.base_url);
        if let Some(k) = &self.key {
            secrets.push(k.expose().to_string());
        }
        let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
        guard::clean(&guard::redact(text, &refs), guard::MAX_MESSAGE_CHARS)
    }
}

/// What can go wrong, each as one clear line.
#[derive(Debug, Clone, PartialEq)]
pub enum NetError {
    Unauthorized(String),
    RateLimited {
        status: u16,
        attempts: u32,
        message: String,
    },
    Server {
        status: u16,
        message: String,
    },
    Http {
        status: u16,
        message: String,
    },
    Timeout(u64),
    /// The whole run reached its time limit (seconds).
    Deadline(u64),
    Redirect {
        status: u16,
        location: String,
    },
    TooLarge(usize),
    /// Refused before sending (plain HTTP with a key, a bad URL).
    Refused(String),
    Connect(String),
    NoUsage,
    BadJson(String),
    Cancelled,
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::Unauthorized(m) => {
                write!(f, "401 unauthorized: the API key was refused ({m})")
            }
            NetError::RateLimited {
                status,
                attempts,
                message,
            } => write!(
                f,
                "{status} {}: still refused after {attempts} attempts ({message})",
                if *status == 529 {
                    "overloaded"
                } else {
                    "rate limited"
                }
            ),
            NetError::Server { status, message } => write!(f, "{status} server error: {message}"),
            NetError::Http { status, message } => write!(f, "HTTP {status}: {message}"),
            NetError::Timeout(s) => write!(f, "timed out after {s} s without a response"),
            NetError::Deadline(s) => write!(
                f,
                "timed out: the run's time limit of {s} s was reached (raise --timeout)"
            ),
            NetError::Redirect { status, location } => write!(
                f,
                "HTTP {status} → {location} (not followed; point --base-url there)"
            ),
            NetError::TooLarge(n) => write!(
                f,
                "the response is larger than {} MiB: refused",
                n / (1024 * 1024)
            ),
            NetError::Refused(m) => write!(f, "{m}"),
            NetError::Connect(m) => write!(f, "cannot connect: {m}"),
            NetError::NoUsage => write!(f, "the response has no usage: nothing to compare"),
            NetError::BadJson(m) => write!(f, "the response is not valid JSON: {m}"),
            NetError::Cancelled => write!(f, "cancelled"),
        }
    }
}

/// The message of an error body (`error.message` or `message` of a JSON
/// body, else the body itself), uncut: the caller redacts, then cleans and
/// cuts, in that order.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.to_string())
}

/// A client that follows no redirect (a key must never reach another
/// origin) and, for plain-HTTP targets, uses no proxy from the environment
/// (a key must never cross a network in clear).
pub fn client(ep: &Endpoint) -> Result<reqwest::Client, NetError> {
    let pin = guard::check_transport(&ep.base_url, ep.key.is_some(), ep.allow_insecure_http)
        .map_err(|e| NetError::Refused(e.to_string()))?;
    let mut b = reqwest::Client::builder()
        .timeout(ep.timeout)
        .connect_timeout(Duration::from_secs(10).min(ep.timeout))
        .redirect(reqwest::redirect::Policy::none());
    if !guard::env_proxy_allowed(&ep.base_url) {
        b = b.no_proxy();
    }
    // A key over plain HTTP goes only to the loopback addresses checked.
    if let Some((host, addrs)) = pin {
        b = b.resolve_to_addrs(&host, &addrs);
    }
    b.build()
        .map_err(|e| NetError::Connect(ep.clean(&e.to_string())))
}

/// Reads a response body up to [`guard::MAX_BODY_BYTES`].
async fn read_body(resp: reqwest::Response, ep: &Endpoint) -> Result<String, NetError> {
    match guard::read_capped(resp, guard::MAX_BODY_BYTES).await {
        Ok(body) => Ok(String::from_utf8_lossy(&body).into_owned()),
        Err(guard::ReadError::TooLarge) => Err(NetError::TooLarge(guard::MAX_BODY_BYTES)),
        Err(guard::ReadError::Transport(e)) if e.is_timeout() => {
            Err(NetError::Timeout(ep.timeout.as_secs()))
        }
        Err(guard::ReadError::Transport(e)) => Err(NetError::Connect(ep.clean(&describe(&e)))),
    }
}

/// One attempt's outcome before it is judged.
struct Reply {
    status: u16,
    retry_after: Option<String>,
    location: Option<String>,
    body: String,
}

/// Sends one POST and reads its reply, within the request timeout and what
/// is left of the run's `deadline`.
async fn attempt(
    req: reqwest::RequestBuilder,
    ep: &Endpoint,
    deadline: Option<Deadline>,
) -> Result<Reply, NetError> {
    let total = deadline.map(|d| d.secs).unwrap_or(0);
    let limit = remaining(deadline.map(|d| d.at), total)?.min(ep.timeout);
    let work = async {
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                NetError::Timeout(ep.timeout.as_secs())
            } else {
                NetError::Connect(ep.clean(&describe(&e)))
            }
        })?;
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let retry_after = header("retry-after");
        let location = header("location");
        let body = read_body(resp, ep).await?;
        Ok(Reply {
            status,
            retry_after,
            location,
            body,
        })
    };
    match tokio::time::timeout(limit, work).await {
        Ok(r) => r,
        Err(_) if limit < ep.timeout => Err(NetError::Deadline(total)),
        Err(_) => Err(NetError::Timeout(ep.timeout.as_secs())),
    }
}

/// Time left before `deadline` (none: no run-wide limit), or `Deadline`.
fn remaining(deadline: Option<Instant>, total_secs: u64) -> Result<Duration, NetError> {
    match deadline {
        None => Ok(Duration::MAX),
        Some(d) => {
            let left = d.saturating_duration_since(Instant::now());
            if left.is_zero() {
                Err(NetError::Deadline(total_secs))
            } else {
                Ok(left)
            }
        }
    }
}

/// A run-wide time limit: when it ends and how long it was.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    pub at: Instant,
    pub secs: u64,
}

fn with_auth(req: reqwest::RequestBuilder, ep: &Endpoint) -> reqwest::RequestBuilder {
    match ep.provider {
        Provider::Anthropic => {
            let r = req.header("anthropic-version", ANTHROPIC_VERSION);
            match &ep.key {
                Some(k) => r.header("x-api-key", k.expose()),
                None => r,
            }
        }
        Provider::Gemini => match &ep.key {
            Some(k) => req.header("x-goog-api-key", k.expose()),
            None => req,
        },
        _ => match &ep.key {
            Some(k) => req.bearer_auth(k.expose()),
            None => req,
        },
    }
}

/// The JSON of a successful reply.
fn json_of(ep: &Endpoint, reply: &Reply) -> Result<Value, NetError> {
    serde_json::from_str(&reply.body).map_err(|e| NetError::BadJson(ep.clean(&e.to_string())))
}

/// Judges a non-2xx reply: every text from the server passes
/// [`Endpoint::clean`] (redact, then clean, then cut).
fn reply_error(ep: &Endpoint, r: &Reply) -> NetError {
    let message = ep.clean(&error_message(&r.body));
    match r.status {
        300..=399 => NetError::Redirect {
            status: r.status,
            location: ep.clean(&guard::mask_url(
                r.location.as_deref().unwrap_or("(no location)"),
            )),
        },
        401 | 403 => NetError::Unauthorized(message),
        500..=599 => NetError::Server {
            status: r.status,
            message,
        },
        status => NetError::Http { status, message },
    }
}

/// Where a request body goes, and the body to send when it is not the one
/// given: Gemini names the model in the path (`/v1beta/models/MODEL:
/// generateContent`), not in the body.
fn route(ep: &Endpoint, body: &Value) -> Result<(String, Option<Value>), NetError> {
    Ok(match ep.provider {
        Provider::Anthropic => ("/v1/messages".to_string(), None),
        Provider::Gemini => {
            let model = body["model"].as_str().unwrap_or("");
            let safe = !model.is_empty()
                && model
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
            if !safe {
                return Err(NetError::Http {
                    status: 0,
                    message: format!("not a Gemini model name: '{}'", ep.clean(model)),
                });
            }
            let mut b = body.clone();
            if let Some(o) = b.as_object_mut() {
                o.remove("model");
            }
            (format!("/v1beta/models/{model}:generateContent"), Some(b))
        }
        _ => ("/v1/chat/completions".to_string(), None),
    })
}

/// How long to wait before attempt `attempt_no` + 1: what `retry-after`
/// asks (capped at `cap`), else 0.5 s doubling each attempt up to `cap`.
fn backoff(
    retry_after: Option<&str>,
    attempt_no: u32,
    cap: Duration,
) -> (Option<guard::RetryAfter>, Duration) {
    let asked = retry_after.and_then(|v| guard::retry_after(v, crate::clock::unix_now(), cap));
    let wait = match &asked {
        Some(r) => r.wait,
        None => {
            Duration::from_millis(500u64.saturating_mul(1 << (attempt_no - 1).min(16))).min(cap)
        }
    };
    (asked, wait)
}

/// Sends one request body, retrying 429/529 with backoff (honouring
/// `retry-after`, capped). `cancel` aborts at once; `deadline` bounds the
/// whole run, so no request outlives it.
pub async fn send(
    client: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
    cancel: &mut tokio::sync::watch::Receiver<bool>,
    deadline: Option<Deadline>,
) -> Result<Actual, NetError> {
    let (path, gemini_body) = route(ep, body)?;
    let body = gemini_body.as_ref().unwrap_or(body);
    let usage_field = match ep.provider {
        Provider::Gemini => "usageMetadata",
        _ => "usage",
    };
    let total = deadline.map(|d| d.secs).unwrap_or(0);
    let at = deadline.map(|d| d.at);
    let mut attempt_no = 0u32;
    let mut capped_note: Option<String> = None;
    let started = Instant::now();
    loop {
        attempt_no += 1;
        let req = with_auth(client.post(ep.url(&path)).json(body), ep);
        let reply = tokio::select! {
            r = attempt(req, ep, deadline) => r?,
            _ = cancel.changed() => return Err(NetError::Cancelled),
        };
        match reply.status {
            200..=299 => {
                let usage = json_of(ep, &reply)?
                    .get(usage_field)
                    .and_then(engine::Usage::parse)
                    .ok_or(NetError::NoUsage)?;
                return Ok(Actual {
                    usage,
                    latency_ms: started.elapsed().as_millis() as u64,
                    retries: attempt_no - 1,
                });
            }
            429 | 529 => {
                let status = reply.status;
                let message =
                    ep.clean(&error_message(&reply.body)) + capped_note.as_deref().unwrap_or("");
                if attempt_no > ep.max_retries {
                    return Err(NetError::RateLimited {
                        status,
                        attempts: attempt_no,
                        message,
                    });
                }
                let cap = ep.max_retry_wait.min(ep.timeout);
                let (asked, backoff) = backoff(reply.retry_after.as_deref(), attempt_no, cap);
                let left = remaining(at, total)?;
                if backoff >= left {
                    return Err(NetError::RateLimited {
                        status,
                        attempts: attempt_no,
                        message: format!(
                            "{message}; the server asked to wait {}, longer than the {} s left of the run",
                            retry_text(reply.retry_after.as_deref(), cap),
                            left.as_secs()
                        ),
                    });
                }
                if asked.as_ref().is_some_and(|r| r.capped) {
                    capped_note = Some(format!(
                        "; retry-after {} was not honoured in full",
                        retry_text(reply.retry_after.as_deref(), cap)
                    ));
                }
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = cancel.changed() => return Err(NetError::Cancelled),
                }
            }
            _ => return Err(reply_error(ep, &reply)),
        }
    }
}

/// How a `retry-after` value is described in an error (the cap stated).
fn retry_text(value: Option<&str>, cap: Duration) -> String {
    let v = guard::clean(value.unwrap_or(""), 40);
    format!("'{v}' (waits are capped at {} s)", cap.as_secs())
}

fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s = format!("{s}: {inner}");
        src = inner.source();
    }
    s
}

/// Anthropic's free token counter, to calibrate the estimate of Claude models:
/// the exact input tokens of `body` (without `max_tokens`), within `deadline`.
pub async fn count_tokens(
    client: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
    deadline: Option<Deadline>,
) -> Result<u64, NetError> {
    let mut b = body.clone();
    if let Some(o) = b.as_object_mut() {
        o.remove("max_tokens");
    }
    let req = with_auth(
        client.post(ep.url("/v1/messages/count_tokens")).json(&b),
        ep,
    );
    let reply = attempt(req, ep, deadline).await?;
    match reply.status {
        200..=299 => json_of(ep, &reply)?
            .get("input_tokens")
            .and_then(Value::as_u64)
            .ok_or(NetError::NoUsage),
        _ => Err(reply_error(ep, &reply)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_masked_everywhere() {
        let k = ApiKey::new("sk-ant-api03-SECRETSECRET-x7Qa").unwrap();
        assert_eq!(k.masked(), "[key set, 30 chars]");
        assert_eq!(format!("{k:?}"), "ApiKey([key set, 30 chars])");
        assert_eq!(format!("{k}"), "[key set, 30 chars]");
        assert_eq!(
            k.redact("bad key sk-ant-api03-SECRETSECRET-x7Qa!"),
            "bad key [REDACTED]!"
        );
        let ep = Endpoint::new(Provider::Anthropic, None, Some(k));
        assert!(!format!("{ep:?}").contains("SECRET"));
    }
}
