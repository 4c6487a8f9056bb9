//! `traffic` on captures with each class of miss, and on Claude Code
//! transcripts written for the tests (duplicated lines, sidechains, the
//! 5m/1h split, a compaction, a 6-minute gap).

use crate::common;

use common::*;
use serde_json::{Value, json};

fn line(ts: &str, model: &str, request: Value, usage: Value) -> String {
    json!({
        "schema": 1, "id": ts, "ts_start": ts, "ts_end": ts, "endpoint": "/v1/messages",
        "model": model, "request": request, "status": 200, "stream": false,
        "usage": usage, "latency_ms": 120, "error": null,
    })
    .to_string()
}

fn req(system: &[&str], tools: &[&str], messages: &[&str]) -> Value {
    json!({
        "model": "claude-sonnet-4-6",
        "tools": tools.iter().map(|t| json!({"name": t, "description": "d", "input_schema": {"type": "object"}})).collect::<Vec<_>>(),
        "system": system.iter().enumerate().map(|(i, s)| {
            let mut b = json!({"type": "text", "text": s});
            if i + 1 == system.len() { b["cache_control"] = json!({"type": "ephemeral"}); }
            b
        }).collect::<Vec<_>>(),
        "messages": messages.iter().enumerate().map(|(i, m)| json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": m})).collect::<Vec<_>>(),
    })
}

fn usage(input: u64, write: u64, read: u64) -> Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 5})
}

/// `traffic CAPTURE --to-session TARGET EXTRA…`.
fn adopt(cap: &std::path::Path, target: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "traffic",
        cap.to_str().unwrap(),
        "--to-session",
        target.to_str().unwrap(),
    ];
    args.extend(extra);
    run(&args)
}

fn traffic(lines: &[String]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

fn kinds(v: &Value) -> Vec<String> {
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["miss"]["kind"].as_str().unwrap_or("-").to_string())
        .collect()
}

#[test]
fn a_capture_explains_every_class_of_miss() {
    let big = "Stable rules. ".repeat(200);
    let lines = vec![
        // 1: cold.
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            req(&[&big], &["read"], &["hi"]),
            usage(10, 2000, 0),
        ),
        // 2: a hit, the conversation grew.
        line(
            "2026-11-30T09:01:00Z",
            "claude-sonnet-4-6",
            req(&[&big], &["read"], &["hi", "ok", "more"]),
            usage(10, 40, 2000),
        ),
        // 3: a timestamp in the system prompt changed.
        line(
            "2026-11-30T09:02:00Z",
            "claude-sonnet-4-6",
            req(&[&format!("{big} Now: 09:02")], &["read"], &["hi"]),
            usage(10, 2010, 0),
        ),
        // 4: a tool was added.
        line(
            "2026-11-30T09:03:00Z",
            "claude-sonnet-4-6",
            req(&[&format!("{big} Now: 09:02")], &["read", "write"], &["hi"]),
            usage(10, 2050, 0),
        ),
        // 5: after a 6-minute gap.
        line(
            "2026-11-30T09:09:00Z",
            "claude-sonnet-4-6",
            req(&[&format!("{big} Now: 09:02")], &["read", "write"], &["hi"]),
            usage(10, 2050, 0),
        ),
        // 6: the model changed.
        line(
            "2026-11-30T09:09:30Z",
            "claude-opus-4-8",
            req(&[&format!("{big} Now: 09:02")], &["read", "write"], &["hi"]),
            usage(10, 2050, 0),
        ),
        // 7: a small prompt under the minimum (another chain): never
        // cached, from its first request on.
        line(
            "2026-11-30T09:10:00Z",
            "claude-opus-4-8",
            req(&["short"], &[], &["hi"]),
            usage(30, 0, 0),
        ),
        line(
            "2026-11-30T09:10:10Z",
            "claude-opus-4-8",
            req(&["short"], &[], &["hi"]),
            usage(30, 0, 0),
        ),
    ];
    let v = traffic(&lines);
    assert_eq!(v["source"], "capture");
    assert_eq!(
        kinds(&v),
        vec![
            "cold", "growth", "prefix", "tools", "ttl", "model", "minimum", "minimum"
        ]
    );
    let r = &v["requests"];
    let prefix = r[2]["miss"]["detail"].as_str().unwrap();
    assert!(
        prefix.contains("system block 1 differs from the previous request at character 2,800"),
        "{prefix}"
    );
    assert!(prefix.contains("Now: 09:02"), "{prefix}");
    assert!(
        r[3]["miss"]["detail"]
            .as_str()
            .unwrap()
            .contains("added: write")
    );
    assert!(r[4]["miss"]["detail"].as_str().unwrap().contains("6m00s"));
    assert_eq!(r[6]["chain"], "chain 2");
    let t = &v["totals"];
    assert_eq!(t["requests"], 8);
    assert_eq!(t["cache_read_input_tokens"], 2000);
    assert!(t["cost_usd"].as_f64().unwrap() > 0.0);
    assert!(t["counterfactual"].as_str().unwrap().contains("1-hour TTL"));
    assert!(
        t["by_kind"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["kind"] == "ttl")
    );
    // Anthropic's own diagnostics win when present.
    let mut l: Value = serde_json::from_str(&lines[1]).unwrap();
    l["diagnostics"] =
        json!({"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 1990}});
    l["usage"] = usage(10, 2000, 0);
    let v = traffic(&[lines[0].clone(), l.to_string()]);
    let d = v["requests"][1]["miss"]["detail"].as_str().unwrap();
    assert!(d.contains("system_changed (1,990 tokens missed)"), "{d}");
}

fn cc(uuid: &str, ts: &str, msg_id: &str, req_id: &str, side: Option<&str>, u: Value) -> String {
    let mut v = json!({
        "type": "assistant", "uuid": uuid, "sessionId": "s-1", "timestamp": ts, "requestId": req_id,
        "isSidechain": side.is_some(),
        "message": {"id": msg_id, "model": "claude-sonnet-4-6", "role": "assistant", "usage": u},
    });
    if let Some(a) = side {
        v["agentId"] = json!(a);
    }
    v.to_string()
}

#[test]
fn a_claude_code_transcript_is_deduplicated_and_explained() {
    let u1 = json!({"input_tokens": 3, "cache_creation_input_tokens": 12000, "cache_read_input_tokens": 0, "output_tokens": 2,
        "cache_creation": {"ephemeral_5m_input_tokens": 12000, "ephemeral_1h_input_tokens": 0}});
    let u1_final = json!({"input_tokens": 3, "cache_creation_input_tokens": 12000, "cache_read_input_tokens": 0, "output_tokens": 310,
        "cache_creation": {"ephemeral_5m_input_tokens": 12000, "ephemeral_1h_input_tokens": 0}});
    let u2 = json!({"input_tokens": 4, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 12000, "output_tokens": 80});
    let u3 = json!({"input_tokens": 4, "cache_creation_input_tokens": 12300, "cache_read_input_tokens": 0, "output_tokens": 40});
    let side = json!({"input_tokens": 2, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 0, "output_tokens": 9,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000}});
    let lines = vec![
        json!({"type": "user", "uuid": "u0", "sessionId": "s-1", "timestamp": "2026-11-30T10:00:00Z", "message": {"role": "user", "content": "hi"}}).to_string(),
        // One response, two content blocks: two lines, same ids.
        cc("a1", "2026-11-30T10:00:02Z", "msg_1", "req_1", None, u1),
        cc("a2", "2026-11-30T10:00:03Z", "msg_1", "req_1", None, u1_final),
        cc("a3", "2026-11-30T10:01:00Z", "msg_2", "req_2", None, u2),
        // A subagent, apart from the main chain, with a 1h write.
        cc("s1", "2026-11-30T10:01:10Z", "msg_s", "req_s", Some("ae7759d"), side),
        // Six minutes later: the main chain's cache expired.
        cc("a4", "2026-11-30T10:07:00Z", "msg_3", "req_3", None, u3.clone()),
        json!({"type": "system", "subtype": "compact_boundary", "parentUuid": null, "sessionId": "s-1",
            "timestamp": "2026-11-30T10:08:00Z", "compactMetadata": {"trigger": "auto", "preTokens": 160000}}).to_string(),
        cc("a5", "2026-11-30T10:08:05Z", "msg_4", "req_4", None, u3),
        "not json at all".to_string(),
    ];
    let v = traffic(&lines);
    assert_eq!(v["source"], "claude-code");
    let r = v["requests"].as_array().unwrap();
    assert_eq!(r.len(), 5, "duplicated lines counted once: {r:#?}");
    assert_eq!(
        r[0]["output_tokens"], 310,
        "the largest figures of a message are kept"
    );
    assert_eq!(
        kinds(&v),
        vec!["cold", "growth", "cold", "ttl", "compaction"]
    );
    assert_eq!(r[2]["chain"], "sidechain ae7759d");
    assert!(r[3]["miss"]["detail"].as_str().unwrap().contains("6m00s"));
    // The 1h write is priced at 2× input, the 5m ones at 1.25×.
    let side_cost = r[2]["cost_usd"].as_f64().unwrap();
    let expected = (2.0 * 3.0 + 5000.0 * 6.0 + 9.0 * 15.0) / 1e6;
    assert!(
        (side_cost - expected).abs() < 1e-6,
        "{side_cost} vs {expected}"
    );
    // The text view says it in words.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("session.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let t = stdout(&run(&["traffic", f.to_str().unwrap()]));
    assert!(
        t.contains("Claude Code transcript") && t.contains("hit ratio"),
        "{t}"
    );
}

