//! The window keeps its promises (issue "one truth"): sliders never rewrite
//! each other, an overflow is drawn and explained, failures are failures,
//! the app's own files never reload it, the diff starts where a user
//! expects, and the detail panel is never blank.

use crate::common;
use crate::upstream;
use crate::window;

use common::*;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use window::*;

#[test]
fn moving_the_total_never_rewrites_the_fixed_budgets_and_overflow_is_shown() {
    let mut h = harness(sample());
    let before = app(&h).state.budget;
    let picture = app(&h).state.assembly().unwrap().layers.clone();
    // Below the fixed budgets of layers 1 and 2 together.
    let low = (before.layer1 + before.layer2 - 100) as f64;
    h.get_by_role_and_label(Role::SpinButton, "Total budget")
        .set_value_accesskit(low);
    h.run_steps(3);
    let b = app(&h).state.budget;
    assert_eq!(b.total, low as u64);
    assert_eq!(
        (b.layer1, b.layer2),
        (before.layer1, before.layer2),
        "fixed budgets kept"
    );
    // The overflow is a problem that says what to do.
    h.get_by_label_contains("Problems").click();
    h.run_steps(2);
    h.get_by_label_contains("is below the fixed budgets of layers 1 and 2");
    // Dragging back restores the previous picture exactly.
    h.get_by_role_and_label(Role::SpinButton, "Total budget")
        .set_value_accesskit(before.total as f64);
    h.run_steps(3);
    assert_eq!(app(&h).state.budget, before);
    assert_eq!(app(&h).state.assembly().unwrap().layers, picture);
}

#[test]
fn a_fixed_layer_over_its_budget_is_drawn_and_listed_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "AGENTS.md",
                &"Always run the tests before a commit. ".repeat(40),
            ),
            (
                "workspace.yaml",
                "budget: {total: 3000, fixed: {1: 100, 2: 100}}\n",
            ),
        ],
    );
    let mut h = harness(dir.path().to_path_buf());
    let a = app(&h).state.assembly().unwrap().clone();
    let over = a.layers[0].overflow;
    assert!(over > 0);
    // The caption says so in red beside the bar.
    h.get_by_label_contains(&format!(
        "{} tokens over its budget (never trimmed)",
        prompt_inspector::engine::thousands(over)
    ));
    h.get_by_label_contains("Problems (1)").click();
    h.run_steps(2);
    h.get_by_label_contains(&format!(
        "layer 1 is {} tokens over its 100 budget: raise `budget.fixed.layer1` or shorten AGENTS.md",
        prompt_inspector::engine::thousands(over)
    ));
}

#[test]
fn a_failed_test_run_counts_failures_as_failures() {
    // A port nothing listens on: every request is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.get_by_label("Test run").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().test_run.base_url = format!("http://127.0.0.1:{port}");
    h.get_by_label("Start run").click();
    wait_for(&mut h, "the run to end", |a| !a.test_run.is_running());
    let status = app(&h).test_run.status.clone();
    assert!(
        status.contains("0 of 0 measured requests") && status.contains("failed: cannot connect"),
        "{status}"
    );
    h.get_by_label_contains("failed: cannot connect");
}

#[test]
fn saving_a_snapshot_never_reloads_and_the_diff_starts_from_it() {
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    wait_for(&mut h, "the snapshot", |a| a.snapshots.len() == 1);
    // A file the assembly does not use is then written in the workspace:
    // its reload is the event that says the watcher has reported what came
    // before it (no fixed wait standing in for it). Had the snapshot's own
    // files reloaded the window, that would be a reload more.
    std::fs::write(ws.path().join("notes.txt"), "not part of the prompt").unwrap();
    wait_for(&mut h, "the watcher's report of notes.txt", |a| {
        a.state.reloads >= 1
    });
    for _ in 0..5 {
        h.step();
    }
    assert_eq!(
        app(&h).state.reloads,
        1,
        "the app's own files never reload it"
    );
    // The diff compares the newest snapshot with the live state, and shows
    // only what changed (nothing: they are identical).
    let a = app(&h);
    assert_eq!(
        a.diff_view.a,
        prompt_inspector::ui::diff::Side::Snapshot(a.snapshots[0].clone())
    );
    assert_eq!(a.diff_view.b, prompt_inspector::ui::diff::Side::Live);
    h.get_by_label("Diff").click();
    wait_for(&mut h, "the diff", |a| {
        !a.diff_view.pending && a.diff_view.result.is_some()
    });
    h.get_by_label_contains("Identical");
    assert!(h.query_by_label_contains("● soul").is_none());
}

#[test]
fn the_detail_panel_summarises_and_prompt_text_selects() {
    let mut h = harness(sample());
    // Nothing selected: the workspace at a glance.
    h.get_by_label("Workspace");
    h.get_by_label_contains("files read");
    // The blocks' sum under their rows, the tools apart after it.
    let all = h.get_by_label("all blocks").rect();
    let tools = h.get_by_label("tool definitions (apart)").rect();
    assert!(tools.top() > all.top(), "{tools:?} above {all:?}");
    // Clicking a line of prompt text selects its fragment.
    h.get_by_label("Prompt").click();
    h.run_steps(3);
    // The longest line that mentions the agent's name (a line of SOUL.md).
    let rect = h
        .query_all_by_label_contains("SuxiongBot")
        .filter(|n| n.accesskit_node().role() == Role::Label)
        .map(|n| n.rect())
        .max_by(|a, b| a.width().total_cmp(&b.width()))
        .expect("a line of SOUL.md");
    let at = egui::pos2(rect.left() + 30.0, rect.center().y);
    h.hover_at(at);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        });
        h.run_steps(1);
    }
    h.run_steps(2);
    assert_eq!(app(&h).state.selected.as_deref(), Some("soul"));
}

