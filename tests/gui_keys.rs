//! The keyboard and the Traffic table as a user drives them (issue 41):
//! arrow keys walk the requests in the order shown, a text filter narrows
//! them, the columns a transcript has no figures for are not drawn, and
//! the shortcuts list opens from F1 or `?` and closes with Escape.

use std::path::PathBuf;

use crate::window::{harness, open_in_traffic, wait_for};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prompt_inspector::ui::App;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-workspace")
}

fn app<'a>(h: &'a Harness<'static, Option<App>>) -> &'a App {
    h.state().as_ref().unwrap()
}

/// The window on the sample, its Traffic tab on `capture`.
fn traffic_on(capture: &std::path::Path) -> Harness<'static, Option<App>> {
    let mut h = harness(sample());
    open_in_traffic(&mut h, capture);
    h.run_steps(2);
    h
}

fn shown(h: &Harness<'static, Option<App>>) -> Vec<usize> {
    let v = &app(h).traffic_view;
    let t = v.result.as_ref().unwrap().as_ref().unwrap();
    prompt_inspector::ui::traffic_table::visible(t, &v.table)
        .iter()
        .map(|r| r.index)
        .collect()
}

#[test]
fn arrow_keys_walk_the_requests_as_shown_and_a_text_filter_narrows_them() {
    let cap = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let mut h = traffic_on(&cap);
    assert_eq!(shown(&h), [1, 2, 3, 4, 5]);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(1));
    h.key_press(egui::Key::ArrowDown);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(3));
    h.key_press(egui::Key::ArrowUp);
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(2));
    // Sorted the other way, Down follows the order shown.
    h.get_by_label("written").click();
    h.run_steps(2);
    assert_eq!(shown(&h), [3, 2, 5, 1, 4]);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(app(&h).traffic_view.selected, Some(5));
    // The filter: the requests whose reason says ttl.
    h.state_mut().as_mut().unwrap().traffic_view.table.text = "TTL".into();
    h.run_steps(2);
    assert_eq!(shown(&h), [4]);
    h.state_mut().as_mut().unwrap().traffic_view.table.text = "claude-sonnet".into();
    h.run_steps(2);
    assert_eq!(shown(&h).len(), 5);
    // A capture has latencies: their column is drawn; every answer is
    // HTTP 200, so the status is in each request's detail, not a column.
    assert!(h.query_by_label("status").is_none());
    h.get_by_label("latency");
}

