//! `traffic CAPTURE --against WORKSPACE`: a request the real agents sent
//! (Claude Code 2.1.328, OpenClaw 2026.9.6, Codex 0.169.0, recorded by
//! scripts/record-agent.sh) traced back to the workspace's files, file by
//! file; and a file edited between two turns named with the line changed.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::*;

fn fixture(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(agent)
}

/// `traffic --against` of request `request` of a fixture's capture, as
/// JSON: its `attribution`.
pub fn attribution(agent: &str, ws: &Path, request: usize) -> Value {
    let o = traffic_against(agent, ws, request, &["--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["attribution"].clone()
}

/// `traffic CAPTURE --against WS --request N` on an agent's fixture.
fn traffic_against(agent: &str, ws: &Path, request: usize, extra: &[&str]) -> std::process::Output {
    let cap = fixture(agent).join("capture.jsonl");
    let n = request.to_string();
    let mut args = vec![
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        &n,
    ];
    args.extend(extra);
    run(&args)
}

/// Each file's path → (how it was sent, the parts it is in).
fn files(a: &Value) -> Vec<(String, String, Vec<String>)> {
    a["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut parts: Vec<String> = f["occurrences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["part"].as_str().unwrap().to_string())
                .collect();
            parts.dedup();
            (
                f["path"].as_str().unwrap().to_string(),
                f["sent"].as_str().unwrap().to_string(),
                parts,
            )
        })
        .collect()
}

fn file<'a>(a: &'a Value, path: &str) -> &'a Value {
    a["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} listed"))
}

/// The workspace as it was at the first turn, with the files of
/// `workspace-after/` (edited before a later turn) put in.
fn after(agent: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(agent).join("workspace"), dir.path());
    copy_dir(&fixture(agent).join("workspace-after"), dir.path());
    dir
}

#[test]
fn openclaw_sends_its_bootstrap_files_whole_in_the_first_system_block() {
    let a = attribution("openclaw", &fixture("openclaw").join("workspace"), 1);
    let sys = vec!["system block 1".to_string()];
    for f in [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "MEMORY.md",
    ] {
        assert!(
            files(&a).contains(&(f.into(), "whole".into(), sys.clone())),
            "{f}: {:?}",
            files(&a)
        );
    }
    // 2026.9 no longer sends TOOLS.md; the daily note waits for /new.
    assert_eq!(file(&a, "TOOLS.md")["sent"], "absent");
    assert_eq!(file(&a, "memory/2026-12-01.md")["sent"], "absent");
    // Every token is somebody's.
    let (t, f, n) = (&a["tokens"], &a["from_files"], &a["from_no_file"]);
    assert_eq!(t.as_u64(), Some(f.as_u64().unwrap() + n.as_u64().unwrap()));
    assert!(
        f.as_u64().unwrap() > 100 && n.as_u64().unwrap() > 5_000,
        "{f} {n}"
    );
}

#[test]
fn claude_code_sends_its_memory_files_in_the_first_user_message() {
    let a = attribution("claude-code", &fixture("claude-code").join("workspace"), 1);
    let first = vec!["message 1 (user) block 1".to_string()];
    for f in ["CLAUDE.md", "CLAUDE.local.md", "docs/conventions.md"] {
        assert!(
            files(&a).contains(&(f.into(), "whole".into(), first.clone())),
            "{f}: {:?}",
            files(&a)
        );
    }
    // None of the user's text is in a system block: the agent's own.
    for p in a["parts"].as_array().unwrap() {
        if p["label"].as_str().unwrap().starts_with("system block") {
            assert!(p["from_files"].as_array().unwrap().is_empty(), "{p}");
        }
    }
}