#[test]
fn one_warning_is_singular() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("SOUL.md", "---\nbogus: 1\n---\nsoul\n"),
            ("workspace.yaml", "budget: {total: 3000}\n"),
        ],
    );
    let mut h = harness(dir.path().to_path_buf());
    h.get_by_label_contains("Problems (1)").click();
    h.run_steps(2);
    h.get_by_label("× 0 errors");
    h.get_by_label("▲ 1 warning");
    h.get_by_label("● 0 cache breakers");
}

#[test]
fn the_window_shows_the_profile_and_switches_it() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/openclaw");
    let mut h = harness(ws);
    assert_eq!(
        app(&h)
            .state
            .loaded
            .as_ref()
            .unwrap()
            .workspace
            .profile
            .name,
        "openclaw"
    );
    h.get_by_label_contains("openclaw: AGENTS.md, SOUL.md");
    h.get_by_label_contains("Layer 2 · Project Context");
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::SetProfile(
            "layered".into(),
        ));
    wait_for(&mut h, "the layered profile", |a| {
        a.is_idle()
            && a.state
                .loaded
                .as_ref()
                .is_some_and(|l| l.workspace.profile.name == "layered")
    });
    h.get_by_label_contains("layered: chosen explicitly");
}

#[test]
fn the_agent_caps_move_with_their_sliders() {
    let dir = tempfile::tempdir().unwrap();
    let agents: String = ('a'..='z').cycle().take(31_204).collect();
    write_ws(
        dir.path(),
        &[("AGENTS.md", &agents), ("SOUL.md", "Kestrel")],
    );
    let mut h = harness(dir.path().to_path_buf());
    let status = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| {
        app(h)
            .state
            .assembly()
            .unwrap()
            .fragments
            .iter()
            .find(|f| f.id == "agents")
            .unwrap()
            .status
    };
    assert_eq!(status(&h), prompt_inspector::engine::Status::Truncated);
    h.get_by_label("openclaw caps (characters)");
    let slider = h
        .query_all_by_role(Role::SpinButton)
        .find(|n| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("Per file"))
        })
        .expect("the per-file cap slider");
    slider.set_value_accesskit(40_000.0);
    wait_for(&mut h, "the raised cap", |a| {
        a.is_idle() && a.state.caps.is_some_and(|c| c.0 == 40_000)
    });
    wait_for(&mut h, "the reload", |a| {
        a.is_idle()
            && a.state
                .loaded
                .as_ref()
                .is_some_and(|l| l.workspace.caps == Some((40_000, 60_000)))
    });
    assert_eq!(status(&h), prompt_inspector::engine::Status::Kept);
}

