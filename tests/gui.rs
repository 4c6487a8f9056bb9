//! GUI behaviour with egui_kittest: the real app, real workspaces, queried by
//! label like a user would (no display, no GPU).

use crate::common;
use crate::fake;
use crate::window;
use std::time::{Duration, Instant};

use common::*;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use prompt_inspector::engine::Status;
use prompt_inspector::ui::App;
use prompt_inspector::ui::command::Command;
use prompt_inspector::ui::state::Tab;
use window::*;

fn status_of(h: &Harness<'static, Option<App>>, id: &str) -> Status {
    app(h)
        .state
        .assembly()
        .unwrap()
        .fragments
        .iter()
        .find(|f| f.id == id)
        .unwrap()
        .status
}

#[test]
fn opens_sample_and_finds_a_fragment_row() {
    let mut h = harness(sample());
    h.get_by_label("skill.typescript");
    h.get_by_label_contains("Layer 3 · capabilities");
    // Clicking a row selects it and shows its detail.
    h.get_by_label("memory.project_context").click();
    h.run_steps(3);
    assert_eq!(
        app(&h).state.selected.as_deref(),
        Some("memory.project_context")
    );
    h.get_by_label_contains("Rendered text");
}

#[test]
fn total_budget_slider_drops_a_kept_fragment() {
    let mut h = harness(sample());
    assert_eq!(status_of(&h, "tool.file_read"), Status::Kept);
    let slider = h.get_by_role_and_label(Role::SpinButton, "Total budget");
    slider.set_value_accesskit(1300.0);
    h.run_steps(3);
    assert_eq!(app(&h).state.budget.total, 1300);
    assert_eq!(
        status_of(&h, "tool.file_read"),
        Status::Dropped,
        "the tool is dropped when the budget shrinks"
    );
    // The table follows: the row's status cell reads "dropped".
    assert!(
        !h.query_all_by_label("dropped")
            .collect::<Vec<_>>()
            .is_empty()
    );
    // Reset brings the workspace value back.
    h.get_by_label("Reset to workspace values").click();
    h.run_steps(3);
    assert_eq!(status_of(&h, "tool.file_read"), Status::Kept);
}

#[test]
fn debug_markers_toggle_shows_markers_in_prompt_view() {
    let mut h = harness(sample());
    h.get_by_label("Prompt").click();
    h.run_steps(3);
    assert!(h.query_by_label_contains("[[DEBUG:").is_none());
    h.get_all_by_role_and_label(Role::CheckBox, "DEBUG markers")
        .next()
        .unwrap()
        .click();
    h.run_steps(4);
    assert!(app(&h).state.debug_markers);
    h.get_by_label_contains("[[DEBUG:soul]]");
}

#[test]
fn clicking_a_bar_segment_selects_the_fragment_and_shows_detail() {
    let mut h = harness(sample());
    // Find the segment of `soul` in layer 1's bar and click in its middle.
    let a = app(&h).state.assembly().unwrap().clone();
    assert!(a.fragments.iter().any(|f| f.id == "soul"));
    // The layer-1 caption (its numbers depend on where the workspace lives:
    // SOUL.md interpolates {{workspaceDir}}).
    let caption = format!(
        "{} of {} tokens used",
        prompt_inspector::ui::thousands(a.layers[0].used),
        prompt_inspector::ui::thousands(a.layers[0].available)
    );
    let bar_y = h.get_by_label_contains(&caption).rect().bottom() + 11.0;
    let left = h.get_by_label_contains(&caption).rect().left();
    h.hover_at(egui::pos2(left + 20.0, bar_y));
    h.run_steps(2);
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(left + 20.0, bar_y),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Default::default(),
    });
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(left + 20.0, bar_y),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Default::default(),
    });
    h.run_steps(3);
    assert_eq!(app(&h).state.selected.as_deref(), Some("soul"));
    h.get_by_label_contains("SOUL.md:1");
    h.get_by_label_contains("Tokens");
}