/// A skill and a subagent are listed by their descriptions (Claude Code's
/// skill listing, its list of subagents), their bodies not sent: those
/// tokens are the files', not the agent's own.
#[test]
fn a_skill_and_a_subagent_listed_by_their_descriptions_are_the_files_tokens() {
    let ws = fixture("claude-code-2.1.332").join("workspace");
    let a = attribution("claude-code-2.1.332", &ws, 1);
    for path in [
        ".claude/skills/release-notes/SKILL.md",
        ".claude/agents/file-lister.md",
    ] {
        let f = file(&a, path);
        assert_eq!(f["sent"], "listed", "{f}");
        assert_eq!(f["lines_sent"], 0, "{f}");
        let spans = f["spans"].as_array().unwrap();
        assert_eq!(spans.len(), 1, "{f}");
        let s = &spans[0];
        assert_eq!(s["listed"], true, "{s}");
        // The frontmatter's line 3: `description: …`.
        assert_eq!(
            (s["first_line"].as_u64(), s["last_line"].as_u64()),
            (Some(3), Some(3))
        );
        assert!(s["tokens"].as_u64().unwrap() >= 20, "{s}");
        assert_eq!(f["tokens"], s["tokens"]);
        // The part counts those tokens as the file's.
        let part = a["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["label"] == s["part"])
            .unwrap();
        assert!(
            part["from_files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x[0] == path && x[1] == s["tokens"]),
            "{part}"
        );
    }
    // Their sum is in the request's figure from the files, and every part
    // adds up.
    let parts = a["parts"].as_array().unwrap();
    let from: u64 = parts
        .iter()
        .flat_map(|p| p["from_files"].as_array().unwrap())
        .map(|x| x[1].as_u64().unwrap())
        .sum();
    assert_eq!(a["from_files"].as_u64(), Some(from));
    // The text view says so.
    let text = stdout(&traffic_against("claude-code-2.1.332", &ws, 1, &[]));
    assert!(
        text.contains("listed: its description, its body not sent")
            && text.contains("its description (line 3) in message 2 (system)"),
        "{text}"
    );
}

#[test]
fn codex_appends_an_edited_agents_md_and_the_old_text_stays() {
    let ws = after("codex");
    let a = attribution("codex", ws.path(), 3);
    let f = file(&a, "tools/AGENTS.md");
    assert_eq!(f["sent"], "whole", "the new text is sent: {f}");
    let occ = f["occurrences"].as_array().unwrap();
    assert_eq!(occ.len(), 2, "{f}");
    // The first user message keeps the text of the first turn: without the
    // line added (line 5), which the appended message has.
    assert_eq!(occ[0]["sent"], "cut");
    assert_eq!(occ[0]["missing"], serde_json::json!([[5, 5]]));
    assert_eq!(occ[1]["sent"], "whole");
    // The first request was sent before the edit: the line is missing, and
    // the file was modified after the request (the copy is newer than the
    // recording): it changed since, Codex cut nothing.
    let a = attribution("codex", ws.path(), 1);
    let f = file(&a, "tools/AGENTS.md");
    assert_eq!(
        (&f["sent"], &f["missing"]),
        (&"changed".into(), &serde_json::json!([[5, 5]]))
    );
    let (modified, sent_at) = (
        f["changed_since"][0].as_f64().unwrap(),
        f["changed_since"][1].as_f64().unwrap(),
    );
    assert!(modified > sent_at, "{f}");
    // The same file dated before the request: then the line's absence is a
    // cut (nothing says the file changed since).
    let agents = ws.path().join("tools/AGENTS.md");
    let before = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(sent_at - 86_400.0);
    std::fs::File::options()
        .write(true)
        .open(&agents)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let a = attribution("codex", ws.path(), 1);
    assert_eq!(file(&a, "tools/AGENTS.md")["sent"], "cut");
}

#[test]
fn openclaws_edited_agents_md_is_named_with_the_line_added() {
    let ws = after("openclaw");
    let before = attribution("openclaw", ws.path(), 1);
    let f = file(&before, "AGENTS.md");
    assert_eq!(f["sent"], "changed", "edited after the request: {f}");
    assert_eq!(f["missing"], serde_json::json!([[13, 13]]));
    let last = attribution("openclaw", ws.path(), 3);
    assert_eq!(file(&last, "AGENTS.md")["sent"], "whole");
}

#[test]
fn the_text_view_lists_your_files_and_what_comes_from_no_file() {
    let cap = fixture("openclaw").join("capture.jsonl");
    let ws = fixture("openclaw").join("workspace");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.starts_with("request #3: "),
        "the last request by default: {t}"
    );
    assert!(t.contains("your files in this request:"));
    assert!(t.contains("from no file"));
    // A transcript has no bodies: said, not guessed.
    let tr = fixture("claude-code").join("transcript");
    let o = run(&[
        "traffic",
        tr.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no request has a recorded body"),
        "{}",
        stderr(&o)
    );
}

/// `--check-profile`'s differences: (point, file).
fn check(agent: &str, ws: &Path, request: usize) -> (Option<i32>, Vec<(String, String)>) {
    check_with(agent, ws, request, &[])
}

fn check_with(
    agent: &str,
    ws: &Path,
    request: usize,
    extra: &[&str],
) -> (Option<i32>, Vec<(String, String)>) {
    let cap = fixture(agent).join("capture.jsonl");
    let n = request.to_string();
    let mut args = vec![
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        &n,
        "--check-profile",
        "--format",
        "json",
    ];
    args.extend(extra);
    let o = run(&args);
    let d = json(&o)["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["point"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (o.status.code(), d)
}

#[test]
fn the_profile_check_names_where_the_real_agents_differ_from_the_profiles() {
    let pair = |p: &str, f: &str| (p.to_string(), f.to_string());
    // openclaw@2026.9 renders the files as OpenClaw 2026.9.6 sent them:
    // no TOOLS.md, the Project Context's headings, one breakpoint on the
    // stable block. The older profile still differs where 2026.9 changed.
    let ws = fixture("openclaw").join("workspace");
    let (code, d) = check("openclaw", &ws, 1);
    assert_eq!((code, d), (Some(0), vec![]), "exit 0 when they agree");
    let (code, d) = check_with("openclaw", &ws, 1, &["--profile", "openclaw@2026.7"]);
    assert_eq!(code, Some(1), "exit 1 when they differ");
    assert_eq!(d, vec![pair("missing", "TOOLS.md"), pair("breakpoint", "")]);
    // claude-code@2.1 puts the memory files in the first user message with
    // Claude Code 2.1.328's labels, and renders the agent's own system
    // blocks with their breakpoints (on its blocks 2 and 3).
    let ws = fixture("claude-code").join("workspace");
    let (code, d) = check("claude-code", &ws, 1);
    assert_eq!((code, d), (Some(0), vec![]));
    let (_, d) = check_with("claude-code", &ws, 1, &["--profile", "claude-code@2.0"]);
    for f in ["CLAUDE.md", "CLAUDE.local.md", "docs/conventions.md"] {
        assert!(d.contains(&pair("placement", f)), "{f}: {d:?}");
    }
    assert!(d.contains(&pair("heading", "CLAUDE.local.md")), "{d:?}");
    assert!(d.contains(&pair("heading", "docs/conventions.md")), "{d:?}");
    // codex: the root's AGENTS.md as Codex 0.169.0 sent it; Codex ran in
    // tools/, whose AGENTS.md joins only there.
    let (_, d) = check("codex", &fixture("codex").join("workspace"), 1);
    assert_eq!(d, vec![pair("added", "tools/AGENTS.md")]);
    // Given the folder it ran in, the profile sends both, as Codex did.
    let ws = fixture("codex").join("workspace");
    let (code, d) = check_with("codex", &ws, 1, &["--workdir", "tools"]);
    assert_eq!((code, d), (Some(0), vec![]));
}

/// The last request of a session holds what the agent loaded during it (a
/// skill it invoked, in a message after its first answer): no difference
/// from the profile, listed apart; exit 0. What the chain's first request
/// held already (OpenCode's api/AGENTS.md, sent because it ran in api/) is
/// no file loaded on the way: the same difference in every request of the
/// conversation, where the last one called it loaded during the session.
#[test]
fn what_the_agent_loads_during_the_session_is_no_difference() {
    let (agent, file) = ("claude-code", ".claude/skills/release-notes/SKILL.md");
    let ws = fixture(agent).join("workspace");
    let (code, d) = check_with(agent, &ws, 8, &[]);
    assert_eq!((code, d), (Some(0), vec![]), "{agent}");
    let cap = fixture(agent).join("capture.jsonl");
    let args = vec![
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--check-profile",
    ];
    let text = stdout(&run(&args));
    assert!(text.contains("loaded during the session"), "{text}");
    assert!(text.contains(&format!("  {file} (first in ")), "{text}");
    let mut args = args.clone();
    args.extend(["--format", "json"]);
    let j = json(&run(&args));
    assert_eq!(j["read_in_session"][0]["file"], file, "{j}");
    // Requests before the on-demand file could be loaded (it crashed once
    // on a file sent by neither): the title request, a side call to the
    // small model, carries no instructions; the first of the conversation
    // holds api/AGENTS.md because OpenCode ran in api/ (nothing read yet):
    // a difference, with how to render it, and none with --workdir api.
    let ws = fixture("opencode").join("workspace");
    let profile = ["--profile", "opencode@1.18"];
    let (code, d) = check_with("opencode", &ws, 1, &profile);
    assert_eq!(
        (code, d),
        (Some(1), vec![("missing".into(), "AGENTS.md".into())])
    );
    // Request 4 was sent after AGENTS.md's edit: its added line, which
    // this folder (as it was before) lacks, sent right after the file.
    for n in [2, 4] {
        let (code, d) = check_with("opencode", &ws, n, &profile);
        let mut expected: Vec<(String, String)> = vec![("added".into(), "api/AGENTS.md".into())];
        if n == 4 {
            expected.insert(0, ("sent-after".into(), "AGENTS.md".into()));
        }
        assert_eq!((code, d), (Some(1), expected), "request {n}");
    }
    let cap = fixture("opencode").join("capture.jsonl");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "2",
        "--check-profile",
        "--profile",
        "opencode@1.18",
    ]);
    assert!(
        stdout(&o).contains("(the agent ran in api or below it: --workdir api renders it)"),
        "{}",
        stdout(&o)
    );
    // Each against the folder as it was then (request 4: after the edit).
    let edited = after("opencode");
    for (n, ws) in [(2, ws.as_path()), (4, edited.path())] {
        let (code, d) = check_with(
            "opencode",
            ws,
            n,
            &["--profile", "opencode@1.18", "--workdir", "api"],
        );
        assert_eq!((code, d), (Some(0), vec![]), "request {n}");
    }
}

/// A request recorded in another home, checked where the user has a
/// `~/.claude/CLAUDE.md`: the file the request holds nothing of is said,
/// and is no difference of the agent's (exit 0).
#[test]
fn a_home_memory_file_the_request_lacks_is_no_difference() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/CLAUDE.md"),
        "# Mine\nAlways answer in French.\n",
    )
    .unwrap();
    let ws = fixture("claude-code").join("workspace");
    let cap = fixture("claude-code").join("capture.jsonl");
    let args = [
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "1",
        "--check-profile",
    ];
    let o = run_home(home.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("not in the request, though in this home: ~/.claude/CLAUDE.md"),
        "{}",
        stdout(&o)
    );
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let j = json(&run_home(home.path(), &args));
    assert_eq!(j["differences"], serde_json::json!([]), "{j}");
    assert_eq!(
        j["home_not_sent"],
        serde_json::json!(["~/.claude/CLAUDE.md"])
    );
    // Codex: with this home's ~/.codex/AGENTS.md rendered, the project's
    // file would follow the agent's `--- project-doc ---`, not the
    // request's `<INSTRUCTIONS>`: compared as the home that sent it.
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::write(
        home.path().join(".codex/AGENTS.md"),
        "# Me\nPrefer short answers.\n",
    )
    .unwrap();
    // The folder as of the last request (after the edit of its turn), in
    // a repository as it was recorded (Codex reads from the git root).
    let ws = after("codex");
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    let cap = fixture("codex").join("capture.jsonl");
    let o = run_home(
        home.path(),
        &[
            "traffic",
            cap.to_str().unwrap(),
            "--against",
            ws.path().to_str().unwrap(),
            "--workdir",
            "tools",
            "--check-profile",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("not in the request, though in this home: ~/.codex/AGENTS.md"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_profile_check_names_a_file_edited_between_turns_and_the_line() {
    let ws = after("openclaw");
    let (_, d) = check("openclaw", ws.path(), 1);
    assert!(
        d.contains(&("changed-since".into(), "AGENTS.md".into())),
        "{d:?}"
    );
    let cap = fixture("openclaw").join("capture.jsonl");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.path().to_str().unwrap(),
        "--request",
        "1",
        "--check-profile",
    ]);
    let t = stdout(&o);
    assert!(t.contains("not in it: line 13"), "{t}");
    // After the edit, the agent sent the new line: the profile renders
    // request 3 as sent.
    let (code, d) = check("openclaw", ws.path(), 3);
    assert_eq!((code, d), (Some(0), vec![]));
}

/// The text `render` prints for a workspace (its blocks' texts, the block
/// headers left out), with the fixture's folder written as the agent's.
fn rendered(ws: &Path, agent_root: &str) -> String {
    let o = run(&["render", ws.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let root = ws.canonicalize().unwrap().display().to_string();
    stdout(&o)
        .lines()
        .filter(|l| !l.starts_with("────"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(&root, agent_root)
}

/// The first request's body as the agent sent it.
fn first_request(agent: &str) -> Value {
    let text = std::fs::read_to_string(fixture(agent).join("capture.jsonl")).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    line["request"].clone()
}

/// The lines of `text` from the one starting with `from` to the one
/// starting with `to`, inclusive of the first, not of the last.
fn section(text: &str, from: &str, to: Option<&str>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let a = lines
        .iter()
        .position(|l| l.starts_with(from))
        .unwrap_or_else(|| panic!("{from} in {text}"));
    let b = to
        .and_then(|t| {
            lines[a + 1..]
                .iter()
                .position(|l| l.starts_with(t))
                .map(|i| a + 1 + i)
        })
        .unwrap_or(lines.len());
    lines[a..b].join("\n")
}

#[test]
fn the_profiles_render_the_agents_file_sections_byte_for_byte() {
    // OpenClaw 2026.9.6: the Project Context, from its title to MEMORY.md's
    // last line, as in the stable system block it sent.
    let ours = rendered(
        &fixture("openclaw").join("workspace"),
        "/home/user/workspace",
    );
    let project = section(
        &ours,
        "## Workspace Files (injected)",
        Some("<!-- openclaw:attempt:DYNAMIC -->"),
    );
    let sent = first_request("openclaw")["system"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let memory_end = project.trim_end();
    assert!(
        sent.contains(memory_end),
        "OpenClaw's Project Context differs:\n{memory_end}"
    );
    // Claude Code 2.1.328: the memory files' reminder in the first user
    // message, whole.
    let ours = rendered(
        &fixture("claude-code").join("workspace"),
        "/home/user/project",
    );
    let reminder = section(&ours, "<system-reminder>", None);
    let reminder =
        &reminder[..reminder.find("</system-reminder>").unwrap() + "</system-reminder>".len()];
    let sent = first_request("claude-code")["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        sent.trim(),
        reminder.trim(),
        "Claude Code's memory reminder differs"
    );
}

/// The user's own memory (`~/.claude/CLAUDE.md` and what it imports) is
/// found in a request and named as the agent names it, not counted as
/// "from no file"; `--check-profile` renders it too.
#[test]
fn user_memory_and_its_import_are_traced_by_their_home_paths() {
    let home = tempfile::tempdir().unwrap();
    write_ws(
        home.path(),
        &[
            (
                ".claude/CLAUDE.md",
                "# Mine\n\nBe terse in every answer you give. @style.md\n",
            ),
            (
                ".claude/style.md",
                "Use British spelling.\nPrefer short sentences over long ones in every answer.\n",
            ),
        ],
    );
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[(
            "CLAUDE.md",
            "# Project\n\nRun the tests before you say a change works.\n",
        )],
    );
    let with_home = |args: &[&str]| {
        let o = std::process::Command::new(bin())
            .args(args)
            .env("HOME", home.path())
            .output()
            .unwrap();
        (o.status.code(), stdout(&o), stderr(&o))
    };
    let w = ws.path().to_str().unwrap();
    // The request as Claude Code would send it with that memory.
    let (_, body, err) = with_home(&[
        "render",
        w,
        "--profile",
        "claude-code",
        "--user-memory",
        "--request-json",
    ]);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{err}"));
    let line = serde_json::json!({"schema": 1, "endpoint": "/v1/messages", "ts_start": "2026-12-03T10:00:00.000Z",
        "model": body["model"], "status": 200, "usage": {"input_tokens": 10}, "request": body});
    let cap = ws.path().join("capture.jsonl");
    std::fs::write(&cap, format!("{line}\n")).unwrap();
    let c = cap.to_str().unwrap();
    let (code, text, err) = with_home(&["traffic", c, "--against", w]);
    assert_eq!(code, Some(0), "{err}");
    for f in ["~/.claude/CLAUDE.md", "~/.claude/style.md", "CLAUDE.md"] {
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{f} ")))
            .unwrap_or_else(|| panic!("{f} in {text}"));
        assert!(row.contains("whole"), "{row}");
    }
    let (code, text, err) = with_home(&[
        "traffic",
        c,
        "--against",
        w,
        "--profile",
        "claude-code",
        "--check-profile",
    ]);
    assert_eq!(code, Some(0), "{text}{err}");
    assert!(text.contains("no difference"), "{text}");
}

/// `--against` writes text or JSON: a format it has no view in is refused
/// in a sentence, not answered with text.
#[test]
fn against_refuses_a_format_it_has_no_view_in() {
    let ws = fixture("claude-code-2.1.332").join("workspace");
    for f in ["markdown", "html"] {
        let o = traffic_against("claude-code-2.1.332", &ws, 1, &["--format", f]);
        assert_eq!(o.status.code(), Some(2), "{f}");
        assert!(
            stderr(&o).contains("--against writes text or JSON"),
            "{}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty());
    }
}

/// Unless named, `--check-profile` says why its profile was chosen: the
/// release that sent the request, or the agent whose words open it.
#[test]
fn the_profile_checked_says_why_it_was_chosen() {
    let why = |agent: &str, extra: &[&str]| {
        let ws = fixture(agent).join("workspace");
        let mut args = vec!["--check-profile", "--format", "json"];
        args.extend(extra);
        let j = json(&traffic_against(agent, &ws, 1, &args));
        j["profile_chosen_because"].as_str().unwrap().to_string()
    };
    assert_eq!(
        why("claude-code-2.1.332", &[]),
        "the release that sent the request: Claude Code 2.1.332"
    );
    assert!(why("pi", &[]).starts_with("the agent whose words open the request"));
    assert!(
        why("claude-code-2.1.332", &["--profile", "claude-code@2.1"])
            .starts_with("chosen explicitly")
    );
}

/// A request set against a folder of another agent says so (none of it is
/// that agent's own prompt or tools), where it listed every file as "not
/// sent" without a word; a request of the folder's own agent says nothing.
#[test]
fn a_request_of_another_agent_is_said_to_be_so() {
    let cap = fixture("codex").join("capture.jsonl");
    let ws = fixture("gemini").join("workspace");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("note: none of this request is Gemini CLI 0.61.0's own prompt or tools, as the gemini@0.61 profile renders them"),
        "{}",
        stderr(&o)
    );
    let own = fixture("claude-code");
    let o = run(&[
        "traffic",
        own.join("capture.jsonl").to_str().unwrap(),
        "--against",
        own.join("workspace").to_str().unwrap(),
        "--check-profile",
        "--format",
        "json",
    ]);
    assert!(
        !stderr(&o).contains("note: none of this request"),
        "{}",
        stderr(&o)
    );
    assert_eq!(json(&o)["not_this_agent"], serde_json::Value::Null);
}

/// A line edited after the request, between two lines that are not: the
/// line after it, sent word for word though short, is found on with the
/// lines before it (not called unsent), and the request's text in the
/// edited line's place is the file as it was then (the file changed since;
/// the agent cut nothing), not an agent's cut marker.
#[test]
fn a_line_edited_since_leaves_the_lines_around_it_traced() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("pi").join("workspace"), dir.path());
    let agents = dir.path().join("AGENTS.md");
    let text = std::fs::read_to_string(&agents).unwrap();
    let edited = text.replace(
        "- Run `npm test` before saying a change works.",
        "- Run the tests first, always.",
    );
    assert_ne!(edited, text);
    std::fs::write(&agents, edited).unwrap();
    let a = attribution("pi", dir.path(), 1);
    let f = file(&a, "AGENTS.md");
    assert_eq!(f["sent"], "changed", "{f}");
    assert_eq!(f["missing"], serde_json::json!([[5, 5]]), "{f}");
    assert_eq!(f["lines_sent"], 3, "{f}");
    let o = traffic_against("pi", dir.path(), 1, &[]);
    let text = stdout(&o);
    assert!(text.contains("line 6 in system block 1"), "{text}");
    assert!(
        text.contains("sent in its place (the file as it was then): - Run `npm test`"),
        "{text}"
    );
}

/// A line deleted after the request, between two lines that are still
/// there: the file is sent whole today but the request holds more, so it
/// changed since (the agent added nothing), the line named as what the
/// file held then, in the trace and in the profile check.
#[test]
fn a_line_deleted_since_is_named_as_the_file_as_it_was_then() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("pi").join("workspace"), dir.path());
    let agents = dir.path().join("AGENTS.md");
    let text = std::fs::read_to_string(&agents).unwrap();
    let deleted = text.replace("- Run `npm test` before saying a change works.\n", "");
    assert_ne!(deleted, text);
    std::fs::write(&agents, deleted).unwrap();
    let a = attribution("pi", dir.path(), 1);
    let f = file(&a, "AGENTS.md");
    assert_eq!(f["sent"], "changed", "{f}");
    assert_eq!(f["missing"], serde_json::Value::Null, "{f}");
    assert_eq!(
        f["between"],
        serde_json::json!(["- Run `npm test` before saying a change works."]),
        "{f}"
    );
    let text = stdout(&traffic_against("pi", dir.path(), 1, &[]));
    assert!(
        text.contains(
            "changed since: every line of today's file sent, and text it no longer holds"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "sent between its lines (the file as it was then; from no file today): - Run `npm test`"
        ),
        "{text}"
    );
    let (code, d) = check("pi", dir.path(), 1);
    assert_eq!(code, Some(1), "{d:?}");
    // (Pi's `src/CLAUDE.md` is a difference of the fixture's own.)
    let on_agents: Vec<_> = d.iter().filter(|(_, f)| f == "AGENTS.md").collect();
    assert_eq!(
        on_agents,
        [&("changed-since".to_string(), "AGENTS.md".to_string())]
    );
    let t = stdout(&traffic_against("pi", dir.path(), 1, &["--check-profile"]));
    assert!(
        t.contains("it held too: - Run `npm test` before saying a change works."),
        "{t}"
    );
}

/// The folder older than the request: OpenClaw sent AGENTS.md with a line
/// added at its end (request 3, after the edit), which the folder as it
/// was before does not hold. The check names that line, sent right after
/// the file, where it said "no difference" (the line was counted from no
/// file); against the folder after the edit there is none.
#[test]
fn a_line_the_agent_sent_after_a_file_the_folder_lacks_is_a_difference() {
    let (code, d) = check("openclaw", &fixture("openclaw").join("workspace"), 3);
    assert_eq!(code, Some(1), "{d:?}");
    assert_eq!(d, [("sent-after".to_string(), "AGENTS.md".to_string())]);
    let o = traffic_against(
        "openclaw",
        &fixture("openclaw").join("workspace"),
        3,
        &["--check-profile"],
    );
    let t = stdout(&o);
    assert!(
        t.contains(
            "after it, from no file today: - Reply in English, even when Sam writes in French."
        ),
        "{t}"
    );
    let ws = after("openclaw");
    assert_eq!(check("openclaw", ws.path(), 3), (Some(0), vec![]));
}
