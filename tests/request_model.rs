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

/// The folders the assembly is tried on: the sample and each agent's
/// recorded workspace.
fn assembled_folders() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("sample-workspace")];
    for agent in ["claude-code", "codex", "openclaw", "gemini", "pi"] {
        let ws = root
            .join("tests/fixtures/agents")
            .join(agent)
            .join("workspace");
        if ws.is_dir() {
            out.push(ws);
        }
    }
    out
}

#[test]
fn the_assembly_makes_the_typed_request_and_its_wire_reads_back_as_it() {
    use prompt_inspector::engine::cache::request as made;
    use prompt_inspector::engine::request::{Position, Request};
    use prompt_inspector::engine::{self, ModelTable, TokenCounter};
    let (table, counter) = (ModelTable::bundled(), TokenCounter::new());
    let owned = |ps: Vec<Position<'_>>| -> Vec<(String, String, bool)> {
        ps.into_iter()
            .map(|p| (p.label, p.text.into_owned(), p.breakpoint))
            .collect()
    };
    let folders = assembled_folders();
    assert!(folders.len() >= 4, "{folders:?}");
    for dir in folders {
        let ins = engine::inspect(&dir, &engine::Options::default(), &table, &counter)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let a = &ins.assembly;
        let messages = &ins.session().messages;
        let made: [(Api, Request); 3] = [
            (
                Api::AnthropicMessages,
                made::anthropic_request(a, &a.model, messages, 64, true, true),
            ),
            (
                Api::ChatCompletions,
                made::openai_request(a, &a.model, messages, 64),
            ),
            (Api::Gemini, made::gemini_request(a, messages)),
        ];
        for (api, r) in made {
            let at = format!("{} as {}", dir.display(), api.name());
            let wire = r.to_wire();
            let back = api.read(&wire).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(back.to_wire(), wire, "{at}: written back as read");
            assert_eq!(owned(back.positions()), owned(r.positions()), "{at}");
            // Every view's positions of the body are the typed ones.
            let shown: Vec<(String, String, bool)> = traffic::positions(&wire)
                .into_iter()
                .map(|(l, t, b)| (l, t.into_owned(), b))
                .collect();
            assert_eq!(shown, owned(r.positions()), "{at}");
            // The body's shape says its API (the endpoint aside).
            assert_eq!(Api::of_body(&wire), api, "{at}");
            // The system blocks and tools the assembly enabled, each once.
            assert_eq!(r.tools.len(), a.tools.len(), "{at}");
            if api == Api::AnthropicMessages {
                let cached = a.blocks.iter().filter(|b| b.placement.is_system());
                let bps: Vec<bool> = cached.map(|b| b.cache_control).collect();
                let got: Vec<bool> = r.system.iter().map(|b| b.breakpoint.is_some()).collect();
                assert_eq!(got, bps, "{at}: a breakpoint on each cached layer");
                assert!(
                    r.tools.last().is_none_or(|t| t.breakpoint.is_some()),
                    "{at}: cache_tools puts one on the last tool"
                );
            }
        }
    }
}
