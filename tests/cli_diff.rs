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

/// A layer's change is its block's; when the fragments listed above it sum
/// to another figure (the separators between texts cost tokens too), the text
/// gives both, and each is what the JSON holds.
#[test]
fn a_layers_change_and_its_fragments_sums_are_both_said() {
    let w = sample();
    let w = w.to_str().unwrap();
    let (a, b) = (format!("{w}@chat"), format!("{w}@coding"));
    let d = json(&run(&["diff", &a, &b, "--format", "json"]));
    let text = stdout(&run(&["diff", &a, &b]));
    let line = text.lines().find(|l| l.starts_with("layers: ")).unwrap();
    for l in d["layers"].as_array().unwrap() {
        let (layer, delta) = (l["layer"].as_u64().unwrap(), l["delta"].as_i64().unwrap());
        if delta == 0 {
            continue;
        }
        let parts: i64 = d["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["layer"].as_u64() == Some(layer))
            .map(|f| f["after_tokens"].as_i64().unwrap() - f["before_tokens"].as_i64().unwrap())
            .sum();
        let said = format!("layer {layer} {delta:+}");
        assert!(line.contains(&said), "{said}: {line}");
        if parts != delta {
            let apart =
                format!("{said} (its block as sent; its fragments above add up to {parts:+}");
            assert!(line.contains(&apart), "{apart}: {line}");
        }
    }
    assert!(line.contains("add up to"), "{line}");
}

/// Two recorded requests of different chains and captures compared (issue
/// 38): the first request of a chain whose system prompt changed is
/// compared with the nearest earlier request sharing a prefix, and says so;
/// `--with FILE#M` compares any two requests of any captures.
#[test]
fn requests_of_other_chains_and_captures_are_diffed() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/capture.jsonl");
    let first = std::fs::read_to_string(&fixture)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    // The same session started again with its system prompt appended to
    // (`claude -p --append-system-prompt`): its second block changed.
    let mut v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let t = v["request"]["system"][1]["text"]
        .as_str()
        .unwrap()
        .to_string();
    v["request"]["system"][1]["text"] = format!("{t}\nAlways answer in French.").into();
    v["ts_start"] = "2026-12-01T02:40:00.000Z".into();
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("two-sessions.jsonl");
    std::fs::write(&cap, format!("{first}\n{v}\n")).unwrap();
    let o = run(&["traffic", cap.to_str().unwrap(), "--diff", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "request #1 (chain main: the nearest earlier request sharing a prefix with #2"
        ),
        "{out}"
    );
    assert!(out.contains("Always answer in French"), "{out}");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--diff",
        "2",
        "--format",
        "json",
    ]);
    let d = json(&o);
    assert_eq!(d["divergence"]["position"], "system block 2", "{d}");
    // Across captures: this capture's request 2 against the fixture's 1.
    let with = format!("{}#1", fixture.display());
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--diff",
        "2",
        "--with",
        &with,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = json(&o);
    assert_eq!(d["a"], with);
    assert_eq!(d["divergence"]["position"], "system block 2", "{d}");
    // The same pair named as `A#N --diff B#M`: the same diff, whole.
    let b = format!("{}#2", cap.display());
    let o = run(&["traffic", &with, "--diff", &b, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o), d);
    let o = run(&["traffic", &with, "--diff", &b]);
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("--- {with}\n+++ {b}\n")),
        "{text}"
    );
    // `A#N --diff M`: M of the same file.
    let o = run(&["traffic", &format!("{}#1", cap.display()), "--diff", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Always answer in French"),
        "{}",
        stdout(&o)
    );
    // A request named on both sides, or `--diff FILE#M` without the other.
    for args in [
        vec!["traffic", &with, "--diff", "2", "--with", "1"],
        vec!["traffic", cap.to_str().unwrap(), "--diff", &b],
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            stderr(&o).contains("traffic b.jsonl#5 --diff a.jsonl#3"),
            "{}",
            stderr(&o)
        );
    }
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--diff",
        "2",
        "--with",
        "x#nine",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a request number"),
        "{}",
        stderr(&o)
    );
}

/// `traffic --diff` counts the breakpoint the agents put on their tool
/// definitions: OpenClaw's edited system block leaves the cached tools
/// valid (the provider read 3,884 tokens of request #3), so what is
/// written again starts after them and is less than request #2 held; and
/// where the provider read nothing though the text leaves the tools valid
/// (Pi's: a prefix under the minimum of the upstream), the diff says so
/// from the provider's figures instead of calling it still valid.
#[test]
fn a_request_diff_keeps_the_cached_tools_and_believes_the_providers_figures() {
    let fixture = |a: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents")
            .join(a)
            .join("capture.jsonl")
    };
    let oc = fixture("openclaw");
    let d = json(&run(&[
        "traffic",
        oc.to_str().unwrap(),
        "--diff",
        "3",
        "--format",
        "json",
    ]));
    let tools = &d["breakpoints"][0];
    assert_eq!(tools["name"], "tool 14 (write)", "{d}");
    assert_eq!(tools["invalidated"], false, "{d}");
    assert!(tools.get("not_read").is_none(), "{d}");
    let rewrite = d["rewrite_tokens"].as_u64().unwrap();
    let before = d["total_before"].as_u64().unwrap();
    let cached_tools = tools["prefix_tokens"].as_u64().unwrap();
    assert!(rewrite > 0 && rewrite <= before - cached_tools, "{d}");
    let text = stdout(&run(&["traffic", oc.to_str().unwrap(), "--diff", "3"]));
    assert!(
        text.contains("breakpoint 1 at tool 14 (write), 3,434 tokens: still valid"),
        "{text}"
    );
    let pi = fixture("pi");
    let d = json(&run(&[
        "traffic",
        pi.to_str().unwrap(),
        "--diff",
        "3",
        "--format",
        "json",
    ]));
    assert_eq!(d["breakpoints"][0]["not_read"], true, "{d}");
    let cause = d["cause"].as_str().unwrap();
    assert!(
        cause.starts_with("the provider read nothing: 1,562 tokens written"),
        "{cause}"
    );
}

/// A breakpoint after the first user message (Claude Code 2.1's
/// system-role message) counts that message in its prefix, as `predict`
/// does: `diff` and `predict` give the later folder's breakpoints the same
/// positions, and what the earlier one had cached that is written again
/// ends where its own last breakpoint does.
#[test]
fn diff_places_the_breakpoints_where_predict_does() {
    let fx = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-2.1.332");
    let (a, b) = (fx.join("workspace-after"), fx.join("workspace"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let written = |w: &str| -> Vec<u64> {
        // Each write's end: "wrote N tokens, after the first M, …".
        let p = json(&run(&["predict", w, "--format", "json"]));
        let mut at = 0;
        p["requests"][0]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let n = n.as_str().unwrap();
                let wrote: u64 = n["wrote ".len()..]
                    .split(' ')
                    .next()
                    .unwrap()
                    .replace(',', "")
                    .parse()
                    .unwrap();
                at += wrote;
                at
            })
            .collect()
    };
    let d = json(&run(&["diff", a, b, "--format", "json"]));
    let at: Vec<u64> = d["breakpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["prefix_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(at, written(b));
    let (ends_a, still) = (written(a), at[0]);
    assert_eq!(
        d["rewrite_tokens"].as_u64().unwrap(),
        ends_a.last().unwrap() - still
    );
}
