//! `traffic` on what real agents sent: captures recorded from Claude Code
//! 2.1.328, OpenClaw 2026.9.6 and Codex 0.169.0 (tests/fixtures/agents/,
//! made by scripts/record-agent.sh through the recording proxy to a
//! loopback upstream that does the providers' cache accounting and logs
//! what it did and why, upstream.jsonl). Nothing here was written by hand.

use crate::common;

use serde_json::Value;

use common::*;

fn fixture(agent: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(agent)
}

fn traffic(agent: &str) -> Value {
    let cap = fixture(agent).join("capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

/// The upstream's own accounting of each generation, in order.
fn upstream(agent: &str) -> Vec<Value> {
    std::fs::read_to_string(fixture(agent).join("upstream.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| {
            !l["endpoint"]
                .as_str()
                .unwrap_or("")
                .ends_with("count_tokens")
        })
        .collect()
}

/// Read, written and uncached tokens as the upstream reported them.
fn reported(u: &Value) -> (u64, u64, u64) {
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    if u.get("input_tokens_details").is_some() {
        let cached = n("/input_tokens_details/cached_tokens");
        (cached, 0, n("/input_tokens") - cached)
    } else {
        (
            n("/cache_read_input_tokens"),
            n("/cache_creation_input_tokens"),
            n("/input_tokens"),
        )
    }
}

#[test]
fn reads_and_writes_equal_the_upstreams_on_every_request() {
    for agent in [
        "claude-code",
        "openclaw",
        "codex",
        "codex-0.171",
        "pi",
        "opencode",
    ] {
        let v = traffic(agent);
        let rows = v["requests"].as_array().unwrap();
        let up = upstream(agent);
        assert_eq!(rows.len(), up.len(), "{agent}");
        for (r, u) in rows.iter().zip(&up) {
            let ours = (
                r["cache_read_input_tokens"].as_u64().unwrap(),
                r["cache_creation_input_tokens"].as_u64().unwrap(),
                r["input_tokens"].as_u64().unwrap(),
            );
            assert_eq!(
                ours,
                reported(&u["usage"]),
                "{agent} request {}",
                r["index"]
            );
        }
    }
}

#[test]
fn content_after_the_last_breakpoint_is_growth_and_an_edited_file_is_named() {
    // OpenClaw puts a transient internal-context message after its last
    // breakpoint on every turn: nothing cached is lost when it changes.
    let v = traffic("openclaw");
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows[1]["miss"]["kind"], "growth", "{}", rows[1]);
    // Between turns 2 and 3 AGENTS.md gained a line: the system block that
    // holds it is where the prefix first differs, as the upstream saw.
    assert_eq!(rows[2]["miss"]["kind"], "prefix", "{}", rows[2]);
    let detail = rows[2]["miss"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("system block 1") && detail.contains("Reply in English"),
        "{detail}"
    );
    let why = &upstream("openclaw")[2]["why"];
    assert!(why.to_string().contains("system[0]"), "{why}");
}

#[test]
fn codex_usage_is_read_from_its_streams_and_its_resumed_turns_read_the_cache() {
    let v = traffic("codex");
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["model"] == "gpt-6.1-sol"));
    assert!(rows[1]["cache_read_input_tokens"].as_u64().unwrap() > 13_000);
    assert!(rows[2]["cache_read_input_tokens"].as_u64().unwrap() > 13_000);
    assert!(
        v["totals"]["hit_ratio"].as_f64().unwrap() > 0.5,
        "{}",
        v["totals"]
    );
}

#[test]
fn claude_codes_subagent_is_its_own_chain_and_its_resume_keeps_the_cache() {
    let v = traffic("claude-code");
    let rows = v["requests"].as_array().unwrap();
    let chains: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["chain"].as_str().unwrap()).collect();
    assert_eq!(
        chains.len(),
        2,
        "the main conversation and the subagent: {chains:?}"
    );
    // After the first request of each chain, every request reads the cache
    // (a resumed session re-reads its prefix; the edited CLAUDE.md arrives
    // as a new reminder, not a change to the cached first message).
    for r in rows.iter().filter(|r| r["miss"]["kind"] != "cold") {
        assert!(r["cache_read_input_tokens"].as_u64().unwrap() > 0, "{r}");
        assert_ne!(r["miss"]["kind"], "prefix", "{r}");
    }
}

