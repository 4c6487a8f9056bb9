//! Local llama.cpp servers, counted exactly: a server that answers
//! `/tokenize` and `/apply-template` is asked for the token ids it will
//! evaluate for each planned request (its own chat template, its own
//! tokenizer), and the prefix-cache prediction is made on those ids, so
//! that what is predicted is what the server reports.

use serde_json::{Value, json};

use super::{Endpoint, NetError};
use crate::engine::ModelInfo;
use crate::engine::cache::predictors;
use crate::engine::cache::test_run::Planned;

async fn post(
    client: &reqwest::Client,
    ep: &Endpoint,
    path: &str,
    body: Value,
) -> Result<Value, NetError> {
    let resp = client
        .post(format!(
            "{}{path}",
            ep.base_url.trim_end_matches('/').trim_end_matches("/v1")
        ))
        .json(&body)
        .send()
        .await
        .map_err(|e| NetError::Connect(ep.clean(&e.to_string())))?;
    if !resp.status().is_success() {
        return Err(NetError::Http {
            status: resp.status().as_u16(),
            message: format!("{path} not answered"),
        });
    }
    // Within the same cap as every answer (a larger one is an error, and
    // the exact counting is skipped with it).
    let text = super::read_body(resp, ep).await?;
    serde_json::from_str(&text).map_err(|e| NetError::BadJson(ep.clean(&e.to_string())))
}

/// The token ids the server evaluates for a chat request body.
pub async fn tokens(
    client: &reqwest::Client,
    ep: &Endpoint,
    body: &Value,
) -> Result<Vec<u32>, NetError> {
    let prompt = post(
        client,
        ep,
        "/apply-template",
        json!({"messages": body["messages"]}),
    )
    .await?;
    let t = post(
        client,
        ep,
        "/tokenize",
        json!({"content": prompt["prompt"], "add_special": true, "parse_special": true}),
    )
    .await?;
    t["tokens"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .map(|v| v as u32)
                .collect()
        })
        .ok_or_else(|| NetError::BadJson("/tokenize gave no tokens".into()))
}

/// Whether the endpoint is a llama.cpp server (it tokenizes and applies
/// its chat template).
pub async fn detect(client: &reqwest::Client, ep: &Endpoint) -> bool {
    post(client, ep, "/tokenize", json!({"content": "hi"}))
        .await
        .is_ok_and(|v| v["tokens"].is_array())
        && post(
            client,
            ep,
            "/apply-template",
            json!({"messages": [{"role": "user", "content": "hi"}]}),
        )
        .await
        .is_ok_and(|v| v["prompt"].is_string())
}

/// Re-predicts `planned` on the server's own token ids when the endpoint is
/// a llama.cpp server. Returns whether it did.
pub async fn exact(
    client: &reqwest::Client,
    ep: &Endpoint,
    model: &ModelInfo,
    planned: &mut [Planned],
) -> Result<bool, NetError> {
    if planned.is_empty() || !detect(client, ep).await {
        return Ok(false);
    }
    let mut seqs = Vec::with_capacity(planned.len());
    for p in planned.iter() {
        seqs.push(tokens(client, ep, &p.body).await?);
    }
    let shapes: Vec<_> = planned.iter().map(|p| p.shape.clone()).collect();
    for (p, mut predicted) in planned
        .iter_mut()
        .zip(predictors::prefix(model, &shapes, &seqs))
    {
        predicted
            .notes
            .push("counted with the server's own chat template and tokenizer (llama.cpp)".into());
        p.predicted = predicted;
    }
    Ok(true)
}