#[test]
fn live_reload_after_atomic_save_and_broken_yaml_shows_a_problem() {
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.get_by_label("user").click();
    h.run_steps(2);
    // An editor's atomic save: write a temp file, rename it over USER.md.
    let tmp = ws.path().join(".USER.md.tmp");
    std::fs::write(
        &tmp,
        "## 关于用户\n\n- 名称：苏雄\n- NEW-LINE-FROM-EDITOR\n",
    )
    .unwrap();
    std::fs::rename(&tmp, ws.path().join("USER.md")).unwrap();
    let start = Instant::now();
    loop {
        h.step();
        let text = app(&h).state.assembly().and_then(|a| {
            a.fragments
                .iter()
                .find(|f| f.id == "user")
                .map(|f| f.text.to_string())
        });
        if text.is_some_and(|t| t.contains("NEW-LINE-FROM-EDITOR")) && app(&h).is_idle() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the watcher did not pick up the save"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        app(&h).state.selected.as_deref(),
        Some("user"),
        "selection survives the reload"
    );
    // A broken YAML file: one diagnostic, the app keeps running and the rest stays.
    std::fs::write(
        ws.path().join("fragments/memory.yaml"),
        "- id: memory.x\n  layer: [4\n",
    )
    .unwrap();
    let start = Instant::now();
    loop {
        h.step();
        let has = app(&h).state.loaded.as_ref().is_some_and(|l| {
            l.workspace
                .diagnostics
                .iter()
                .any(|d| d.file == "fragments/memory.yaml")
        });
        if has && app(&h).is_idle() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the broken file was not reported"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // One error, beside the sample's own two cache breakers.
    let errors = app(&h)
        .state
        .problems
        .iter()
        .filter(|p| p.kind == prompt_inspector::engine::problems::Kind::Error)
        .count();
    assert_eq!(errors, 1);
    let n = app(&h).state.problems.len();
    h.get_by_label_contains(&format!("Problems ({n})")).click();
    h.run_steps(3);
    assert_eq!(app(&h).state.tab, Tab::Problems);
    h.get_by_label_contains("fragments/memory.yaml:2");
    assert!(
        app(&h)
            .state
            .assembly()
            .unwrap()
            .fragments
            .iter()
            .any(|f| f.id == "soul")
    );
}

#[test]
fn session_selector_changes_enabled_tools() {
    let mut h = harness(sample());
    assert_eq!(status_of(&h, "tool.web_search"), Status::Disabled);
    h.get_by_role_and_label(Role::ComboBox, "Session").click();
    h.run_steps(2);
    h.get_by_label("research").click();
    let start = Instant::now();
    while app(&h).state.assembly().map(|a| a.session.as_str()) != Some("research")
        || !app(&h).is_idle()
    {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_ne!(status_of(&h, "tool.web_search"), Status::Disabled);
}

/// The prediction is computed off the UI thread: steps until it is current.
fn cost(h: &mut Harness<'static, Option<App>>) -> f64 {
    let start = Instant::now();
    loop {
        h.step();
        let a = h.state_mut().as_mut().unwrap();
        if a.prediction().is_some() && a.prediction_is_current() {
            return a.prediction().unwrap().total_cost_usd;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no prediction");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn cache_panel_shows_the_requests_and_follows_the_slider() {
    let mut h = harness(sample());
    h.get_by_label("Cache").click();
    h.run_steps(3);
    let _ = cost(&mut h);
    h.run_steps(2);
    h.get_by_label_contains("request 1 · turn 1");
    h.get_by_label_contains("request 5 · turn 3");
    h.get_by_label_contains("Strategies over the same requests");
    let before = cost(&mut h);
    h.get_by_role_and_label(Role::SpinButton, "Total budget")
        .set_value_accesskit(1300.0);
    h.run_steps(3);
    let after = cost(&mut h);
    assert!(
        after < before,
        "a smaller prompt costs less: {before} → {after}"
    );
    // The provider selector switches the predictor.
    h.get_by_label("OpenAI").click();
    h.run_steps(3);
    let _ = cost(&mut h);
    let p = h
        .state_mut()
        .as_mut()
        .unwrap()
        .prediction()
        .unwrap()
        .clone();
    assert_eq!(p.provider, prompt_inspector::engine::Provider::Openai);
}

#[test]
fn test_run_shows_progress_can_be_cancelled_and_shows_the_table() {
    let server = fake::FakeServer::start("");
    // Every request takes a while, so the run can be watched and cancelled.
    for _ in 0..7 {
        server.push(fake::Scripted::Delay(Duration::from_millis(700)));
    }
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.get_by_label("Test run").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().test_run.base_url = server.url.clone();
    h.get_by_label("Start run").click();
    h.run_steps(2);
    assert!(app(&h).test_run.is_running());
    let start = Instant::now();
    while !app(&h).test_run.status.starts_with("sending") {
        h.step();
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no progress shown"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    h.run_steps(1);
    h.get_by_label_contains("sending 1/7");
    // Wait for the first result, then cancel.
    let start = Instant::now();
    while app(&h).test_run.done == 0 {
        h.step();
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no result arrived"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    h.get_by_label("Cancel run").click();
    let start = Instant::now();
    while app(&h).test_run.is_running() {
        h.step();
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "cancel did not stop the run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run_steps(2);
    let record = app(&h).test_run.record.clone().unwrap();
    assert!(record.cancelled);
    assert!(
        !record.rows.is_empty() && record.rows.len() < 7,
        "{} rows",
        record.rows.len()
    );
    h.get_by_label_contains("cancelled:");
    h.get_by_label("read (pred / real)");
    h.get_by_label("request 1 · turn 1");
}

#[test]
fn snapshots_and_the_diff_view_show_the_change_and_the_invalidated_breakpoint() {
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    wait_for(&mut h, "Ctrl+S to save a snapshot", |a| {
        a.snapshots.len() == 1
    });
    // Edit layer 1 (atomic save) and wait for the reload.
    let soul = std::fs::read_to_string(ws.path().join("SOUL.md"))
        .unwrap()
        .replacen("SuxiongBot", "SuxiongBot-2", 1);
    std::fs::write(ws.path().join(".SOUL.tmp"), soul).unwrap();
    std::fs::rename(ws.path().join(".SOUL.tmp"), ws.path().join("SOUL.md")).unwrap();
    let start = Instant::now();
    loop {
        h.step();
        let ok = app(&h).state.assembly().is_some_and(|a| {
            a.fragments
                .iter()
                .any(|f| f.id == "soul" && f.text.contains("SuxiongBot-2"))
        });
        if ok && app(&h).is_idle() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no reload");
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run_steps(2);
    h.get_by_label_contains("changed since snapshot");
    h.get_by_label("Diff").click();
    h.run_steps(2);
    h.get_by_label("Save snapshot (Ctrl+S)").click_accesskit();
    wait_for(&mut h, "a second snapshot", |a| a.snapshots.len() == 2);
    let snaps = app(&h).snapshots.clone();
    assert_eq!(snaps.len(), 2, "{:?} {:?}", snaps, app(&h).state.error);
    {
        let a = h.state_mut().as_mut().unwrap();
        a.diff_view.a = prompt_inspector::ui::diff::Side::Snapshot(snaps[1].clone());
        a.diff_view.b = prompt_inspector::ui::diff::Side::Snapshot(snaps[0].clone());
        a.diff_view.dirty = true;
    }
    wait_for(&mut h, "the diff", |a| {
        !a.diff_view.pending && !a.diff_view.dirty && a.diff_view.result.is_some()
    });
    h.get_by_label_contains("fragment soul (layer 1): changed");
    h.get_by_label_contains("breakpoint 1 at system block 1 (layer 1): invalidated");
    h.get_by_label_contains("+ │ 我是 **SuxiongBot-2**");
}

#[test]
fn every_menu_entry_of_the_command_table_is_in_its_menu_and_shortcuts_apply() {
    use prompt_inspector::ui::command::{ENTRIES, Menu};
    let mut h = harness(sample());
    // Every entry of the table, by its label and shortcut, in its menu.
    for menu in Menu::ALL {
        h.get_by_label(menu.title()).click();
        h.run_steps(3);
        for e in ENTRIES.iter().filter(|e| e.menu == menu) {
            let text = e.menu_text(&h.ctx);
            assert!(
                h.query_by_label(&text).is_some(),
                "{text:?} in the {} menu",
                menu.title()
            );
        }
        h.get_by_label(menu.title()).click();
        h.run_steps(3);
    }
    // Ctrl+D: the markers, from the table's shortcut.
    let key = |command: &Command| {
        ENTRIES
            .iter()
            .find(|e| e.command == *command)
            .and_then(|e| e.shortcut)
            .unwrap()
    };
    let markers = app(&h).state.debug_markers;
    let k = key(&Command::ToggleMarkers);
    h.key_press_modifiers(k.modifiers, k.logical_key);
    h.run_steps(3);
    assert_eq!(app(&h).state.debug_markers, !markers);
    // Ctrl+F: back to the fragment table from another tab.
    h.get_by_label_contains("Problems (").click();
    h.run_steps(3);
    assert_eq!(app(&h).state.tab, Tab::Problems);
    let k = key(&Command::FindFragment);
    h.key_press_modifiers(k.modifiers, k.logical_key);
    h.run_steps(3);
    assert_eq!(app(&h).state.tab, Tab::Fragments);
    // Ctrl+R: a reload.
    let k = key(&Command::Reload);
    h.key_press_modifiers(k.modifiers, k.logical_key);
    h.run_steps(3);
    assert_eq!(app(&h).state.reloads, 1);
    wait_loaded(&mut h);
    // Ctrl+O: the open dialog.
    assert!(h.query_by_label("Open a workspace folder").is_none());
    let k = key(&Command::ShowOpenDialog);
    h.key_press_modifiers(k.modifiers, k.logical_key);
    h.run_steps(3);
    h.get_by_label("Open a workspace folder");
    // Its field has the keyboard with the current folder selected: typing
    // replaces it.
    let before = h.state().as_ref().unwrap().open_path().to_string();
    assert!(!before.is_empty());
    h.event(egui::Event::Text("/elsewhere".into()));
    h.run_steps(2);
    assert_eq!(h.state().as_ref().unwrap().open_path(), "/elsewhere");
    // Modal: Escape closes it, and the window behind is untouched.
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert!(h.query_by_label("Open a workspace folder").is_none());
}

#[test]
fn a_typed_file_is_not_a_folder_and_a_dropped_file_opens_its_folder() {
    let mut h = harness(sample());
    let ws = copy_sample();
    let file = ws.path().join("SOUL.md");
    // The worker tells whether a path is a folder; the dialog says so.
    let apply = |h: &mut Harness<'static, Option<App>>, c: Command| {
        h.state_mut().as_mut().unwrap().apply(c);
    };
    apply(&mut h, Command::ShowOpenDialog);
    apply(&mut h, Command::Open(file.clone()));
    let note = format!("There is no folder at {}.", file.display());
    let start = Instant::now();
    while h.query_by_label(&note).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited for the note"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    // A file dropped onto the window opens its folder.
    apply(&mut h, Command::OpenDropped(file));
    let root = ws.path().canonicalize().unwrap();
    wait_for(&mut h, "the dropped file's folder", |a| {
        a.state.root.as_ref() == Some(&root) && a.is_idle() && a.state.loaded.is_some()
    });
}

/// A run that goes on to another session is planned by the worker: a
/// second session that does not assemble ends the run with the reason,
/// nothing sent.
#[test]
fn a_test_run_to_a_missing_session_is_refused_by_the_worker() {
    let server = fake::FakeServer::start("");
    let ws = copy_sample();
    let mut h = harness(ws.path().to_path_buf());
    h.get_by_label("Test run").click();
    h.run_steps(2);
    {
        let app = h.state_mut().as_mut().unwrap();
        app.test_run.base_url = server.url.clone();
        app.test_run.plan = prompt_inspector::ui::test_run::PlanKind::ThenSession;
        app.test_run.then_session = "no-such-session".into();
    }
    h.get_by_label("Start run").click();
    h.run_steps(2);
    let start = Instant::now();
    while app(&h).test_run.is_running() || app(&h).test_run.status.is_empty() {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(20), "never refused");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(app(&h).test_run.status, "choose the second session");
    assert!(app(&h).test_run.record.is_none());
}

#[test]
fn arrow_keys_move_the_fragment_tables_selection() {
    let mut h = harness(sample());
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = Tab::Fragments;
    h.run_steps(2);
    let order: Vec<String> = {
        let a = app(&h);
        let loaded = a.state.loaded.as_ref().unwrap();
        a.table_view
            .visible_rows(&loaded.assembly)
            .into_iter()
            .map(|i| loaded.assembly.fragments[i].id.clone())
            .collect()
    };
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(
        app(&h).state.selected.as_deref(),
        Some(order[0].as_str()),
        "the first row"
    );
    h.key_press(egui::Key::ArrowDown);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(app(&h).state.selected.as_deref(), Some(order[2].as_str()));
    h.key_press(egui::Key::ArrowUp);
    h.run_steps(2);
    assert_eq!(app(&h).state.selected.as_deref(), Some(order[1].as_str()));
}

/// One Problems list: errors first, then warnings, then cache breakers;
/// the tab and the status bar count the same; a location selects a
/// fragment of that file (never another file's of the same id); a file
/// that could not be read has nothing to select; filters by kind.
#[test]
fn the_problems_list_counts_once_selects_the_right_fragment_and_filters_by_kind() {
    let dir = copy_sample();
    write_ws(
        dir.path(),
        &[
            (
                "fragments/broken.yaml",
                "- id: broken\n  layer: 3\n  content: [unclosed\n",
            ),
            (
                "fragments/bad.yaml",
                "- id: soul\n  layer: 9\n  content: dup\n- id: bad.extra\n  layer: 3\n  content: x\n  colour: red\n",
            ),
        ],
    );
    let mut h = harness(dir.path().to_path_buf());
    let problems = app(&h).state.problems.clone();
    let n = problems.len();
    assert!(n >= 4, "{problems:?}");
    let kinds: Vec<_> = problems.iter().map(|p| p.kind).collect();
    let mut sorted = kinds.clone();
    sorted.sort();
    assert_eq!(kinds, sorted, "errors, then warnings, then cache breakers");
    h.get_by_label_contains(&format!("● {n} problems")).click();
    h.run_steps(3);
    assert_eq!(app(&h).state.tab, Tab::Problems);
    h.get_by_label_contains(&format!("Problems ({n})"));
    // bad.yaml's `soul` (layer 9) was skipped: its error selects nothing,
    // never SOUL.md's fragment of the same id; the warning about the next
    // fragment's key selects that fragment.
    let skipped = problems
        .iter()
        .find(|p| p.file == "fragments/bad.yaml" && p.message.contains("layer 9"))
        .unwrap();
    assert_eq!(skipped.fragment, None);
    let bad = problems
        .iter()
        .find(|p| p.file == "fragments/bad.yaml" && p.message.contains("colour"))
        .unwrap();
    assert_eq!(bad.fragment.as_deref(), Some("bad.extra"));
    h.get_by_label(&bad.location()).click();
    h.run_steps(3);
    let sel = app(&h).state.selected.clone().unwrap();
    let source = &app(&h)
        .state
        .assembly()
        .unwrap()
        .fragments
        .iter()
        .find(|f| f.id == sel)
        .unwrap()
        .source;
    assert_eq!(source, "fragments/bad.yaml");
    // broken.yaml gave no fragment: nothing to select.
    let broken = problems
        .iter()
        .find(|p| p.file == "fragments/broken.yaml")
        .unwrap();
    assert_eq!(broken.fragment, None);
    // Hiding the cache breakers hides their rows.
    let breakers = problems
        .iter()
        .filter(|p| p.kind == prompt_inspector::engine::problems::Kind::CacheBreaker)
        .count();
    assert!(breakers > 0);
    h.get_by_label_contains("a timestamp (");
    h.get_by_label_contains(&format!("{breakers} cache breaker"))
        .click();
    h.run_steps(3);
    assert!(h.query_by_label_contains("a timestamp (").is_none());
}

/// Empty states and feedback: an empty folder says what a workspace needs
/// and offers the sample; a path that does not exist is one sentence and
/// is not remembered; Start is off without a key, saying why; Ctrl+S says
/// which snapshot it saved.
#[test]
fn empty_states_and_feedback_say_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path().to_path_buf());
    h.get_by_label("Nothing to assemble in this folder yet");
    h.get_by_label_contains("A workspace needs at least one file");
    h.get_by_label("Open the sample workspace");
    // Nothing there: one sentence, not in Recent.
    let nowhere = dir.path().join("nowhere");
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::Open(nowhere.clone()));
    wait_for(&mut h, "the folder check", |a| {
        a.state.error.is_some() || a.open_note().is_some()
    });
    let said = app(&h)
        .state
        .error
        .clone()
        .or(app(&h).open_note().map(str::to_string))
        .unwrap();
    assert_eq!(
        said,
        format!("There is no folder at {}.", nowhere.display())
    );
    assert!(!app(&h).state.recent.contains(&nowhere));
    // Start is off without a key or a base URL.
    if std::env::var("ANTHROPIC_API_KEY").is_err() {
        h.state_mut()
            .as_mut()
            .unwrap()
            .apply(Command::SetTab(Tab::Run));
        h.run_steps(3);
        h.get_by_label_contains("Start is off: no key: type one, set ANTHROPIC_API_KEY");
    }
    // Ctrl+S: the snapshot's name in the status bar.
    let ws = copy_sample();
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::Open(ws.path().to_path_buf()));
    let root = ws.path().canonicalize().unwrap();
    wait_for(&mut h, "the sample's copy", |a| {
        a.state.root.as_deref() == Some(root.as_path()) && a.state.loaded.is_some() && a.is_idle()
    });
    h.state_mut().as_mut().unwrap().apply(Command::SaveSnapshot);
    wait_for(&mut h, "the snapshot", |a| {
        a.state.notice.is_some() || a.state.error.is_some()
    });
    assert_eq!(app(&h).state.error, None);
    let n = app(&h).state.notice.clone().unwrap();
    assert!(
        n.starts_with("Snapshot saved: ") && n.contains(".json"),
        "{n}"
    );
    h.get_by_label(&n);
}

/// At 1024×640 every tab is reachable with the mouse: the side panels give
/// way and the tab bar wraps.
#[test]
fn every_tab_is_reachable_in_a_1024_by_640_window() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    for (label, tab) in [
        ("Prompt", Tab::Prompt),
        ("Cache", Tab::Cache),
        ("Test run", Tab::Run),
        ("Traffic", Tab::Traffic),
        ("Diff", Tab::Diff),
        ("Fragments", Tab::Fragments),
    ] {
        h.get_by_role_and_label(Role::Button, label).click();
        h.run_steps(3);
        assert_eq!(app(&h).state.tab, tab, "{label}");
    }
    h.get_by_label_contains("Problems (").click();
    h.run_steps(3);
    assert_eq!(app(&h).state.tab, Tab::Problems);
}

/// The budget lanes: the upper lane is what the block sends (its end is the
/// layer's `used`, never past the available line unless it overflows), the
/// lower lane what trimming cut and what was dropped, each a labelled part
/// a click selects.
#[test]
fn the_budget_lanes_keep_sent_text_inside_the_line_and_show_what_was_cut_apart() {
    use prompt_inspector::ui::lanes::{self, Part};
    let mut h = harness(sample());
    let slider = h.get_by_role_and_label(Role::SpinButton, "Total budget");
    slider.set_value_accesskit(1300.0);
    h.run_steps(3);
    let a = app(&h).state.assembly().unwrap().clone();
    let mut cut_somewhere = false;
    for l in &a.layers {
        let x = lanes::lanes(&a, l);
        let sent_end = x.sent.last().map_or(0, |s| s.end());
        assert_eq!(
            sent_end, l.used,
            "layer {}: the upper lane is the block",
            l.layer
        );
        if l.overflow == 0 {
            assert!(
                sent_end <= l.available,
                "layer {} runs past its line",
                l.layer
            );
            assert_eq!(x.free, l.available - l.used);
        }
        let cut: u64 = x.cut.iter().map(|s| s.tokens).sum();
        let removed: u64 = a
            .fragments
            .iter()
            .filter(|f| f.layer == l.layer)
            .map(|f| f.tokens - f.kept_tokens)
            .sum();
        assert_eq!(
            cut, removed,
            "layer {}: the lower lane is what was cut",
            l.layer
        );
        for s in &x.cut {
            let Part::Fragment(f) = s.part else {
                panic!("only fragments are cut")
            };
            cut_somewhere = true;
            assert!(f.kept_tokens < f.tokens);
        }
        // In order: no part of the upper lane overlaps the next.
        for w in x.sent.windows(2) {
            assert_eq!(w[0].end(), w[1].start);
        }
    }
    assert!(cut_somewhere, "a 1,300-token budget cuts something");
    // The dropped tool is a part of the lower lane, found by its label.
    let f = a
        .fragments
        .iter()
        .find(|f| f.id == "tool.file_read")
        .unwrap();
    assert_eq!(f.status, Status::Dropped);
    let label = format!(
        "tool.file_read: {} tokens dropped",
        prompt_inspector::ui::thousands(f.tokens)
    );
    h.get_by_label(&label).click();
    h.run_steps(3);
    assert_eq!(app(&h).state.selected.as_deref(), Some("tool.file_read"));
    // A kept fragment is in the upper lane under its own label.
    let soul = a.fragments.iter().find(|f| f.id == "soul").unwrap();
    h.get_by_label(&format!(
        "soul: {} tokens sent (kept)",
        prompt_inspector::ui::thousands(soul.kept_tokens)
    ));
}

/// The prompt view wraps long lines at its width (a continuation marked
/// `↪`) and scrolls a fragment selected elsewhere into view.
#[test]
fn the_prompt_view_wraps_long_lines_and_scrolls_to_the_selected_fragment() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    h.get_by_label("Prompt").click();
    h.run_steps(4);
    assert!(
        h.query_all_by_label("↪").next().is_some(),
        "a long line of the sample wraps at 1024 px"
    );
    let a = app(&h).state.assembly().unwrap().clone();
    let last = prompt_inspector::ui::prompt::lines(&a, 0)
        .into_iter()
        .rev()
        .find(|l| l.first)
        .and_then(|l| l.fragment)
        .unwrap();
    assert!(
        h.query_by_label(&last).is_none(),
        "{last} starts below the first screen"
    );
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::Select(last.clone()));
    h.run_steps(4);
    assert!(
        h.query_all_by_label(&last).next().is_some(),
        "the view scrolled to {last}"
    );
}

