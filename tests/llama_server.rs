//! Against a real llama.cpp `llama-server` (scripts/llama-server.sh): sends
//! a session to both endpoints and checks that the prefix predictor, fed with
//! the server's own token ids, agrees with the cached tokens it reports.
//! Runs when a server answers (PROMPT_INSPECTOR_LLAMA_URL, default
//! http://127.0.0.1:8089); is reported as ignored otherwise.

use crate::common;

use std::path::Path;

use common::*;
use prompt_inspector::engine::cache::test_run::{self, Plan};
use prompt_inspector::engine::{self, ModelTable, Provider, TokenCounter, cache::predictors};
use serde_json::{Value, json};

fn server() -> Option<String> {
    let url = std::env::var("PROMPT_INSPECTOR_LLAMA_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:8089".into());
    let rt = tokio::runtime::Runtime::new().ok()?;
    let ok = rt.block_on(async {
        reqwest::get(format!("{url}/health"))
            .await
            .map(|r| r.status().is_success())
            .unwrap_or(false)
    });
    ok.then_some(url)
}

fn post(rt: &tokio::runtime::Runtime, url: &str, body: Value) -> Value {
    rt.block_on(async {
        reqwest::Client::new()
            .post(url)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    })
}

/// The token ids the server evaluates for a chat request: its chat template
/// applied, then its tokenizer.
fn server_tokens(rt: &tokio::runtime::Runtime, url: &str, body: &Value) -> Vec<u32> {
    let prompt = post(
        rt,
        &format!("{url}/apply-template"),
        json!({"messages": body["messages"]}),
    );
    let t = post(
        rt,
        &format!("{url}/tokenize"),
        json!({"content": prompt["prompt"], "add_special": true, "parse_special": true}),
    );
    t["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

fn workspace(dir: &Path, nonce: &str) {
    let soul = format!(
        "You are Nonce-{nonce}, a terse assistant for a Rust team. {}",
        "Prefer small, tested changes and explain trade-offs briefly. ".repeat(60)
    );
    write_ws(
        dir,
        &[
            ("SOUL.md", &soul),
            (
                "SAFETY.md",
                "Never run destructive commands without confirmation.",
            ),
            ("USER.md", "The user writes Rust and TypeScript."),
            (
                "workspace.yaml",
                "model: local-llama\nbudget: {total: 3000, fixed: {1: 1500, 2: 300}}\n",
            ),
            (
                "sessions/s.yaml",
                "turns:\n  - user: Summarize our rules in one line.\n    assistant: Small tested changes.\n  - user: And the safety rule?\n    assistant: Confirm destructive commands.\n  - user: Thanks.\n",
            ),
        ],
    );
}

#[test]
#[ignore = "needs a llama-server (scripts/llama-server.sh); .ci/run runs it when it can start one"]
fn prefix_predictor_matches_llama_server_cached_tokens() {
    let url = server().expect("a llama-server answers (start one with scripts/llama-server.sh)");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let nonce = format!("{}", std::process::id());
    let warm = tempfile::tempdir().unwrap();
    workspace(warm.path(), &format!("warmup-{nonce}"));
    let ws = tempfile::tempdir().unwrap();
    workspace(ws.path(), &nonce);
    let table = ModelTable::bundled();
    let counter = TokenCounter::new();
    let model = table.get("local-llama").unwrap().clone();
    let plan_of = |dir: &Path| {
        let ins = engine::inspect(dir, &engine::Options::default(), &table, &counter).unwrap();
        test_run::plan(
            &ins,
            None,
            &Plan::Session,
            (Some(Provider::Openai), Provider::Openai.api()),
            &model,
            &counter,
        )
    };
    let warm_plan = plan_of(warm.path());
    let plan = plan_of(ws.path());
    // The slot holds the warm-up's last request when the session starts.
    let mut seqs = vec![server_tokens(&rt, &url, &warm_plan.last().unwrap().body)];
    seqs.extend(plan.iter().map(|p| server_tokens(&rt, &url, &p.body)));
    let expected = predictors::prefix_cached(&seqs);

    let send = |dir: &Path| {
        let o = std::process::Command::new(bin())
            .args([
                "send",
                dir.to_str().unwrap(),
                "--provider",
                "openai",
                "--base-url",
                &url,
                "--predict-with",
                "prefix",
                "--format",
                "json",
                "--timeout",
                "300",
                "--no-save",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        json(&o)
    };
    send(warm.path());
    let run = send(ws.path());
    let rows = run["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let mut report = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let cached = row["actual"]["cache_read_input_tokens"].as_u64().unwrap() as usize;
        let total = cached + row["actual"]["input_tokens"].as_u64().unwrap() as usize;
        report.push(format!(
            "request {}: server {cached} cached of {total}; predictor (server tokens) {} of {}",
            i + 1,
            expected[i + 1],
            seqs[i + 1].len()
        ));
        assert_eq!(
            total,
            seqs[i + 1].len(),
            "the server's own count: {report:?}"
        );
        assert_eq!(cached, expected[i + 1], "{report:?}");
    }
    eprintln!(
        "llama-server /v1/chat/completions:\n  {}",
        report.join("\n  ")
    );

    // The Anthropic-style endpoint: a repeated prompt is read back in full
    // but one token, and no creation count is reported.
    let o = std::process::Command::new(bin())
        .args([
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "anthropic",
            "--base-url",
            &url,
            "--repeat",
            "2",
            "--format",
            "json",
            "--timeout",
            "300",
            "--no-save",
        ])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let second = &r["requests"][1]["actual"];
    assert_eq!(second["reports_creation"], false);
    assert!(second["input_tokens"].as_u64().unwrap() <= 2, "{second}");
    assert!(second["cache_read_input_tokens"].as_u64().unwrap() > 100);
    assert!(
        r["requests"][0]["explanation"]
            .to_string()
            .contains("does not report cache writes"),
        "{}",
        r["requests"][0]
    );
    eprintln!(
        "llama-server /v1/messages: repeat read {} of {}",
        second["cache_read_input_tokens"],
        second["cache_read_input_tokens"].as_u64().unwrap()
            + second["input_tokens"].as_u64().unwrap()
    );
}