#[test]
fn the_traffic_tab_explains_a_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let line = |ts: &str, id: &str, write: u64, read: u64| {
        serde_json::json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "requestId": id,
            "message": {"id": id, "model": "claude-sonnet-4-6", "usage": {"input_tokens": 3,
            "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 5}}})
        .to_string()
    };
    let t = [
        line("2026-11-30T10:00:00Z", "m1", 9000, 0),
        line("2026-11-30T10:01:00Z", "m2", 100, 9000),
        line("2026-11-30T10:08:00Z", "m3", 9100, 0),
    ]
    .join("\n");
    let f = dir.path().join("session.jsonl");
    std::fs::write(&f, t).unwrap();
    let mut h = harness(sample());
    open_in_traffic(&mut h, &f);
    h.get_by_label_contains("3 requests · read 9,000");
    assert!(
        h.query_all_by_label_contains("ttl: 7m00s since the previous request")
            .count()
            > 0
    );
    // The gap column says the same.
    h.get_by_label("7m00s");
}

/// Opens the Traffic tab and starts the proxy there on a free loopback
/// port with these upstreams; the address it listens on.
fn start_proxy_in_window(
    h: &mut egui_kittest::Harness<'static, Option<prompt_inspector::ui::app::App>>,
    anthropic: &str,
    openai: &str,
) -> std::net::SocketAddr {
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    {
        let p = &mut h.state_mut().as_mut().unwrap().traffic_view.proxy;
        p.listen = "127.0.0.1:0".into();
        p.anthropic_upstream = anthropic.into();
        p.openai_upstream = openai.into();
    }
    h.get_by_label("Start proxy").click();
    wait_for(h, "the proxy to listen", |a| {
        a.traffic_view.proxy.addr.is_some()
    });
    app(h).traffic_view.proxy.addr.unwrap()
}

/// One HTTP/1.1 POST of a JSON body with extra header lines; the whole
/// answer as text.
fn post_raw(addr: std::net::SocketAddr, path: &str, body: &str, headers: &str) -> String {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    write!(
        c,
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\n{headers}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn a_llama_cpp_upstreams_own_counts_show_in_the_traffic_tab_as_in_the_cli() {
    let llama = upstream::llama_upstream();
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    let addr = start_proxy_in_window(&mut h, &llama, &llama);
    let body = serde_json::json!({"model": "smollm2", "messages": [
        {"role": "system", "content": "You are Kestrel, the harbour office assistant."},
        {"role": "user", "content": "when is high tide"}]})
    .to_string();
    let answer = post_raw(addr, "/v1/chat/completions", &body, "");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    wait_for(
        &mut h,
        "the live capture",
        |a| matches!(&a.traffic_view.result, Some(Ok(t)) if t.requests.len() == 1),
    );
    h.get_by_label("#1").click();
    h.run_steps(2);
    // The server's counts: 7 and 4 words, and its template's 4 × 2 + 3.
    h.get_by_label_contains("chat template (the server's formatting)");
    h.get_by_label_contains("11 tokens");
    h.get_by_label_contains(
        "parts: 22 tokens, counted by the llama.cpp server at http://127.0.0.1:",
    );
    h.get_by_label_contains("the same as the provider reported");
    // The CLI reads the same capture to the same parts.
    let capture = app(&h).traffic_view.proxy.capture.clone().unwrap();
    h.get_by_label("Stop proxy").click();
    let o = run(&["traffic", capture.to_str().unwrap(), "--format", "json"]);
    let cli: Vec<(String, u64)> = json(&o)["requests"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["label"].as_str().unwrap().to_string(),
                p["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let window: Vec<(String, u64)> = match &app(&h).traffic_view.result {
        Some(Ok(t)) => t.requests[0]
            .parts
            .parts
            .iter()
            .map(|p| (p.label.clone(), p.tokens))
            .collect(),
        _ => unreachable!(),
    };
    assert_eq!(cli, window);
    assert_eq!(cli.iter().map(|p| p.1).sum::<u64>(), 22);
}

#[test]
fn the_proxy_started_from_the_window_fills_the_traffic_tab_live() {
    let up = upstream::upstream();
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    let addr = start_proxy_in_window(&mut h, &up, "https://api.openai.com");
    h.get_by_label_contains(&format!("Recording on http://{addr}"));
    h.get_by_label_contains(&format!("export ANTHROPIC_BASE_URL=http://{addr}"));
    // A client, as an agent would send it, with a key that must not be kept.
    let key = "sk-ant-window-proxy-KEY-never-recorded-77";
    let body = serde_json::json!({"model": "claude-sonnet-4-6", "max_tokens": 8,
        "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}]})
    .to_string();
    let answer = post_raw(
        addr,
        "/v1/messages",
        &body,
        &format!("x-api-key: {key}\r\n"),
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("Hello from upstream"), "{answer}");
    // The tab fills by itself: no Open.
    wait_for(
        &mut h,
        "the live capture",
        |a| matches!(&a.traffic_view.result, Some(Ok(t)) if t.requests.len() == 1),
    );
    h.get_by_label_contains("1 request · read 0 · written 1,300");
    let capture = app(&h).traffic_view.proxy.capture.clone().unwrap();
    assert!(capture.starts_with(ws.path().join(".prompt-inspector/captures")));
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(
        text.contains("\"cache_creation_input_tokens\":1300"),
        "{text}"
    );
    assert!(
        !text.contains("never-recorded"),
        "the key is not in the capture"
    );
    h.get_by_label("Stop proxy").click();
    wait_for(&mut h, "the proxy to stop", |a| {
        a.traffic_view.proxy.stop.is_none()
    });
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing listens any more"
    );
    h.get_by_label("Start proxy");
}

/// Each exchange the window's proxy records reaches the Traffic tab over a
/// channel, explained from the ones before it: the capture is not read
/// again (here it is gone from its folder before the second exchange).
#[test]
fn a_new_exchange_shows_in_the_traffic_tab_without_reading_the_capture_again() {
    let up = upstream::upstream();
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    let addr = start_proxy_in_window(&mut h, &up, "https://api.openai.com");
    let body = serde_json::json!({"model": "claude-sonnet-4-6", "max_tokens": 8,
        "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}]})
    .to_string();
    let requests = |a: &prompt_inspector::ui::app::App| match &a.traffic_view.result {
        Some(Ok(t)) => t.requests.len(),
        _ => 0,
    };
    assert!(post_raw(addr, "/v1/messages", &body, "").starts_with("HTTP/1.1 200"));
    wait_for(&mut h, "the first exchange", |a| requests(a) == 1);
    let capture = app(&h).traffic_view.proxy.capture.clone().unwrap();
    std::fs::remove_file(&capture).unwrap();
    assert!(post_raw(addr, "/v1/messages", &body, "").starts_with("HTTP/1.1 200"));
    wait_for(&mut h, "the second exchange", |a| requests(a) == 2);
    h.get_by_label_contains("2 requests · read");
    // Its row in the table: number and model (one chain: no chain column).
    h.get_by_label("#2");
    assert!(h.query_all_by_label("claude-sonnet-4-6").count() >= 2);
    let t = match &app(&h).traffic_view.result {
        Some(Ok(t)) => t,
        other => panic!("{:?}", other.as_ref().map(|r| r.as_ref().err())),
    };
    assert_eq!(t.requests[1].previous, Some(1), "explained from the first");
    h.get_by_label("Stop proxy").click();
    wait_for(&mut h, "the proxy to stop", |a| {
        a.traffic_view.proxy.stop.is_none()
    });
}

#[test]
fn a_recorded_request_opens_its_diff_with_the_previous_one_in_the_diff_view() {
    let dir = tempfile::tempdir().unwrap();
    let line = |ts: &str, day: &str, messages: serde_json::Value, write: u64, read: u64| {
        serde_json::json!({"schema": 1, "id": ts, "ts_start": ts, "ts_end": ts, "endpoint": "/v1/messages",
            "model": "claude-sonnet-4-6", "status": 200, "stream": false, "latency_ms": 100, "error": null,
            "request": {"model": "claude-sonnet-4-6", "system": [
                {"type": "text", "text": "Stable rules. ".repeat(100)},
                {"type": "text", "text": format!("Today is {day}."), "cache_control": {"type": "ephemeral"}}],
                "messages": messages},
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 5}})
        .to_string()
    };
    let capture = [
        line(
            "2026-11-30T09:00:00Z",
            "Monday",
            serde_json::json!([{"role": "user", "content": "hi"}]),
            1500,
            0,
        ),
        line(
            "2026-11-30T09:01:00Z",
            "Tuesday",
            serde_json::json!([{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"}, {"role": "user", "content": "and now?"}]),
            40,
            1400,
        ),
    ]
    .join("\n");
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, capture).unwrap();
    let mut h = harness(sample());
    open_in_traffic(&mut h, &f);
    h.get_by_label("#2").click();
    // The trace against the open workspace arrives and moves what is
    // below it: the button is clicked once it has.
    wait_for(&mut h, "the trace", |a| {
        matches!(&a.traffic_view.traced, Some((2, Some(_))))
    });
    h.run_steps(2);
    h.get_by_label("Diff with request #1").click();
    wait_for(&mut h, "the diff", |a| {
        !a.diff_view.pending && a.diff_view.result.is_some()
    });
    let a = app(&h);
    assert_eq!(a.state.tab, prompt_inspector::ui::state::Tab::Diff);
    let d = a.diff_view.result.clone().unwrap().unwrap();
    let div = d.divergence.clone().unwrap();
    assert!(div.position.starts_with("system block 2"), "{div:?}");
    assert!(
        div.before.contains("Monday") && div.after.contains("Tuesday"),
        "{div:?}"
    );
    h.run_steps(2);
    // The summary names the first difference and what was added.
    assert!(h.query_all_by_label_contains("system block 2").count() > 0);
    assert!(h.query_all_by_label_contains("message 3 (user)").count() > 0);
}

/// The window on `workspace` with the recorded OpenClaw capture open in
/// the Traffic tab and its first request selected and traced.
fn traced_first_request(
    workspace: std::path::PathBuf,
) -> egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>> {
    traced_request(workspace, 1)
}

/// The same with request `n` selected and traced.
fn traced_request(
    workspace: std::path::PathBuf,
    n: usize,
) -> egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>> {
    let agents =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/openclaw");
    let mut h = harness(workspace);
    wait_loaded(&mut h);
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().traffic_view.path =
        agents.join("capture.jsonl").display().to_string();
    h.get_by_label("Open").click();
    wait_for(&mut h, "the traffic", |a| a.traffic_view.result.is_some());
    h.get_by_label(&format!("#{n}")).click();
    wait_for(
        &mut h,
        "the trace",
        |a| matches!(&a.traffic_view.traced, Some((i, Some(_))) if *i == n),
    );
    h.run_steps(3);
    h
}

/// At 1024 px the Traffic table keeps every column on screen, the cost and
/// the reason included: its figures take the width of their header, not
/// all a cell offers; a status column only where an answer differs (every
/// one HTTP 200: in the detail) and a chain column only for two chains,
/// so that the reason has the room (it had about 120 px).
#[test]
fn the_traffic_table_fits_its_columns_at_1024_px() {
    let capture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(text.contains("\"status\": 200") || text.contains("\"status\":200"));
    let dir = tempfile::tempdir().unwrap();
    let limited = dir.path().join("limited.jsonl");
    std::fs::write(
        &limited,
        text.replacen("\"status\": 200", "\"status\": 429", 1)
            .replacen("\"status\":200", "\"status\":429", 1),
    )
    .unwrap();
    for (file, status) in [(&capture, false), (&limited, true)] {
        let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
        wait_loaded(&mut h);
        open_in_traffic(&mut h, file);
        h.run_steps(4);
        let head = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>, l| {
            h.query_by_role_and_label(egui::accesskit::Role::Button, l)
                .map(|n| n.rect())
        };
        assert_eq!(head(&h, "status").is_some(), status, "{file:?}");
        assert!(head(&h, "chain").is_none(), "one chain");
        for header in ["status", "latency", "cost $", "reason"] {
            if let Some(r) = head(&h, header) {
                assert!(r.right() < 1024.0, "{header} ends at {}", r.right());
            }
        }
        let reason = head(&h, "reason").unwrap();
        let room = 1024.0 - reason.left();
        assert!(
            room > if status { 150.0 } else { 200.0 },
            "the reason has {room} px"
        );
    }
}

/// At 1024×640 with a request selected, the table, the timeline and the
/// request's pane each keep their own room: the table scrolls within its
/// room, the timeline's axis ends above the pane's tabs.
#[test]
fn the_table_the_timeline_and_the_request_pane_do_not_overlap_at_1024_px() {
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332/capture.jsonl");
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    open_in_traffic(&mut h, &capture);
    h.state_mut().as_mut().unwrap().traffic_view.selected = Some(8);
    h.run_steps(6);
    let pane = h
        .get_by_role_and_label(egui::accesskit::Role::Button, "Request body")
        .rect();
    let timeline = h.get_by_label("Whole lifetimes").rect();
    // The lanes and the axis under the header: two lanes of 18 points,
    // the axis's 12.
    let axis_bottom = timeline.bottom() + 4.0 + 2.0 * 18.0 + 4.0 + 12.0;
    assert!(
        axis_bottom <= pane.top(),
        "the timeline ends at {axis_bottom}, the pane's tabs start at {}",
        pane.top()
    );
    let header = h
        .get_by_role_and_label(egui::accesskit::Role::Button, "reason")
        .rect();
    assert!(header.bottom() < timeline.top(), "{header:?} {timeline:?}");
    // The selected row scrolled into the table's room, above the timeline.
    let row = h.get_by_label("#8").rect();
    assert!(row.top() > header.bottom() && row.bottom() < timeline.top());
}

/// A recorded request's diff names, beside each part, the workspace files
/// its text came from (as the trace found them), each opening the file.
#[test]
fn a_request_diff_links_each_part_to_the_files_it_came_from() {
    let agents =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/openclaw");
    let mut h = traced_request(agents.join("workspace"), 3);
    // OpenClaw's own prompt has an emoji (🪶) no bundled font draws: the
    // window shows a box for it, as egui does outside tests.
    h.ctx
        .set_missing_glyph_policy(egui::MissingGlyphPolicy::Tofu);
    h.get_by_label("Diff with request #2").click();
    wait_for(&mut h, "the diff", |a| {
        !a.diff_view.pending && a.diff_view.result.is_some()
    });
    h.run_steps(3);
    let a = app(&h);
    let sources = a
        .diff_view
        .sources
        .clone()
        .expect("the trace of request #3");
    assert_eq!(sources.request, 3);
    let block = sources
        .parts
        .iter()
        .find(|p| p.label == "system block 1")
        .expect("system block 1 traced");
    assert!(
        block.from_files.iter().any(|(f, _)| f == "SOUL.md"),
        "{:?}",
        block.from_files
    );
    // The changed block's group shows each of its files as a button.
    for (file, tokens) in &block.from_files {
        let label = format!("{file} · {}", prompt_inspector::ui::thousands(*tokens));
        assert!(
            h.query_all_by_role_and_label(egui::accesskit::Role::Button, &label)
                .count()
                > 0,
            "{label} beside system block 1"
        );
    }
}

#[test]
fn a_recorded_request_is_traced_to_the_open_workspaces_files_with_the_profiles_differences() {
    let agents =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/openclaw");
    // The workspace as it was at the first turn, opened in the window.
    let mut h = traced_first_request(agents.join("workspace"));
    // Its files, as the CLI's `traffic --against` lists them, in the
    // detail's Your files tab (the Parts tab first).
    assert!(
        h.query_by_label_contains("Your files in this request")
            .is_none()
    );
    h.get_by_label("Your files").click();
    h.run_steps(2);
    assert!(
        h.query_all_by_label_contains("Your files in this request")
            .count()
            > 0
    );
    for f in [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "MEMORY.md",
    ] {
        assert!(h.query_all_by_label(f).count() > 0, "{f} listed");
    }
    let a = app(&h);
    let t = a
        .traffic_view
        .traced
        .as_ref()
        .unwrap()
        .1
        .as_ref()
        .unwrap()
        .as_ref()
        .unwrap();
    assert!(
        t.differences.is_empty(),
        "openclaw@2026.9 renders it as sent: {:?}",
        t.differences
    );
    drop(h);
    // The older profile differs: the banner says so.
    let ws = tempfile::tempdir().unwrap();
    copy_dir(&agents.join("workspace"), ws.path());
    std::fs::write(
        ws.path().join("workspace.yaml"),
        "profile: openclaw@2026.7\n",
    )
    .unwrap();
    let mut h = traced_first_request(ws.path().to_path_buf());
    // Said above the tabs, listed in the Your files tab (kept from the
    // request before: the tab chosen stays).
    let banner =
        "Your agent sends this differently from the openclaw@2026.7 profile: 2 differences";
    assert_eq!(h.query_all_by_label_contains(banner).count(), 1);
    h.get_by_label("Your files").click();
    h.run_steps(2);
    assert_eq!(h.query_all_by_label_contains(banner).count(), 2);
}

#[test]
fn a_failed_request_shows_its_status_and_latency() {
    let dir = tempfile::tempdir().unwrap();
    let line = serde_json::json!({"schema": 1, "id": "1", "ts_start": "2026-11-30T09:00:00Z", "ts_end": "2026-11-30T09:00:01Z",
        "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": 429, "stream": false, "latency_ms": 137,
        "error": "HTTP 429: rate limited", "usage": null,
        "request": {"model": "claude-sonnet-4-6", "system": "s", "messages": [{"role": "user", "content": "hi"}]}});
    let f = dir.path().join("capture.jsonl");
    std::fs::write(&f, line.to_string()).unwrap();
    let mut h = harness(sample());
    open_in_traffic(&mut h, &f);
    h.run_steps(2);
    // Its status (in red) and latency, each in its own column.
    h.get_by_label("HTTP 429");
    h.get_by_label("137 ms");
    assert!(h.query_all_by_label_contains("no hit ratio").count() > 0);
    assert_eq!(h.query_all_by_label_contains("hit ratio 0.0").count(), 0);
}

/// An agent folder's context window in the left panel: `/context`'s
/// categories with the agent's own parts, the figures `context` prints,
/// and the rows per memory file, subagent and skill.
#[test]
fn an_agent_folders_context_view_counts_the_agents_own_parts() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("project");
    copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents/claude-code/workspace"),
        &ws,
    );
    // Tall enough for the left panel to show the rows without scrolling.
    let mut h = harness_sized(ws.clone(), egui::vec2(1500.0, 2400.0));
    let u = app(&h).state.context.clone().expect("a context view");
    // The newest recording of the agent's own parts (2.1.332): the window
    // and `context` agree.
    assert_eq!(u.agent.as_deref(), Some("Claude Code 2.1.332"));
    h.get_by_label_contains("Claude Code 2.1.332 · claude-opus-5-5");
    let cli = json(&run(&["context", ws.to_str().unwrap(), "--format", "json"]));
    for r in cli["rows"].as_array().unwrap() {
        let (name, tokens) = (r["name"].as_str().unwrap(), r["tokens"].as_u64().unwrap());
        let ours = u.rows.iter().find(|x| x.name == name).unwrap();
        assert_eq!(ours.tokens, tokens, "{name}: the window and the CLI agree");
        if r["in_use"] == true && tokens > 0 {
            let label = format!("{name} · {}", prompt_inspector::engine::thousands(tokens));
            h.get_by_label_contains(&label);
        }
    }
    h.get_by_label_contains("System tools (deferred): ");
    h.get_by_label_contains("Autocompact buffer · 33,000");
    // Only the layers its files go to, without budgets of their own (no
    // empty "identity" or "capabilities" bar, no "budget + inflow"), each
    // placed and cached as the report says it.
    assert!(h.query_by_label_contains("· identity").is_none());
    assert!(h.query_by_label_contains("budget 0 + inflow").is_none());
    // No layer budgets to tune on an agent's folder.
    assert!(h.query_by_label_contains("Total budget").is_none());
    h.get_by_label("The agent's own caps decide what is sent: no layer budgets.");
    assert!(
        h.query_all_by_label_contains(
            "the agent's own caps decide what is sent, not a layer budget"
        )
        .count()
            > 0
    );
    let report = stdout(&run(&["report", ws.to_str().unwrap()]));
    assert!(
        report.contains("budget: the agent's own caps, not layer budgets"),
        "{report}"
    );
    assert!(!report.contains("layer 1 identity"), "{report}");
    let a = app(&h).state.assembly().unwrap().clone();
    for l in a
        .layers
        .iter()
        .filter(|l| a.fragments.iter().any(|f| f.layer == l.layer))
    {
        let words = prompt_inspector::engine::assembly::report::layer_cache(
            l,
            prompt_inspector::engine::Provider::Anthropic,
        );
        assert!(h.query_all_by_label(&words).count() > 0, "{words}");
        assert!(report.contains(&words), "{words}: {report}");
    }
    h.get_by_label("Memory files (3)").click();
    h.run_steps(3);
    h.get_by_label_contains("/project/CLAUDE.local.md");
    // The list sums to its category: the agent's words around the files
    // are its last row, apart from the files, naming the headings the
    // report counts in the files' rows.
    let headings: u64 = a
        .fragments
        .iter()
        .filter(|f| !f.id.starts_with("skill.") && !f.id.starts_with("agent."))
        .map(|f| f.heading_tokens)
        .sum();
    assert!(headings > 0);
    h.get_by_label(&format!(
        "(the agent's own words around the files: no file; {headings} of them headings, in the report's rows)"
    ));
}

/// The Diff view of two recorded requests states the provider's cause: an
/// expiry with the tokens written again, as `traffic --diff` says it.
#[test]
fn the_request_diff_in_the_window_states_an_expiry() {
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let mut h = harness(sample());
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::DiffRequests {
            capture: cap.clone(),
            a: 3,
            b: 4,
        });
    wait_for(&mut h, "the request diff", |a| {
        matches!(&a.diff_view.result, Some(Ok(_)))
    });
    h.get_by_label("expired after 7m25s (the 5m TTL): 2,996 tokens written again");
    let cli = stdout(&run(&["traffic", cap.to_str().unwrap(), "--diff", "4"]));
    assert!(cli.contains("expired after 7m25s (the 5m TTL): 2,996 tokens written again"));
}

/// The Traffic tab's table: sorted by a column at a click on its header
/// (again: the other way), filtered by miss kind; the timeline of cache
/// entries; a row selects its request.
#[test]
fn the_traffic_table_sorts_filters_and_shows_the_cache_entries_over_time() {
    use prompt_inspector::ui::traffic_table::{Col, visible};
    let cap =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let mut h = harness(sample());
    open_in_traffic(&mut h, &cap);
    let order =
        |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| -> Vec<usize> {
            let v = &app(h).traffic_view;
            let t = v.result.as_ref().unwrap().as_ref().unwrap();
            visible(t, &v.table).iter().map(|r| r.index).collect()
        };
    assert_eq!(order(&h), vec![1, 2, 3, 4, 5]);
    // Sort by what was written: ascending, then descending.
    h.get_by_label("written").click();
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.table.sort, Col::Written);
    assert_eq!(order(&h), vec![3, 2, 5, 1, 4]);
    h.get_by_label("written ▲").click();
    h.run_steps(2);
    assert_eq!(order(&h), vec![4, 1, 5, 2, 3]);
    // Hide the growth requests.
    h.get_by_label("growth (2)").click();
    h.run_steps(2);
    assert_eq!(order(&h), vec![4, 1, 5]);
    // The timeline: two cache entries, the first gone when #4 came.
    h.get_by_label_contains("Cache entries over time (");
    let t = app(&h).traffic_view.result.clone().unwrap().unwrap();
    let e = prompt_inspector::engine::traffic::timeline::entries(&t);
    assert_eq!((e[0].first, e[0].ended_by), (1, Some(4)), "{e:?}");
    // A row selects its request.
    h.get_by_label("#4").click();
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(4));
    h.get_by_label("Diff with request #3");
}

/// A long capture opened in the Traffic tab shows how far its reading has
/// come while the worker reads it, then the table.
#[test]
fn a_long_capture_shows_its_progress_in_the_traffic_tab() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("long.jsonl");
    let pad = "x".repeat(2_500);
    let lines: Vec<String> = (0..4_000)
        .map(|i| {
            serde_json::json!({"schema": 1, "id": i.to_string(), "ts_start": format!("2026-12-01T10:{:02}:{:02}Z", i / 60 % 60, i % 60),
                "ts_end": "2026-12-01T10:00:00Z", "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": 200,
                "stream": false, "latency_ms": 5, "error": null,
                "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1200, "output_tokens": 5},
                "request": {"model": "claude-sonnet-4-6", "system": format!("You are Kestrel. {pad}"),
                    "messages": [{"role": "user", "content": format!("hi {i}")}]}})
            .to_string()
        })
        .collect();
    std::fs::write(&f, lines.join("\n")).unwrap();
    let mut h = harness(sample());
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().traffic_view.path = f.display().to_string();
    h.get_by_label("Open").click();
    let start = std::time::Instant::now();
    let mut shown = false;
    while app(&h).traffic_view.result.is_none() {
        assert!(start.elapsed() < std::time::Duration::from_secs(120));
        h.step();
        shown |= h.query_all_by_label_contains("explaining").count() > 0
            || h.query_all_by_label_contains("reading ").count() > 0;
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(shown, "a progress bar while it was read");
    assert!(app(&h).traffic_view.progress.is_none(), "gone once read");
}

/// The timeline of a capture whose 8 requests took 2 s of a 5-minute span
/// opens on the requests, a tick per request far enough apart to click;
/// "Whole lifetimes" and "Requests" fit the span, Ctrl and the wheel zoom
/// about the pointer, a drag pans, and a tick selects its request.
#[test]
fn the_timeline_opens_on_the_requests_and_zooms_pans_and_selects() {
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/capture.jsonl");
    let mut h = harness_sized(sample(), egui::vec2(1280.0, 800.0));
    wait_loaded(&mut h);
    open_in_traffic(&mut h, &capture);
    h.run_steps(3);
    let t = app(&h).traffic_view.result.clone().unwrap().unwrap();
    let at: Vec<f64> = t.requests.iter().map(|r| r.at.unwrap()).collect();
    let first = at.iter().copied().fold(f64::MAX, f64::min);
    let last = at.iter().copied().fold(0.0, f64::max) - first;
    assert!(last < 5.0, "{last}");
    let (span_label, whole, fit) = (
        h.get_by_label_contains("Cache entries over time (").rect(),
        h.get_by_label("Whole lifetimes").rect(),
        h.get_by_label("Requests").rect(),
    );
    assert!(fit.right() <= whole.left() && whole.right() <= 1280.0);
    // The lanes: under the header, their axis where the timeline drew it
    // (the lanes' names in a gutter at the right).
    let (start, width) = app(&h).traffic_view.timeline.axis_x.unwrap();
    assert!(start > span_label.left() && start + width < whole.right() - 20.0);
    let (left, right) = (start, start + width);
    let lane_top =
        whole.bottom().max(span_label.bottom()) + h.ctx.global_style().spacing.item_spacing.y;
    let range = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| {
        app(h).traffic_view.timeline.range
    };
    assert_eq!(range(&h), None, "the default fit");
    h.get_by_label("Whole lifetimes").click();
    h.run_steps(2);
    let (a, b) = range(&h).unwrap();
    assert!(a < 0.0 && a > -10.0 && b > 300.0, "{a} {b}");
    h.get_by_label("Requests").click();
    h.run_steps(2);
    let (a, b) = range(&h).unwrap();
    assert!(a < 0.0 && b > last && b - a < last + 2.0, "{a} {b}");
    // Request #4 opens the second chain: its tick in the second lane.
    let x =
        |at: f64, (a, b): (f64, f64)| left + (right - left) * ((at - first - a) / (b - a)) as f32;
    let tick = egui::pos2(x(at[3], (a, b)), lane_top + 2.0 + 18.0 + 9.0);
    h.hover_at(tick);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: tick,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(4));
    // Zoom in twice about the pointer: the time under it stays put.
    let under = a + f64::from((tick.x - left) / (right - left)) * (b - a);
    h.event(egui::Event::Zoom(2.0));
    h.run_steps(2);
    let (c, d) = range(&h).unwrap();
    assert!(((d - c) - (b - a) / 2.0).abs() < 1e-6, "{c} {d}");
    let still = c + f64::from((tick.x - left) / (right - left)) * (d - c);
    assert!((still - under).abs() < 0.01, "{still} {under}");
    // A drag to the right shows earlier times.
    let from = egui::pos2(tick.x, lane_top + 4.0);
    h.drag_at(from);
    h.run_steps(1);
    h.hover_at(from + egui::vec2(100.0, 0.0));
    h.run_steps(1);
    h.drop_at(from + egui::vec2(100.0, 0.0));
    h.run_steps(2);
    let (e, f) = range(&h).unwrap();
    assert!(
        e < c && ((f - e) - (d - c)).abs() < 1e-6,
        "{e} {f} after {c} {d}"
    );
}

/// The side panel's context window is `context`'s: the same figure in use
/// (the output reserved kept free, not counted), for the sample and for an
/// agent folder; the Cache tab's at a request has the same categories with
/// the same figures, its messages those the request sends.
#[test]
fn the_side_panels_context_window_is_the_context_commands() {
    let claude = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332/workspace");
    for ws in [sample(), claude] {
        let used = json(&run(&["context", ws.to_str().unwrap(), "--format", "json"]))["used"]
            .as_u64()
            .unwrap();
        let mut h = harness_sized(ws.clone(), egui::vec2(1280.0, 800.0));
        wait_for(&mut h, "the context usage", |a| a.state.context.is_some());
        h.run_steps(3);
        let figure = format!(
            "Context window: {} of ",
            prompt_inspector::engine::thousands(used)
        );
        assert!(
            h.query_all_by_label_contains(&figure).next().is_some(),
            "{}: {figure}",
            ws.display()
        );
        // The Cache tab's context window at a request: `context`'s
        // categories with their figures, the messages those it sends.
        let u = json(&run(&["context", ws.to_str().unwrap(), "--format", "json"]));
        h.state_mut().as_mut().unwrap().state.tab = prompt_inspector::ui::state::Tab::Cache;
        wait_for_label(&mut h, "Context window at request 1");
        for r in u["rows"].as_array().unwrap() {
            let (name, tokens) = (r["name"].as_str().unwrap(), r["tokens"].as_u64().unwrap());
            if r["in_use"] == true && name != "Messages" && tokens > 0 {
                // The side panel's legend and the Cache tab's.
                let part = format!("{name} · {}", prompt_inspector::engine::thousands(tokens));
                assert_eq!(
                    h.query_all_by_label_contains(&part).count(),
                    2,
                    "{}: {part}",
                    ws.display()
                );
            }
        }
        assert!(
            h.query_all_by_label_contains("Messages: this turn · ")
                .next()
                .is_some()
        );
    }
}

/// A memory file's detail says its own text's tokens, the figure `context`
/// lists for it (the fragment's count holds the heading the agent writes
/// before the file too).
#[test]
fn a_memory_files_detail_says_the_figure_context_lists() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332/workspace");
    let u = json(&run(&["context", ws.to_str().unwrap(), "--format", "json"]));
    let own = u["memory_files"][0]["tokens"].as_u64().unwrap();
    assert!(
        u["memory_files"][0]["name"]
            .as_str()
            .unwrap()
            .ends_with("/CLAUDE.md")
    );
    let mut h = harness_sized(ws, egui::vec2(1280.0, 800.0));
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::Select(
            "claude".into(),
        ));
    h.run_steps(3);
    let said = format!(
        "of which the file's own text: {} tokens",
        prompt_inspector::engine::thousands(own)
    );
    assert!(
        h.query_all_by_label_contains(&said).next().is_some(),
        "{said}"
    );
}

