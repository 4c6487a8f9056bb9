//! `prompt-inspector models`: the table every figure is priced with, and
//! its refresh from LiteLLM's file (offline from a file, or from a URL
//! served here on loopback).

use crate::common;

use std::io::Write;
use std::net::TcpListener;

use common::*;

const LITELLM: &str = r#"{
  "sample_spec": {"mode": "chat", "litellm_provider": "one of the providers"},
  "claude-opus-9-9": {"litellm_provider": "anthropic", "mode": "chat", "max_input_tokens": 2000000,
    "input_cost_per_token": 7e-06, "output_cost_per_token": 3.5e-05, "cache_creation_input_token_cost": 8.75e-06,
    "cache_creation_input_token_cost_above_1hr": 1.4e-05, "cache_read_input_token_cost": 7e-07, "supports_vision": true},
  "gpt-9-nova": {"litellm_provider": "openai", "mode": "responses", "max_input_tokens": 900000,
    "input_cost_per_token": 1e-06, "output_cost_per_token": 8e-06, "cache_read_input_token_cost": 1e-07},
  "vertex_ai/claude-opus-9-9": {"litellm_provider": "vertex_ai", "mode": "chat", "input_cost_per_token": 7e-06}
}"#;

#[test]
fn the_table_lists_the_agents_models_with_their_vendors_prices() {
    let home = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(bin())
        .args(["models", "--format", "json"])
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let row = |id: &str| {
        v["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} missing"))
    };
    assert_eq!(row("claude-opus-5-5")["provider"], "anthropic");
    assert_eq!(row("gpt-6.1-sol")["provider"], "openai");
    assert!(
        row("gpt-6.1-sol")["source"]
            .as_str()
            .unwrap()
            .contains("LiteLLM")
    );
}