#[test]
fn a_transcript_has_no_status_or_latency_columns() {
    let dir = tempfile::tempdir().unwrap();
    let line = |ts: &str, id: &str| {
        serde_json::json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "requestId": id,
            "message": {"id": id, "model": "claude-sonnet-4-6", "usage": {"input_tokens": 3,
            "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}})
        .to_string()
    };
    let f = dir.path().join("session.jsonl");
    std::fs::write(
        &f,
        [
            line("2026-11-30T10:00:00Z", "m1"),
            line("2026-11-30T10:01:00Z", "m2"),
        ]
        .join("\n"),
    )
    .unwrap();
    let h = traffic_on(&f);
    assert_eq!(shown(&h), [1, 2]);
    h.get_by_label("written");
    assert!(h.query_by_label("status").is_none());
    assert!(h.query_by_label("latency").is_none());
}

#[test]
fn the_shortcuts_list_opens_with_f1_or_a_question_mark_and_escape_closes_it() {
    let mut h = harness(sample());
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
    h.key_press(egui::Key::F1);
    h.run_steps(2);
    assert!(app(&h).shortcuts_open);
    h.get_by_label("Keyboard shortcuts");
    // Every menu shortcut is listed with its entry.
    h.get_by_label("File › Save a snapshot");
    h.get_by_label("View › DEBUG markers");
    h.get_by_label("File › Quit");
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(!app(&h).shortcuts_open);
    h.event(egui::Event::Text("?".into()));
    h.run_steps(2);
    assert!(app(&h).shortcuts_open);
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(!app(&h).shortcuts_open);
}

/// The selected request as recorded: its body (the capture's, pretty) and
/// a curl command that sends it again with the key from the environment,
/// copied from the buttons under it.
#[test]
fn the_selected_requests_body_shows_as_recorded_and_copies_as_curl() {
    let cap = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/traffic/capture.jsonl");
    let line: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&cap)
            .unwrap()
            .lines()
            .nth(3)
            .unwrap(),
    )
    .unwrap();
    let mut h = traffic_on(&cap);
    for _ in 0..4 {
        h.key_press(egui::Key::ArrowDown);
        h.run_steps(1);
    }
    assert_eq!(app(&h).traffic_view.selected, Some(4));
    wait_for(&mut h, "the body", |a| {
        matches!(&a.traffic_view.body, Some((4, Ok(_))))
    });
    let text = match &app(&h).traffic_view.body {
        Some((_, Ok(t))) => t.clone(),
        other => panic!("{other:?}"),
    };
    let shown: serde_json::Value = serde_json::from_str(&text.json).unwrap();
    assert_eq!(shown, line["request"]);
    assert!(
        text.curl.contains("x-api-key: $ANTHROPIC_API_KEY"),
        "{}",
        text.curl
    );
    assert!(!text.curl.contains("sk-ant"), "{}", text.curl);
    assert!(
        h.query_by_label_contains("Request body as recorded")
            .is_none()
    );
    h.get_by_label("Request body").click();
    h.run_steps(2);
    assert_eq!(
        app(&h).traffic_view.detail_tab,
        prompt_inspector::ui::traffic_request::DetailTab::Body
    );
    h.get_by_label_contains("Request body as recorded");
    h.get_by_label_contains("\"messages\"");
    h.get_by_label("Copy as cURL").click();
    h.run_steps(1);
    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(copied, std::slice::from_ref(&text.curl));
    // The command sends it again: curl, by the shell, to the loopback
    // upstream the base-URL variable names, answers with its usage.
    let dir = tempfile::tempdir().unwrap();
    let (up, mut upstream) = crate::common::agent_upstream(&dir.path().join("up.jsonl"));
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("{} --silent --show-error", text.curl.trim_end()),
        ])
        .env("ANTHROPIC_BASE_URL", &up)
        .env("ANTHROPIC_API_KEY", "sk-ant-FAKE-curl-test-0123456789")
        .output()
        .expect("sh and curl");
    let _ = upstream.kill();
    let _ = upstream.wait();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(answer["usage"]["input_tokens"].is_u64(), "{answer}");
    // The Response tab: the answer's status, latency and usage as recorded.
    assert_eq!(
        h.query_all_by_label("latency").count(),
        1,
        "the table's column"
    );
    h.get_by_label("Response").click();
    h.run_steps(2);
    let u = &line["usage"];
    for (k, v) in [
        ("status", format!("HTTP {}", line["status"])),
        ("latency", format!("{} ms", line["latency_ms"])),
        (
            "read",
            format!(
                "{} tokens",
                prompt_inspector::ui::thousands(u["cache_read_input_tokens"].as_u64().unwrap())
            ),
        ),
    ] {
        assert!(h.query_all_by_label(k).count() >= 1, "{k}");
        assert!(h.query_all_by_label(&v).count() >= 1, "{v}");
    }
    assert_eq!(h.query_all_by_label("latency").count(), 2, "and the tab's");
}

