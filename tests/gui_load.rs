//! How the window answers a load that fails: a failed load is shown as
//! one, with its reason; only a session that vanished under a reload is
//! answered with the default session, and the window says so.

use crate::common;
use crate::window;

use common::*;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use prompt_inspector::ui::command::Command;
use window::*;

#[test]
fn a_session_removed_under_a_reload_falls_back_to_the_default_and_says_so() {
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    wait_loaded(&mut h);
    h.get_by_role_and_label(Role::ComboBox, "Session").click();
    h.run_steps(2);
    h.get_by_label("research").click();
    wait_for(&mut h, "the research session", |a| {
        a.is_idle() && a.state.assembly().map(|x| x.session.as_str()) == Some("research")
    });
    std::fs::remove_file(ws.path().join("sessions/research.yaml")).unwrap();
    let k = egui_kittest_key(&Command::Reload);
    h.key_press_modifiers(k.0, k.1);
    wait_for(&mut h, "the reload", |a| {
        a.is_idle() && a.state.assembly().map(|x| x.session.as_str()) != Some("research")
    });
    let state = &app(&h).state;
    assert!(state.error.is_none(), "{:?}", state.error);
    let notice = state.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("no session named 'research'") && notice.contains("showing '"),
        "{notice}"
    );
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("no session named 'research'")
            .is_some()
    );
}

#[test]
fn a_load_that_fails_is_a_failed_load_with_its_reason() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[
            ("workspace.yaml", "profile: hermes\n"),
            ("SOUL.md", "# Soul\n"),
        ],
    );
    let mut h = harness_opening(ws.path().to_path_buf(), egui::vec2(1280.0, 800.0));
    wait_for(&mut h, "the failure", |a| {
        a.is_idle() && a.state.error.is_some()
    });
    let state = &app(&h).state;
    assert!(state.loaded.is_none());
    let e = state.error.clone().unwrap();
    assert!(
        e.starts_with("unknown profile 'hermes' (profiles: layered@"),
        "{e}"
    );
    assert!(
        h.query_all_by_label_contains("unknown profile 'hermes'")
            .next()
            .is_some()
    );
}

fn egui_kittest_key(c: &Command) -> (egui::Modifiers, egui::Key) {
    let k = prompt_inspector::ui::command::Entry::of(c)
        .and_then(|e| e.shortcut)
        .expect("a shortcut");
    (k.modifiers, k.logical_key)
}

/// Escape closes the innermost thing open: the open dialog, then the
/// fragment's detail; opening another folder leaves the old one's state
/// (reload count, DEBUG markers) behind.
#[test]
fn escape_closes_the_innermost_thing_and_another_folder_starts_clean() {
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    wait_loaded(&mut h);
    let id = app(&h).state.assembly().unwrap().fragments[0].id.clone();
    h.state_mut().as_mut().unwrap().apply(Command::Select(id));
    h.run_steps(2);
    let k = egui_kittest_key(&Command::ShowOpenDialog);
    h.key_press_modifiers(k.0, k.1);
    h.run_steps(3);
    assert!(h.query_by_label("Open a workspace folder").is_some());
    // The dialog's field has the keyboard: the first Escape is the field's.
    for _ in 0..3 {
        if h.query_by_label("Open a workspace folder").is_none() {
            break;
        }
        h.key_press(egui::Key::Escape);
        h.run_steps(2);
    }
    assert!(
        h.query_by_label("Open a workspace folder").is_none(),
        "the dialog closed"
    );
    assert!(
        app(&h).state.selected.is_some(),
        "only the innermost thing closed"
    );
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(app(&h).state.selected.is_none(), "then the detail");

    // Markers on and a reload, then another folder.
    let k = egui_kittest_key(&Command::ToggleMarkers);
    h.key_press_modifiers(k.0, k.1);
    let k = egui_kittest_key(&Command::Reload);
    h.key_press_modifiers(k.0, k.1);
    h.run_steps(3);
    wait_loaded(&mut h);
    assert!(app(&h).state.debug_markers && app(&h).state.reloads == 1);
    let other = copy_sample();
    h.state_mut()
        .as_mut()
        .unwrap()
        .open(other.path().canonicalize().unwrap());
    wait_loaded(&mut h);
    let s = &app(&h).state;
    assert_eq!((s.reloads, s.debug_markers), (0, false));
}

