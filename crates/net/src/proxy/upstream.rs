//! The upstreams: which one a request's path goes to (one per API
//! family), the error a client gets in that API's shape, each base URL checked (http(s), a host, nothing after
//! its path), and the one client to them, pinned to the loopback addresses
//! a key over plain HTTP may go to.

use std::time::Duration;

use hyper::{Response, StatusCode};
use serde_json::json;

use super::{Body, ProxyConfig, full};
use crate::guard;

/// The client to the upstreams, and why a key may not go to each (by
/// [`super::Upstream`]). Whether a key may go to each upstream is decided
/// once on the addresses its name resolves to; the client is pinned to
/// those addresses.
pub(super) fn upstream_client(
    cfg: &ProxyConfig,
) -> Result<(reqwest::Client, [Option<String>; 3]), reqwest::Error> {
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(cfg.timeout)
        .tcp_nodelay(true)
        .no_proxy();
    let mut key_refused = [None, None, None];
    for (i, url) in [
        &cfg.anthropic_upstream,
        &cfg.openai_upstream,
        &cfg.gemini_upstream,
    ]
    .into_iter()
    .enumerate()
    {
        match guard::check_transport(url, true, cfg.allow_insecure_http) {
            Ok(Some((host, addrs))) => client = client.resolve_to_addrs(&host, &addrs),
            Ok(None) => {}
            Err(e) => key_refused[i] = Some(e.to_string()),
        }
    }
    Ok((client.build()?, key_refused))
}

/// An upstream is an http(s) base URL with a host, nothing after its path:
/// returned parsed.
pub(super) fn check_upstream(url: &str) -> Result<reqwest::Url, NotABase> {
    let u = reqwest::Url::parse(url).map_err(|e| NotABase::NotUrl(e.to_string()))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(NotABase::Scheme(u.scheme().to_string()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(NotABase::NoHost);
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err(NotABase::QueryOrFragment);
    }
    Ok(u)
}

/// Why an upstream is not a base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NotABase {
    NotUrl(String),
    Scheme(String),
    NoHost,
    QueryOrFragment,
}

impl std::fmt::Display for NotABase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotABase::NotUrl(e) => write!(f, "not a URL ({e})"),
            NotABase::Scheme(s) => write!(f, "its scheme, {s}, is not http or https"),
            NotABase::NoHost => f.write_str("has no host"),
            NotABase::QueryOrFragment => f.write_str("a base URL has no query or fragment"),
        }
    }
}

/// The upstream a request goes to: one per API family, each with its own
/// base URL (`--anthropic-upstream`, `--openai-upstream`,
/// `--gemini-upstream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Upstream {
    Anthropic = 0,
    OpenAi = 1,
    Gemini = 2,
}

impl Upstream {
    /// The upstream of a request's path; None for a path no API here
    /// speaks.
    pub(super) fn of_path(path: &str) -> Option<Upstream> {
        use crate::engine::request::Api;
        Some(match Api::of_path(path)? {
            Api::AnthropicMessages => Upstream::Anthropic,
            Api::ChatCompletions | Api::Responses => Upstream::OpenAi,
            Api::Gemini => Upstream::Gemini,
        })
    }

    pub(super) fn url(self, cfg: &ProxyConfig) -> &String {
        match self {
            Upstream::Anthropic => &cfg.anthropic_upstream,
            Upstream::OpenAi => &cfg.openai_upstream,
            Upstream::Gemini => &cfg.gemini_upstream,
        }
    }
}

/// The provider's error shape, with a clear message.
pub(super) fn error_response(to: Upstream, status: StatusCode, message: &str) -> Response<Body> {
    let body = match to {
        Upstream::Anthropic => {
            json!({"type": "error", "error": {"type": "api_error", "message": message}})
        }
        Upstream::OpenAi => {
            json!({"error": {"message": message, "type": "proxy_error", "code": status.as_u16()}})
        }
        // Gemini's shape: the code, the message and a status word.
        Upstream::Gemini => json!({"error": {
            "code": status.as_u16(),
            "message": message,
            "status": status.canonical_reason().unwrap_or("UNKNOWN").to_uppercase().replace(' ', "_"),
        }}),
    };
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(full(body.to_string()))
        .unwrap_or_else(|_| Response::new(full("")))
}

pub(super) const FORWARDED: &[&str] = &[
    "/v1/messages",
    "/v1/messages/count_tokens",
    "/v1/chat/completions",
    "/v1/responses",
    "/v1beta/models/MODEL:generateContent",
    "/v1beta/models/MODEL:streamGenerateContent",
    "/v1beta/models/MODEL:countTokens",
];
