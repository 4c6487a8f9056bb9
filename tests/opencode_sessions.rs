//! OpenCode's sessions, read from its own SQLite database
//! (tests/fixtures/agents/opencode/transcript/opencode.db, copied from the
//! run that recorded the fixture's capture, OpenCode 1.18.33 through the
//! proxy): each answer of its model is a request, with the usage the
//! capture recorded for it, request for request, OpenCode's own cost, and
//! its release; the AGENTS.md edited between the turns is a miss in both.
//! A database that is not OpenCode's, or a link to one, is refused with
//! the file named.

use crate::common::*;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/opencode")
}

fn traffic_json(path: &Path) -> Value {
    let o = run(&["traffic", path.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// (model, uncached, written, read, output) of each request.
fn usage(v: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (
                r["model"].as_str().unwrap().to_string(),
                n("input_tokens"),
                n("cache_creation_input_tokens"),
                n("cache_read_input_tokens"),
                n("output_tokens"),
            )
        })
        .collect()
}

#[test]
fn the_database_holds_the_requests_the_capture_recorded() {
    let db = traffic_json(&fixture().join("transcript/opencode.db"));
    let capture = traffic_json(&fixture().join("capture.jsonl"));
    assert_eq!(db["source"], "opencode");
    // The capture also has the title request to the small model, which
    // OpenCode keeps as no message.
    let main: Vec<_> = usage(&capture)
        .into_iter()
        .filter(|u| u.0 == "claude-sonnet-4-6")
        .collect();
    assert_eq!(usage(&db), main);
    assert_eq!(main.len(), 3);
    let requests = db["requests"].as_array().unwrap();
    for r in requests {
        assert_eq!(r["release"]["agent"], "OpenCode", "{r}");
        assert_eq!(r["release"]["version"], "1.18.33", "{r}");
        assert_eq!(r["chain"], "main", "{r}");
        // OpenCode's own cost is the table's for the same usage.
        let (own, ours) = (
            r["agent_cost_usd"].as_f64().unwrap(),
            r["cost_usd"].as_f64().unwrap(),
        );
        assert!((own - ours).abs() < 1e-9, "{own} vs {ours}");
    }
    // The edited AGENTS.md (in the system prompt): nothing read of what
    // the previous turn left cached, in the database as in the capture.
    assert_eq!(requests[2]["miss"]["kind"], "prefix", "{}", requests[2]);
    let detail = requests[2]["miss"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("read none of the 7,765 tokens"),
        "{detail}"
    );
    let last = &capture["requests"][3]["miss"];
    assert_eq!(last["kind"], "prefix");
    assert!(
        last["detail"].as_str().unwrap().contains("system block 1"),
        "{last}"
    );
    // The text names the file's kind.
    let o = run(&[
        "traffic",
        fixture().join("transcript/opencode.db").to_str().unwrap(),
    ]);
    assert!(
        stdout(&o).starts_with("traffic from an OpenCode session database · 3 requests"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_database_that_is_not_opencodes_or_a_link_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.db");
    let db = rusqlite::Connection::open(&other).unwrap();
    db.execute_batch(
        "create table notes (id text, body text); insert into notes values ('1', 'x');",
    )
    .unwrap();
    drop(db);
    let o = run(&["traffic", other.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("other.db"), "{e}");
    assert!(e.contains("not an OpenCode session database"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    // A link to the real database is not followed.
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(fixture().join("transcript/opencode.db"), &link).unwrap();
    let o = run(&["traffic", link.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    // The database is read, never written.
    let before = std::fs::read(fixture().join("transcript/opencode.db")).unwrap();
    traffic_json(&fixture().join("transcript/opencode.db"));
    assert_eq!(
        std::fs::read(fixture().join("transcript/opencode.db")).unwrap(),
        before
    );
}