/// A fragment selected from elsewhere (here the command the Problems tab
/// and the Prompt's gutter push) is scrolled into view in the fragment
/// table, at 1024 px with the detail panel open.
#[test]
fn a_fragment_selected_elsewhere_is_scrolled_into_view_in_the_table() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = Tab::Fragments;
    h.run_steps(3);
    let last = {
        let a = app(&h);
        let loaded = a.state.loaded.as_ref().unwrap();
        let rows = a.table_view.visible_rows(&loaded.assembly);
        loaded.assembly.fragments[*rows.last().unwrap()].id.clone()
    };
    let in_table = |h: &Harness<'static, Option<App>>| {
        h.query_all_by_label(&last)
            .any(|n| n.rect().left() < 600.0 && n.rect().bottom() <= 640.0)
    };
    assert!(!in_table(&h), "{last} is below the first screen");
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::Select(last.clone()));
    h.run_steps(5);
    assert!(in_table(&h), "the table scrolled to {last}");
}

/// At 1280 px the fragment table shows status and reason; a column the
/// user widens past the window scrolls sideways, and then the id column
/// stays where it is; scrolled down, the ids follow the rows.
#[test]
fn the_fragment_tables_id_column_is_frozen_while_the_rest_scrolls() {
    let mut h = harness_sized(sample(), egui::vec2(1280.0, 520.0));
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = Tab::Fragments;
    h.run_steps(3);
    let first = {
        let a = app(&h);
        let loaded = a.state.loaded.as_ref().unwrap();
        let rows = a.table_view.visible_rows(&loaded.assembly);
        loaded.assembly.fragments[rows[0]].id.clone()
    };
    let id_x = h.get_by_label(&first).rect().left();
    let status = h.get_by_role_and_label(Role::Button, "status").rect();
    let reason = h.get_by_role_and_label(Role::Button, "reason").rect();
    assert!(status.left() > id_x, "status beside the id");
    assert!(
        reason.right() < 1280.0,
        "the reason column is on screen at 1280 px"
    );
    assert!(!app(&h).table_view.columns_overflow);
    // The source column widened by its edge, 500 points to the right.
    let source = h.get_by_role_and_label(Role::Button, "source").rect();
    let edge = egui::pos2(reason.left() - 4.0, source.center().y);
    h.hover_at(edge);
    h.run_steps(2);
    let press = |pressed: bool, pos: egui::Pos2| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: Default::default(),
    };
    h.event(press(true, edge));
    h.run_steps(2);
    for step in 1..=10 {
        h.hover_at(edge + egui::vec2(50.0 * step as f32, 0.0));
        h.run_steps(1);
    }
    h.event(press(false, edge + egui::vec2(500.0, 0.0)));
    h.run_steps(4);
    assert!(
        app(&h).table_view.columns_overflow,
        "widened past the window"
    );
    let reason = h.get_by_role_and_label(Role::Button, "reason").rect();
    assert!(reason.left() > 1280.0 - 100.0, "{reason:?}");
    let wheel = |h: &mut Harness<'static, Option<App>>, at: egui::Pos2, d: egui::Vec2| {
        h.hover_at(at);
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: d,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::SHIFT,
        });
        h.run_steps(6);
    };
    let over = egui::pos2(status.center().x, status.bottom() + 40.0);
    wheel(&mut h, over, egui::vec2(0.0, -600.0));
    let moved = h
        .get_by_role_and_label(Role::Button, "reason")
        .rect()
        .left();
    assert!(
        moved < reason.left() - 50.0,
        "the columns scrolled sideways ({} → {moved})",
        reason.left()
    );
    assert_eq!(
        h.get_by_label(&first).rect().left(),
        id_x,
        "the id column stayed"
    );
    // Down, the wheel over the columns: the ids follow the rows.
    h.hover_at(over);
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -2000.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(8);
    let y = app(&h).table_view.scroll_y;
    assert!(y > 100.0, "the rows scrolled ({y})");
    assert!(
        h.query_by_label(&first).is_none(),
        "the first id scrolled away with its row"
    );
}

