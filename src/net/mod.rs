//! Provider clients on tokio (reqwest with rustls): Anthropic Messages and
//! OpenAI-compatible Chat Completions. They return plain engine types. An API
//! key lives in memory only and is never written, logged or shown in full.

pub mod run;

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::engine::Provider;
use crate::engine::testrun::Actual;

pub const ANTHROPIC_BASE: &str = "https://api.anthropic.com";
pub const OPENAI_BASE: &str = "https://api.openai.com";
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// An API key. `Debug` and `Display` show only its last four characters.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: &str) -> Option<ApiKey> {
        let k = key.trim();
        (!k.is_empty()).then(|| ApiKey(k.to_string()))
    }

    pub fn from_env(provider: Provider) -> Option<ApiKey> {
        let var = match provider {
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            _ => "OPENAI_API_KEY",
        };
        std::env::var(var).ok().and_then(|k| ApiKey::new(&k))
    }

    /// At most the last 4 characters, e.g. `…x7Qa`.
    pub fn masked(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() <= 8 {
            return "…".into();
        }
        format!("…{}", chars[chars.len() - 4..].iter().collect::<String>())
    }

    /// Replaces every occurrence of the key in `text` by its masked form.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.0, &self.masked())
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
}

impl Endpoint {
    pub fn new(provider: Provider, base_url: Option<&str>, key: Option<ApiKey>) -> Endpoint {
        let default = match provider {
            Provider::Anthropic => ANTHROPIC_BASE,
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
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
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
            NetError::Connect(m) => write!(f, "cannot connect: {m}"),
            NetError::NoUsage => write!(f, "the response has no usage: nothing to compare"),
            NetError::BadJson(m) => write!(f, "the response is not valid JSON: {m}"),
            NetError::Cancelled => write!(f, "cancelled"),
        }
    }
}

fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.chars().take(200).collect())
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .to_string();
    v.parse::<f64>()
        .ok()
        .filter(|s| *s >= 0.0)
        .map(Duration::from_secs_f64)
}

pub fn client(ep: &Endpoint) -> Result<reqwest::Client, NetError> {
    reqwest::Client::builder()
        .timeout(ep.timeout)
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| NetError::Connect(e.to_string()))
}

/// Reads the usage of a response body into engine terms.
pub fn parse_usage(provider: Provider, v: &Value) -> Result<Actual, NetError> {
    let u = v
        .get("usage")
        .filter(|u| u.is_object())
        .ok_or(NetError::NoUsage)?;
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64);
    Ok(match provider {
        Provider::Anthropic => Actual {
            input_tokens: n("/input_tokens").ok_or(NetError::NoUsage)?,
            cache_creation_input_tokens: n("/cache_creation_input_tokens").unwrap_or(0),
            cache_read_input_tokens: n("/cache_read_input_tokens").unwrap_or(0),
            reports_creation: u.get("cache_creation_input_tokens").is_some(),
            ephemeral_5m_input_tokens: n("/cache_creation/ephemeral_5m_input_tokens"),
            ephemeral_1h_input_tokens: n("/cache_creation/ephemeral_1h_input_tokens"),
            ..Actual::default()
        },
        _ => {
            let prompt = n("/prompt_tokens").ok_or(NetError::NoUsage)?;
            let cached = n("/prompt_tokens_details/cached_tokens").unwrap_or(0);
            Actual {
                input_tokens: prompt.saturating_sub(cached),
                cache_read_input_tokens: cached,
                ..Actual::default()
            }
        }
    })
}

/// Sends one request body, retrying 429/529 with backoff (honouring
/// `retry-after`). `cancel` aborts waiting at once.
pub async fn send(
    client: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
    cancel: &mut tokio::sync::watch::Receiver<bool>,
) -> Result<Actual, NetError> {
    let path = match ep.provider {
        Provider::Anthropic => "/v1/messages",
        _ => "/v1/chat/completions",
    };
    let mut attempt = 0u32;
    let started = Instant::now();
    loop {
        attempt += 1;
        let mut req = client.post(ep.url(path)).json(body);
        req = match ep.provider {
            Provider::Anthropic => {
                let r = req.header("anthropic-version", ANTHROPIC_VERSION);
                match &ep.key {
                    Some(k) => r.header("x-api-key", k.expose()),
                    None => r,
                }
            }
            _ => match &ep.key {
                Some(k) => req.bearer_auth(k.expose()),
                None => req,
            },
        };
        let resp = tokio::select! {
            r = req.send() => r,
            _ = cancel.changed() => return Err(NetError::Cancelled),
        };
        let resp = match resp {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Err(NetError::Timeout(ep.timeout.as_secs())),
            Err(e) => {
                let m = redact(ep, &describe(&e));
                return Err(NetError::Connect(m));
            }
        };
        let status = resp.status().as_u16();
        let wait = retry_after(resp.headers());
        let text = match resp.text().await {
            Ok(t) => t,
            Err(e) if e.is_timeout() => return Err(NetError::Timeout(ep.timeout.as_secs())),
            Err(e) => return Err(NetError::Connect(redact(ep, &describe(&e)))),
        };
        let message = redact(ep, &error_message(&text));
        match status {
            200..=299 => {
                let v: Value =
                    serde_json::from_str(&text).map_err(|e| NetError::BadJson(e.to_string()))?;
                let mut a = parse_usage(ep.provider, &v)?;
                a.latency_ms = started.elapsed().as_millis() as u64;
                a.retries = attempt - 1;
                return Ok(a);
            }
            401 | 403 => return Err(NetError::Unauthorized(message)),
            429 | 529 => {
                if attempt > ep.max_retries {
                    return Err(NetError::RateLimited {
                        status,
                        attempts: attempt,
                        message,
                    });
                }
                let backoff = wait
                    .unwrap_or(Duration::from_millis(500 * 2u64.pow(attempt - 1)))
                    .min(ep.max_retry_wait);
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = cancel.changed() => return Err(NetError::Cancelled),
                }
            }
            500..=599 => return Err(NetError::Server { status, message }),
            _ => return Err(NetError::Http { status, message }),
        }
    }
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