/// A subagent's or skill's row in the listing: the report, the detail and
/// `traffic --against` give the same figure for the file (its
/// description); the rest of the row is the agent's listing entry.
#[test]
fn a_listed_files_description_is_one_figure_in_report_detail_and_traffic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332");
    let ws = dir.join("workspace");
    let home = tempfile::tempdir().unwrap();
    let t = json(&run_home(
        home.path(),
        &[
            "traffic",
            dir.join("capture.jsonl").to_str().unwrap(),
            "--against",
            ws.to_str().unwrap(),
            "--request",
            "1",
            "--format",
            "json",
        ],
    ));
    let r = json(&run(&["report", ws.to_str().unwrap(), "--format", "json"]));
    for (id, path) in [
        ("agent.file-lister", ".claude/agents/file-lister.md"),
        (
            "skill.release-notes",
            ".claude/skills/release-notes/SKILL.md",
        ),
    ] {
        let traced = t["attribution"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .unwrap();
        assert_eq!(traced["sent"], "listed");
        let row = r["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap();
        assert_eq!(row["file_tokens"], traced["tokens"], "{id}: {row}");
        let kept = row["kept_tokens"].as_u64().unwrap();
        let own = row["file_tokens"].as_u64().unwrap();
        assert_eq!(row["heading_tokens"].as_u64().unwrap(), kept - own);
    }
    let own = t["attribution"]["files"][0]["tokens"].as_u64().unwrap();
    let mut h = harness_sized(ws, egui::vec2(1280.0, 800.0));
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::Select(
            "agent.file-lister".into(),
        ));
    h.run_steps(3);
    let said =
        format!("of which the file's description: {own} tokens (as traffic --against counts it)");
    assert!(
        h.query_all_by_label_contains(&said).next().is_some(),
        "{said}"
    );
}

