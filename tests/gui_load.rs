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