fn redact(ep: &Endpoint, s: &str) -> String {
    match &ep.key {
        Some(k) => k.redact(s),
        None => s.to_string(),
    }
}

/// Anthropic's free token counter, to calibrate the estimate of Claude models:
/// the exact input tokens of `body` (without `max_tokens`).
pub async fn count_tokens(
    client: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
) -> Result<u64, NetError> {
    let mut b = body.clone();
    if let Some(o) = b.as_object_mut() {
        o.remove("max_tokens");
    }
    let mut req = client
        .post(ep.url("/v1/messages/count_tokens"))
        .json(&b)
        .header("anthropic-version", ANTHROPIC_VERSION);
    if let Some(k) = &ep.key {
        req = req.header("x-api-key", k.expose());
    }
    let resp = req.send().await.map_err(|e| {
        if e.is_timeout() {
            NetError::Timeout(ep.timeout.as_secs())
        } else {
            NetError::Connect(redact(ep, &describe(&e)))
        }
    })?;
    let status = resp.status().as_u16();
    let text = resp
        .text()
        .await
        .map_err(|e| NetError::Connect(redact(ep, &describe(&e))))?;
    match status {
        200..=299 => {
            let v: Value =
                serde_json::from_str(&text).map_err(|e| NetError::BadJson(e.to_string()))?;
            v.get("input_tokens")
                .and_then(Value::as_u64)
                .ok_or(NetError::NoUsage)
        }
        401 | 403 => Err(NetError::Unauthorized(redact(ep, &error_message(&text)))),
        _ => Err(NetError::Http {
            status,
            message: redact(ep, &error_message(&text)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_masked_everywhere() {
        let k = ApiKey::new("sk-ant-api03-SECRETSECRET-x7Qa").unwrap();
        assert_eq!(k.masked(), "…x7Qa");
        assert_eq!(format!("{k:?}"), "ApiKey(…x7Qa)");
        assert_eq!(format!("{k}"), "…x7Qa");
        assert_eq!(
            k.redact("bad key sk-ant-api03-SECRETSECRET-x7Qa!"),
            "bad key …x7Qa!"
        );
        assert_eq!(ApiKey::new("short").unwrap().masked(), "…");
        let ep = Endpoint::new(Provider::Anthropic, None, Some(k));
        assert!(!format!("{ep:?}").contains("SECRET"));
    }

    #[test]
    fn usage_parsing() {
        let v: Value = serde_json::json!({"usage": {"input_tokens": 5, "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 7, "cache_creation": {"ephemeral_5m_input_tokens": 7, "ephemeral_1h_input_tokens": 0}}});
        let a = parse_usage(Provider::Anthropic, &v).unwrap();
        assert_eq!(
            (
                a.input_tokens,
                a.cache_read_input_tokens,
                a.cache_creation_input_tokens
            ),
            (5, 100, 7)
        );
        assert!(a.reports_creation);
        assert_eq!(a.ephemeral_5m_input_tokens, Some(7));
        let v = serde_json::json!({"usage": {"input_tokens": 5, "cache_read_input_tokens": 9}});
        assert!(
            !parse_usage(Provider::Anthropic, &v)
                .unwrap()
                .reports_creation
        );
        let v = serde_json::json!({"usage": {"prompt_tokens": 1500, "prompt_tokens_details": {"cached_tokens": 1280}}});
        let a = parse_usage(Provider::Openai, &v).unwrap();
        assert_eq!((a.input_tokens, a.cache_read_input_tokens), (220, 1280));
        assert_eq!(
            parse_usage(Provider::Openai, &serde_json::json!({"id": "x"})),
            Err(NetError::NoUsage)
        );
    }
}
