//! The cache-breaker lint warns about what will change between requests,
//! and says why; static prose is not a warning.

use crate::common;
use common::*;

fn warnings(ws: &std::path::Path, session: Option<&str>) -> Vec<serde_json::Value> {
    let mut args = vec!["predict", ws.to_str().unwrap(), "--format", "json"];
    if let Some(s) = session {
        args.extend(["--session", s]);
    }
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["warnings"].as_array().cloned().unwrap_or_default()
}

#[test]
fn static_prose_is_not_a_warning_and_dynamic_content_is() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "AGENTS.md",
                "# Rules\n\nQuiet hours 23:00–08:00: no notifications.\nRelease on 2026-12-01 at the latest.\nTurn 3 of the onboarding is the demo.\n\n```json\n{\"zeta\": 1, \"alpha\": 2, \"mid\": 3}\n```\n",
            ),
            (
                "SOUL.md",
                "You are Suxiong. The session started at {{session.started}}.",
            ),
            (
                "sessions/s.yaml",
                "vars:\n  started: \"2026-11-30 09:41\"\n",
            ),
            // The layered design (AGENTS.md and SOUL.md alone are OpenClaw's).
            ("workspace.yaml", "budget: {total: 8000}\n"),
        ],
    );
    let w = warnings(dir.path(), None);
    assert!(
        w.iter().all(|x| x["file"] != "AGENTS.md"),
        "static prose in AGENTS.md: {w:#?}"
    );
    let soul: Vec<_> = w.iter().filter(|x| x["file"] == "SOUL.md").collect();
    assert_eq!(soul.len(), 1, "{w:#?}");
    let m = soul[0]["message"].as_str().unwrap();
    assert!(
        m.contains("2026-11-30") && m.contains("a template fills it in"),
        "{m}"
    );
}

#[test]
fn the_samples_generated_timestamp_and_uuid_are_still_caught() {
    let w = warnings(&sample(), Some("coding"));
    let text = serde_json::to_string(&w).unwrap();
    assert!(text.contains("2026-11-29T09:30:00Z"), "{text}");
    assert!(
        text.contains("7f3d214c-81d0-4605-9a1b-2c3d4e5f6a7b"),
        "{text}"
    );
    assert!(text.contains("generated at run time"), "{text}");
}