/// In a narrow window the Traffic, Diff and Test run tabs take the whole
/// width: the budget controls show beside the views of fragments only.
#[test]
fn a_narrow_window_gives_the_traffic_tab_the_whole_width() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    assert!(h.query_all_by_label("Total budget").next().is_some());
    for tab in ["Traffic", "Diff", "Test run"] {
        h.get_by_label(tab).click();
        h.run_steps(3);
        assert!(
            h.query_all_by_label("Total budget").next().is_none(),
            "{tab}"
        );
    }
    h.get_by_label("Fragments").click();
    h.run_steps(3);
    assert!(h.query_all_by_label("Total budget").next().is_some());
}

/// At 1024 px with the detail panel open, no figure of the fragment table
/// runs under the panel nor shows its first digits alone (265 read as
/// "26"): the table keeps the status, the kept tokens and the reason.
#[test]
fn a_figure_cut_by_the_tables_edge_is_never_shown_in_part() {
    let mut h = harness_sized(sample(), egui::vec2(1024.0, 640.0));
    wait_loaded(&mut h);
    h.state_mut().as_mut().unwrap().state.tab = Tab::Fragments;
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(Command::Select("memory".into()));
    h.run_steps(4);
    let panel = h
        .get_by_label("Rendered text (what the model receives)")
        .rect()
        .left();
    let figures: Vec<(String, f32)> = h
        .query_all_by_role(Role::Label)
        .filter_map(|n| {
            let text = n.accesskit_node().value()?.to_string();
            let r = n.rect();
            (r.left() < panel - 20.0
                && !text.is_empty()
                && text.chars().all(|c| c.is_ascii_digit() || c == ','))
            .then_some((text, r.right()))
        })
        .collect();
    assert!(figures.len() > 15, "{figures:?}");
    for (text, right) in &figures {
        assert!(
            *right <= panel,
            "{text} runs under the detail panel ({right} > {panel})"
        );
    }
    // The ids give up width first: the kept tokens (memory's 265) are in
    // sight beside the status and the tokens.
    let kept = {
        let a = app(&h);
        let loaded = a.state.loaded.as_ref().unwrap();
        let m = loaded.assembly.fragments.iter().find(|f| f.id == "memory");
        prompt_inspector::engine::thousands(m.unwrap().kept_tokens)
    };
    assert!(
        figures.iter().any(|(t, _)| *t == kept),
        "memory's kept tokens ({kept}) are shown: {figures:?}"
    );
    // Every status chip of the filter row is in reach (compact: its colour
    // and count, its status on hover).
    let chips: Vec<f32> = h
        .query_all_by_label_contains("● ")
        .filter(|n| n.rect().left() > 318.0 && n.rect().top() < 100.0)
        .map(|n| n.rect().right())
        .collect();
    assert_eq!(chips.len(), 5, "{chips:?}");
    assert!(
        chips.iter().all(|r| *r <= panel),
        "{chips:?} beyond {panel}"
    );
}