/// Problems as an editor lists them: grouped by file (each with its
/// count), a text filter, F8 and Shift+F8 from one to the next, selecting
/// the fragment each is about.
#[test]
fn problems_group_by_file_filter_by_text_and_f8_walks_them() {
    use prompt_inspector::ui::state::Tab;
    let dir = crate::common::copy_sample();
    crate::common::write_ws(
        dir.path(),
        &[(
            "fragments/bad.yaml",
            "- id: bad.one\n  layer: 3\n  content: x\n  colour: red\n- id: bad.two\n  layer: 3\n  content: y\n  flavour: sweet\n",
        )],
    );
    let mut h = harness(dir.path().to_path_buf());
    let all = app(&h).state.problems.clone();
    let bad: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].file == "fragments/bad.yaml")
        .collect();
    assert_eq!(bad.len(), 2, "{all:?}");
    h.get_by_label_contains("Problems (").click();
    h.run_steps(2);
    assert_eq!(app(&h).state.tab, Tab::Problems);
    h.get_by_label("fragments/bad.yaml  (2 problems)");
    // F8 goes through them in the order shown, wrapping; Shift+F8 back.
    let shown = app(&h).problems_view.shown(&all);
    assert_eq!(shown.len(), all.len());
    h.key_press(egui::Key::F8);
    h.run_steps(2);
    assert_eq!(app(&h).problems_view.current, Some(shown[0]));
    h.key_press(egui::Key::F8);
    h.run_steps(2);
    assert_eq!(app(&h).problems_view.current, Some(shown[1]));
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F8);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F8);
    h.run_steps(2);
    assert_eq!(app(&h).problems_view.current, Some(*shown.last().unwrap()));
    // Going to one that is about a fragment selects it.
    let i = *bad.last().unwrap();
    while app(&h).problems_view.current != Some(i) {
        h.key_press(egui::Key::F8);
        h.run_steps(1);
    }
    assert_eq!(app(&h).state.selected, all[i].fragment);
    // The filter: the problems whose message says flavour.
    h.state_mut().as_mut().unwrap().problems_view.text = "flavour".into();
    h.run_steps(2);
    let left = app(&h).problems_view.shown(&all);
    assert_eq!(left.len(), 1);
    assert!(all[left[0]].message.contains("flavour"));
    h.get_by_label("fragments/bad.yaml  (1 problem)");
}

/// The Traffic tab teaches the agent's own parts as `agents learn` does:
/// a request traced to the open folder, whose sender is known, offers
/// "Learn …"; a click keeps them in the data folder and says so.
#[test]
fn a_traced_request_teaches_its_agents_own_parts_from_the_traffic_tab() {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude-code-2.1.332");
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    crate::common::copy_dir(&fixture.join("workspace"), &project);
    let data = dir.path().join("agents");
    let mut h = harness(project.clone());
    h.state_mut().as_mut().unwrap().observed_dir = Some(data.clone());
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().traffic_view.path =
        fixture.join("capture.jsonl").display().to_string();
    h.get_by_label("Open").click();
    wait_for(&mut h, "the traffic", |a| a.traffic_view.result.is_some());
    h.key_press(egui::Key::ArrowDown);
    wait_for(&mut h, "the trace", |a| {
        matches!(&a.traffic_view.traced, Some((1, Some(Ok(_)))))
    });
    h.run_steps(2);
    h.get_by_label("Learn Claude Code 2.1.332's own parts from this request")
        .click();
    wait_for(&mut h, "the parts learned", |a| {
        a.traffic_view.learned.is_some()
    });
    let said = match &app(&h).traffic_view.learned {
        Some((1, Ok(s))) => s.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        said.starts_with("learned Claude Code 2.1.332's own parts from request #1"),
        "{said}"
    );
    let saved: Vec<PathBuf> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(said.contains(&saved[0].display().to_string()), "{said}");
    // Nothing of the user's files is kept.
    let kept = std::fs::read_to_string(&saved[0]).unwrap();
    let memory = std::fs::read_to_string(project.join("CLAUDE.md")).unwrap();
    let line = memory.lines().find(|l| l.len() > 20).unwrap();
    assert!(!kept.contains(line), "{line}");

    // View › Agents' own parts… lists it beside the recordings, as the one
    // Claude Code's folders use; Forget removes it and the folder reloads.
    let id = saved[0].file_stem().unwrap().to_str().unwrap().to_string();
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Agents' own parts…").click();
    // The menu closes, the window takes its size, then shows.
    h.run_steps(5);
    let listed = match &app(&h).agents_view.listed {
        Some(Ok((rows, _))) => rows.clone(),
        other => panic!("{:?}", other.as_ref().map(|r| r.as_ref().err())),
    };
    let row = listed
        .iter()
        .find(|r| r.id == id)
        .expect("the observation listed");
    assert!(
        row.default && row.file.as_deref() == Some(saved[0].as_path()),
        "{row:?}"
    );
    assert!(
        listed
            .iter()
            .any(|r| r.file.is_none() && r.agent == row.agent),
        "the bundled recordings listed too"
    );
    h.get_by_label(&format!("{id} (used)"));
    let reloads = app(&h).state.reloads;
    h.get_by_label(&format!("Forget {id}")).click();
    h.run_steps(2);
    assert!(!saved[0].exists(), "the file is removed");
    match &app(&h).agents_view.said {
        Some(Ok(s)) => assert!(s.starts_with(&format!("forgot {id}")), "{s}"),
        other => panic!("{other:?}"),
    }
    assert!(app(&h).state.reloads > reloads, "the folder reloads");
    assert!(h.query_by_label(&format!("Forget {id}")).is_none());
    let rows = match &app(&h).agents_view.listed {
        Some(Ok((rows, _))) => rows.clone(),
        _ => panic!("listed"),
    };
    assert!(rows.iter().all(|r| r.file.is_none()), "{rows:?}");
    // Escape closes the window.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(!app(&h).agents_view.open);
}