/// The tab bar is one row over the whole width: choosing a tab whose view
/// hides the side panel (Traffic, in a narrow window) moves no tab, so a
/// second click lands where the first did.
#[test]
fn the_tabs_stay_where_they_are_whichever_tab_is_chosen() {
    for width in [1024.0, 1280.0, 1920.0] {
        let mut h = harness_sized(sample(), egui::vec2(width, 800.0));
        let at = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| {
            ["Fragments", "Traffic", "Diff"].map(|l| h.get_by_label(l).rect())
        };
        let before = at(&h);
        h.get_by_label("Traffic").click();
        h.run_steps(3);
        assert_eq!(at(&h), before, "at {width} px");
        h.get_by_label("Fragments").click();
        h.run_steps(3);
        assert_eq!(at(&h), before, "at {width} px");
    }
}

/// A capture of `n` requests, each padded to about `pad` bytes.
fn capture_of(path: &std::path::Path, n: usize, pad: usize) {
    use std::io::Write;
    let extra = "x".repeat(pad);
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..n {
        writeln!(
            f,
            r#"{{"schema":1,"id":"{i}","ts_start":"2026-12-01T10:00:00Z","ts_end":"2026-12-01T10:00:01Z","endpoint":"/v1/messages","model":"claude-sonnet-4-6","status":200,"stream":false,"latency_ms":5,"error":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":5}},"request":{{"model":"claude-sonnet-4-6","system":"You are Kestrel.{extra}","messages":[{{"role":"user","content":"hi {i}"}}]}}}}"#
        )
        .unwrap();
    }
}

