//! A llama.cpp upstream's own counts of each part of a request, asked
//! after the answer has gone to the client and recorded with the exchange.

use std::time::Duration;

use serde_json::{Value, json};

use super::record::Record;
use crate::net::guard;

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

/// Whether `upstream` is a llama.cpp server: asked once it has answered
/// (a vendor's public API is never asked). None when it cannot be told now.
async fn is_llama(record: &Record) -> bool {
    let up = &record.upstream;
    if [crate::net::ANTHROPIC_BASE, crate::net::OPENAI_BASE].contains(&root(up)) {
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
        Ok(None) => Some(false),
        Err(()) => None,
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
async fn tokenize(record: &Record, text: &str) -> Result<Option<usize>, ()> {
    match tokenize_once(record, text).await {
        Err(()) => tokenize_once(record, text).await,
        answer => answer,
    }
}

async fn tokenize_once(record: &Record, text: &str) -> Result<Option<usize>, ()> {
    let resp = record
        .shared
        .client
        .post(format!("{}/tokenize", root(&record.upstream)))
        .headers(record.auth.clone())
        .timeout(COUNT_TIMEOUT)
        .json(&json!({"content": text, "add_special": false, "parse_special": true}))
        .send()
        .await
        .map_err(|_| ())?;
    if !resp.status().is_success() {
        return Ok(None);
    }
    let body = resp.bytes().await.map_err(|_| ())?;
    Ok(serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["tokens"].as_array().map(Vec::len)))
}

/// Each part of the request (in the order the Traffic views list them)
/// counted by a llama.cpp upstream's own tokenizer; None when the upstream
/// is not one, or did not count every part.
pub(super) async fn count_parts(record: &Record) -> Option<Value> {
    let request: Value = serde_json::from_slice(&record.request).ok()?;
    if !request.is_object() || !is_llama(record).await {
        return None;
    }
    let positions = crate::engine::traffic::positions(&request);
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
            None => {
                let n = tokenize(record, text).await.ok()??;
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
        };
        parts.push(n);
    }
    Some(json!({
        "by": format!("llama.cpp server at {}", guard::mask_url(root(&record.upstream))),
        "parts": parts,
    }))
}
