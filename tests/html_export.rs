//! `traffic --format html`: one file to share, self-contained (no script,
//! no URL to fetch, a policy that forbids fetching), every text escaped,
//! prompt text left out with `--no-content`; opened by headless Chromium
//! (Debian's), its rows are `traffic --format json`'s requests.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;

fn fixture(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(agent)
        .join("capture.jsonl")
}

fn html(cap: &Path, extra: &[&str]) -> String {
    let mut args = vec!["traffic", cap.to_str().unwrap(), "--format", "html"];
    args.extend(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// How many requests `traffic --format json` lists in a capture.
fn requests(cap: &Path) -> usize {
    json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]))["requests"]
        .as_array()
        .unwrap()
        .len()
}

/// What the page could fetch or run: nothing. Its markup (every `<…>`
/// tag; text is escaped, so a `<` in it is `&lt;`) names no script, frame,
/// link or source, and its style imports nothing.
fn assert_self_contained(h: &str) {
    assert!(h.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    let tags: Vec<&str> = h
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
        .collect();
    assert!(tags.len() > 10);
    for t in tags {
        let lower = t.to_ascii_lowercase();
        let name = lower.split_whitespace().next().unwrap_or("");
        assert!(
            !["script", "iframe", "object", "embed", "link", "img", "base"].contains(&name),
            "<{t}>"
        );
        for attr in [" src=", " href=", " on", " style=", " srcset="] {
            assert!(!lower.contains(attr), "<{t}>");
        }
    }
    assert!(!h.contains("url(") && !h.contains("@import"));
}

#[test]
fn the_html_export_is_self_contained_escaped_and_one_row_per_request() {
    for agent in ["claude-code", "codex", "openclaw", "gemini"] {
        let cap = fixture(agent);
        let h = html(&cap, &[]);
        assert_self_contained(&h);
        let rows = requests(&cap);
        assert_eq!(h.matches("<tr class=\"request").count(), rows, "{agent}");
        assert_eq!(
            h.matches("<rect class=\"tick\"").count(),
            rows,
            "{agent}: one tick a request"
        );
        assert!(
            !h.contains("sk-ant-FAKE") && !h.contains("AIza-FAKE"),
            "{agent}"
        );
    }
    // A capture whose text is markup stays text.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("evil.jsonl");
    let line = serde_json::json!({"schema": 1, "endpoint": "/v1/messages", "ts_start": "2026-12-03T10:00:00.000Z",
        "model": "<img src=x onerror=alert(1)>", "status": 500, "error": "<script>alert(2)</script>",
        "usage": {"input_tokens": 3}, "request": {"model": "m", "system": "</td><script>alert(3)</script>",
        "messages": [{"role": "user", "content": "hi"}]}});
    std::fs::write(&cap, format!("{line}\n")).unwrap();
    let h = html(&cap, &[]);
    assert_self_contained(&h);
    assert!(h.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), "{h}");
    assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"));
}

#[test]
fn no_content_keeps_the_figures_and_leaves_out_the_prompt_text() {
    let cap = fixture("gemini");
    let full = html(&cap, &[]);
    let bare = html(&cap, &["--no-content"]);
    // The reason's excerpt of GEMINI.md is prompt text.
    assert!(full.contains("Keep answers under five"));
    assert!(!bare.contains("Keep answers under five"));
    assert!(
        bare.contains(">prefix<") && bare.contains("10,235"),
        "the kind and the figures stay"
    );
}

/// Opened by a real browser: Chromium's DOM has the rows, and it loads
/// from disk with the network cut off (every host unresolvable), so nothing
/// it shows came from elsewhere.
#[test]
#[ignore = "needs Chromium (apt install chromium): .ci/run installs it and runs this"]
fn headless_chromium_reads_the_html_export() {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok()
        })
        .expect("chromium on PATH");
    let cap = fixture("claude-code");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("session.html");
    std::fs::write(&page, html(&cap, &[])).unwrap();
    let o = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let dom = stdout(&o);
    let rows = requests(&cap);
    assert_eq!(dom.matches("<tr class=\"request").count(), rows, "{dom}");
    assert!(dom.contains("hit ratio"));
}
