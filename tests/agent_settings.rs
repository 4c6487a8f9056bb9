//! Claude Code's settings files change the request: the model they set
//! (`.claude/settings.local.json` over `.claude/settings.json` over
//! `~/.claude/settings.json`, its aliases read as the table's newest of the
//! family) is the folder's model, said with the file that set it; an output
//! style is said; a broken file is named and the views go on.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;

fn fixture_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents/claude-code-2.1.332/workspace"),
        dir.path(),
    );
    dir
}

fn report(ws: &Path, home: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec!["report", ws.to_str().unwrap()];
    args.extend(extra);
    let o = Command::new(bin())
        .args(&args)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    (stdout(&o), stderr(&o))
}

fn header(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[test]
fn the_model_claude_code_settings_set_is_the_folders_and_says_where() {
    let ws = fixture_workspace();
    let home = tempfile::tempdir().unwrap();
    let w = ws.path();
    std::fs::create_dir_all(w.join(".claude")).unwrap();
    // Without settings: the agent's own default.
    let (plain, _) = report(w, home.path(), &[]);
    assert!(!header(&plain).contains("set in"), "{plain}");

    std::fs::write(
        w.join(".claude/settings.json"),
        r#"{"model": "sonnet", "permissions": {}}"#,
    )
    .unwrap();
    let (r, _) = report(w, home.path(), &[]);
    assert!(
        header(&r).contains(r#"model: claude-sonnet-5-5 (o200k_base, estimate, set in .claude/settings.json: "sonnet")"#),
        "{}",
        header(&r)
    );
    // The local file wins over the shared one.
    std::fs::write(
        w.join(".claude/settings.local.json"),
        r#"{"model": "claude-opus-4-8"}"#,
    )
    .unwrap();
    let (r, _) = report(w, home.path(), &[]);
    assert!(
        header(&r).contains(r#"model: claude-opus-4-8 (o200k_base, estimate, set in .claude/settings.local.json: "claude-opus-4-8")"#),
        "{}",
        header(&r)
    );
    // --model wins over both, and an alias is taken there too.
    let (r, _) = report(w, home.path(), &["--model", "haiku"]);
    assert!(
        header(&r).contains("model: claude-haiku-5-5 (o200k_base, estimate)"),
        "{}",
        header(&r)
    );

    // The user's own settings, read with the user-level files.
    std::fs::remove_file(w.join(".claude/settings.local.json")).unwrap();
    std::fs::remove_file(w.join(".claude/settings.json")).unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        r#"{"model": "opus", "outputStyle": "Explanatory"}"#,
    )
    .unwrap();
    let (r, _) = report(w, home.path(), &[]);
    assert!(
        !header(&r).contains("set in"),
        "read only with --user-memory: {}",
        header(&r)
    );
    let (r, _) = report(w, home.path(), &["--user-memory"]);
    assert!(
        header(&r).contains(
            r#"model: claude-opus-5-5 (o200k_base, estimate, set in ~/.claude/settings.json: "opus")"#
        ),
        "{}",
        header(&r)
    );
    assert!(
        r.contains(r#"~/.claude/settings.json: warning: outputStyle "Explanatory": Claude Code changes its system prompt for an output style"#),
        "{r}"
    );
    // An alias Claude Code resolves is no unknown model.
    assert!(!r.contains("unknown model"), "{r}");
}

/// A model the table does not know is read by the nearest row of its
/// family, the one the warning names, in the report and the prediction
/// alike (not by the default model of another family).
#[test]
fn an_unknown_model_in_the_settings_is_read_as_the_nearest_of_its_family() {
    let ws = fixture_workspace();
    let home = tempfile::tempdir().unwrap();
    let w = ws.path();
    std::fs::create_dir_all(w.join(".claude")).unwrap();
    std::fs::write(
        w.join(".claude/settings.json"),
        r#"{"model": "claude-opus-9-9"}"#,
    )
    .unwrap();
    let (r, _) = report(w, home.path(), &[]);
    assert!(
        header(&r).contains(
            r#"model: claude-opus-5-5 (o200k_base, estimate, set in .claude/settings.json: "claude-opus-9-9")"#
        ),
        "{}",
        header(&r)
    );
    assert!(
        r.contains("unknown model 'claude-opus-9-9': the nearest current one is claude-opus-5-5")
            && r.contains(
                "(read meanwhile with claude-opus-5-5's window, cache minimum and prices)"
            ),
        "{r}"
    );
    let o = Command::new(bin())
        .args(["predict", w.to_str().unwrap(), "--format", "json"])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    let p = json(&o);
    assert_eq!(p["model"], "claude-opus-5-5");
    assert_eq!(p["read_for"], "claude-opus-9-9");
}

#[test]
fn a_broken_settings_file_is_named_with_its_line_and_the_report_goes_on() {
    let ws = fixture_workspace();
    let home = tempfile::tempdir().unwrap();
    let w = ws.path();
    std::fs::create_dir_all(w.join(".claude")).unwrap();
    std::fs::write(
        w.join(".claude/settings.json"),
        "{\n  \"model\": \"sonnet\",\n  oops\n}\n",
    )
    .unwrap();
    let (r, _) = report(w, home.path(), &[]);
    assert!(!header(&r).contains("set in"), "{}", header(&r));
    assert!(
        r.contains(".claude/settings.json:3: warning: not JSON"),
        "{r}"
    );
}