/// Opening a file while another is read cancels the first read: only the
/// file opened last is ever shown, and Cancel stops a read with nothing
/// shown and the window told so.
#[test]
fn a_capture_opened_during_a_read_replaces_it_and_cancel_stops_one() {
    let dir = tempfile::tempdir().unwrap();
    let (big, small) = (dir.path().join("big.jsonl"), dir.path().join("small.jsonl"));
    capture_of(&big, 8_000, 2_500);
    capture_of(&small, 3, 10);
    let mut h = harness(sample());
    wait_loaded(&mut h);
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    let open = |h: &mut egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>,
                p: &std::path::Path| {
        h.state_mut().as_mut().unwrap().traffic_view.path = p.display().to_string();
        h.run_steps(1);
        h.get_by_label("Open").click();
        h.run_steps(1);
    };
    open(&mut h, &big);
    open(&mut h, &small);
    // Until the small one is shown, nothing else is: the big read's
    // answer (cancelled, or done before it could be) is dropped.
    let shown = |a: &prompt_inspector::ui::App| match &a.traffic_view.result {
        Some(Ok(t)) => Some(t.requests.len()),
        Some(Err(e)) => panic!("{e}"),
        None => None,
    };
    for _ in 0..2_000 {
        h.step();
        let a = app(&h);
        if let Some(n) = shown(a) {
            assert_eq!(n, 3, "the capture opened first was shown");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(shown(app(&h)), Some(3));
    assert!(!app(&h).traffic_view.pending);
    // Cancel: the read stops, nothing of it is shown, and the window says so.
    open(&mut h, &big);
    assert!(app(&h).traffic_view.pending);
    h.run_steps(1);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    let a = app(&h);
    assert!(!a.traffic_view.pending);
    assert_eq!(
        a.state.notice.as_deref(),
        Some("reading the capture: cancelled")
    );
    for _ in 0..200 {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        matches!(shown(app(&h)), Some(3)),
        "the cancelled read's answer was dropped (the small capture stays)"
    );
}

/// Selecting a fragment opens its detail beside the table and moves no
/// row of it (the filter row stays one line, its chips scroll sideways
/// when narrow; it wrapped to two before and moved every row down), and
/// the status bar keeps its one line.
#[test]
fn selecting_a_fragment_moves_no_row_of_the_table() {
    for width in [1024.0, 1280.0] {
        let mut h = harness_sized(sample(), egui::vec2(width, 640.0));
        let at = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| {
            (
                h.get_by_label("agents").rect().top(),
                h.get_by_label("safety").rect().top(),
                h.get_by_label_contains("loaded in").rect().height(),
            )
        };
        let before = at(&h);
        h.get_by_label("soul").click();
        h.run_steps(3);
        assert!(h.state().as_ref().unwrap().state.selected.is_some());
        assert_eq!(at(&h), before, "at {width} px");
    }
}

#[test]
fn the_home_memory_switch_reads_the_agents_user_level_memory() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code");
    let mut h = harness(ws);
    wait_loaded(&mut h);
    assert!(!app(&h).state.user_memory);
    // The listings' layer: the user's entries, and the agent's own in the
    // same block, adding up to the block as sent.
    let l1 = app(&h).state.assembly().unwrap().layers[0].clone();
    assert!(l1.agent_own > 0);
    h.get_by_label_contains(&format!(
        "+ {} of the agent's own in the same block: {} as sent",
        prompt_inspector::engine::thousands(l1.agent_own),
        prompt_inspector::engine::thousands(l1.used + l1.agent_own)
    ));
    let switch = "Home memory (~/.claude/CLAUDE.md)";
    h.get_by_role_and_label(Role::CheckBox, switch).click();
    wait_for(&mut h, "the folder read with the home memory", |a| {
        a.is_idle()
            && a.state.user_memory
            && a.state.loaded.as_ref().is_some_and(|l| {
                // Read, or why not (this machine's home may have none):
                // either way the file was looked for.
                l.assembly.fragments.iter().any(|f| f.id == "user.claude")
                    || l.workspace
                        .diagnostics
                        .iter()
                        .any(|d| d.message.starts_with("--user-memory:"))
            })
    });
    // Off again: not looked for.
    h.get_by_role_and_label(Role::CheckBox, switch).click();
    wait_for(&mut h, "the folder read without it", |a| {
        a.is_idle()
            && !a.state.user_memory
            && a.state.loaded.as_ref().is_some_and(|l| {
                l.workspace
                    .diagnostics
                    .iter()
                    .all(|d| !d.message.starts_with("--user-memory:"))
                    && l.assembly.fragments.iter().all(|f| f.id != "user.claude")
            })
    });
    // A folder of no agent has no such switch.
    let mut h = harness(sample());
    wait_loaded(&mut h);
    assert!(h.query_by_label(switch).is_none());
}

#[test]
fn a_model_picked_in_the_window_is_named_so_in_its_warning() {
    let mut h = harness(sample());
    wait_loaded(&mut h);
    h.get_by_role_and_label(Role::ComboBox, "Model").click();
    h.run_steps(3);
    h.query_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the search field focused when the list opens")
        .type_text("gpt-4o-mini");
    h.run_steps(3);
    h.get_by_label_contains("gpt-4o-mini · openai").click();
    wait_for(&mut h, "the deprecated model picked", |a| {
        a.is_idle()
            && a.state
                .loaded
                .as_ref()
                .map(|l| l.prepared.model.id.as_str())
                == Some("gpt-4o-mini")
    });
    let diags = app(&h)
        .state
        .loaded
        .as_ref()
        .unwrap()
        .prepared
        .diagnostics
        .clone();
    let w = diags
        .iter()
        .find(|d| d.message.contains("model 'gpt-4o-mini' is deprecated"))
        .expect("a warning about the deprecated model");
    // Not `--model`: no flag was given, the window's picker named it.
    assert_eq!(w.file, "the model picked in the window", "{w}");
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::SetTab(prompt_inspector::ui::state::Tab::Problems));
    h.run_steps(3);
    assert!(h.query_by_label_contains("--model").is_none());
    assert!(
        h.query_all_by_label_contains("the model picked in the window")
            .next()
            .is_some()
    );
}

/// The reason, what the table is for, stays in sight at every width: at
/// 1024 px (with the detail open or not) the table gives up the layer,
/// priority and source columns (in the detail) and then the full count,
/// never the reason; a wide window keeps every column.
#[test]
fn the_tables_reason_column_is_in_sight_at_every_width() {
    let heads = |h: &egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>| {
        [
            "status", "tokens", "kept", "layer", "prio", "source", "reason",
        ]
        .into_iter()
        .filter(|l| {
            h.query_all_by_label(l)
                .any(|n| n.rect().right() <= h.ctx.content_rect().right())
        })
        .collect::<Vec<_>>()
    };
    let mut h = harness_sized(sample(), egui::vec2(1920.0, 1080.0));
    assert_eq!(
        heads(&h),
        [
            "status", "tokens", "kept", "layer", "prio", "source", "reason"
        ]
    );
    let h3 = harness_sized(sample(), egui::vec2(1280.0, 800.0));
    assert_eq!(heads(&h3), ["status", "tokens", "kept", "source", "reason"]);
    let mut h2 = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    assert_eq!(heads(&h2), ["status", "tokens", "kept", "reason"]);
    // A row's reason is drawn in the table, not only in the detail.
    let reason = app(&h2)
        .state
        .assembly()
        .unwrap()
        .fragments
        .iter()
        .find(|f| f.id == "soul")
        .unwrap()
        .reason
        .clone();
    let right = h2.ctx.content_rect().right();
    assert!(
        h2.query_all_by_label(&reason)
            .any(|n| n.rect().left() < right - 100.0),
        "{reason}"
    );
    h2.get_by_label("soul").click();
    h2.run_steps(3);
    assert_eq!(heads(&h2), ["status", "kept", "reason"]);
    h.get_by_label("soul").click();
    h.run_steps(3);
    assert!(heads(&h).contains(&"reason"));
}

