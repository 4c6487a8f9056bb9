//! Every kind of bad input is one diagnostic with file and line; the binary
//! exits 0 and nothing from outside the workspace is ever read.

use crate::common;
use common::*;

const SECRET: &str = "TOP-SECRET-OUTSIDE-CONTENT-7781";

#[test]
fn every_bad_input_is_one_diagnostic_and_nothing_leaks() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), SECRET).unwrap();
    std::fs::write(
        outside.path().join("secret.jsonl"),
        format!("{{\"role\":\"user\",\"content\":\"{SECRET}\"}}\n"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write_ws(
        &ws,
        &[
            ("SOUL.md", "I am the soul."),
            (
                "fragments/broken.yaml",
                "- id: a\n  layer: 3\n  content: [unclosed\n",
            ),
            (
                "tools/bad.json",
                "{\"name\": \"x\",\n \"description\": oops}\n",
            ),
            (
                "fragments/many.yaml",
                concat!(
                    "- layer: 3\n  content: no id\n",             // missing id (line 1)
                    "- id: dup\n  layer: 3\n  content: first\n",  // 3
                    "- id: dup\n  layer: 3\n  content: second\n", // 6 duplicate
                    "- id: far\n  layer: 7\n  content: x\n",      // 9, layer at 10
                    "- id: cond\n  layer: 3\n  content: x\n  enabled_when: bash in session.tool\n", // 12, expr at 15
                    "- id: tmpl\n  layer: 4\n  template: hello {{mystery}}\n", // 16, template 18
                    "- id: extra\n  layer: 3\n  content: x\n  colour: red\n", // 19, unknown key at 22
                    "- id: nolayer\n  content: x\n",                          // 23 missing layer
                ),
            ),
            (
                "fragments/escape.yaml",
                "- id: esc\n  layer: 4\n  file: ../secret.md\n",
            ),
            (
                "sessions/s.yaml",
                "tools: []\ntranscript: ../../secret.jsonl\n",
            ),
        ],
    );
    std::fs::write(ws.join("USER.md"), b"hello\nworld \xff\xfe bad\n").unwrap();
    std::fs::write(ws.join("skills_bin.md"), b"x").unwrap();
    std::fs::create_dir_all(ws.join("skills")).unwrap();
    std::fs::write(
        ws.join("skills/bin.md"),
        b"---\nname: bin\n---\n\x00\x01\x02",
    )
    .unwrap();
    std::fs::write(ws.join("MEMORY.md"), vec![b'a'; 8 * 1024 * 1024 + 10]).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.join("HEARTBEAT.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.join("skills/linked")).unwrap();
    std::os::unix::fs::symlink(ws.join("nowhere.md"), ws.join("IDENTITY.md")).unwrap();

    let o = run(&["report", ws.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        !all.contains(SECRET),
        "content from outside the workspace leaked"
    );
    let r = json(&o);
    let diags = r["diagnostics"].as_array().unwrap();
    let find = |file: &str, needle: &str| -> serde_json::Value {
        let hits: Vec<_> = diags
            .iter()
            .filter(|d| d["file"] == file && d["message"].as_str().unwrap().contains(needle))
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "expected one diagnostic on {file} containing '{needle}', got {hits:?}\nall: {diags:#?}"
        );
        hits[0].clone()
    };
    assert_eq!(find("fragments/broken.yaml", "invalid YAML")["line"], 3);
    assert_eq!(find("tools/bad.json", "invalid JSON")["line"], 2);
    assert_eq!(
        find("fragments/many.yaml", "missing required field 'id'")["line"],
        1
    );
    assert_eq!(
        find("fragments/many.yaml", "duplicate fragment id 'dup'")["line"],
        6
    );
    assert_eq!(find("fragments/many.yaml", "outside 1–4")["line"], 10);
    assert_eq!(
        find("fragments/many.yaml", "invalid enabled_when")["line"],
        15
    );
    assert_eq!(
        find("fragments/many.yaml", "unknown template variable")["line"],
        18
    );
    let w = find("fragments/many.yaml", "unknown key 'colour'");
    assert_eq!(
        (w["line"].as_u64(), w["severity"].as_str()),
        (Some(22), Some("warning"))
    );
    assert_eq!(
        find("fragments/many.yaml", "missing required field 'layer'")["line"],
        23
    );
    assert_eq!(find("USER.md", "not valid UTF-8")["line"], 2);
    find("skills/bin.md", "binary");
    find("MEMORY.md", "8 MiB");
    find("HEARTBEAT.md", "outside the workspace");
    find("skills/linked", "outside the workspace");
    find("IDENTITY.md", "broken symbolic link");
    find("fragments/escape.yaml", "leaves the workspace");
    assert_eq!(find("sessions/s.yaml", "leaves the workspace")["line"], 2);
    // The good parts still load.
    let ids: Vec<_> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"soul") && ids.contains(&"dup") && ids.contains(&"extra"),
        "{ids:?}"
    );
    let cond = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "cond")
        .unwrap();
    assert_eq!(cond["status"], "disabled");
    // The text report names file and line the way compilers do.
    let text = stdout(&run(&["report", ws.to_str().unwrap()]));
    assert!(
        text.contains("fragments/many.yaml:6: error: duplicate fragment id 'dup'"),
        "{text}"
    );
    assert!(!text.contains(SECRET));
}