#[test]
fn update_from_a_file_and_from_a_url_refreshes_this_users_table() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("prices.json");
    std::fs::write(&file, LITELLM).unwrap();
    let cmd = |args: &[&str]| {
        std::process::Command::new(bin())
            .args(args)
            .env("HOME", home.path())
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap()
    };
    let o = cmd(&["models", "--update", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 models written"), "{}", stderr(&o));
    let saved = home
        .path()
        .join(".config/prompt-inspector/model_prices.json");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(!text.contains("supports_vision") && !text.contains(home.path().to_str().unwrap()));
    // Every later start reads it: the new model is priced as LiteLLM says.
    let v = json(&cmd(&["models", "--format", "json"]));
    let m = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "claude-opus-9-9")
        .cloned()
        .unwrap();
    assert_eq!(m["context_window"], 2_000_000);
    assert!((m["input_per_mtok"].as_f64().unwrap() - 7.0).abs() < 1e-9);
    assert!((m["cache_write_1h_per_mtok"].as_f64().unwrap() - 14.0).abs() < 1e-9);

    // From a URL (served here), to a file of the user's choice.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/prices.json", l.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = l.accept() {
            let _ = common::read_request(&s);
            let _ = s.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{LITELLM}",
                    LITELLM.len()
                )
                .as_bytes(),
            );
        }
    });
    let out = home.path().join("from-url.json");
    let o = cmd(&[
        "models",
        "--update",
        &url,
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("gpt-9-nova")
    );

    // Not LiteLLM's file: one clear error, nothing replaced.
    std::fs::write(&file, r#"{"models": []}"#).unwrap();
    let o = cmd(&["models", "--update", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no Anthropic, OpenAI or Gemini chat model"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
}

/// Fast mode is billed as the vendor bills it (issue 38): where the table
/// has no fast rates for a model, its documented multiple of the standard
/// rates (2× for Claude Opus 5 and 4.8), every price of the request; a
/// model with neither is priced at its standard rates, as before, and the
/// views say that this is a lower bound.
#[test]
fn fast_mode_is_priced_at_the_models_multiple() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("fast.jsonl");
    let line = |model: &str, speed: &str| {
        format!(
            r#"{{"ts_start":"2026-12-01T10:00:00.000Z","endpoint":"/v1/messages","model":"{model}","status":200,"usage":{{"input_tokens":1000,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":500,"speed":"{speed}"}},"request":{{"model":"{model}","system":"{model} {speed}","messages":[{{"role":"user","content":"hi"}}]}}}}"#
        )
    };
    let lines = [
        line("claude-opus-5", "standard"),
        line("claude-opus-5", "fast"),
        line("claude-opus-4-7", "standard"),
        line("claude-opus-4-7", "fast"),
    ];
    std::fs::write(&cap, lines.join("\n") + "\n").unwrap();
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let cost: Vec<f64> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cost_usd"].as_f64().unwrap())
        .collect();
    // Opus 5 standard: 1,000 × $5 + 2,000 × $6.25 + 30,000 × $0.50 +
    // 500 × $25, per million.
    let standard = (1000.0 * 5.0 + 2000.0 * 6.25 + 30000.0 * 0.5 + 500.0 * 25.0) / 1e6;
    assert!((cost[0] - standard).abs() < 1e-9, "{cost:?}");
    assert!((cost[1] - 2.0 * standard).abs() < 1e-9, "{cost:?}");
    assert!((cost[3] - cost[2]).abs() < 1e-12, "{cost:?}");
    // …and says so: a lower bound, named in the totals and every view's
    // notes; Opus 5, with its multiple, is not named.
    assert_eq!(
        v["totals"]["fast_at_standard_rates"],
        serde_json::json!(["claude-opus-4-7"])
    );
    let note = "fast mode priced at standard rates, a lower bound: the model table has no fast-mode price for claude-opus-4-7";
    for format in ["text", "markdown", "html"] {
        let out = stdout(&run(&[
            "traffic",
            cap.to_str().unwrap(),
            "--format",
            format,
        ]));
        assert!(out.contains(note), "{format}: {out}");
    }
}

/// Claude Code's default model, Claude Opus 5.5, in fast mode as its
/// documentation prices it (build-with-claude/fast-mode: $8 input and $40
/// output per million tokens, twice the standard $4 / $20; the prompt
/// caching multipliers apply on top: a 5-minute write $10, a read $0.40):
/// a million tokens of each kind, each priced alone.
#[test]
fn opus_5_5_fast_mode_is_billed_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("fast.jsonl");
    let line = |i: usize, usage: &str| {
        format!(
            r#"{{"ts_start":"2026-12-01T10:00:0{i}.000Z","endpoint":"/v1/messages","model":"claude-opus-5-5","status":200,"usage":{usage},"request":{{"model":"claude-opus-5-5","speed":"fast","system":"request {i}","messages":[{{"role":"user","content":"hi"}}]}}}}"#
        )
    };
    let m = 1_000_000;
    let kinds = [
        (
            format!(r#"{{"input_tokens":{m},"output_tokens":0,"speed":"fast"}}"#),
            8.0,
        ),
        (
            format!(r#"{{"input_tokens":0,"output_tokens":{m},"speed":"fast"}}"#),
            40.0,
        ),
        (
            format!(
                r#"{{"input_tokens":0,"cache_creation_input_tokens":{m},"output_tokens":0,"speed":"fast"}}"#
            ),
            10.0,
        ),
        (
            format!(
                r#"{{"input_tokens":0,"cache_read_input_tokens":{m},"output_tokens":0,"speed":"fast"}}"#
            ),
            0.4,
        ),
        (
            format!(r#"{{"input_tokens":{m},"output_tokens":{m},"speed":"standard"}}"#),
            24.0,
        ),
    ];
    let lines: Vec<String> = kinds
        .iter()
        .enumerate()
        .map(|(i, (u, _))| line(i, u))
        .collect();
    std::fs::write(&cap, lines.join("\n") + "\n").unwrap();
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows.len(), kinds.len());
    for (r, (usage, dollars)) in rows.iter().zip(&kinds) {
        let cost = r["cost_usd"].as_f64().unwrap();
        assert!(
            (cost - dollars).abs() < 1e-9,
            "{usage}: ${cost}, documented ${dollars}"
        );
    }
    // Priced from the table's multiple, so no lower bound is said.
    assert!(
        v["totals"]["fast_at_standard_rates"]
            .as_array()
            .is_none_or(|a| a.is_empty()),
        "{}",
        v["totals"]
    );
}