/// The Diff view compares two recorded requests of different captures
/// (issue 38): each side's picker takes a request typed as `CAPTURE#N`;
/// the comparison names both; a typo is said, not taken.
#[test]
fn the_diff_view_compares_requests_of_two_captures() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let old = fixtures.join("claude-code/capture.jsonl");
    let new = fixtures.join("claude-code-2.1.332/capture.jsonl");
    let mut h = harness(sample());
    h.get_by_label("Diff").click();
    h.run_steps(3);
    let choose = |h: &mut Harness<'static, Option<App>>, which: usize, text: &str| {
        // The Diff view's two pickers, after the side panel's.
        let combos: Vec<_> = h.query_all_by_role(Role::ComboBox).collect();
        combos[combos.len() - 2 + which].click();
        h.run_steps(3);
        let field = h.get_by_role(Role::TextInput);
        field.focus();
        field.type_text(text);
        h.run_steps(2);
        h.get_by_label("Use").click();
        h.run_steps(3);
    };
    choose(&mut h, 0, "no-number-here");
    h.get_by_label_contains("a capture and a request number, as FILE#N");
    // The typo left in the field, as a user would clear it.
    h.state_mut().as_mut().unwrap().diff_view.typed[0].clear();
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    choose(&mut h, 0, &format!("{}#1", old.display()));
    choose(&mut h, 1, &format!("{}#1", new.display()));
    wait_for(&mut h, "the diff", |a| {
        !a.diff_view.pending && !a.diff_view.dirty && a.diff_view.result.is_some()
    });
    let a = app(&h);
    assert_eq!(
        a.diff_view.a,
        prompt_inspector::ui::diff::Side::Request {
            capture: old.clone(),
            index: 1
        }
    );
    let d = a
        .diff_view
        .result
        .as_ref()
        .unwrap()
        .as_ref()
        .expect("a diff");
    assert!(!d.identical);
    assert!(d.recorded);
    assert!(a.diff_view.typed_error.is_none());
    assert_eq!(
        a.diff_view.b,
        prompt_inspector::ui::diff::Side::Request {
            capture: new.clone(),
            index: 1
        }
    );
    // The summary says what changed between the two releases' requests.
    assert!(
        h.query_all_by_label_contains("changed").next().is_some(),
        "no change said"
    );
}