/// A capture that is empty, or whose only line is cut short, is said as
/// such: `--against` on an empty one says it holds no request (not that a
/// transcript records usage only), and a file with no JSON line names the
/// line skipped and every record the tool reads, not Claude Code's alone.
#[test]
fn an_empty_or_cut_capture_is_said_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let ws = dir.path().join("ws");
    common::write_ws(&ws, &[("CLAUDE.md", "# rules\n")]);
    let o = run(&[
        "traffic",
        empty.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("empty.jsonl") && err.contains("holds no request"),
        "{err}"
    );
    assert!(!err.contains("transcript records usage only"), "{err}");
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, "{\"endpoint\": \"/v1/messages\", \"request\": {\"mod").unwrap();
    let o = run(&["traffic", cut.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cut.jsonl") && err.contains("line 1"), "{err}");
    assert!(err.contains("Codex") && err.contains("OpenClaw"), "{err}");
}

/// `traffic --diff` and `--against` refuse the formats they have no view
/// in (JSON lines and HTML are a whole capture's), naming the ones they
/// write, where `--diff --format html` printed text and `--format jsonl`
/// pretty JSON.
#[test]
fn diff_and_against_refuse_the_formats_they_do_not_write() {
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/pi/capture.jsonl");
    let cap = cap.to_str().unwrap();
    let ws =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/pi/workspace");
    let ws = ws.to_str().unwrap();
    for f in ["html", "jsonl"] {
        let o = run(&["traffic", cap, "--diff", "3", "--format", f]);
        assert_eq!(o.status.code(), Some(2), "{f}");
        assert!(
            stderr(&o).contains("--diff writes text, JSON or Markdown"),
            "{}",
            stderr(&o)
        );
    }
    let o = run(&["traffic", cap, "--against", ws, "--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--against writes text or JSON"),
        "{}",
        stderr(&o)
    );
}

/// `--no-content` is a privacy flag: where the format has no prompt text
/// to leave out it is refused, not dropped in silence.
#[test]
fn no_content_outside_html_is_refused_by_name() {
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/pi/capture.jsonl");
    let cap = cap.to_str().unwrap();
    for f in ["text", "json", "jsonl", "markdown"] {
        let o = run(&["traffic", cap, "--format", f, "--no-content"]);
        assert_eq!(o.status.code(), Some(2), "{f}");
        assert!(
            stderr(&o).contains("--no-content") && stderr(&o).contains("--format html"),
            "{f}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "{f}");
    }
}

/// The rows of `--format jsonl` are the requests read; a line that was not
/// read is said on stderr, where the text view says it, so a table loaded
/// from the rows is known to be short.
#[test]
fn jsonl_rows_say_what_was_skipped_on_stderr() {
    let cap = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/pi/capture.jsonl");
    let mut text = std::fs::read_to_string(cap).unwrap();
    text.push_str("{\"not\": \"closed\"\n");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cut.jsonl");
    std::fs::write(&f, text).unwrap();
    let o = run(&["traffic", f.to_str().unwrap(), "--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().count() > 1);
    assert!(
        stdout(&o)
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "every row is JSON"
    );
    assert!(stderr(&o).contains("line"), "{}", stderr(&o));
}

/// What Claude Code sends that this tool does not read is said, once,
/// naming the file and what happens: an import from the home folder, one
/// out of the folder, and a memory file past the tool's 4 MiB for all of
/// them (its size given, the file named once).
#[test]
fn claude_code_memory_not_read_is_said_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write_ws(
        &ws,
        &[
            (
                "CLAUDE.md",
                "# Project\n\nSee @~/notes.md and @../shared.md\n",
            ),
            (
                "CLAUDE.local.md",
                &"A long local note line.\n".repeat(220_000),
            ),
        ],
    );
    let o = run(&["report", ws.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(
        out.contains("CLAUDE.md:3: warning: @~/notes.md: is in your home folder: Claude Code follows it once you allow its external imports"),
        "{out}"
    );
    assert!(
        out.contains(
            "CLAUDE.md:3: warning: @../shared.md: leaves the workspace: Claude Code follows it"
        ),
        "{out}"
    );
    assert!(
        out.contains("CLAUDE.local.md: warning: not included (5.0 MiB): with it the memory files"),
        "{out}"
    );
    assert!(
        !out.contains("CLAUDE.local.md: warning: CLAUDE.local.md"),
        "{out}"
    );
}

/// An error about one side of `diff` names that side; a folder of no
/// JSON lines that holds OpenCode's database names the command that reads
/// it.
#[test]
fn a_bad_diff_side_and_an_opencode_folder_are_named() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(&dir.path().join("a"), &[("CLAUDE.md", "# A\n")]);
    let a = dir.path().join("a");
    let side = format!("{}@nosession", a.display());
    let o = run(&["diff", &side, &format!("{}@default", a.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{side}: no session named 'nosession'")),
        "{}",
        stderr(&o)
    );
    let oc = dir.path().join("oc");
    std::fs::create_dir_all(&oc).unwrap();
    std::fs::write(oc.join("opencode.db"), b"").unwrap();
    let o = run(&["traffic", oc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "it holds OpenCode's opencode.db: `prompt-inspector traffic {}` reads it",
            oc.join("opencode.db").display()
        )),
        "{}",
        stderr(&o)
    );
}