#[test]
fn traffic_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.jsonl");
    std::fs::write(&f, "hello\nworld\n").unwrap();
    let o = run(&["traffic", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no JSON lines"), "{}", stderr(&o));
}

#[test]
fn a_capture_is_adopted_as_a_session_that_predict_reads() {
    let sys = ["You are Kestrel. ".repeat(120)];
    let sys: Vec<&str> = sys.iter().map(String::as_str).collect();
    let m1 = json!([{"role": "user", "content": "list the invoices"}]);
    let m2 = json!([
        {"role": "user", "content": "list the invoices"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu1", "name": "read", "input": {"path": "inv"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "3 invoices"}]}
    ]);
    let mut m3 = m2.clone();
    m3.as_array_mut()
        .unwrap()
        .push(json!({"role": "assistant", "content": "There are 3."}));
    m3.as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": "send them"}));
    let with = |messages: &Value| {
        let mut r = req(&sys, &["read"], &[]);
        r["messages"] = messages.clone();
        r
    };
    let lines = [
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            with(&m1),
            usage(10, 2000, 0),
        ),
        line(
            "2026-11-30T09:00:20Z",
            "claude-sonnet-4-6",
            with(&m2),
            usage(10, 30, 2000),
        ),
        line(
            "2026-11-30T09:07:00Z",
            "claude-sonnet-4-6",
            with(&m3),
            usage(10, 2100, 0),
        ),
    ];
    let ws = copy_sample();
    let cap = ws.path().join("cap.jsonl");
    std::fs::write(&cap, lines.join("\n")).unwrap();
    let target = ws.path().join("sessions/adopted.yaml");
    let o = adopt(&cap, &target, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("(2 turns; "), "{}", stdout(&o));
    // A session file that exists is not replaced without --force.
    let o = adopt(&cap, &target, &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("exists: not replaced (--force replaces it)"),
        "{}",
        stderr(&o)
    );
    assert!(adopt(&cap, &target, &["--force"]).status.success());
    let o = run(&[
        "predict",
        ws.path().to_str().unwrap(),
        "--session",
        "adopted",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = json(&o);
    assert_eq!(p["session"], "adopted");
    let reqs = p["requests"].as_array().unwrap();
    assert!(
        reqs.len() >= 3,
        "a request per turn and per tool result: {reqs:#?}"
    );
    let report = json(&run(&[
        "report",
        ws.path().to_str().unwrap(),
        "--session",
        "adopted",
        "--format",
        "json",
    ]));
    let d: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "sessions/adopted.yaml")
        .collect();
    assert!(d.is_empty(), "the adopted session reads cleanly: {d:#?}");
}

#[test]
fn a_recorded_request_diffs_against_the_previous_one_of_its_chain() {
    let rules = "Stable rules. ".repeat(100);
    let lines = [
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            req(&[&rules, "Today is Monday."], &["read"], &["hi"]),
            usage(3, 1500, 0),
        ),
        line(
            "2026-11-30T09:01:00Z",
            "claude-sonnet-4-6",
            req(
                &[&rules, "Today is Tuesday."],
                &["read"],
                &["hi", "hello", "and now?"],
            ),
            usage(3, 40, 1400),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let o = run(&[
        "traffic",
        f.to_str().unwrap(),
        "--diff",
        "2",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = json(&o);
    // The first difference is in system block 2, at the day's name.
    let div = &d["divergence"];
    assert!(
        div["position"]
            .as_str()
            .unwrap()
            .starts_with("system block 2"),
        "{d}"
    );
    assert_eq!(div["offset"], 9, "{d}");
    assert_eq!(d["tools_changed"], false);
    // No breakpoint covered the shared system block 1 alone: what request
    // #1 had cached (up to its breakpoint on block 2) is written again,
    // the shared part too, not only what follows the change.
    let bp = &d["breakpoints"][0];
    assert_eq!(bp["invalidated"], true, "{d}");
    assert_eq!(d["rewrite_tokens"], bp["prefix_tokens"], "{d}");
    let changes = d["fragments"].as_array().unwrap();
    let ids: Vec<&str> = changes.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"system block 2"), "{ids:?}");
    assert!(ids.contains(&"message 2 (assistant)"), "{ids:?}");
    assert!(ids.contains(&"message 3 (user)"), "{ids:?}");
    assert!(!ids.contains(&"system block 1"), "unchanged: {ids:?}");
    // Text names both requests; the first request has nothing before it.
    let o = run(&["traffic", f.to_str().unwrap(), "--diff", "2"]);
    assert!(stdout(&o).contains("request #1"), "{}", stdout(&o));
    // The tokens written again are counted here, and said so.
    assert!(
        stdout(&o).contains("(counted here; the provider's own figures are in the request's row)"),
        "{}",
        stdout(&o)
    );
    let o = run(&["traffic", f.to_str().unwrap(), "--diff", "1"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("request #1 is the first of its chain")
            && stderr(&o).contains("there is no earlier request: nothing to compare"),
        "{}",
        stderr(&o)
    );
    // A second session's first request, with three before it that share
    // no prefix with it: their number, not the 500 the search may look at.
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332/capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--diff", "4"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("none of the 3 requests before it shares a prefix with it"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn hostile_figures_are_bounded_not_a_crash() {
    let huge = json!({"input_tokens": u64::MAX, "cache_creation_input_tokens": u64::MAX,
        "cache_read_input_tokens": u64::MAX, "output_tokens": u64::MAX,
        "cache_creation": {"ephemeral_1h_input_tokens": u64::MAX}});
    let mut l1: Value = serde_json::from_str(&line(
        "9223372036854775807-01-01T00:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        huge.clone(),
    ))
    .unwrap();
    l1["counted"] = json!({"by": "llama.cpp server at x", "parts": [u64::MAX, 5]});
    let l2 = line(
        "2026-11-30T10:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        huge,
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, [l1.to_string(), l2].join("\n")).unwrap();
    for format in ["text", "json"] {
        let o = run(&[
            "traffic",
            f.to_str().unwrap(),
            "--format",
            format,
            "--parts",
        ]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
    }
    let v = traffic(&[l1.to_string()]);
    assert_eq!(v["requests"][0]["input_tokens"], 1_000_000_000_000u64);
}

#[test]
fn openai_requests_are_read_in_their_own_shapes() {
    // Chat Completions tools are named in `function.name`; the Responses
    // API reports cached input under `input_tokens_details`.
    let chat = json!({"model": "gpt-6-sol", "tools": [{"type": "function", "function": {"name": "berth_plan", "parameters": {}}}],
        "messages": [{"role": "system", "content": "You are Kestrel."}, {"role": "user", "content": "hi"}]});
    let responses = json!({"model": "gpt-6-sol", "instructions": "You are Kestrel.", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]});
    let mut l1: Value = serde_json::from_str(&line(
        "2026-11-30T10:00:00Z",
        "gpt-6-sol",
        chat,
        json!({"prompt_tokens": 1500, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1280}}),
    ))
    .unwrap();
    l1["endpoint"] = json!("/v1/chat/completions");
    let mut l2: Value = serde_json::from_str(&line(
        "2026-11-30T10:01:00Z",
        "gpt-6-sol",
        responses,
        json!({"input_tokens": 5000, "input_tokens_details": {"cached_tokens": 4800}, "output_tokens": 20}),
    ))
    .unwrap();
    l2["endpoint"] = json!("/v1/responses");
    let v = traffic(&[l1.to_string(), l2.to_string()]);
    let r = v["requests"].as_array().unwrap();
    assert_eq!(r[0]["parts"][0]["label"], "tool 1 (berth_plan)");
    assert_eq!(r[1]["input_tokens"], 200);
    assert_eq!(r[1]["cache_read_input_tokens"], 4800);
    assert_eq!(
        part_labels(&r[1]),
        vec!["system block 1", "message 1 (user)"]
    );
}

#[test]
fn token_counts_and_stand_in_answers_are_not_requests() {
    let mut count: Value = serde_json::from_str(&line(
        "2026-11-30T10:00:30Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        json!({"input_tokens": 12}),
    ))
    .unwrap();
    count["endpoint"] = json!("/v1/messages/count_tokens");
    let a = line(
        "2026-11-30T10:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        usage(3, 2000, 0),
    );
    let v = traffic(&[a, count.to_string()]);
    assert_eq!(v["requests"].as_array().unwrap().len(), 1);
    // Claude Code's `<synthetic>` answers were never sent to a model.
    let cc = |id: &str, model: &str, u: Value| {
        json!({"type": "assistant", "sessionId": "s", "timestamp": "2026-11-30T10:00:00Z", "requestId": id,
            "message": {"id": id, "model": model, "usage": u}})
        .to_string()
    };
    let v = traffic(&[
        cc("m1", "claude-sonnet-4-6", usage(3, 9000, 0)),
        cc("m2", "<synthetic>", usage(0, 0, 0)),
        cc("m3", "claude-sonnet-4-6", usage(3, 100, 9000)),
    ]);
    let r = v["requests"].as_array().unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[1]["miss"]["kind"], "growth", "{}", r[1]);
}

#[test]
fn text_from_a_capture_cannot_drive_the_terminal() {
    // A long first block: both requests' prompts start the same (one chain).
    let evil = &format!(
        "\u{1b}]0;pwned\u{7}\u{1b}[2J\r\u{9b}31m\u{202e}{}",
        " the same".repeat(40)
    );
    let mut l: Value = serde_json::from_str(&line(
        &format!("2026-11-30T10:00:00Z{evil}"),
        "claude-sonnet-4-6",
        req(
            &[&format!("sys {evil}")],
            &[&format!("tool{evil}")],
            &["hi"],
        ),
        usage(3, 2000, 0),
    ))
    .unwrap();
    l["diagnostics"] = json!({"cache_miss_reason": {"type": format!("x{evil}")}});
    let l2 = line(
        "2026-11-30T10:01:00Z",
        "claude-sonnet-4-6",
        req(&[&format!("sys {evil}"), "more"], &["t"], &["hi"]),
        usage(3, 2000, 0),
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, [l.to_string(), l2].join("\n")).unwrap();
    for args in [
        vec!["--parts"],
        vec!["--diff", "2"],
        vec!["--diff", "2", "--format", "markdown"],
    ] {
        let mut a = vec!["traffic", f.to_str().unwrap()];
        a.extend(args.iter());
        let o = run(&a);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!text.contains(c), "{args:?}: {c:?} in {text}");
        }
        assert!(
            !text.contains("\r\u{1b}") && !text.contains('\r'),
            "{args:?}"
        );
    }
}

