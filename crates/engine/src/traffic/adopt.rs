//! Adopting a captured conversation as a session: the conversation picked
//! from a chain, its turns (with tool uses and the gaps between them).

use serde_json::Value;

use super::{Exchange, chain_phrase};

/// Requests of a capture with their 0-based indices.
type Indexed<'a> = Vec<(usize, &'a Exchange)>;

/// A captured conversation as a session (turns, tool uses, gaps), so that
/// prediction, test runs and diff apply to real traffic. Built from one
/// chain (`main` unless named): the longest of its conversations, whose
/// last request's messages are the conversation; the time between the
/// requests that start a turn gives the gaps.
pub fn to_session(
    exchanges: &[Exchange],
    name: &str,
    wanted: &str,
) -> Result<Value, crate::error::Error> {
    let cannot = |why: String| crate::error::Error::option("--to-session", why);
    let (picked, conversations) = conversation(exchanges, wanted)?;
    let span = span_of(&picked);
    let others = conversations.saturating_sub(1);
    let chain: Vec<&Exchange> = picked.iter().map(|(_, x)| *x).collect();
    let last = chain
        .last()
        .and_then(|x| x.request.as_ref())
        .ok_or_else(|| {
            cannot(
                "no request bodies in the main chain: only a capture can become a session".into(),
            )
        })?;
    let turns = turns_of(&chain, last);
    if turns.is_empty() {
        return Err(cannot(format!(
            "no user turns in the main chain's conversation ({span}): only chat messages (Anthropic Messages, OpenAI Chat Completions) can become a session"
        )));
    }
    let tools: Vec<Value> = last["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").cloned())
        .collect();
    Ok(serde_json::json!({
        "name": name,
        "description": format!(
            "adopted from real traffic ({span}{})",
            if others > 0 {
                format!(
                    ", the longest of {} conversations in {}",
                    others + 1,
                    chain_phrase(wanted)
                )
            } else {
                String::new()
            }
        ),
        "model": last["model"],
        "tools": tools,
        "turns": turns,
    }))
}

/// The requests (with their indices) of the longest conversation of chain
/// `wanted`, and how many conversations the chain holds.
fn conversation<'a>(
    exchanges: &'a [Exchange],
    wanted: &str,
) -> Result<(Indexed<'a>, usize), crate::error::Error> {
    let cannot = |why: String| crate::error::Error::option("--to-session", why);
    let main: Vec<(usize, &Exchange)> = exchanges
        .iter()
        .enumerate()
        .filter(|(_, x)| x.chain == wanted && x.request.is_some())
        .collect();
    if main.is_empty() {
        let mut chains: Vec<&str> = Vec::new();
        let mut listed = std::collections::HashSet::new();
        for x in exchanges.iter().filter(|x| x.request.is_some()) {
            if listed.insert(x.chain.as_str()) {
                chains.push(&x.chain);
            }
        }
        return Err(cannot(if chains.is_empty() {
            "no request bodies: only a capture can become a session".into()
        } else {
            format!(
                "no requests in chain '{wanted}' (the capture has: {})",
                chains.join(", ")
            )
        }));
    }
    // The main chain may hold several conversations with the same system
    // prompt: one starts where a request's first message is not the
    // previous one's. The longest (the latest of equals) is adopted.
    // The first message as its role and text (moving `cache_control`, or
    // a string becoming a block, changes no conversation).
    let first_message = |x: &Exchange| {
        x.request.as_ref().map(|r| {
            let m = &r["messages"][0];
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .map(|p| {
                        p["text"]
                            .as_str()
                            .map_or_else(|| p.to_string(), str::to_string)
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            };
            (m["role"].clone(), text)
        })
    };
    let mut conversations: Vec<Vec<(usize, &Exchange)>> = Vec::new();
    for &(i, x) in &main {
        match conversations.last_mut() {
            Some(c)
                if c.last()
                    .is_some_and(|(_, p)| first_message(p) == first_message(x)) =>
            {
                c.push((i, x))
            }
            _ => conversations.push(vec![(i, x)]),
        }
    }
    let picked = conversations
        .iter()
        .enumerate()
        .max_by_key(|(k, c)| (c.len(), *k))
        .map(|(_, c)| c.clone())
        .unwrap_or_default();
    Ok((picked, conversations.len()))
}

/// `request #3`, `requests #1–#4`, or `3 requests, #1 to #9` when sparse.
fn span_of(picked: &[(usize, &Exchange)]) -> String {
    match (picked.first(), picked.last()) {
        (Some((a, _)), Some((b, _))) if a == b => format!("request #{}", a + 1),
        (Some((a, _)), Some((b, _))) if b - a + 1 == picked.len() => {
            format!("requests #{}–#{}", a + 1, b + 1)
        }
        (Some((a, _)), Some((b, _))) => format!(
            "{}, #{} to #{}",
            crate::plural(picked.len() as u64, "request"),
            a + 1,
            b + 1
        ),
        _ => String::new(),
    }
}

/// The text of a message's content (its text blocks), if any.
fn text_of(c: &Value) -> Option<String> {
    match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let t: Vec<&str> = parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        _ => None,
    }
}

/// The turns of a conversation: each user text opens one; assistant text,
/// tool uses and their results fill it; a gap of a minute or more between
/// the requests that started two turns is kept.
fn turns_of(chain: &[&Exchange], last: &Value) -> Vec<Value> {
    // The requests that start a turn (their last message is a user's text).
    let starts: Vec<Option<f64>> = chain
        .iter()
        .filter(|x| {
            let m = x
                .request
                .as_ref()
                .and_then(|r| r["messages"].as_array().and_then(|a| a.last().cloned()));
            m.is_some_and(|m| m["role"] == "user" && text_of(&m["content"]).is_some())
        })
        .map(|x| x.at)
        .collect();
    let mut turns: Vec<Value> = Vec::new();
    let mut pending: Vec<Value> = Vec::new();
    for m in last["messages"].as_array().into_iter().flatten() {
        let content = &m["content"];
        if m["role"] == "user" {
            // Tool results answer the previous turn's tool uses.
            for part in content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "tool_result")
            {
                if let Some(u) = pending.iter_mut().find(|u| u["id"] == part["tool_use_id"]) {
                    u["result"] = Value::String(
                        text_of(&part["content"]).unwrap_or_else(|| part["content"].to_string()),
                    );
                }
            }
            if let Some(t) = text_of(content) {
                if let Some(prev) = turns.last_mut()
                    && !pending.is_empty()
                {
                    prev["tool_uses"] = Value::Array(std::mem::take(&mut pending));
                }
                let mut turn = serde_json::json!({"user": t});
                let k = turns.len();
                if k > 0
                    && let (Some(Some(a)), Some(Some(b))) = (starts.get(k - 1), starts.get(k))
                    && b - a >= 60.0
                {
                    turn["gap"] = Value::String(format!("{}s", (b - a).round() as u64));
                }
                turns.push(turn);
            }
        } else {
            if let Some(t) = text_of(content)
                && let Some(prev) = turns.last_mut()
            {
                prev["assistant"] = Value::String(t);
            }
            for part in content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "tool_use")
            {
                pending.push(serde_json::json!({"id": part["id"], "name": part["name"], "input": part["input"], "result": ""}));
            }
        }
    }
    if let Some(prev) = turns.last_mut()
        && !pending.is_empty()
    {
        prev["tool_uses"] = Value::Array(pending);
    }
    turns
}
