//! A llama.cpp upstream's own counts of each part of a request, asked
//! after the answer has gone to the client and recorded with the exchange.

use std::time::Duration;

use serde_json::{Value, json};

use super::record::Record;
use crate::guard;

/// Counts kept at most (then the memo starts again).
const MAX_MEMO: usize = 65_536;
/// Parts of one request counted at most; a larger request is not counted.
const MAX_COUNTED_PARTS: usize = 4_096;
/// A count request's deadline.
const COUNT_TIMEOUT: Duration = Duration::from_secs(10);

/// The root of an upstream (where a llama.cpp server answers `/tokenize`).
fn root(upstream: &str) -> &str {
    upstream.trim_end_matches('/').trim_end_matches("/v1")
}

/// Whether the upstream at `url` may be asked whether it is a llama.cpp
/// server: only one on this machine or the local network (`localhost`, a
/// loopback or private address), where such servers run. A host on the
/// internet (a vendor's API, a gateway) is never sent a request its client
/// did not send.
fn may_ask(url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = u.host_str() else {
        return false;
    };
    match host.trim_start_matches('[').trim_end_matches(']').parse() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private(),
        Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback() || ip.is_unique_local(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// Whether `upstream` is a llama.cpp server: asked once it has answered,
/// and only on this machine or the local network ([`may_ask`]).
async fn is_llama(record: &Record) -> bool {
    let up = &record.upstream;
    if !may_ask(up) {
        return false;
    }
    if let Some(&known) = record
        .shared
        .llama
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(up)
    {
        return known;
    }
    let answer = tokenize(record, "hi").await;
    let known = match answer {
        Ok(Some(_)) => Some(true),
        Ok(None) | Err(Skip::TooLarge) => Some(false),
        Err(Skip::NoAnswer) => None,
    };
    if let Some(k) = known {
        record
            .shared
            .llama
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(up.clone(), k);
    }
    known.unwrap_or(false)
}

/// The number of tokens of `text` by the upstream's `/tokenize`: Ok(None)
/// when it answered but is not a tokenizer, Err when it did not answer.
/// Asked again once if the connection failed (a server may close a
/// kept-alive connection just as it is reused; counting is idempotent).
async fn tokenize(record: &Record, text: &str) -> Result<Option<usize>, Skip> {
    match tokenize_once(record, text).await {
        Err(Skip::NoAnswer) => tokenize_once(record, text).await,
        answer => answer,
    }
}

/// Why a part was not counted.
#[derive(Debug, PartialEq)]
enum Skip {
    /// The server did not answer (connection, timeout).
    NoAnswer,
    /// Its answer was over the size cap every answer is read within.
    TooLarge,
}

async fn tokenize_once(record: &Record, text: &str) -> Result<Option<usize>, Skip> {
    let resp = record
        .shared
        .client
        .post(format!("{}/tokenize", root(&record.upstream)))
        .headers(record.auth.clone())
        .timeout(COUNT_TIMEOUT)
        .json(&json!({"content": text, "add_special": false, "parse_special": true}))
        .send()
        .await
        .map_err(|_| Skip::NoAnswer)?;
    if !resp.status().is_success() {
        return Ok(None);
    }
    let body = match guard::read_capped(resp, guard::MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(guard::ReadError::TooLarge) => return Err(Skip::TooLarge),
        Err(guard::ReadError::Transport(_)) => return Err(Skip::NoAnswer),
    };
    #[derive(serde::Deserialize)]
    struct Tokens {
        tokens: Vec<serde::de::IgnoredAny>,
    }
    Ok(serde_json::from_slice::<Tokens>(&body)
        .ok()
        .map(|t| t.tokens.len()))
}

/// Each part of the request (in the order the Traffic views list them)
/// counted by a llama.cpp upstream's own tokenizer; None when the upstream
/// is not one, or did not count every part.
pub(super) async fn count_parts(record: &Record) -> Option<Value> {
    if !is_llama(record).await {
        return None;
    }
    // One parsed tree of the body at most, and only when it stays within a
    // few times the body's size (a body of many tiny values is not counted).
    let text = std::str::from_utf8(&record.request).ok()?;
    if !super::record::tree_is_small(text) {
        return Some(skipped(
            record,
            "the request has too many JSON values to parse within the proxy's memory bound",
        ));
    }
    use crate::engine::request::{Api, Request};
    let request = {
        let tree: Value = serde_json::from_str(text).ok()?;
        if !tree.is_object() {
            return None;
        }
        Request::of_recorded(Api::of_path(&record.endpoint), &tree)
    };
    // Their texts copied: the request is not held while the server counts
    // them.
    let positions: Vec<(String, String, bool)> = request
        .each_position()
        .map(|p| (p.label, p.text.into_owned(), p.breakpoint))
        .collect();
    drop(request);
    if positions.len() > MAX_COUNTED_PARTS {
        return None;
    }
    let mut parts = Vec::with_capacity(positions.len());
    for (_, text, _) in &positions {
        let key = (
            record.upstream.clone(),
            xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
        );
        let memo = record
            .shared
            .counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied();
        let n = match memo {
            Some(n) => n,
            None if text.is_empty() => 0,
            None => match tokenize(record, text).await {
                Ok(Some(n)) => {
                    let mut memo = record
                        .shared
                        .counts
                        .lock()
                        .unwrap_or_else(|e| e.into_inner());
                    if memo.len() >= MAX_MEMO {
                        memo.clear();
                    }
                    memo.insert(key, n);
                    n
                }
                Err(Skip::TooLarge) => {
                    return Some(skipped(
                        record,
                        &format!(
                            "the server's /tokenize answer is over {} MiB",
                            guard::MAX_BODY_BYTES >> 20
                        ),
                    ));
                }
                Ok(None) | Err(Skip::NoAnswer) => return None,
            },
        };
        parts.push(n);
    }
    Some(json!({
        "by": format!("llama.cpp server at {}", guard::mask_url(root(&record.upstream))),
        "parts": parts,
    }))
}

/// Exact counting skipped for `why`: said once on standard error, and
/// recorded with the exchange (the views then estimate with the table's
/// tokenizer).
fn skipped(record: &Record, why: &str) -> Value {
    if !record
        .shared
        .count_skipped
        .swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        crate::guard::say(&format!(
            "prompt-inspector proxy: exact counting skipped: {why} (the Traffic views estimate those parts)"
        ));
    }
    json!({ "skipped": why })
}

#[cfg(test)]
mod tests {
    use super::may_ask;

    #[test]
    fn only_servers_on_this_machine_or_the_local_network_are_asked() {
        for local in [
            "http://127.0.0.1:8080",
            "http://localhost:8080/v1",
            "http://[::1]:8080",
            "http://192.168.1.20:8080",
            "http://10.0.0.5",
        ] {
            assert!(may_ask(local), "{local}");
        }
        for public in [
            crate::ANTHROPIC_BASE,
            crate::OPENAI_BASE,
            crate::GEMINI_BASE,
            "https://openrouter.ai/api",
            "https://llm.example.com",
            "https://8.8.8.8",
            "not a url",
        ] {
            assert!(!may_ask(public), "{public}");
        }
    }
}