/// At 1024×640 the columns beside the ids fit (the table gives up the
/// layer, priority and source, never the reason): the rows' vertical bar
/// is at the table's right, in sight (it was past the last column, off the
/// window, and 6 of the sample's 27 rows were hidden with no sign of them).
#[test]
fn a_narrow_fragment_table_keeps_its_rows_bar_in_sight() {
    let mut h = window::harness_sized(sample(), egui::vec2(1024.0, 640.0));
    h.run_steps(4);
    assert!(
        !app(&h).table_view.columns_overflow,
        "the columns fit at 1024"
    );
    let reason = h.get_by_role_and_label(Role::Button, "reason").rect();
    assert!(reason.right() < 1024.0, "{reason:?}");
    let mut wide = window::harness_sized(sample(), egui::vec2(3000.0, 1200.0));
    wide.run_steps(4);
    assert!(
        !app(&wide).table_view.columns_overflow,
        "every column fits at 3000 px: the bar stays at the right"
    );
}

/// In an agent's folder the agent's own entries share a block with the
/// user's files (Claude Code's built-in skills in its listing): the upper
/// lane is the block as sent, its end the layer's `used` plus the agent's
/// own, with the DEBUG markers in it at their size (they were pushed off
/// the bar's end).
#[test]
fn an_agent_blocks_lane_is_the_block_as_sent_markers_included() {
    use prompt_inspector::ui::lanes::{self, Part};
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code");
    let mut h = harness(ws);
    wait_loaded(&mut h);
    h.state_mut()
        .as_mut()
        .unwrap()
        .apply(prompt_inspector::ui::command::Command::SetMarkers(true));
    h.run_steps(3);
    let a = app(&h).state.assembly().unwrap().clone();
    let l = a.layers.iter().find(|l| l.agent_own > 0).unwrap();
    assert!(l.markers > 0);
    let x = lanes::lanes(&a, l);
    assert_eq!(x.sent.last().unwrap().end(), l.used + l.agent_own);
    let markers: u64 = x
        .sent
        .iter()
        .filter(|s| s.part == Part::Markers)
        .map(|s| s.tokens)
        .sum();
    assert_eq!(markers, l.markers);
    // OpenCode's prompt shares its one block with the user's files and is
    // no fragment: its own segment, not "title, separators".
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/opencode/workspace");
    copy_dir(&fixture, dir.path());
    std::fs::write(dir.path().join("opencode.json"), "{}\n").unwrap();
    let mut h = harness(dir.path().to_path_buf());
    wait_loaded(&mut h);
    let a = app(&h).state.assembly().unwrap().clone();
    let l = a.layers.iter().find(|l| l.agent_own > 0).unwrap();
    let x = lanes::lanes(&a, l);
    let own: u64 = x
        .sent
        .iter()
        .filter(|s| s.part == Part::Agent)
        .map(|s| s.tokens)
        .sum();
    assert_eq!(own, l.agent_own);
    let frame: u64 = x
        .sent
        .iter()
        .filter(|s| s.part == Part::Frame)
        .map(|s| s.tokens)
        .sum();
    assert!(frame < 10, "{frame}");
}
