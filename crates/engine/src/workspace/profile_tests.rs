//! Unit tests of the profiles (compiled for tests only).

use super::profile::*;
use super::profiles::*;

#[test]
fn bundled_profiles_load_and_name_their_version() {
    let p = Profiles::bundled();
    assert_eq!(
        p.names(),
        vec![
            "layered",
            "openclaw",
            "claude-code",
            "pi",
            "opencode",
            "codex",
            "gemini"
        ]
    );
    assert_eq!(
        p.ids(),
        vec![
            "layered@1",
            "openclaw@2026.9",
            "openclaw@2026.7",
            "claude-code@2.1.332",
            "claude-code@2.1",
            "claude-code@2.0",
            "pi@0.73",
            "opencode@1.18",
            "codex@0.171",
            "codex@0.169",
            "gemini@0.61"
        ]
    );
    for x in &p.all {
        assert!(!x.version.is_empty() && !x.agent.is_empty(), "{}", x.name);
        assert!(
            x.verified.is_some() || x.written_from.is_some(),
            "{} says what it rests on",
            x.id()
        );
    }
    // A bare name is the newest version; name@version picks one.
    let oc = p.get("openclaw").unwrap();
    assert_eq!(oc.id(), "openclaw@2026.9");
    assert_eq!(oc.verified.as_deref(), Some("2026.9.6"));
    assert_eq!(oc.caps.as_ref().unwrap().per_file_chars, 20_000);
    assert_eq!(oc.files[0].name, "AGENTS.md");
    assert!(!oc.files.iter().any(|f| f.name == "TOOLS.md"));
    let old = p.get("openclaw@2026.7").unwrap();
    assert!(old.files.iter().any(|f| f.name == "TOOLS.md"));
    assert_eq!(p.get("claude-code").unwrap().version, "2.1.332");
    assert_eq!(p.get("claude-code@2.1").unwrap().version, "2.1");
    assert!(p.get("openclaw@2026.8").is_none());
    assert_eq!(
        version_cmp("2026.10", "2026.9"),
        std::cmp::Ordering::Greater
    );
}

#[test]
fn a_string_over_its_limit_is_an_error_naming_the_field() {
    let big = "x".repeat(MAX_PROFILE_STRING + 1);
    let text = format!(
        "name: openclaw\nagent: a\nversion: '1'\nfiles:\n  - name: A.md\n  - name: {big}\n"
    );
    let e = parse(&text, "/p/t.yaml").unwrap_err().to_string();
    assert!(
        e.starts_with("/p/t.yaml: files[1].name is 65537 bytes"),
        "{e}"
    );
    let sep = format!(
        "name: openclaw\nagent: a\nversion: '1'\nseparator: '{}'\n",
        "-".repeat(2000)
    );
    assert!(
        parse(&sep, "s")
            .unwrap_err()
            .to_string()
            .contains("separator")
    );
    let ok = parse(
        "name: openclaw\nagent: a\nversion: '1'\nfile_heading: '# {name}'\n",
        "o",
    );
    assert_eq!(ok.unwrap().origin, "o");
    let deep = "name: openclaw\nagent: a\nversion: '1'\nimports:\n  max_depth: 100000\n";
    assert!(
        parse(deep, "d")
            .unwrap_err()
            .to_string()
            .contains("imports.max_depth")
    );
}

#[test]
fn utf16_cuts() {
    assert_eq!(js_len("a界😀"), 4);
    assert_eq!(js_prefix("a界😀b", 3), "a界");
    assert_eq!(js_suffix("a界😀b", 3), "😀b");
    assert_eq!(list(&["A", "B", "C"]), "A, B and C");
}