/// The Cache tab says each strategy's token total when they differ (one
/// string lays the prompt out otherwise), the totals `predict` gives.
#[test]
fn the_cache_tab_says_each_strategys_token_total_when_they_differ() {
    let ws = sample();
    let p = json(&run(&["predict", ws.to_str().unwrap(), "--format", "json"]));
    let total = |s: &serde_json::Value| {
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .map(|k| s[k].as_u64().unwrap())
        .sum::<u64>()
    };
    let strategies = p["strategies"].as_array().unwrap();
    let one = strategies
        .iter()
        .find(|s| s["name"] == "single_string")
        .unwrap();
    let layered = strategies.iter().find(|s| s["name"] == "layered").unwrap();
    assert_ne!(total(one), total(layered), "the sample's totals differ");
    let mut h = harness_sized(ws, egui::vec2(1280.0, 800.0));
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = prompt_inspector::ui::state::Tab::Cache;
    wait_for_label(&mut h, "Each strategy lays");
    let said = format!(
        "layered {}, one string {}",
        prompt_inspector::engine::thousands(total(layered)),
        prompt_inspector::engine::thousands(total(one))
    );
    assert!(
        h.query_all_by_label_contains(&said).next().is_some(),
        "{said}"
    );
}

/// A problem's location chosen in the Problems tab selects its fragment
/// and shows that line of its file in the detail: the problem beside the
/// fragment's reason, the source text open with the file's line numbers.
#[test]
fn a_problems_location_shows_its_line_in_the_fragment_detail() {
    let mut h = harness_sized(sample(), egui::vec2(1280.0, 800.0));
    wait_loaded(&mut h);
    let p = app(&h)
        .state
        .problems
        .iter()
        .find(|p| p.fragment.as_deref() == Some("env.snapshot"))
        .cloned()
        .expect("the sample's cache breaker in env.snapshot");
    let line = p.line.unwrap();
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::SelectLine(
            "env.snapshot".into(),
            line,
        ));
    h.run_steps(4);
    assert_eq!(app(&h).state.selected.as_deref(), Some("env.snapshot"));
    assert!(
        h.query_all_by_label(&p.location()).next().is_some(),
        "{}",
        p.location()
    );
    let number = format!("{line:>4}");
    let shown = h
        .query_all_by_label(&number)
        .next()
        .expect("the line's number");
    let text = h
        .query_all_by_label_contains("Environment (generated")
        .map(|n| n.rect())
        .find(|r| (r.top() - shown.rect().top()).abs() < 4.0);
    assert!(
        text.is_some(),
        "line {line} is the environment line, beside its number"
    );
}

