//! The typed request model (`engine::request`) on every request the
//! recorded agents sent (Claude Code, Codex, OpenClaw, the example
//! capture): each API's adapter reads it and writes back the same JSON,
//! and its positions (what every view shows) are the body's as a walk of
//! its JSON finds them, label, text and breakpoint alike.

use std::path::Path;

use prompt_inspector::engine::request::Api;
use serde_json::{Value, json};

/// A position as a walk of the body's JSON finds it: its label, its text
/// (None for an input item without content, whose text is the adapter's
/// summary) and whether it carries a breakpoint.
type Walked = (String, Option<String>, bool);

/// The positions of an Anthropic Messages, Chat Completions or Responses
/// body, walked on its JSON: the oracle the typed model is held to.
fn walked(req: &Value) -> Vec<Walked> {
    let bp = |v: &Value| v.get("cache_control").is_some();
    let stripped = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("cache_control");
        }
        v.to_string()
    };
    let text = |c: &Value| {
        Some(
            c["text"]
                .as_str()
                .map_or_else(|| stripped(c), str::to_string),
        )
    };
    let name = |t: &Value| {
        t["name"]
            .as_str()
            .or(t.pointer("/function/name").and_then(Value::as_str))
            .or(t["type"].as_str())
            .unwrap_or("?")
            .to_string()
    };
    let mut out: Vec<Walked> = Vec::new();
    let tools = req["tools"].as_array().cloned().unwrap_or_default();
    for (i, t) in tools.iter().enumerate() {
        out.push((
            format!("tool {} ({})", i + 1, name(t)),
            Some(stripped(t)),
            bp(t),
        ));
    }
    match (&req["system"], &req["instructions"]) {
        (Value::String(s), _) | (Value::Null, Value::String(s)) => {
            out.push(("system block 1".into(), Some(s.clone()), false))
        }
        (Value::Array(bs), _) => {
            for (i, b) in bs.iter().enumerate() {
                out.push((format!("system block {}", i + 1), text(b), bp(b)));
            }
        }
        _ => {}
    }
    let items = match (&req["messages"], &req["input"]) {
        (Value::Array(m), _) | (Value::Null, Value::Array(m)) => m.clone(),
        (Value::Null, Value::String(s)) => vec![json!({"role": "user", "content": s})],
        _ => Vec::new(),
    };
    let mut n = tools.len();
    for (i, m) in items.iter().enumerate() {
        if m["type"] == "additional_tools" {
            for t in m["tools"].as_array().into_iter().flatten() {
                n += 1;
                let label = format!("tool {n} ({}, additional_tools)", name(t));
                out.push((label, Some(stripped(t)), bp(t)));
            }
            continue;
        }
        let role = m["role"].as_str().or(m["type"].as_str()).unwrap_or("?");
        let one = format!("message {} ({role})", i + 1);
        match &m["content"] {
            Value::String(s) => out.push((one, Some(s.clone()), false)),
            Value::Array(ps) if ps.len() == 1 => out.push((one, text(&ps[0]), bp(&ps[0]))),
            Value::Array(ps) => {
                for (j, p) in ps.iter().enumerate() {
                    out.push((format!("{one} block {}", j + 1), text(p), bp(p)));
                }
            }
            _ => out.push((one, None, false)),
        }
    }
    out
}

/// `typed` positions against the `walked` ones, text where the walk has it.
fn assert_walked(typed: &[(String, String, bool)], walked: &[Walked], at: &str) {
    assert_eq!(typed.len(), walked.len(), "{at}");
    for (a, (label, text, bp)) in typed.iter().zip(walked) {
        assert_eq!((&a.0, a.2), (label, *bp), "{at}");
        if let Some(t) = text {
            assert_eq!(&a.1, t, "{at}: {label}");
        }
    }
}

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
fn the_typed_positions_are_the_bodys_as_its_json_is_walked() {
    for (at, endpoint, req) in recorded_requests() {
        let r = Api::of_path(&endpoint).unwrap().read(&req).unwrap();
        let typed: Vec<(String, String, bool)> = r
            .positions()
            .into_iter()
            .map(|p| (p.label, p.text.into_owned(), p.breakpoint))
            .collect();
        assert_walked(&typed, &walked(&req), &at);
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
            (Api::Gemini, made::gemini_request(a, None, messages)),
        ];
        for (api, r) in made {
            let at = format!("{} as {}", dir.display(), api.name());
            let wire = r.to_wire();
            let back = api.read(&wire).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(back.to_wire(), wire, "{at}: written back as read");
            assert_eq!(owned(back.positions()), owned(r.positions()), "{at}");
            // The positions are the body's as its JSON is walked.
            if api != Api::Gemini {
                assert_walked(&owned(r.positions()), &walked(&wire), &at);
            }
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