/// The model picker is searchable: the field above the list takes the
/// keyboard when it opens, keeps the models whose id or provider holds
/// what is typed, says when none does, and a click picks one.
#[test]
fn the_model_picker_filters_by_what_is_typed() {
    use egui::accesskit::Role;
    let mut h = harness(sample());
    wait_for(&mut h, "the sample", |a| a.state.loaded.is_some());
    h.get_by_role_and_label(Role::ComboBox, "Model").click();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("claude-haiku-4-5 · anthropic")
            .is_some()
    );
    assert!(h.query_by_label_contains("gpt-6-astra · openai").is_some());
    // The search field has the keyboard.
    let field = h
        .query_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the search field focused when the list opens");
    field.type_text("haiku");
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("claude-haiku-4-5 · anthropic")
            .is_some()
    );
    assert!(h.query_by_label_contains("gpt-6-astra").is_none());
    assert!(h.query_by_label_contains("claude-sonnet-4-6 ·").is_none());
    h.get_by_label_contains("claude-haiku-4-5 · anthropic")
        .click();
    wait_for(&mut h, "the model picked", |a| {
        a.is_idle()
            && a.state
                .loaded
                .as_ref()
                .map(|l| l.prepared.model.id.as_str())
                == Some("claude-haiku-4-5")
    });
    // Opened again: the search starts empty; nothing matched is said.
    h.get_by_role_and_label(Role::ComboBox, "Model").click();
    h.run_steps(3);
    assert!(h.query_by_label_contains("gpt-6-astra · openai").is_some());
    h.query_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .expect("focused again")
        .type_text("no-such-model");
    h.run_steps(3);
    h.get_by_label("No model matches 'no-such-model'");
}

/// The Agents window is modal, as the open dialog is: the window behind is
/// dimmed and takes no click while it is open; a click outside closes it
/// and does nothing else (the tab under the pointer is not switched).
#[test]
fn the_agents_window_is_modal() {
    use prompt_inspector::ui::command::Command;
    use prompt_inspector::ui::state::Tab;
    let mut h = harness(crate::common::sample());
    h.state_mut().as_mut().unwrap().apply(Command::ShowAgents);
    h.run_steps(4);
    assert!(h.state().as_ref().unwrap().agents_view.open);
    h.get_by_label("Close");
    h.get_by_label("Prompt").click();
    h.run_steps(3);
    let a = h.state().as_ref().unwrap();
    assert!(!a.agents_view.open, "a click outside closes it");
    assert_eq!(a.state.tab, Tab::Fragments, "and reaches nothing behind it");
    // Its Close button closes it too.
    h.state_mut().as_mut().unwrap().apply(Command::ShowAgents);
    h.run_steps(4);
    h.get_by_label("Close").click();
    h.run_steps(2);
    assert!(!h.state().as_ref().unwrap().agents_view.open);
}