/// A request selected (a click elsewhere, the last one shown) is in sight
/// in the Traffic table, whichever detail tab then opens under it: at
/// 1024×640 the table showed #3–#6 while the detail showed #8's headers.
#[test]
fn the_selected_request_stays_in_sight_in_the_traffic_table() {
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-headers/capture.jsonl");
    let before = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332/capture.jsonl");
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    // Another capture first, its request #8 selected; then this one, where
    // #8 is chosen before any other row (the detail pane opens under the
    // table as it scrolls).
    for c in [&before, &capture] {
        h.state_mut().as_mut().unwrap().traffic_view.path = c.display().to_string();
        h.get_by_label("Open").click();
        wait_for(&mut h, "the traffic", |a| {
            !a.traffic_view.pending
                && a.traffic_view.result.is_some()
                && a.traffic_view.source.as_deref() == Some(c)
        });
        h.run_steps(3);
        h.state_mut()
            .as_mut()
            .unwrap()
            .apply(Command::SelectRequest {
                capture: Some(c.to_path_buf()),
                index: 8,
            });
        wait_for(&mut h, "the request's body", |a| {
            a.traffic_view.body.is_some()
        });
        h.run_steps(4);
    }
    for tab in ["Headers", "Response", "Parts"] {
        h.get_by_label(tab).click();
        h.run_steps(4);
        let header = h.get_by_label("reason").rect();
        let row = h
            .query_all_by_label("#8")
            .map(|n| n.rect())
            .find(|r| r.top() > header.bottom() - 1.0 && r.top() < header.bottom() + 200.0)
            .unwrap_or_else(|| panic!("#8 is not in the table after {tab}"));
        let timeline = h.get_by_label_contains("Cache entries over time").rect();
        assert!(
            row.bottom() <= timeline.top(),
            "{tab}: {row:?} under {timeline:?}"
        );
    }
}

/// The "Runs in" picker sets the folder an agent runs in, as `--workdir`
/// does: picking a subfolder that holds the agent's memory file sends that
/// file; opening another folder forgets the choice. A folder of no agent
/// has no such picker.
#[test]
fn runs_in_picks_the_folder_the_agent_runs_in() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", "# Root\n\nBe brief.\n"),
            (
                "packages/api/CLAUDE.md",
                "# API\n\nUse the shared client.\n",
            ),
        ],
    );
    let mut h = harness(dir.path().to_path_buf());
    wait_loaded(&mut h);
    let status = |a: &prompt_inspector::ui::App, source: &str| {
        let l = a.state.loaded.as_ref().unwrap();
        l.assembly
            .fragments
            .iter()
            .find(|f| f.source == source)
            .map(|f| f.status)
    };
    assert_ne!(
        status(app(&h), "packages/api/CLAUDE.md"),
        Some(prompt_inspector::engine::Status::Kept)
    );
    h.get_by_label("Runs in").click();
    h.run();
    h.get_by_label("packages/api/").click();
    wait_for(&mut h, "the folder read as run in packages/api", |a| {
        a.is_idle()
            && a.state.workdir.as_deref() == Some("packages/api")
            && status(a, "packages/api/CLAUDE.md") == Some(prompt_inspector::engine::Status::Kept)
    });
    // Another folder, of no agent: the choice is not carried over, and it
    // has no such picker.
    h.state_mut()
        .as_mut()
        .unwrap()
        .open(sample().canonicalize().unwrap());
    wait_loaded(&mut h);
    assert!(app(&h).state.workdir.is_none());
    assert!(h.query_by_label("Runs in").is_none());
}
