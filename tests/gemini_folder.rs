//! A Gemini CLI folder (profile `gemini`): rendered for the fixture's
//! folder (tests/fixtures/agents/gemini, recorded from Gemini CLI 0.61.0 by
//! scripts/record-agent.sh), the request is what Gemini CLI sent to its
//! main model byte for byte: the system instruction with the user's
//! ~/.gemini/GEMINI.md at its end, the eight function declarations, and
//! the first user message's session context (the date, the folder's tree,
//! GEMINI.md with its import inlined); `report` and `context` count it.

use crate::common;

use std::path::{Path, PathBuf};

use common::agent_home::AgentHome;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/gemini")
}

/// The first request to the main model (the one before is its router's).
fn sent() -> Value {
    sent_in("gemini")
}

/// The first request to the main model of `recording`.
pub(crate) fn sent_in(recording: &str) -> Value {
    let text =
        std::fs::read_to_string(AgentHome::fixture(recording).join("capture.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["request"].get("tools").is_some())
        .unwrap()["request"]
        .clone()
}

/// A rendered body against the one Gemini CLI sent: the same system
/// instruction, tools and other fields, in its order (the contents are
/// each test's, for the date).
pub(crate) fn assert_sent_as(body: &Value, real: &Value) {
    assert_eq!(body["systemInstruction"], real["systemInstruction"]);
    assert_eq!(body["tools"], real["tools"]);
    assert_eq!(body["generationConfig"], real["generationConfig"]);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(body), keys(real));
}

/// The fixture's folder at HOME/notes-app of a private home (a git
/// repository, as it was), with the user's memory the agent had (taken
/// from the request itself).
fn home() -> AgentHome {
    let system = sent()["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let memory = system
        .split("--- Context from: /home/user/.gemini/GEMINI.md ---\n")
        .nth(1)
        .unwrap()
        .split("\n--- End of Context from:")
        .next()
        .unwrap();
    AgentHome::new(
        "gemini",
        "notes-app",
        (".gemini/GEMINI.md", &format!("{memory}\n")),
    )
}

/// The day as Gemini CLI writes it in a first message (`Monday,
/// December 7, 2026`).
pub(crate) fn day(first: &str) -> &str {
    first
        .split("Today's date is ")
        .nth(1)
        .unwrap()
        .split(" (formatted")
        .next()
        .unwrap()
}

/// The date as Gemini CLI wrote it in the request, and today's as the
/// binary writes it (in UTC).
fn dates(first: &str) -> (String, String) {
    let recorded = day(first).to_string();
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        / 86_400;
    let weekday = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ][days.rem_euclid(7) as usize];
    (recorded, weekday.to_string())
}

#[test]
fn the_rendered_request_is_what_gemini_cli_sent() {
    let h = home();
    let ws = h.home().join("notes-app");
    let body: Value = serde_json::from_str(&h.run(&[
        "render",
        ws.to_str().unwrap(),
        "--request-json",
        "--user-memory",
    ]))
    .unwrap();
    let real = sent();
    assert_sent_as(&body, &real);
    let ours = body["contents"][0]["parts"][0]["text"].as_str().unwrap();
    let theirs = real["contents"][0]["parts"][0]["text"].as_str().unwrap();
    // Today's date in the agent's words, as it wrote the recorded one.
    let (recorded, weekday) = dates(theirs);
    let today = ours
        .split("Today's date is ")
        .nth(1)
        .unwrap()
        .split(" (formatted")
        .next()
        .unwrap();
    assert!(today.starts_with(&format!("{weekday}, ")), "{today}");
    assert_eq!(ours.replace(today, &recorded), theirs);
    assert_eq!(body["contents"][0]["role"], "user");
}

/// Recorded in a folder outside git with no ~/.gemini/GEMINI.md and a
/// tests/GEMINI.md (tests/fixtures/agents/gemini-plain): Gemini CLI leaves
/// out its "# Git Repository" section and the head of its "# Contextual
/// Instructions", and sends the folder's GEMINI.md alone; so does the
/// render of such a folder.
#[test]
fn outside_git_without_the_users_memory_the_agent_leaves_its_sections_out() {
    let h = AgentHome::plain("gemini-plain", "notes-app");
    let real = sent_in("gemini-plain");
    let system = real["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(!system.contains("# Git Repository") && !system.contains("# Contextual"));
    let body: Value = serde_json::from_str(&h.run(&["render", &h.ws(), "--request-json"])).unwrap();
    assert_eq!(body["systemInstruction"], real["systemInstruction"]);
    // Its session context: the folder's GEMINI.md, not tests/GEMINI.md,
    // which it reads once it works there.
    let ours = body["contents"][0]["parts"][0]["text"].as_str().unwrap();
    let theirs = real["contents"][0]["parts"][0]["text"].as_str().unwrap();
    assert!(theirs.contains("├───GEMINI.md") && !theirs.contains("Use plain asserts"));
    let (recorded, _) = dates(theirs);
    let today = ours.split("Today's date is ").nth(1).unwrap();
    let today = today.split(" (formatted").next().unwrap();
    assert_eq!(ours.replace(today, &recorded), theirs);
    // A .git above the folder makes it a repository: the section is back.
    std::fs::create_dir(h.home().join(".git")).unwrap();
    let body: Value = serde_json::from_str(&h.run(&["render", &h.ws(), "--request-json"])).unwrap();
    let text = body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("\n\n# Git Repository\n\n- The current working (project) directory is being managed by a git repository."));
    assert!(!text.contains("# Contextual"), "no memory of the user's");
}

#[test]
fn report_and_context_count_gemini_md_its_import_and_the_agents_own_parts() {
    let h = home();
    let ws = h.home().join("notes-app");
    let ws = ws.to_str().unwrap();
    let report = h.run(&["report", ws, "--user-memory"]);
    assert!(
        report.contains("profile: gemini@0.61 (GEMINI.md present"),
        "{report}"
    );
    assert!(
        report.contains("from Gemini CLI 0.61.0 (built in, not your files)"),
        "{report}"
    );
    assert!(
        report.contains("8 tool definitions: update_topic, list_directory"),
        "{report}"
    );
    // The agent's default model is named as such, not as workspace.yaml's.
    assert!(!report.contains("workspace.yaml:1"), "{report}");
    // Gemini caches a repeated prefix without breakpoints: no "cached 5m".
    assert!(
        report.contains("in the first user message, part of the prefix, read while unchanged by Gemini's implicit caching"),
        "{report}"
    );
    assert!(!report.contains("cached 5m"), "{report}");
    let context: Value =
        serde_json::from_str(&h.run(&["context", ws, "--user-memory", "--format", "json"]))
            .unwrap();
    let files: Vec<(&str, &str)> = context["memory_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["source"].as_str().unwrap(), f["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("Project", "/home/user/notes-app/GEMINI.md"),
            ("Project", "/home/user/notes-app/docs/style.md"),
            ("User", "~/.gemini/GEMINI.md")
        ]
    );
    // One truth: the categories add up to what is in use.
    let rows = context["rows"].as_array().unwrap();
    let in_use: u64 = rows
        .iter()
        .filter(|r| r["name"] != "Free space" && r["name"] != "Autocompact buffer")
        .map(|r| r["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(in_use, context["used"].as_u64().unwrap());
    assert!(in_use > 8_000, "{context}");
}

/// GEMINI.md's line with an `@docs/style.md` import, which Gemini CLI sent
/// with the file inlined in it, is traced to GEMINI.md (the whole file
/// sent, not "changed since" the request), and the profile renders it as
/// sent: no difference.
#[test]
fn a_line_whose_import_gemini_inlined_is_traced_to_its_file() {
    let f = fixture();
    let capture = f.join("capture.jsonl");
    let ws = f.join("workspace");
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "traffic".to_string(),
            capture.display().to_string(),
            "--against".into(),
            ws.display().to_string(),
            "--request".into(),
            "2".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        common::stdout(&common::run(&a))
    };
    let text = run(args(&[]));
    let gemini = text
        .lines()
        .find(|l| l.trim_start().starts_with("GEMINI.md "))
        .unwrap();
    assert!(gemini.ends_with(" whole"), "{text}");
    assert!(
        text.contains("lines 1-3 in message 1 (user) block 1"),
        "{text}"
    );
    assert!(!text.contains("changed since"), "{text}");
    let check = run(args(&["--check-profile"]));
    assert!(check.contains("no difference"), "{check}");
}

/// The report cuts GEMINI.md where the request's trace finds its import:
/// the same files in the same order (GEMINI.md, then docs/style.md inside
/// it), the import counted at the same tokens in both, and the pieces
/// joined are the file as sent (`--check-profile`: no difference).
#[test]
fn the_report_splits_gemini_md_where_the_request_is_traced_to_its_import() {
    let ws = fixture().join("workspace");
    let ws = ws.to_str().unwrap();
    let report: Value = serde_json::from_str(&common::stdout(&common::run(&[
        "report", ws, "--format", "json",
    ])))
    .unwrap();
    let pieces: Vec<(&str, &str, u64)> = report["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"].as_str().unwrap().starts_with("gemini"))
        .map(|f| {
            (
                f["id"].as_str().unwrap(),
                f["source"].as_str().unwrap(),
                f["kept_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let ids: Vec<(&str, &str)> = pieces.iter().map(|p| (p.0, p.1)).collect();
    assert_eq!(
        ids,
        [
            ("gemini", "GEMINI.md"),
            ("gemini.import.docs.style", "docs/style.md"),
            ("gemini.part2", "GEMINI.md"),
        ]
    );
    let capture = fixture().join("capture.jsonl");
    let o = common::run(&[
        "traffic",
        capture.to_str().unwrap(),
        "--against",
        ws,
        "--request",
        "2",
        "--format",
        "json",
    ]);
    let a = &common::json(&o)["attribution"];
    // The message's parts traced in the order sent: GEMINI.md, its import,
    // GEMINI.md again, as the report's pieces.
    let part = a["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == "message 1 (user) block 1")
        .unwrap();
    let traced: Vec<(&str, u64)> = part["from_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f[0].as_str().unwrap(), f[1].as_u64().unwrap()))
        .collect();
    let paths: Vec<&str> = traced.iter().map(|t| t.0).collect();
    let sources: Vec<&str> = pieces.iter().map(|p| p.1).collect();
    assert_eq!(paths, sources, "{a}");
    assert_eq!(pieces[1].2, traced[1].1, "the import's tokens: {a}");
    assert!(pieces[1].2 > 10, "{pieces:?}");
}

/// Gemini CLI's markers around a GEMINI.md (`--- Context from: …`, an
/// import's `<!-- Imported from: … -->` and their ends) are the agent's
/// words, not the file's text: `context` counts the file without them,
/// the figure the report gives its rows as the file's own.
#[test]
fn gemini_md_is_counted_without_the_agents_markers() {
    let h = home();
    let ws = h.home().join("notes-app");
    let ws = ws.to_str().unwrap();
    let report: Value =
        serde_json::from_str(&h.run(&["report", ws, "--user-memory", "--format", "json"])).unwrap();
    let rows: Vec<&Value> = report["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"] == "GEMINI.md")
        .collect();
    assert_eq!(rows.len(), 2, "the file around its import: {rows:?}");
    let own: u64 = rows
        .iter()
        .map(|f| f["file_tokens"].as_u64().unwrap())
        .sum();
    let markers: u64 = rows
        .iter()
        .map(|f| f["heading_tokens"].as_u64().unwrap())
        .sum();
    let kept: u64 = rows
        .iter()
        .map(|f| f["kept_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(own + markers, kept);
    // The file's text alone, without the `@docs/style.md` the agent
    // replaces: about its own count (a cut between two pieces counts a
    // token or two apart).
    let text = std::fs::read_to_string(h.home().join("notes-app/GEMINI.md")).unwrap();
    let alone = text
        .replace("@docs/style.md", "")
        .split_whitespace()
        .count() as u64;
    assert!(
        own < kept / 2 && own >= alone,
        "own {own}, markers {markers}, words {alone}"
    );
    let context: Value =
        serde_json::from_str(&h.run(&["context", ws, "--user-memory", "--format", "json"]))
            .unwrap();
    let listed = context["memory_files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "/home/user/notes-app/GEMINI.md")
        .unwrap()["tokens"]
        .as_u64()
        .unwrap();
    assert_eq!(listed, own);
}

/// A file imported twice and a file imported by an import: Gemini CLI
/// inlines each where it is named (a file twice when it is not in its own
/// chain), and the report names every file in its own rows in the order
/// sent, each import apart (no "duplicate fragment id"), the nested
/// import not folded into the one that makes it.
#[test]
fn nested_and_repeated_imports_are_rows_of_their_own_files_in_the_order_sent() {
    let dir = tempfile::tempdir().unwrap();
    common::write_ws(
        dir.path(),
        &[
            (
                "GEMINI.md",
                "# app\n\nFollow @docs/style.md and @docs/style.md again.\n\nEnd.\n",
            ),
            (
                "docs/style.md",
                "Style: short.\nSee @rules.md too.\nMore style.\n",
            ),
            ("docs/rules.md", "Rule one.\nRule two.\n"),
            (".gemini/settings.json", "{}"),
        ],
    );
    let ws = dir.path().to_str().unwrap();
    let report = common::json(&common::run(&["report", ws, "--format", "json"]));
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report}");
    let rows: Vec<(&str, &str)> = report["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .map(|f| (f["id"].as_str().unwrap(), f["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("gemini", "GEMINI.md"),
            ("gemini.import.docs.style", "docs/style.md"),
            ("gemini.import.docs.rules", "docs/rules.md"),
            ("gemini.import.docs.style.part2", "docs/style.md"),
            ("gemini.part2", "GEMINI.md"),
            ("gemini.import.docs.style.2", "docs/style.md"),
            ("gemini.import.docs.rules.2", "docs/rules.md"),
            ("gemini.import.docs.style.2.part2", "docs/style.md"),
            ("gemini.part3", "GEMINI.md"),
        ]
    );
    // What Gemini CLI sends for it: each import between its markers, the
    // imported text as read, its own imports inlined in turn.
    let style = "<!-- Imported from: docs/style.md -->\nStyle: short.\n\
                 See <!-- Imported from: rules.md -->\nRule one.\nRule two.\n\n\
                 <!-- End of import from: rules.md --> too.\nMore style.\n\n\
                 <!-- End of import from: docs/style.md -->";
    let sent = format!(
        "--- Context from: {ws}/GEMINI.md ---\n# app\n\nFollow {style} and {style} again.\n\n\
         End.\n--- End of Context from: {ws}/GEMINI.md ---\n"
    );
    let render = common::stdout(&common::run(&["render", ws]));
    assert!(render.contains(&sent), "{render}");
}

/// The folder's tree in Gemini CLI's session context lists each folder's
/// files in the order Node's `localeCompare` gives them (Gemini CLI sorts
/// with it): checked against the node on this machine on names with
/// punctuation, digits, case and accents; the line above the tree has no
/// "Folders or files indicated with ..." when nothing is cut.
#[test]
#[ignore = "needs node (.ci/run installs it)"]
fn the_tree_lists_names_as_nodes_locale_compare_sorts_them() {
    let names = [
        "README.md",
        "package.json",
        "_x",
        "-y",
        ".env",
        "Zeta",
        "alpha",
        "Alpha",
        "éclair",
        "eclair",
        "a b",
        "a+b",
        "a.b",
        "a_b",
        "10f",
        "1f",
        "2f",
        "B",
        "b",
        "~t",
        "$d",
        "#h",
        "(p)",
        "[q]",
        "@s",
        "file.test.ts",
        "file.ts",
        "fileA.ts",
        "file-a.ts",
        "Ä",
        "ß",
        "z",
    ];
    let dir = tempfile::tempdir().unwrap();
    for n in names {
        std::fs::write(dir.path().join(n), "x").unwrap();
    }
    let script = format!(
        "console.log(JSON.stringify({}.sort((a, b) => a.localeCompare(b))))",
        serde_json::to_string(&names).unwrap()
    );
    let node = std::process::Command::new("node")
        .args(["-e", &script])
        .output()
        .expect("node");
    let sorted: Vec<String> = serde_json::from_slice(&node.stdout).unwrap();
    let ws = dir.path().to_str().unwrap();
    let text = common::stdout(&common::run(&["render", ws, "--profile", "gemini"]));
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("├───").or_else(|| l.strip_prefix("└───")))
        .collect();
    assert_eq!(listed, sorted, "{text}");
    assert!(
        text.contains("Showing up to 200 items (files + folders).\n\n"),
        "{text}"
    );
    assert!(!text.contains("Folders or files indicated"), "{text}");
}

/// A folder with ignore files of every kind, in a git repository or not
/// (`git`): `.gitignore`s at two depths, `.git/info/exclude`,
/// `.geminiignore`, negations, classes, `**`, case, CRLF lines.
fn ignoring_folder(git: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("README.md", ""),
        ("notes.md", ""),
        ("a.log", ""),
        ("keep.bak", ""),
        ("x.bak", ""),
        ("src/main.rs", ""),
        ("src/sub/x.tmp", ""),
        ("logs/keep.md", ""),
        ("logs/b.md", ""),
        ("docs/a.txt", ""),
        ("docs/x/y/z.txt", ""),
        ("pkg/x.tmp", ""),
        ("pkg/local", ""),
        ("pkg/build/o", ""),
        ("pkg/deep/build/o", ""),
        ("Build/o", ""),
        ("cls/a1", ""),
        ("cls/c3", ""),
        ("cls/d4", ""),
        ("lib/x/y.js", ""),
        ("target/debug/bin", ""),
        (
            ".gitignore",
            "target/\r\n*.log\r\nlogs/\r\n!logs/keep.md\r\nBUILD/\r\ncls/[a-b]?\r\ncls/[!a-c]4\r\nlib/**/\r\n/docs/**/z.txt\r\n",
        ),
        ("pkg/.gitignore", "*.tmp\n/local\nbuild/\n"),
        (".geminiignore", "docs/*.txt\n!x.bak\n"),
    ];
    for (p, text) in files {
        let f = dir.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    if git {
        std::fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        std::fs::write(dir.path().join(".git/info/exclude"), "*.bak\n!keep.bak\n").unwrap();
    }
    dir
}

fn tree_of(dir: &Path) -> String {
    let text = common::stdout(&common::run(&[
        "render",
        dir.to_str().unwrap(),
        "--profile",
        "gemini",
    ]));
    let start = text.find("- **Directory Structure:**").unwrap();
    let end = text[start..].find("\n\n\n").unwrap();
    text[start..start + end].to_string()
}

/// Gemini CLI leaves out of its tree what its ignore files ignore (a
/// folder shown as `NAME/...`): in a git repository `.gitignore`s,
/// `.git/info/exclude` and `.geminiignore`; outside one `.geminiignore`
/// alone. The trees are Gemini CLI's own for these folders (checked
/// against its code by the test below).
#[test]
fn the_tree_leaves_out_what_gemini_clis_ignore_files_ignore() {
    let items = |git: bool| {
        let dir = ignoring_folder(git);
        let tree = tree_of(dir.path());
        // Said when a folder is not opened (an ignored file is not).
        let said = tree.contains("Folders or files indicated with ...");
        assert_eq!(said, git, "{tree}");
        let root = format!("{}/\n", dir.path().canonicalize().unwrap().display());
        tree.split_once(&root).unwrap().1.to_string()
    };
    // In a repository: `.gitignore` (CRLF lines) ignores *.log, logs/
    // (keep.md inside it too), BUILD/ at any depth whatever its case,
    // cls/a1, lib/ (`lib/**/`), target/, docs/x/y/z.txt; pkg/.gitignore
    // its *.tmp, its local, its build/; .git/info/exclude *.bak but
    // keep.bak; .geminiignore docs/*.txt, and takes x.bak back.
    assert_eq!(
        items(true),
        "├───.geminiignore\n├───.gitignore\n├───keep.bak\n├───notes.md\n├───README.md\n\
         ├───x.bak\n├───.git/...\n├───Build/...\n├───cls/\n│   ├───c3\n│   └───d4\n\
         ├───docs/\n│   └───x/\n│       └───y/\n├───lib/...\n├───logs/...\n├───pkg/\n\
         │   ├───.gitignore\n│   ├───build/...\n│   └───deep/\n│       └───build/...\n\
         ├───src/\n│   ├───main.rs\n│   └───sub/\n│       └───x.tmp\n└───target/..."
    );
    // Outside one: .geminiignore alone (docs/*.txt).
    let plain = items(false);
    assert!(
        plain.contains("├───a.log\n") && plain.contains("│   └───keep.md\n"),
        "{plain}"
    );
    assert!(
        plain.contains("├───docs/\n│   └───x/") && !plain.contains("a.txt"),
        "{plain}"
    );
    assert!(
        plain.contains("├───lib/\n│   └───x/\n│       └───y.js"),
        "{plain}"
    );
}

/// The same folders drawn by Gemini CLI's own code (its getFolderStructure
/// and FileDiscoveryService with the `ignore` package it bundles, read out
/// of the npm package by scripts/gemini-tree.sh, which installs it when
/// missing) and by prompt-inspector: the same trees.
#[test]
#[ignore = "needs node and the Gemini CLI package from npm (.ci/run)"]
fn the_tree_is_gemini_clis_own_with_its_ignore_files() {
    let (git, plain) = (ignoring_folder(true), ignoring_folder(false));
    let out = std::process::Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gemini-tree.sh"))
        .args([git.path(), plain.path()])
        .env("PROMPT_INSPECTOR", common::bin())
        .output()
        .unwrap();
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert_eq!(text.matches("SAME").count(), 2, "{text}");
}
