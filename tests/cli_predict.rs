//! `predict` from the command line, on the sample workspace.

use crate::common;
use common::*;

#[test]
fn predict_json_has_the_documented_fields_and_story() {
    let o = run(&["predict", sample().to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = json(&o);
    assert_eq!(p["provider"], "anthropic");
    assert_eq!(p["model"], "claude-sonnet-4-6");
    let reqs = p["requests"].as_array().unwrap();
    assert!(reqs.len() >= 5);
    for r in reqs {
        for k in [
            "turn",
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "cost_usd",
            "notes",
        ] {
            assert!(!r[k].is_null(), "{k} missing in {r}");
        }
    }
    let notes: Vec<String> = reqs
        .iter()
        .flat_map(|r| {
            r["notes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
        })
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("expired")),
        "the 6-minute gap expires the 5-minute cache"
    );
    assert!(
        reqs.iter()
            .any(|r| r["cache_read_input_tokens"].as_u64().unwrap() > 0)
    );
    assert!(
        reqs.iter()
            .any(|r| r["cache_creation_input_tokens"].as_u64().unwrap() > 0)
    );
    let strategies: Vec<&str> = p["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(strategies, vec!["layered", "single_string", "none"]);
    assert!(
        p["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["fragment"] == "env.snapshot")
    );
}

#[test]
fn predict_other_providers_and_bad_provider() {
    // `--rules` (as `send`'s); `--provider`, its older name, still works.
    for (flag, prov, field_zero) in [
        ("--rules", "openai", "cache_creation_input_tokens"),
        ("--provider", "prefix", "cache_creation_input_tokens"),
        ("--rules", "gemini", "cache_creation_input_tokens"),
    ] {
        let o = run(&[
            "predict",
            sample().to_str().unwrap(),
            flag,
            prov,
            "--format",
            "json",
        ]);
        assert!(o.status.success());
        let p = json(&o);
        assert_eq!(p["provider"], prov);
        assert!(
            p["requests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r[field_zero] == 0)
        );
    }
    let o = run(&[
        "predict",
        sample().to_str().unwrap(),
        "--rules",
        "carrier-pigeon",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "unknown caching rules 'carrier-pigeon' (anthropic, openai, gemini or prefix)"
        ),
        "{}",
        stderr(&o)
    );
    let text = stdout(&run(&[
        "predict",
        sample().to_str().unwrap(),
        "--session",
        "research",
    ]));
    assert!(
        text.contains("strategies:") && text.contains("← best"),
        "{text}"
    );
}

/// `predict` says that the user's own memory the agent sends with every
/// request (`~/.claude/CLAUDE.md`) is left out without `--user-memory`, as
/// `report` and `context` say it, where it predicted without a word.
#[test]
fn predict_says_the_users_own_memory_is_left_out() {
    let home = tempfile::tempdir().unwrap();
    common::write_ws(
        home.path(),
        &[
            (".claude/CLAUDE.md", "# My defaults\n\nAnswer briefly.\n"),
            ("app/CLAUDE.md", "# app\n\nRun the tests.\n"),
        ],
    );
    let ws = home.path().join("app");
    let ws = ws.to_str().unwrap();
    let o = common::run_home(home.path(), &["predict", ws]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("~/.claude/CLAUDE.md is not counted here") && err.contains("--user-memory"),
        "{err}"
    );
    let o = common::run_home(home.path(), &["predict", ws, "--user-memory"]);
    assert!(
        !common::stderr(&o).contains("not counted"),
        "{}",
        common::stderr(&o)
    );
}