/// At 1024×640 a request's parts fit in its pane: each part's bar ends
/// inside the window (a right-aligned figure cell took every point left
/// and pushed the bars, and the pane's scroll bar, past the window's
/// edge, so nothing said that the parts lay below).
#[test]
fn a_requests_parts_fit_in_its_pane_at_1024_px() {
    let capture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    open_in_traffic(&mut h, &capture);
    h.state_mut().as_mut().unwrap().traffic_view.selected = Some(5);
    h.run_steps(6);
    let bars: Vec<egui::Rect> = ["bar of part 1", "bar of part 2"]
        .iter()
        .map(|l| h.get_by_label(l).rect())
        .collect();
    for b in bars {
        assert!(b.width() >= 60.0, "{b:?}");
        assert!(b.right() < 1000.0, "a bar ends at {}", b.right());
    }
}

/// At 1024 px the Cache tab's note on the model and its rules is one line,
/// under the provider buttons when they leave no room, never split after
/// the model's name.
#[test]
fn the_cache_tabs_model_note_stays_whole_at_1024_px() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = prompt_inspector::ui::state::Tab::Cache;
    // The prediction is made off the UI thread: its note once it is there.
    wait_for_label(&mut h, "claude-sonnet-4-6 · anthropic");
    h.run_steps(2);
    let note = h
        .get_by_label_contains("claude-sonnet-4-6 · anthropic")
        .rect();
    let line = h.get_by_label("Anthropic").rect().height();
    assert!(
        note.height() < line + 2.0,
        "{note:?} against a line of {line}"
    );
    assert!(note.right() < 1024.0, "{note:?}");
}