#[test]
fn the_one_hour_counterfactual_reads_the_expired_prefix_and_prices_the_rest() {
    let cc = |id: &str, ts: &str, u: Value| {
        json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "requestId": id,
            "message": {"id": id, "model": "claude-sonnet-4-6", "usage": u}})
        .to_string()
    };
    // 10,000 written (5m); six minutes later the prefix has expired and
    // 10,400 are written again; then a turn written with a 1-hour TTL.
    let w1h = json!({"input_tokens": 0, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 10400,
        "output_tokens": 0, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 500}});
    let v = traffic(&[
        cc("m1", "2026-11-30T10:00:00Z", usage(0, 10000, 0)),
        cc("m2", "2026-11-30T10:06:00Z", usage(0, 10400, 0)),
        cc("m3", "2026-11-30T10:07:00Z", w1h),
    ]);
    assert_eq!(v["requests"][1]["miss"]["kind"], "ttl");
    let c = v["totals"]["counterfactual"].as_str().unwrap();
    // At the table's prices for this model ($3.75/M written for 5m, $6/M
    // for 1h, $0.30/M read): the TTL write cost 10,400 × 3.75 = $0.0390;
    // with a 1-hour TTL the 10,000 cached before are read and 400 written
    // at 1h: $0.0030 + $0.0024 = $0.0054; the other 5m write (m1) would
    // cost 10,000 × 2.25 = $0.0225 more, m3's 1h write nothing more.
    assert!(
        c.contains("cost $0.03900")
            && c.contains("($0.00540)")
            && c.contains("$0.02250 more")
            && c.contains("saved $0.01110"),
        "{c}"
    );
    // The same expiry three hours later (another session of the day): a
    // 1-hour TTL would have expired too, so nothing is said to be saved.
    let v = traffic(&[
        cc("m1", "2026-11-30T10:00:00Z", usage(0, 10000, 0)),
        cc("m2", "2026-11-30T13:00:00Z", usage(0, 10400, 0)),
    ]);
    assert_eq!(v["requests"][1]["miss"]["kind"], "ttl");
    assert!(v["totals"]["counterfactual"].is_null(), "{}", v["totals"]);
}