#[test]
fn a_new_claude_code_session_with_its_own_billing_header_stays_in_its_chain() {
    // Claude Code's first system block is a per-session billing header; a
    // second session of the same project sends another one, and the
    // provider still reads the shared prefix. Made from the fixture: the
    // resumed turns (requests 6 to 8) get another session's header.
    let text = std::fs::read_to_string(fixture("claude-code").join("capture.jsonl")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i >= 5 {
                l.replace("cc_version=2.1.328.a13", "cc_version=2.1.328.b99")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert_ne!(
        lines.join("\n"),
        text.trim_end(),
        "the fixture has the header"
    );
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    std::fs::write(&cap, lines.join("\n")).unwrap();
    let v = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let rows = v["requests"].as_array().unwrap();
    for r in &rows[5..] {
        assert_eq!(r["chain"], "main", "{r}");
        assert_ne!(
            r["miss"]["kind"], "cold",
            "it read {}: {r}",
            r["cache_read_input_tokens"]
        );
        assert_ne!(r["miss"]["kind"], "prefix", "the header is not prompt: {r}");
    }
}

/// The one transcript file of an agent's fixture (`*.jsonl` directly in
/// `transcript/`).
fn transcript(agent: &str) -> std::path::PathBuf {
    std::fs::read_dir(fixture(agent).join("transcript"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
}

#[test]
fn a_codex_session_file_is_read_as_a_transcript_with_the_upstreams_figures() {
    let file = transcript("codex");
    let o = run(&["traffic", file.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["source"], "codex");
    let rows = v["requests"].as_array().unwrap();
    let up = upstream("codex");
    assert_eq!(rows.len(), up.len(), "one row per response, none twice");
    for (r, u) in rows.iter().zip(&up) {
        let ours = (
            r["cache_read_input_tokens"].as_u64().unwrap(),
            r["cache_creation_input_tokens"].as_u64().unwrap(),
            r["input_tokens"].as_u64().unwrap(),
        );
        assert_eq!(ours, reported(&u["usage"]), "request {}", r["index"]);
        assert_eq!(r["model"], u["model"]);
    }
    // The same totals as the proxy's capture of the same session.
    assert_eq!(v["totals"], traffic("codex")["totals"]);
    let text = run(&["traffic", file.to_str().unwrap()]);
    assert!(stdout(&text).starts_with("traffic from a Codex session file · 3 requests"));
}

/// `traffic` JSON of any path.
fn traffic_of(path: &std::path::Path) -> Value {
    let o = run(&["traffic", path.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

/// Read, written, uncached and output totals.
fn totals(v: &Value) -> Vec<u64> {
    [
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "input_tokens",
        "output_tokens",
    ]
    .iter()
    .map(|k| v["totals"][k].as_u64().unwrap())
    .collect()
}

#[test]
fn a_claude_code_session_file_brings_its_subagents_and_equals_the_capture() {
    let v = traffic_of(&transcript("claude-code"));
    let cap = traffic("claude-code");
    assert_eq!(v["requests"].as_array().unwrap().len(), 8);
    assert_eq!(totals(&v), totals(&cap));
    assert!(
        v["requests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["chain"].as_str().unwrap().starts_with("sidechain ")),
        "the subagent's requests are its own chain"
    );
    // In the order they were sent, the subagent's between the main ones.
    let chains: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chain"].as_str().unwrap())
        .collect();
    assert_eq!(chains[3], chains[4]);
    assert_ne!(chains[2], chains[3]);
}

#[test]
fn a_project_folder_counts_each_request_once_and_names_each_session() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("-home-user-project");
    let src = fixture("claude-code").join("transcript");
    let session = transcript("claude-code");
    let name = session.file_name().unwrap().to_str().unwrap().to_string();
    let stem = name.trim_end_matches(".jsonl");
    std::fs::create_dir_all(project.join(stem).join("subagents")).unwrap();
    for e in std::fs::read_dir(src.join(stem).join("subagents")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(
            &p,
            project
                .join(stem)
                .join("subagents")
                .join(p.file_name().unwrap()),
        )
        .unwrap();
    }
    let text = std::fs::read_to_string(&session).unwrap();
    std::fs::write(project.join(&name), &text).unwrap();
    // A resumed session copies the earlier lines into its own file.
    let resumed = text.replace(stem, "aaaaaaaa-0000-4000-8000-000000000000");
    std::fs::write(
        project.join("aaaaaaaa-0000-4000-8000-000000000000.jsonl"),
        &resumed,
    )
    .unwrap();
    let v = traffic_of(&project);
    assert_eq!(
        totals(&v),
        totals(&traffic("claude-code")),
        "copied lines (same message.id and requestId) count once"
    );
    // A second session with requests of its own: each session is its chain.
    let other: String = text
        .lines()
        .filter(|l| l.contains("\"type\":\"assistant\"") && !l.contains("\"isSidechain\":true"))
        .take(1)
        .map(|l| {
            l.replace(stem, "bbbbbbbb-0000-4000-8000-000000000000")
                .replace("\"id\":\"msg_", "\"id\":\"msg_other_")
                + "\n"
        })
        .collect();
    std::fs::write(
        project.join("bbbbbbbb-0000-4000-8000-000000000000.jsonl"),
        other,
    )
    .unwrap();
    // And a line that is not JSON, named with its file.
    std::fs::write(project.join("broken.jsonl"), "{not json\n").unwrap();
    let v = traffic_of(&project);
    let chains: std::collections::BTreeSet<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chain"].as_str().unwrap())
        .collect();
    assert!(chains.contains("session bbbbbbbb"), "{chains:?}");
    assert!(
        chains.contains(&*format!("session {}", &stem[..8])),
        "{chains:?}"
    );
    assert_eq!(v["requests"].as_array().unwrap().len(), 9);
    assert!(
        v["skipped"]["first_file"]
            .as_str()
            .unwrap()
            .ends_with("broken.jsonl"),
        "{}",
        v["skipped"]
    );
}

#[test]
fn claude_codes_own_cost_is_shown_beside_ours_and_agrees() {
    let v = traffic_of(&transcript("claude-code"));
    let theirs = v["totals"]["agent_cost_usd"]
        .as_f64()
        .expect("Claude Code's cost-state");
    // The last cost-state line of the session: 0.09890819999999999.
    assert!((theirs - 0.0989082).abs() < 1e-6, "{theirs}");
    let ours = v["totals"]["cost_usd"].as_f64().unwrap();
    assert!(
        (ours - theirs).abs() < 1e-4,
        "ours {ours} vs Claude Code's {theirs}"
    );
    let text = run(&["traffic", transcript("claude-code").to_str().unwrap()]);
    assert!(
        stdout(&text).contains("(the agent's own figure: $0.09891)"),
        "{}",
        stdout(&text)
    );
    // A capture has no such figure.
    assert!(
        traffic("claude-code")["totals"]
            .get("agent_cost_usd")
            .is_none()
    );
}

#[test]
fn every_write_or_miss_has_the_upstreams_reason() {
    for agent in [
        "claude-code",
        "openclaw",
        "codex",
        "codex-0.171",
        "pi",
        "opencode",
    ] {
        let v = traffic(agent);
        let rows = v["requests"].as_array().unwrap();
        let up = upstream(agent);
        // The last breakpoint each chain's previous request wrote.
        let mut written: std::collections::HashMap<String, String> = Default::default();
        for (r, u) in rows.iter().zip(&up) {
            let chain = r["chain"].as_str().unwrap().to_string();
            let kind = r["miss"]["kind"].as_str().unwrap_or("none");
            let why = &u["why"];
            let read_from = why["read_from"].as_str();
            let cached = why["cached_prefix_tokens"].as_u64();
            let ctx = format!(
                "{agent} request {}: ours {kind}, upstream {why}",
                r["index"]
            );
            let under_minimum = why["breakpoints"].as_array().is_some_and(|b| {
                !b.is_empty()
                    && b.iter().all(|b| {
                        b["action"]
                            .as_str()
                            .is_some_and(|a| a.starts_with("not cached: prefix under"))
                    })
            });
            match (read_from, cached) {
                // Every breakpoint under the model's minimum: nothing
                // cached, and that is the reason.
                _ if under_minimum => assert_eq!(kind, "minimum", "{ctx}"),
                // OpenAI: a prefix read, nothing written: no miss to explain.
                (None, Some(n)) if n > 0 => assert_eq!(kind, "none", "{ctx}"),
                (None, _) => assert!(
                    [
                        "cold",
                        "shared",
                        "cache-key",
                        "prefix",
                        "tools",
                        "ttl",
                        "model"
                    ]
                    .contains(&kind),
                    "{ctx}"
                ),
                // Read up to what the previous request wrote last (a block
                // of a message, or the message): the conversation grew.
                (Some(at), _)
                    if written
                        .get(&chain)
                        .is_some_and(|w| w.starts_with(at) || at.starts_with(w.as_str())) =>
                {
                    assert_eq!(kind, "growth", "{ctx}")
                }
                // Read up to an earlier breakpoint: the prefix changed after it.
                (Some(_), _) => assert!(["prefix", "tools"].contains(&kind), "{ctx}"),
            }
            if let Some(last) = why["breakpoints"].as_array().and_then(|b| {
                b.iter()
                    .rev()
                    .find(|b| b["action"] == "written" || b["action"] == "read")
            }) {
                written.insert(chain, last["at"].as_str().unwrap().to_string());
            }
        }
    }
}
