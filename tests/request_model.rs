//! The typed request model (`engine::request`) on every request the
//! recorded agents sent (Claude Code, Codex, OpenClaw, the example
//! capture): each API's adapter reads it and writes back the same JSON,
//! and its positions are the ones every view shows today
//! (`traffic::positions`), label, text and breakpoint alike.

use std::path::Path;

use prompt_inspector::engine::request::Api;
use prompt_inspector::engine::traffic;
use serde_json::Value;

fn recorded_requests() -> Vec<(String, String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        "tests/fixtures/agents/claude-code/capture.jsonl",
        "tests/fixtures/agents/claude-code/context-capture.jsonl",
        "tests/fixtures/agents/codex/capture.jsonl",
        "tests/fixtures/agents/openclaw/capture.jsonl",
        "examples/traffic/capture.jsonl",
    ];
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        for (i, line) in text.lines().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            if let (Some(ep), Some(req)) = (v["endpoint"].as_str(), v.get("request"))
                && req.is_object()
            {
                out.push((format!("{f}:{}", i + 1), ep.to_string(), req.clone()));
            }
        }
    }
    out
}

#[test]
fn every_recorded_request_round_trips_through_its_api_adapter() {
    let all = recorded_requests();
    let mut apis = std::collections::BTreeSet::new();
    for (at, endpoint, req) in &all {
        let api = Api::of_path(endpoint).unwrap_or_else(|| panic!("{at}: {endpoint}"));
        apis.insert(api.name());
        let r = api.read(req).unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(&r.to_wire(), req, "{at}: written back as read");
        assert_eq!(r.model.as_deref(), req["model"].as_str(), "{at}");
    }
    assert!(all.len() >= 40, "{} requests", all.len());
    assert!(
        apis.contains("Anthropic Messages") && apis.contains("OpenAI Responses"),
        "{apis:?}"
    );
}

#[test]
fn the_typed_positions_are_the_ones_every_view_shows() {
    for (at, endpoint, req) in recorded_requests() {
        let r = Api::of_path(&endpoint).unwrap().read(&req).unwrap();
        let typed: Vec<(String, String, bool)> = r
            .positions()
            .into_iter()
            .map(|p| (p.label, p.text.into_owned(), p.breakpoint))
            .collect();
        let shown: Vec<(String, String, bool)> = traffic::positions(&req)
            .into_iter()
            .map(|(l, t, b)| (l, t.into_owned(), b))
            .collect();
        assert_eq!(typed.len(), shown.len(), "{at}");
        for (a, b) in typed.iter().zip(&shown) {
            assert_eq!(a, b, "{at}");
        }
    }
}