#[test]
fn a_model_not_in_the_table_is_not_priced_as_another() {
    let l = line(
        "2026-11-30T10:00:00Z",
        "smollm2-360m",
        req(&["s"], &[], &["hi"]),
        usage(3, 2000, 0),
    );
    let v = traffic(&[l]);
    let r = &v["requests"][0];
    assert_eq!(r["priced"], false);
    assert_eq!(r["cost_usd"], Value::Null);
    assert!(
        r["parts_counted_by"]
            .as_str()
            .unwrap()
            .contains("smollm2-360m is not in the model table"),
        "{r}"
    );
    assert_eq!(v["totals"]["unpriced_models"], json!(["smollm2-360m"]));
    // A dated snapshot of a known model is priced as that model.
    let l = line(
        "2026-11-30T10:00:00Z",
        "claude-sonnet-4-5-20250929",
        req(&["s"], &[], &["hi"]),
        usage(3, 2000, 0),
    );
    assert_eq!(traffic(&[l])["requests"][0]["priced"], true);
}

#[test]
fn a_bad_byte_costs_a_character_and_unread_lines_are_said() {
    let good = |id: &str, read: u64| {
        json!({"type": "assistant", "sessionId": "s", "timestamp": "2026-11-30T10:00:00Z", "requestId": id,
            "message": {"id": id, "model": "claude-sonnet-4-6", "usage": usage(3, 10, read), "content": "caf"}})
        .to_string()
    };
    let mut bytes = good("a", 0).replace("\"caf\"", "\"caf\u{1}\"").into_bytes();
    // An invalid UTF-8 byte inside a string, where the marker is.
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xE9;
    bytes.extend_from_slice(b"\nnot json\n\n");
    bytes.extend_from_slice(good("b", 10).as_bytes());
    bytes.extend_from_slice(b"\n[1]\n");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.jsonl");
    std::fs::write(&f, bytes).unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["requests"].as_array().unwrap().len(), 2);
    assert_eq!(v["skipped"]["lines"], 2);
    assert_eq!(v["skipped"]["first"], 2);
    let o = run(&["traffic", f.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("2 lines not JSON, skipped (the first is line 2)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn adopting_takes_the_longest_conversation_of_the_main_chain() {
    let conv = |msgs: &[&str]| req(&["You are Kestrel."], &[], msgs);
    let lines = [
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            conv(&["a1"]),
            usage(3, 2000, 0),
        ),
        line(
            "2026-11-30T09:01:00Z",
            "claude-sonnet-4-6",
            conv(&["a1", "r1", "a2"]),
            usage(3, 20, 2000),
        ),
        line(
            "2026-11-30T09:02:00Z",
            "claude-sonnet-4-6",
            conv(&["a1", "r1", "a2", "r2", "a3"]),
            usage(3, 20, 2020),
        ),
        // A new conversation with the same system prompt.
        line(
            "2026-11-30T09:03:00Z",
            "claude-sonnet-4-6",
            conv(&["b1"]),
            usage(3, 10, 1990),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.jsonl");
    std::fs::write(&cap, lines.join("\n")).unwrap();
    let target = dir.path().join("s.yaml");
    let o = adopt(&cap, &target, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(3 turns; adopted from real traffic (requests #1–#3, the longest of 2 conversations in the main chain))"),
        "{}",
        stdout(&o)
    );
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(s["turns"][0]["user"], "a1");
    assert_eq!(s["turns"][2]["user"], "a3");
    // Another chain (a subagent with its own system prompt), by name.
    let mut more = lines.to_vec();
    more.push(line(
        "2026-11-30T09:04:00Z",
        "claude-sonnet-4-6",
        req(&["You are the tide subagent."], &[], &["c1"]),
        usage(3, 1500, 0),
    ));
    std::fs::write(&cap, more.join("\n")).unwrap();
    let sub = dir.path().join("sub.yaml");
    let o = adopt(&cap, &sub, &["--chain", "chain 2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(1 turn; adopted from real traffic (request #5))"),
        "{}",
        stdout(&o)
    );
    let o = adopt(&cap, &dir.path().join("x.yaml"), &["--chain", "chain 9"]);
    assert!(
        stderr(&o).contains("no requests in chain 'chain 9' (the capture has: main, chain 2)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_openai_miss_costs_the_reads_it_lost_and_says_so_in_openai_terms() {
    let body = |system: &str| json!({"model": "gpt-4.1", "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]});
    let oai = |ts: &str, system: &str, prompt: u64, cached: u64| {
        let mut l: Value = serde_json::from_str(&line(
            ts,
            "gpt-4.1",
            body(system),
            json!({"prompt_tokens": prompt, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": cached}}),
        ))
        .unwrap();
        l["endpoint"] = json!("/v1/chat/completions");
        l.to_string()
    };
    let long = "Stable rules. ".repeat(300);
    let v = traffic(&[
        oai("2026-11-30T10:00:00Z", &format!("{long} Monday"), 1600, 0),
        oai(
            "2026-11-30T10:01:00Z",
            &format!("{long} Monday"),
            1600,
            1408,
        ),
        oai("2026-11-30T10:02:00Z", &format!("{long} Tuesday"), 1600, 0),
        // A prompt under gpt-4.1's minimum is never cached.
        oai("2026-11-30T10:03:00Z", "short", 10, 0),
    ]);
    let r = v["requests"].as_array().unwrap();
    let d = r[2]["miss"]["detail"].as_str().unwrap();
    assert_eq!(r[2]["miss"]["kind"], "prefix", "{d}");
    assert!(
        d.contains("not read from the cache") && !d.contains("written"),
        "{d}"
    );
    let prefix = v["totals"]["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "prefix")
        .unwrap();
    assert!(prefix["extra_cost_usd"].as_f64().unwrap() > 0.0, "{prefix}");
    assert_eq!(r[3]["miss"]["kind"], "minimum", "{}", r[3]);
}

#[test]
fn a_request_diff_tells_growth_from_a_miss_and_names_tool_changes() {
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let diff = |n: &str| {
        let o = run(&["traffic", cap.to_str().unwrap(), "--diff", n]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    // A turn that only appends: nothing diverges, the new breakpoint is new.
    let d = diff("2");
    assert!(
        d.contains("cache: the shared prefix is unchanged; request #2 adds 2 parts after it"),
        "{d}"
    );
    assert!(
        d.contains("breakpoint 2 at message 3 (user), 2,302 tokens: new (written now)"),
        "{d}"
    );
    assert!(!d.contains("invalidated") && !d.contains("=== "), "{d}");
    // Moving `cache_control` onto the newest message renames nothing.
    let d = diff("5");
    assert!(
        !d.contains("message 7 (user): removed") && !d.contains("(user) block 1"),
        "{d}"
    );
    assert!(
        d.contains("first diverges in system block 2 at character 17"),
        "{d}"
    );
    // A changed tool description: the tool is named, where it differs too.
    let tool = |desc: &str| json!({"name": "get_weather", "description": desc, "input_schema": {"type": "object"}});
    let mut a = req(&["s"], &[], &["hi"]);
    a["tools"] = json!([tool("Weather now.")]);
    let mut b = a.clone();
    b["tools"] = json!([tool("Weather now and tomorrow."), {"name": "tide", "input_schema": {}}]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("c.jsonl");
    std::fs::write(
        &f,
        [
            line(
                "2026-11-30T10:00:00Z",
                "claude-sonnet-4-6",
                a,
                usage(3, 2000, 0),
            ),
            line(
                "2026-11-30T10:01:00Z",
                "claude-sonnet-4-6",
                b,
                usage(3, 2100, 0),
            ),
        ]
        .join("\n"),
    )
    .unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--diff", "2"]);
    let d = stdout(&o);
    assert!(
        d.contains("tool get_weather: changed") && d.contains("tool tide: added"),
        "{d}"
    );
    assert!(
        d.contains("first diverges in tool 1 (get_weather) at character"),
        "{d}"
    );
    assert!(
        d.contains("Weather now.") && d.contains("Weather now and tomorrow."),
        "{d}"
    );
}

#[test]
fn requests_are_read_in_the_order_they_were_sent() {
    // The proxy writes a line when its exchange ends: a long stream sent
    // first is written after a short request sent later.
    let first = line(
        "2026-11-30T10:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        usage(3, 2000, 0),
    );
    let second = line(
        "2026-11-30T10:00:05Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi", "ok", "more"]),
        usage(3, 40, 2000),
    );
    let v = traffic(&[second, first]);
    let r = v["requests"].as_array().unwrap();
    assert_eq!(r[0]["time"], "2026-11-30T10:00:00Z");
    assert_eq!(r[0]["miss"]["kind"], "cold");
    assert_eq!(r[1]["miss"]["kind"], "growth");
}

#[test]
fn the_markdown_view_is_a_table_for_an_issue() {
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "markdown"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with("### Traffic: 5 requests from a capture"),
        "{md}"
    );
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("claude-sonnet-4-6"))
        .count();
    assert_eq!(rows, 5, "{md}");
    assert!(
        md.contains("| **ttl**: 7m25s since the previous request"),
        "{md}"
    );
    assert!(md.contains("**Totals**: read 8,671"), "{md}");
}

// An empty capture (a proxy just started) is an empty view, not an error.
#[test]
fn an_empty_capture_is_an_empty_view() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    std::fs::write(&cap, "").unwrap();
    let o = run(&["traffic", cap.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("0 requests") && stdout(&o).contains("no requests yet"));
    let v = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(v["requests"].as_array().unwrap().len(), 0);
    // A file of lines none of which is JSON is still an error.
    std::fs::write(&cap, "not json\n").unwrap();
    assert_eq!(
        run(&["traffic", cap.to_str().unwrap()]).status.code(),
        Some(2)
    );
}

/// `traffic --format json` of capture lines.
fn traffic_json(lines: &[String]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

#[test]
fn a_first_request_that_reads_another_conversations_prefix_is_not_cold() {
    let tools = ["read", "write"];
    let a = req(&["You are the agent. Session A.", "rules"], &tools, &["hi"]);
    let b = req(
        &["You are the agent. Session B.", "rules"],
        &tools,
        &["hello"],
    );
    let v = traffic_json(&[
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            a,
            usage(3, 2000, 0),
        ),
        line(
            "2026-11-30T09:00:30Z",
            "claude-sonnet-4-6",
            b,
            usage(3, 900, 1100),
        ),
    ]);
    let r = &v["requests"][1];
    assert_eq!(r["chain"], "chain 2", "{r}");
    // Issue 38: the change the two conversations part at is named (it was
    // "shared": read what another conversation cached).
    assert_eq!(r["miss"]["kind"], "prefix", "{r}");
    let detail = r["miss"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("a new conversation (chain 2) that starts as the main chain did")
            && detail.contains("read 1,100 tokens")
            && detail.contains("system block 1 differs"),
        "{detail}"
    );
}

#[test]
fn the_same_request_under_another_prompt_cache_key_is_its_own_reason() {
    let mut a = req(&["You are Codex.", "rules"], &["exec"], &["hi"]);
    a["prompt_cache_key"] = json!("session-1");
    let mut b = a.clone();
    b["prompt_cache_key"] = json!("session-2");
    let v = traffic_json(&[
        line(
            "2026-11-30T09:00:00Z",
            "gpt-5",
            a,
            json!({"input_tokens": 3000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5}),
        ),
        line(
            "2026-11-30T09:00:10Z",
            "gpt-5",
            b,
            json!({"input_tokens": 3000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5}),
        ),
    ]);
    let m = &v["requests"][1]["miss"];
    assert_eq!(m["kind"], "cache-key", "{m}");
    assert!(
        m["detail"]
            .as_str()
            .unwrap()
            .starts_with("prompt_cache_key changed: session-1 → session-2: the same request"),
        "{m}"
    );
}

#[test]
fn a_side_call_sent_first_does_not_take_the_name_main() {
    let recap = req(&["Summarise this session in one line."], &[], &["…"]);
    let conv = |n: usize| {
        let msgs: Vec<&str> = ["hi", "hello", "more", "ok", "again"][..n].to_vec();
        req(&["You are the agent.", "rules"], &["read"], &msgs)
    };
    let v = traffic_json(&[
        line(
            "2026-11-30T09:00:00Z",
            "claude-haiku-4-5",
            recap,
            usage(3, 0, 0),
        ),
        line(
            "2026-11-30T09:00:01Z",
            "claude-sonnet-4-6",
            conv(1),
            usage(3, 2000, 0),
        ),
        line(
            "2026-11-30T09:00:05Z",
            "claude-sonnet-4-6",
            conv(3),
            usage(3, 40, 2000),
        ),
        line(
            "2026-11-30T09:00:09Z",
            "claude-sonnet-4-6",
            conv(5),
            usage(3, 40, 2040),
        ),
    ]);
    let chains: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chain"].as_str().unwrap())
        .collect();
    assert_eq!(chains, ["chain 2", "main", "main", "main"]);
}

#[test]
fn responses_items_are_compared_by_content_not_ids_and_additional_tools_are_tools() {
    let body = |at: &str, agents: &str, call: &str| {
        json!({
            "model": "gpt-5", "prompt_cache_key": "s1",
            "input": [
                {"type": "additional_tools", "id": at, "role": "developer",
                 "tools": [{"type": "function", "name": "exec", "description": "run code ".repeat(300), "parameters": {"type": "object"}}]},
                {"type": "message", "id": format!("msg_{at}"), "role": "developer", "content": [{"type": "input_text", "text": "You are Codex. ".repeat(200)}]},
                {"type": "function_call", "id": format!("fc_{call}"), "call_id": format!("call_{call}"), "name": "exec", "arguments": "{\"code\":\"ls\"}"},
                {"type": "function_call_output", "call_id": format!("call_{call}"), "output": "a.txt"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": agents}]},
            ]
        })
    };
    let u = |cached: u64| json!({"input_tokens": 3000, "input_tokens_details": {"cached_tokens": cached}, "output_tokens": 5});
    let lines = [
        line(
            "2026-11-30T09:00:00Z",
            "gpt-5",
            body("at_1", "# AGENTS.md\nrule one", "1"),
            u(0),
        ),
        // A fresh item id and call id, and an edited AGENTS.md.
        line(
            "2026-11-30T09:00:10Z",
            "gpt-5",
            body("at_2", "# AGENTS.md\nrule one\nrule two", "2"),
            u(2048),
        ),
    ];
    let v = traffic_json(&lines);
    let r = &v["requests"][1];
    let labels: Vec<&str> = r["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels[0], "tool 1 (exec, additional_tools)", "{labels:?}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let o = run(&[
        "traffic",
        f.to_str().unwrap(),
        "--diff",
        "2",
        "--format",
        "json",
    ]);
    let d = json(&o);
    assert_eq!(d["tools_changed"], false, "{d}");
    assert!(
        d["divergence"]["position"]
            .as_str()
            .unwrap()
            .starts_with("message 5 (user)"),
        "the edited AGENTS.md, not an id: {}",
        d["divergence"]
    );
}

#[test]
fn a_claude_code_transcripts_request_shapes_explain_a_tool_set_change() {
    let shape = |h: &str, tools: &[&str], system: &str| {
        json!({"type": "api-request-shape", "sessionId": "s1", "shapeHash": h, "version": "2.1.328",
               "shape": {"system": [{"type": "text", "text": system}],
                         "tools": tools.iter().map(|t| json!({"name": t, "description": "d", "input_schema": {"type": "object"}})).collect::<Vec<_>>()}})
        .to_string()
    };
    let request = |h: &str| {
        json!({"type": "api-request", "sessionId": "s1", "shapeHash": h, "keep": 0, "tail": []})
            .to_string()
    };
    let answer = |id: &str, ts: &str, write: u64, read: u64| {
        json!({"type": "assistant", "sessionId": "s1", "isSidechain": false, "timestamp": ts, "requestId": format!("req_{id}"),
               "message": {"id": format!("msg_{id}"), "model": "claude-sonnet-4-6",
                           "usage": {"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 9}}})
        .to_string()
    };
    let system = "You are Claude Code. ".repeat(100);
    let lines = [
        shape("h1", &["Read", "Bash"], &system),
        request("h1"),
        answer("1", "2026-11-30T09:00:00Z", 6000, 0),
        // An MCP server connected: a tool more.
        shape("h2", &["Read", "Bash", "WebFetch"], &system),
        request("h2"),
        answer("2", "2026-11-30T09:00:30Z", 6100, 0),
        // The same shape, and nothing read: unexplained, but said precisely.
        request("h2"),
        answer("3", "2026-11-30T09:01:00Z", 6200, 0),
    ];
    let v = traffic_json(&lines.map(|l| l.to_string()));
    assert_eq!(v["source"], "claude-code");
    let m = &v["requests"][1]["miss"];
    assert_eq!(m["kind"], "tools", "{m}");
    assert!(
        m["detail"].as_str().unwrap().contains("added: WebFetch"),
        "{m}"
    );
    let m = &v["requests"][2]["miss"];
    assert_eq!(m["kind"], "unexplained", "{m}");
    assert!(
        m["detail"]
            .as_str()
            .unwrap()
            .contains("the tools and system prompt are the same"),
        "{m}"
    );
}

#[test]
fn long_context_tiers_fast_speed_and_advisor_calls_are_priced() {
    let openai = |input: u64, fast: bool| {
        let mut u = json!({"input_tokens": input, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1000});
        if fast {
            u["speed"] = json!("fast");
        }
        u
    };
    let r = req(&["s"], &[], &["hi"]);
    let v = traffic_json(&[
        line(
            "2026-11-30T09:00:00Z",
            "gpt-6.1-sol",
            r.clone(),
            openai(100_000, false),
        ),
        line(
            "2026-11-30T09:10:00Z",
            "gpt-6.1-sol",
            r.clone(),
            openai(300_000, false),
        ),
        line(
            "2026-11-30T09:20:00Z",
            "gpt-6.1-sol",
            r.clone(),
            openai(100_000, true),
        ),
    ]);
    let cost = |i: usize| v["requests"][i]["cost_usd"].as_f64().unwrap();
    // LiteLLM's gpt-6.1-sol: $2 / $10 per MTok, $4 / $15 above 272k tokens,
    // $12 / $60 at the fast speed.
    assert!(
        (cost(0) - (0.1 * 2.0 + 0.001 * 10.0)).abs() < 1e-9,
        "{}",
        cost(0)
    );
    assert!(
        (cost(1) - (0.3 * 4.0 + 0.001 * 15.0)).abs() < 1e-9,
        "{}",
        cost(1)
    );
    assert!(
        (cost(2) - (0.1 * 12.0 + 0.001 * 60.0)).abs() < 1e-9,
        "{}",
        cost(2)
    );
    // An advisor call inside a request is billed at its own model's rates.
    let mut u = usage(10, 0, 0);
    u["iterations"] = json!([{"type": "advisor_message", "model": "claude-opus-5-5",
        "input_tokens": 1000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 100}]);
    let v = traffic_json(&[line(
        "2026-11-30T09:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        u,
    )]);
    let row = &v["requests"][0];
    assert_eq!(row["advisor_calls"], 1, "{row}");
    // Sonnet 4.6: 10 in at $3, 5 out at $15; Opus 5.5: 1,000 in at $4, 100 out at $20.
    let want = (10.0 * 3.0 + 5.0 * 15.0 + 1000.0 * 4.0 + 100.0 * 20.0) / 1e6;
    assert!(
        (row["cost_usd"].as_f64().unwrap() - want).abs() < 1e-9,
        "{row}"
    );
}

#[test]
fn a_capture_of_failed_requests_gives_no_hit_ratio() {
    let mut l: Value = serde_json::from_str(&line(
        "2026-11-30T09:00:00Z",
        "claude-sonnet-4-6",
        req(&["s"], &[], &["hi"]),
        Value::Null,
    ))
    .unwrap();
    l["status"] = json!(400);
    l["error"] = json!("HTTP 400: prompt is too long");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, l.to_string()).unwrap();
    let o = run(&["traffic", f.to_str().unwrap()]);
    let t = stdout(&o);
    assert!(t.contains("no answer reported its usage (1 request: failed, or answered without one): no hit ratio"), "{t}");
    assert!(!t.contains("hit ratio 0.0"), "{t}");
    assert!(t.contains("error: HTTP 400: prompt is too long"), "{t}");
}

// A request diff after an expiry says so, with the tokens the provider
// says were written, the same cause as the request's row; never "0 tokens
// written again" beside a request that wrote 2,996.
#[test]
fn a_request_diff_after_an_expiry_states_the_expiry_and_what_was_written() {
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let c = cap.to_str().unwrap();
    let t = stdout(&run(&["traffic", c, "--diff", "4"]));
    assert!(
        t.contains("expired after 7m25s (the 5m TTL): 2,996 tokens written again"),
        "{t}"
    );
    assert!(
        t.contains("breakpoint 1 at system block 1, 2,248 tokens: expired (its TTL ran out)"),
        "{t}"
    );
    assert!(!t.contains("0 tokens of what"), "{t}");
    let v = json(&run(&["traffic", c, "--diff", "4", "--format", "json"]));
    assert_eq!(
        v["cause"],
        "expired after 7m25s (the 5m TTL): 2,996 tokens written again"
    );
    let rows = json(&run(&["traffic", c, "--format", "json"]));
    assert_eq!(rows["requests"][3]["miss"]["kind"], "ttl");
    assert_eq!(rows["requests"][3]["cache_creation_input_tokens"], 2996);
    // A request that only grew keeps the prefix's account.
    let t = stdout(&run(&["traffic", c, "--diff", "3"]));
    assert!(
        t.contains("0 tokens of what request #2 had cached were written again by request #3"),
        "{t}"
    );
}

// When the parts do not add up to what the provider reported, the
// difference is a part of its own (text and JSON), not only a summary.
#[test]
fn what_the_provider_counted_beyond_the_parts_is_a_part_of_its_own() {
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let c = cap.to_str().unwrap();
    let v = json(&run(&["traffic", c, "--format", "json"]));
    let r = &v["requests"][0];
    let (sum, reported) = (
        r["parts_tokens"].as_i64().unwrap(),
        r["reported_prompt_tokens"].as_i64().unwrap(),
    );
    assert_ne!(sum, reported);
    assert_eq!(r["unaccounted_tokens"].as_i64().unwrap(), reported - sum);
    let t = stdout(&run(&["traffic", c, "--parts"]));
    assert!(
        t.contains(&format!(
            "{:>+8}  (not in the parts: what the provider counted beyond our count)",
            reported - sum
        )),
        "{t}"
    );
}

/// Issue 38: a system block edited in the middle of a conversation (an
/// edited memory file) keeps the conversation's chain, and the request is
/// explained as that block's change and diffed with the one before it; a
/// new conversation with the same change stays a chain of its own.
#[test]
fn a_system_block_changed_mid_conversation_keeps_its_chain_and_is_named() {
    let tools = ["read"];
    let sys = |s: &'static str| [s, "rules of the house"];
    let lines = [
        line(
            "2026-11-30T09:00:00Z",
            "claude-sonnet-4-6",
            req(&sys("You are the agent. Memory v1."), &tools, &["hi"]),
            usage(3, 2000, 0),
        ),
        line(
            "2026-11-30T09:00:20Z",
            "claude-sonnet-4-6",
            req(
                &sys("You are the agent. Memory v1."),
                &tools,
                &["hi", "hello", "go on"],
            ),
            usage(3, 40, 2000),
        ),
        line(
            "2026-11-30T09:00:40Z",
            "claude-sonnet-4-6",
            req(
                &sys("You are the agent. Memory v2."),
                &tools,
                &["hi", "hello", "go on", "done", "and now?"],
            ),
            usage(3, 2100, 0),
        ),
        line(
            "2026-11-30T09:01:00Z",
            "claude-sonnet-4-6",
            req(
                &sys("You are the agent. Memory v2."),
                &tools,
                &["a new task"],
            ),
            usage(3, 0, 2050),
        ),
    ];
    let v = traffic_json(&lines);
    let chains: Vec<&str> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chain"].as_str().unwrap())
        .collect();
    assert_eq!(chains, ["main", "main", "main", "chain 2"]);
    let r = &v["requests"][2];
    assert_eq!(r["miss"]["kind"], "prefix", "{r}");
    let detail = r["miss"]["detail"].as_str().unwrap();
    assert!(detail.contains("system block 1"), "{detail}");
    // The diff compares it with the request before it in the conversation.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--diff", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = stdout(&o);
    assert!(d.contains("request #2"), "{d}");
    assert!(d.contains("Memory v2"), "{d}");
}

/// A cold start on an API without writes (Codex 0.169.0's first request,
/// recorded): what it cost beyond reading is its whole prompt paid in
/// full, not nothing: 13,824 tokens at the model's $2.00 input against its
/// $0.10 cached input, per million (from the model table, as `models`
/// lists them).
#[test]
fn a_cold_start_without_writes_costs_its_prompt_beyond_reading() {
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/codex/capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let m = json(&run(&["models", "--format", "json"]));
    let model = m["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == v["requests"][0]["model"])
        .unwrap();
    let (input, read) = (
        model["input_per_mtok"].as_f64().unwrap(),
        model["cache_read_per_mtok"].as_f64().unwrap(),
    );
    let first = &v["requests"][0];
    assert_eq!(first["miss"]["kind"], "cold");
    let prompt = first["input_tokens"].as_u64().unwrap() as f64;
    let cold = v["totals"]["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"] == "cold")
        .unwrap();
    let extra = cold["extra_cost_usd"].as_f64().unwrap();
    assert!(extra > 0.0, "{cold}");
    assert!(
        (extra - prompt * (input - read) / 1e6).abs() < 1e-5,
        "{cold}"
    );
}

/// `--to-session` takes the session file's path: a bare name (taken for a
/// path, it wrote a file of that name in the current folder) is refused,
/// with the path meant.
#[test]
fn a_session_named_without_its_path_is_refused_with_the_path_meant() {
    let dir = tempfile::tempdir().unwrap();
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let target = dir.path().join("captured2");
    let o = adopt(&cap, &target, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "the session file's path, ending in .yaml (WORKSPACE/sessions/captured2.yaml)"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!target.exists());
}

/// A class of miss that cost nothing to count (OpenCode's title request,
/// under the small model's minimum: never cacheable) is said so, not as
/// "$0.00000 more than reading from the cache would have cost".
#[test]
fn prompts_under_the_minimum_cost_no_miss() {
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/opencode/capture.jsonl");
    let text = stdout(&run(&["traffic", cap.to_str().unwrap()]));
    assert!(
        text.contains("minimum (1 request): prompts under the model's minimum cacheable length: not cacheable, nothing lost"),
        "{text}"
    );
    assert!(!text.contains("$0.00000 more"), "{text}");
}

/// A folder holding a capture and a copy of it: each exchange counted once
/// (the proxy's line `id`), and the copies said, where every request was
/// counted twice and the copy's misses blamed on the provider.
#[test]
fn a_copy_of_a_capture_in_the_same_folder_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/pi/capture.jsonl");
    std::fs::copy(&cap, dir.path().join("a.jsonl")).unwrap();
    std::fs::copy(&cap, dir.path().join("copy.jsonl")).unwrap();
    let both = json(&run(&[
        "traffic",
        dir.path().to_str().unwrap(),
        "--format",
        "json",
    ]));
    let one = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(both["requests"].as_array().unwrap().len(), 3, "{both}");
    assert_eq!(both["totals"], one["totals"]);
    let text = stdout(&run(&["traffic", dir.path().to_str().unwrap()]));
    assert!(
        text.contains(
            "3 exchanges recorded again (an id met before: a copy of a capture), counted once"
        ),
        "{text}"
    );
}
