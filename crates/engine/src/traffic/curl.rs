//! A recorded request written back as a `curl` command to send it again
//! (the Traffic tab's "Copy as cURL"): its API's URL and headers, its body
//! as recorded. The key is never in it: the command reads it from the
//! provider's usual environment variable (`$ANTHROPIC_API_KEY`,
//! `$OPENAI_API_KEY`, `$GEMINI_API_KEY`), and the base URL from the one
//! the agent itself reads, the provider's public one by default.

use serde_json::Value;

/// The request `body` (of a request to `api`: `anthropic`, `openai` or
/// `gemini`; none: told from the body) for `model`, as a curl command.
pub fn command(api: Option<&str>, model: &str, body: &Value) -> String {
    let api = api.unwrap_or_else(|| told_from(body));
    let (url, headers): (String, &[&str]) = match api {
        "openai" => {
            let path = if body.get("input").is_some() {
                "responses"
            } else {
                "chat/completions"
            };
            (
                format!("${{OPENAI_BASE_URL:-https://api.openai.com/v1}}/{path}"),
                &["authorization: Bearer $OPENAI_API_KEY"],
            )
        }
        "gemini" => (
            format!(
                "${{GOOGLE_GEMINI_BASE_URL:-https://generativelanguage.googleapis.com}}/v1beta/models/{}:generateContent",
                shell_safe(model)
            ),
            &["x-goog-api-key: $GEMINI_API_KEY"],
        ),
        _ => (
            "${ANTHROPIC_BASE_URL:-https://api.anthropic.com}/v1/messages".to_string(),
            &[
                "x-api-key: $ANTHROPIC_API_KEY",
                "anthropic-version: 2023-06-01",
            ],
        ),
    };
    let mut out = format!("curl \"{url}\" \\\n  -H 'content-type: application/json'");
    for h in headers {
        out.push_str(&format!(" \\\n  -H \"{h}\""));
    }
    let json = serde_json::to_string(body).unwrap_or_default();
    out.push_str(&format!(" \\\n  --data-binary {}\n", single_quoted(&json)));
    out
}

/// The API a body is written for, by its fields.
fn told_from(body: &Value) -> &'static str {
    if body.get("contents").is_some() {
        "gemini"
    } else if body.get("input").is_some()
        || body
            .get("messages")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|m| m["role"] == "system"))
    {
        "openai"
    } else {
        "anthropic"
    }
}

/// `text` in single quotes for a POSIX shell (a quote inside closed,
/// escaped, reopened).
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A model name as a URL segment: only the characters model names use.
fn shell_safe(model: &str) -> String {
    model
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-._".contains(*c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_gets_its_url_and_key_variable_and_the_body_survives_the_shell() {
        let body = serde_json::json!({"model": "claude-sonnet-4-6", "max_tokens": 8,
            "messages": [{"role": "user", "content": "it's $HOME `x`"}]});
        let c = command(Some("anthropic"), "claude-sonnet-4-6", &body);
        assert!(
            c.starts_with("curl \"${ANTHROPIC_BASE_URL:-https://api.anthropic.com}/v1/messages\"")
        );
        assert!(c.contains("x-api-key: $ANTHROPIC_API_KEY"));
        // The body, between single quotes: nothing in it is expanded.
        let quoted = c.split("--data-binary ").nth(1).unwrap().trim_end();
        assert_eq!(quoted, single_quoted(&body.to_string()));
        assert!(quoted.contains(r"it'\''s $HOME `x`"));
        let r = command(
            Some("openai"),
            "gpt-5",
            &serde_json::json!({"model": "gpt-5", "input": "hi"}),
        );
        assert!(r.contains("/v1}/responses\"") && r.contains("Bearer $OPENAI_API_KEY"));
        let g = command(
            None,
            "gemini-3.5-flash",
            &serde_json::json!({"contents": []}),
        );
        assert!(g.contains("/v1beta/models/gemini-3.5-flash:generateContent"));
        assert!(g.contains("x-goog-api-key: $GEMINI_API_KEY"));
        assert_eq!(shell_safe("m\"; rm -rf /"), "mrm-rf");
    }
}
