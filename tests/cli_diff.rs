//! `snapshot` and `diff` from the command line on sample-workspace sessions.

use crate::common;
use common::*;

#[test]
fn snapshot_then_edit_then_diff() {
    let ws = copy_sample();
    let w = ws.path().to_str().unwrap();
    let o = run(&["snapshot", w, "--session", "coding"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = stdout(&o).trim().to_string();
    assert!(
        path.contains(".prompt-inspector/snapshots/") && path.ends_with("-coding.json"),
        "{path}"
    );
    let snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(snap["schema"], 1);
    for k in [
        "workspace",
        "session",
        "settings",
        "model",
        "tokenizer",
        "files",
        "fragments",
        "blocks",
        "report",
        "prediction",
    ] {
        assert!(!snap[k].is_null(), "snapshot lacks {k}");
    }
    assert!(
        snap["files"]["SOUL.md"].as_str().unwrap().len() == 64,
        "SHA-256 of every input file"
    );
    // Identical: exit 0.
    let o = run(&["diff", &path, &format!("{w}@coding")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // A layer-4 edit: exit 1, named, no cached breakpoint invalidated.
    std::fs::write(
        ws.path().join("USER.md"),
        "## 关于用户\n\n- 名称：苏雄\n- 新偏好：Rust\n",
    )
    .unwrap();
    let o = run(&["diff", &path, &format!("{w}@coding"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let d = json(&o);
    assert!(
        d["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "user")
    );
    assert!(
        d["breakpoints"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["invalidated"] == false)
    );
    assert_eq!(d["divergence"]["fragment"], "user");
    let text = stdout(&run(&["diff", &path, &format!("{w}@coding")]));
    assert!(
        text.starts_with("--- ") && text.contains("@@ user @@") && text.contains("+- 新偏好：Rust"),
        "{text}"
    );
    let md = stdout(&run(&[
        "diff",
        &path,
        &format!("{w}@coding"),
        "--format",
        "markdown",
    ]));
    assert!(md.contains("```diff") && md.contains("`user`"), "{md}");
}

#[test]
fn sessions_diff_live_and_bad_snapshots_fail_clearly() {
    let w = sample();
    let w = w.to_str().unwrap();
    let o = run(&[
        "diff",
        &format!("{w}@coding"),
        &format!("{w}@research"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let d = json(&o);
    assert_eq!(d["tools_changed"], true);
    assert!(
        d["breakpoints"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["invalidated"] == true)
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema\": 1, \"fragments\": \"truncated").unwrap();
    let o = run(&["diff", bad.to_str().unwrap(), &format!("{w}@coding")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.json") && stderr(&o).contains("not a snapshot"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&bad, "{\"schema\": 9}").unwrap();
    let o = run(&["diff", bad.to_str().unwrap(), &format!("{w}@coding")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("newer"), "{}", stderr(&o));
    let o = run(&["diff", &format!("{w}@nope"), &format!("{w}@coding")]);
    assert_eq!(o.status.code(), Some(2));
}
