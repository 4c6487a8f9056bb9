//! The agent's own parts (its built-in prompt, tools, skills and subagents,
//! runtime context, default model and limits) in every view: rendered for a
//! fixture's folder, they are what the real agent sent byte for byte
//! (Claude Code 2.1.328, OpenClaw 2026.9.6, Codex 0.169.0: the fixtures of
//! tests/fixtures/agents, recorded by scripts/record-agent.sh); the
//! recordings are what scripts/agent-builtins.py makes of those fixtures;
//! `context` lists `/context`'s categories and rows.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::*;

fn fixture(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(agent)
}

/// The first request the agent sent.
fn first_request(agent: &str) -> Value {
    let text = std::fs::read_to_string(fixture(agent).join("capture.jsonl")).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    common::on_this_machine(&line["request"])
}

/// The agent's recorded date (its `{today}`).
const RECORDED_DAY: &str = "2026-12-01";

/// The fixture's workspace copied to `HOME/<at>` of a private home, as the
/// agent had it under `/home/user/<at>`.
struct Home {
    dir: tempfile::TempDir,
    /// The day the fixture was recorded (its `{today}`).
    day: String,
}

impl Home {
    fn with(agent: &str, at: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&fixture(agent).join("workspace"), &dir.path().join(at));
        // Codex ran in a git repository (record-agent.sh made one): it
        // reads AGENTS.md from the repository's root down.
        if agent.starts_with("codex") {
            std::fs::create_dir_all(dir.path().join(at).join(".git")).unwrap();
        }
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(agent).join("meta.json")).unwrap(),
        )
        .unwrap();
        let day = meta["recorded_at"].as_str().unwrap_or(RECORDED_DAY)[..10].to_string();
        // A fixture of an older release than the newest bundled recording
        // is read with that release's profile, named where a user names it.
        let pinned = match agent {
            "claude-code" => Some("claude-code@2.1"),
            "codex" => Some("codex@0.169"),
            _ => None,
        };
        if let Some(p) = pinned {
            std::fs::write(
                dir.path().join(at).join("workspace.yaml"),
                format!("profile: {p}\n"),
            )
            .unwrap();
        }
        Home { dir, day }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// A subcommand run with this HOME, its output with the home written
    /// as the agent's and today's date as the recorded one.
    fn run(&self, args: &[&str]) -> String {
        let o = Command::new(bin())
            .args(args)
            .env("HOME", self.path())
            .env("TZ", "UTC")
            .env_remove("ANTHROPIC_API_KEY")
            .output()
            .unwrap();
        // `diff` exits 1 when the two differ.
        let differ = args[0] == "diff" && o.status.code() == Some(1);
        assert!(o.status.success() || differ, "{}", stderr(&o));
        let today = today();
        let home = self.path().display().to_string();
        // Claude Code's project folder name: every character but a letter
        // or a digit made `-`.
        let slug = |p: &str| -> String {
            p.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        };
        stdout(&o)
            .replace(&slug(&home), &slug("/home/user"))
            .replace(&home, "/home/user")
            .replace(&today, &self.day)
    }

    /// `render --request-json` of `HOME/<folder>`, with `extra` arguments.
    fn request(&self, folder: &str, extra: &[&str]) -> Value {
        let ws = self.path().join(folder);
        let mut args = vec!["render", ws.to_str().unwrap(), "--request-json"];
        args.extend(extra);
        serde_json::from_str(&self.run(&args)).unwrap()
    }
}

/// Today's date as the binary dates it (in UTC, as `TZ` says here).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let days = secs.div_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn texts(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .map(|b| b["text"].as_str().unwrap_or("").to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Claude Code says whether it runs in a git repository (a `.git` in its
/// folder or one above it), and adds the repository's git status, which
/// comes from running git: said, not counted.
#[test]
fn claude_code_in_a_git_repository_says_so_and_its_git_status_is_named() {
    let home = Home::with("claude-code", "project");
    let env = |h: &Home| {
        let ours = h.request("project", &[]);
        let text = ours["messages"][1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        text.lines()
            .find(|l| l.contains("Is a git repository"))
            .unwrap()
            .to_string()
    };
    assert_eq!(env(&home), " - Is a git repository: false");
    let report = home.run(&["report", home.path().join("project").to_str().unwrap()]);
    assert!(!report.contains("git status"), "{report}");
    std::fs::create_dir(home.path().join(".git")).unwrap();
    assert_eq!(env(&home), " - Is a git repository: true");
    let report = home.run(&["report", home.path().join("project").to_str().unwrap()]);
    assert!(
        report.contains("Claude Code adds this repository's git status"),
        "{report}"
    );
}

#[test]
fn claude_codes_own_parts_are_rendered_as_it_sent_them() {
    let home = Home::with("claude-code", "project");
    let ours = home.request("project", &[]);
    let sent = first_request("claude-code");
    // Its 12 tools (the deferred ones apart), in its order.
    assert_eq!(
        ours["tools"], sent["tools"],
        "its tools, with its breakpoint on the last when it puts one there"
    );
    // Its three system blocks (billing header, identity, prompt) with its
    // breakpoints on the last two.
    assert_eq!(ours["system"], sent["system"]);
    // The first user message: the memory reminder (the user's files), its
    // attribution reminder, then what was typed.
    let (o, s) = (
        texts(&ours["messages"][0]["content"]),
        texts(&sent["messages"][0]["content"]),
    );
    assert_eq!(o[..2], s[..2]);
    // Then a system-role message: the environment, the deferred tools, the
    // subagents (the project's file-lister among the built-in ones, by
    // name), the skills (the project's release-notes first), the date.
    // (The agent also sets `output_config` on it: a setting, no text.)
    assert_eq!(ours["messages"][1]["role"], "system");
    assert_eq!(
        ours["messages"][1]["content"],
        sent["messages"][1]["content"]
    );
}

#[test]
fn codex_and_openclaw_own_parts_are_rendered_as_they_sent_them() {
    // Each Codex release by its own profile: 0.169 and 0.171 (the newest).
    codex_as_sent("codex", "codex@0.169");
    codex_as_sent("codex-0.171", "codex");
    // OpenClaw: one stable block (its prompt, its skills with the
    // workspace's among its built-in ones by name, its notes, the files,
    // its end marker), then its runtime context; its 14 tools.
    let home = Home::with("openclaw", "workspace");
    let ours = home.request("workspace", &[]);
    let sent = first_request("openclaw");
    assert_eq!(
        ours["tools"], sent["tools"],
        "its tools, with its breakpoint on the last when it puts one there"
    );
    assert_eq!(texts(&ours["system"]), texts(&sent["system"]));
    assert_eq!(
        ours["system"][0]["cache_control"],
        sent["system"][0]["cache_control"]
    );
}

/// Codex's tools, sent in three namespaces, cost what the request's three
/// definitions cost: the same figure in `report`, `context`, `agents` and
/// in `traffic` on the request Codex sent.
#[test]
fn codex_tools_cost_the_same_in_every_view_as_in_its_request() {
    let home = Home::with("codex-0.171", "repo");
    let ws = home.path().join("repo");
    let ws = ws.to_str().unwrap();
    let capture = fixture("codex-0.171").join("capture.jsonl");
    let traffic: Value = serde_json::from_str(&home.run(&[
        "traffic",
        capture.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let parts = traffic["requests"][0]["parts"].as_array().unwrap();
    let sent: u64 = parts
        .iter()
        .filter(|p| p["label"].as_str().unwrap().starts_with("tool "))
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(
        parts
            .iter()
            .filter(|p| p["label"].as_str().unwrap().starts_with("tool "))
            .count(),
        3
    );
    let json = |args: &[&str]| -> Value { serde_json::from_str(&home.run(args)).unwrap() };
    let report = json(&["report", ws, "--workdir", "tools", "--format", "json"]);
    assert_eq!(report["tools_tokens"], sent);
    let context = json(&["context", ws, "--workdir", "tools", "--format", "json"]);
    let row = context["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "System tools")
        .unwrap();
    assert_eq!(row["tokens"], sent);
    let agents = json(&["agents", "--format", "json"]);
    let codex = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "codex@0.171")
        .unwrap();
    assert_eq!(codex["tool_tokens"], sent);
}

/// Codex ran in repo/tools: the body as Codex writes it (OpenAI
/// Responses): its tools in their namespaces in an `additional_tools`
/// item, its developer messages as it groups them, the AGENTS.md of the
/// repository's root then of tools/ (`--workdir tools`) and its
/// environment context in a user message, the body's other fields, all as
/// the fixture's first request has them but for the items' ids (its
/// session's own) and the ids it sends in `prompt_cache_key` and
/// `client_metadata`.
fn codex_as_sent(fixture_name: &str, profile: &str) {
    let home = Home::with(fixture_name, "repo");
    let ours = home.request("repo", &["--workdir", "tools", "--profile", profile]);
    let sent = first_request(fixture_name);
    let items = |body: &Value| -> Vec<Value> {
        let mut items = body["input"].as_array().unwrap().clone();
        for i in &mut items {
            i.as_object_mut().unwrap().remove("id");
        }
        items
    };
    let (o, s) = (items(&ours), items(&sent));
    // Up to the user's typed message (ours: the session's first, "Hello").
    assert_eq!(o.len(), s.len(), "{fixture_name}: {o:#?}");
    assert_eq!(o[..o.len() - 1], s[..s.len() - 1], "{fixture_name}");
    assert_eq!(o.last().unwrap()["role"], "user");
    for (k, v) in sent.as_object().unwrap() {
        match k.as_str() {
            "input" | "prompt_cache_key" | "client_metadata" => {
                assert!(ours.get(k).is_none() || k == "input", "{k}")
            }
            _ => assert_eq!(&ours[k], v, "{fixture_name}: {k}"),
        }
    }
    assert_eq!(
        ours.as_object().unwrap().len() + 2,
        sent.as_object().unwrap().len()
    );
}

#[test]
fn the_recordings_are_what_the_script_makes_of_the_fixtures() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (agent, file) in [
        ("claude-code", "claude-code-2.1.builtin.json"),
        ("claude-code-2.1.332", "claude-code-2.1.332.builtin.json"),
        ("codex", "codex-0.169.builtin.json"),
        ("codex-0.171", "codex-0.171.builtin.json"),
        ("openclaw", "openclaw-2026.9.builtin.json"),
        ("gemini", "gemini-0.61.builtin.json"),
        ("pi", "pi-0.73.builtin.json"),
        ("opencode", "opencode-1.18.builtin.json"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let made = out.path().join(file);
        let o = Command::new("python3")
            .arg(repo.join("scripts/agent-builtins.py"))
            .args([agent, made.to_str().unwrap()])
            .output()
            .expect("python3 runs");
        assert!(o.status.success(), "{}", stderr(&o));
        let committed = std::fs::read_to_string(repo.join("assets/profiles").join(file)).unwrap();
        assert_eq!(std::fs::read_to_string(&made).unwrap(), committed, "{file}");
    }
}

/// `/context`'s categories, in its order, from its recorded output.
fn context_categories(text: &str) -> Vec<String> {
    let table = &text[text.find("| Category").unwrap()..];
    table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim().to_string())
        .collect()
}

/// The rows of one of `/context`'s per-item tables: (source, name).
fn context_rows(text: &str, title: &str) -> Vec<(String, String)> {
    let Some(at) = text.find(&format!("### {title}")) else {
        return Vec::new();
    };
    text[at..]
        .lines()
        .skip(4)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            match title {
                "Memory Files" => (c[1].to_string(), c[2].to_string()),
                _ => (c[2].to_string(), c[1].to_string()),
            }
        })
        .collect()
}

#[test]
fn context_lists_the_categories_and_rows_of_claude_codes_own_context() {
    let recorded = std::fs::read_to_string(fixture("claude-code").join("context.txt")).unwrap();
    let home = Home::with("claude-code", "project");
    let ws = home.path().join("project");
    let u: Value =
        serde_json::from_str(&home.run(&["context", ws.to_str().unwrap(), "--format", "json"]))
            .unwrap();
    let names: Vec<String> = u["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, context_categories(&recorded));
    // The model and window Claude Code 2.1.328 runs with by default.
    assert!(recorded.contains(&format!("**Model:** {}", u["model"].as_str().unwrap())));
    assert_eq!(u["window"], 1_000_000);
    let row = |n: &str| {
        u["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(row("Autocompact buffer")["tokens"], 33_000);
    // In use: everything but the deferred tools, the free space and the
    // buffer, which with it make the window.
    let used = u["used"].as_u64().unwrap();
    let sum: u64 = [
        "System prompt",
        "System tools",
        "Custom agents",
        "Memory files",
        "Skills",
        "Messages",
    ]
    .iter()
    .map(|n| row(n)["tokens"].as_u64().unwrap())
    .sum();
    assert_eq!(used, sum);
    assert_eq!(
        used + row("Free space")["tokens"].as_u64().unwrap() + 33_000,
        1_000_000
    );
    assert!(row("System tools (deferred)")["tokens"].as_u64().unwrap() > 1000);
    // The rows: the same memory files, subagents and skills, from the same
    // sources, in the same order.
    let items = |key: &str| -> Vec<(String, String)> {
        u[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["source"].as_str().unwrap().to_string(),
                    i["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(
        items("memory_files"),
        context_rows(&recorded, "Memory Files")
    );
    assert_eq!(items("agents"), context_rows(&recorded, "Custom Agents"));
    assert_eq!(items("skills"), context_rows(&recorded, "Skills"));
    // Each list sums to its category: the memory files' with the agent's
    // own words around them (its preamble, each file's heading and its
    // closing tag: no file, so apart from the files Claude Code lists).
    let tokens = |key: &str| -> u64 {
        u[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["tokens"].as_u64().unwrap())
            .sum()
    };
    let around = u["memory_files_around"]["tokens"].as_u64().unwrap();
    assert!((100..200).contains(&around), "{around}");
    assert_eq!(
        tokens("memory_files") + around,
        row("Memory files")["tokens"].as_u64().unwrap()
    );
    assert_eq!(
        tokens("agents"),
        row("Custom agents")["tokens"].as_u64().unwrap()
    );
    // Of those words, the headings are the ones the report counts in
    // each file's row (kept = the file + its heading): named with their
    // sum, so the report's rows, these rows and the category join.
    let report: Value =
        serde_json::from_str(&home.run(&["report", ws.to_str().unwrap(), "--format", "json"]))
            .unwrap();
    let headings: u64 = report["fragments"]
        .as_array()
        .unwrap()
        .iter()
        // The memory files' (a listing's entries are the skills').
        .filter(|f| {
            let id = f["id"].as_str().unwrap();
            !id.starts_with("skill.") && !id.starts_with("agent.")
        })
        .filter_map(|f| f["heading_tokens"].as_u64())
        .sum();
    assert!(headings > 0 && headings < around, "{headings} of {around}");
    let text = home.run(&["context", ws.to_str().unwrap()]);
    assert!(
        text.contains(&format!(
            "(the agent's own words around the files: no file; {headings} of them headings, in the report's rows)"
        )),
        "{text}"
    );
}

/// Each memory file of `context` is counted as Claude Code counts it for
/// its own `/context`: the text it sends to `count_tokens` for the file
/// (the file as read, without the "Contents of …:" heading it writes
/// before it in the prompt), with this model's tokenizer; the headings are
/// the agent's words around the files.
#[test]
fn context_counts_each_memory_file_as_claude_code_counts_it() {
    let recorded = std::fs::read_to_string(fixture("claude-code").join("context.txt")).unwrap();
    let at = recorded.find("### Memory Files").unwrap();
    let rows: Vec<u64> = recorded[at..]
        .lines()
        .skip(4)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(3).unwrap().trim().parse().unwrap())
        .collect();
    // What Claude Code sent to count_tokens, with what the (loopback)
    // service answered.
    let counted: Vec<(u64, String)> =
        std::fs::read_to_string(fixture("claude-code").join("context-capture.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["endpoint"] == "/v1/messages/count_tokens")
            .filter_map(|e| {
                let text = e["request"]["messages"][0]["content"].as_str()?.to_string();
                Some((e["usage"]["input_tokens"].as_u64()?, text))
            })
            .collect();
    let home = Home::with("claude-code", "project");
    let ws = home.path().join("project");
    let w = ws.to_str().unwrap();
    let u: Value = serde_json::from_str(&home.run(&["context", w, "--format", "json"])).unwrap();
    let report: Value =
        serde_json::from_str(&home.run(&["report", w, "--format", "json"])).unwrap();
    let enc: prompt_inspector::engine::Encoding =
        serde_json::from_value(report["tokenizer"].clone()).unwrap();
    let counter = prompt_inspector::engine::TokenCounter::new();
    let files = u["memory_files"].as_array().unwrap();
    assert_eq!(files.len(), rows.len());
    for (file, n) in files.iter().zip(rows) {
        let sent: Vec<&String> = counted
            .iter()
            .filter(|(c, _)| *c == n)
            .map(|(_, t)| t)
            .collect();
        assert_eq!(sent.len(), 1, "one count_tokens text of {n} tokens");
        assert!(!sent[0].starts_with("Contents of"), "{}", sent[0]);
        // The file's last line break, which the prompt writes as part of
        // the break between two files, is counted with the words around.
        assert_eq!(
            file["tokens"].as_u64().unwrap(),
            counter.count(enc, sent[0].trim_end()),
            "{file}: the text Claude Code counted, counted here"
        );
    }
    // The report gives each file the same figure, and says what its row's
    // kept tokens hold beyond it: the agent's heading before the file.
    let text = home.run(&["report", w]);
    let md = home.run(&["report", w, "--format", "markdown"]);
    let th = prompt_inspector::engine::thousands;
    for file in files {
        let name = file["name"].as_str().unwrap();
        let f = report["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| name.ends_with(&format!("/{}", f["source"].as_str().unwrap())))
            .max_by_key(|f| f["source"].as_str().unwrap().len())
            .unwrap_or_else(|| panic!("{name} in the report"));
        assert_eq!(f["file_tokens"], file["tokens"], "{name}");
        let (own, heading, kept) = (
            f["file_tokens"].as_u64().unwrap(),
            f["heading_tokens"].as_u64().unwrap(),
            f["kept_tokens"].as_u64().unwrap(),
        );
        assert!(heading > 0, "{f}");
        assert_eq!(own + heading, kept, "{f}");
        let said = format!(
            "{} kept = {} of the file (as `context` counts it) + {} of the agent's heading",
            th(kept),
            th(own),
            th(heading)
        );
        assert!(text.contains(&said), "{said}\n{text}");
        assert!(md.contains(&said), "{said}\n{md}");
    }
}

#[test]
fn the_report_and_every_view_count_the_agents_parts() {
    let home = Home::with("claude-code", "project");
    let ws = home.path().join("project");
    let w = ws.to_str().unwrap();
    let report: Value =
        serde_json::from_str(&home.run(&["report", w, "--format", "json"])).unwrap();
    assert_eq!(report["model"], "claude-opus-5-5");
    assert_eq!(report["agent"]["source"], "Claude Code 2.1.328");
    assert_eq!(report["agent"]["tools"], 12);
    assert_eq!(report["budget"]["total"], 1_000_000 - 33_000);
    let blocks = report["blocks"].as_array().unwrap();
    let own: usize = blocks
        .iter()
        .filter(|b| b["layer"] == 0)
        .map(|b| b["tokens"].as_u64().unwrap() as usize)
        .sum();
    assert_eq!(
        report["agent"]["blocks_tokens"].as_u64().unwrap() as usize,
        own
    );
    let total: u64 = blocks.iter().map(|b| b["tokens"].as_u64().unwrap()).sum();
    assert_eq!(report["total_tokens"].as_u64().unwrap(), total);
    // The prediction reads the same request: tools, the agent's system
    // blocks, the first user message, the system message.
    let p: Value = serde_json::from_str(&home.run(&["predict", w, "--format", "json"])).unwrap();
    let first = &p["requests"][0];
    assert_eq!(first["tools_tokens"], report["tools_tokens"]);
    let input = first["input_tokens"].as_u64().unwrap()
        + first["cache_creation_input_tokens"].as_u64().unwrap()
        + first["cache_read_input_tokens"].as_u64().unwrap();
    assert_eq!(input, first["total_tokens"].as_u64().unwrap());
    // Everything the report counts, and the user's message.
    let sent = total + report["tools_tokens"].as_u64().unwrap();
    assert!(input >= sent && input < sent + 10, "{first}");
    // The text views name the parts as the agent's.
    let t = home.run(&["report", w]);
    assert!(
        t.contains("from Claude Code 2.1.328 (built in, not your files):"),
        "{t}"
    );
    assert!(t.contains("11 deferred tools"), "{t}");
    let r = home.run(&["render", w]);
    assert!(
        r.contains("from system prompt (Claude Code 2.1.328)"),
        "{r}"
    );
}

#[test]
fn a_working_folder_outside_the_workspace_or_not_a_folder_is_one_clear_error() {
    let ws = fixture("codex").join("workspace");
    // A path out of the workspace says what a working folder must be; a
    // plain one that names no folder there says just that.
    for (bad, why) in [
        (
            "../x",
            "it must be a folder inside the workspace, named by a relative path without . or ..",
        ),
        ("/etc", "it must be a folder inside the workspace"),
        ("tools/../..", "it must be a folder inside the workspace"),
        ("tools/AGENTS.md", "tools/AGENTS.md is a file, not a folder"),
        ("nowhere", "no folder nowhere in the workspace"),
    ] {
        let o = run(&["report", ws.to_str().unwrap(), "--workdir", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains(&format!("--workdir {bad}: {why}")),
            "{}",
            stderr(&o)
        );
    }
    let o = run(&[
        "report",
        ws.to_str().unwrap(),
        "--workdir",
        "tools",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<String> = json(&o)["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "kept")
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, vec!["agents", "tools.agents"]);
}

#[test]
fn claude_code_in_a_subfolder_loads_the_ancestors_memory_files_first() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", "# Root rules\n"),
            ("app/CLAUDE.md", "# App rules\n"),
            ("app/sub/CLAUDE.local.md", "# Sub notes\n"),
            ("other/CLAUDE.md", "# Not on the way\n"),
        ],
    );
    let root = dir.path().canonicalize().unwrap();
    let o = run(&["render", root.to_str().unwrap(), "--workdir", "app/sub"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    let at = |s: &str| t.find(s).unwrap_or_else(|| panic!("{s} in {t}"));
    let r = root.display();
    assert!(
        at(&format!("Contents of {r}/CLAUDE.md")) < at(&format!("Contents of {r}/app/CLAUDE.md"))
    );
    assert!(
        at(&format!("Contents of {r}/app/CLAUDE.md"))
            < at(&format!("Contents of {r}/app/sub/CLAUDE.local.md"))
    );
    assert!(!t.contains("Not on the way"), "{t}");
    assert!(
        t.contains(&format!(" - Primary working directory: {r}/app/sub\n")),
        "{t}"
    );
}

#[test]
fn a_real_requests_parts_are_named_as_the_agents_own_when_they_are_as_recorded() {
    let cap = fixture("claude-code").join("capture.jsonl");
    let ws = fixture("claude-code").join("workspace");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "1",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let parts = json(&o)["attribution"]["parts"].as_array().unwrap().clone();
    let agent = |label: &str| {
        parts
            .iter()
            .find(|p| p["label"] == label)
            .unwrap_or_else(|| panic!("{label}"))["agent"]
            .as_str()
            .map(str::to_string)
    };
    assert_eq!(
        agent("tool 1 (Agent)").as_deref(),
        Some("Claude Code 2.1.328's tool Agent")
    );
    assert_eq!(
        agent("system block 1").as_deref(),
        Some("Claude Code 2.1.328's billing header")
    );
    assert_eq!(
        agent("message 1 (user) block 2").as_deref(),
        Some("Claude Code 2.1.328's attribution reminder")
    );
    // What the user typed is nobody's recording; the prompt names this
    // run's folder, which the recording's does not.
    assert_eq!(agent("message 1 (user) block 3"), None);
    assert_eq!(agent("system block 3"), None);
    let n = parts.iter().filter(|p| p["agent"].is_string()).count();
    assert_eq!(n, 12 + 2 + 1, "every tool, two system blocks, the reminder");
}

/// One truth: `context`'s categories are the report's blocks and tools,
/// split, never recounted apart (every agent's folder).
#[test]
fn the_context_categories_add_up_to_the_reports_blocks_and_tools() {
    for (agent, at) in [
        ("claude-code", "project"),
        ("openclaw", "workspace"),
        ("codex", "repo"),
    ] {
        let home = Home::with(agent, at);
        let ws = home.path().join(at);
        let w = ws.to_str().unwrap();
        let r: Value = serde_json::from_str(&home.run(&["report", w, "--format", "json"])).unwrap();
        let c: Value =
            serde_json::from_str(&home.run(&["context", w, "--format", "json"])).unwrap();
        let row = |n: &str| -> u64 {
            c["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == n)
                .unwrap()["tokens"]
                .as_u64()
                .unwrap()
        };
        let blocks: u64 = ["System prompt", "Custom agents", "Memory files", "Skills"]
            .iter()
            .map(|n| row(n))
            .sum();
        assert_eq!(blocks, r["total_tokens"].as_u64().unwrap(), "{agent}");
        assert_eq!(
            row("System tools"),
            r["tools_tokens"].as_u64().unwrap(),
            "{agent}"
        );
        assert_eq!(
            c["used"].as_u64().unwrap(),
            blocks + row("System tools") + row("Messages"),
            "{agent}"
        );
    }
}

/// A memory file changed since a session began: on `--resume` Claude Code
/// keeps the first message as it was and sends the file again in a
/// reminder at the start of the next message. The diff of a snapshot and
/// the edited folder renders that reminder as Claude Code 2.1.328 sent it
/// in the recorded resumed turn, byte for byte.
#[test]
fn a_memory_file_changed_before_a_resume_is_the_reminder_claude_code_sends() {
    let home = Home::with("claude-code", "project");
    let ws = home.path().join("project");
    let snap = home.path().join("before.json");
    home.run(&[
        "snapshot",
        ws.to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    copy_dir(&fixture("claude-code").join("workspace-after"), &ws);
    let live = format!("{}@default", ws.display());
    let d: Value = serde_json::from_str(&home.run(&[
        "diff",
        snap.to_str().unwrap(),
        &live,
        "--format",
        "json",
    ]))
    .unwrap();
    let r = &d["resume"];
    assert_eq!(r["files"], serde_json::json!(["CLAUDE.md"]));
    let capture = std::fs::read_to_string(fixture("claude-code").join("capture.jsonl")).unwrap();
    let resumed = capture
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|l| {
            l["request"]["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .find(|t| t.starts_with("<system-reminder>\nInstruction files were re-read"))
        .unwrap();
    assert_eq!(r["text"].as_str().unwrap(), resumed);
    let t = home.run(&["diff", snap.to_str().unwrap(), &live]);
    assert!(
        t.contains("a session that goes on (Claude Code 2.1.328) keeps its first message as it was, so that prefix is still read, and sends CLAUDE.md again at the start of the next user message, in a reminder"),
        "{t}"
    );
}

/// Codex: an AGENTS.md edited before a later turn is sent again, the whole
/// section, in a message saying it replaces the earlier one: rendered as
/// Codex 0.169.0 sent it in the recorded second turn, byte for byte.
#[test]
fn an_agents_md_edited_before_a_later_turn_is_the_message_codex_sends() {
    let home = Home::with("codex", "repo");
    let ws = home.path().join("repo");
    let snap = home.path().join("before.json");
    home.run(&[
        "snapshot",
        ws.to_str().unwrap(),
        "--workdir",
        "tools",
        "-o",
        snap.to_str().unwrap(),
    ]);
    copy_dir(&fixture("codex").join("workspace-after"), &ws);
    let live = format!("{}@default", ws.display());
    let args = [
        "diff",
        snap.to_str().unwrap(),
        &live,
        "--workdir",
        "tools",
        "--format",
        "json",
    ];
    let d: Value = serde_json::from_str(&home.run(&args)).unwrap();
    let capture = std::fs::read_to_string(fixture("codex").join("capture.jsonl")).unwrap();
    let sent = capture
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|l| {
            l["request"]["input"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|i| i["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["text"].as_str().map(str::to_string))
        .find(|t| t.contains("replace all previously provided AGENTS.md"))
        .unwrap();
    assert_eq!(d["resume"]["files"], serde_json::json!(["tools/AGENTS.md"]));
    assert_eq!(d["resume"]["text"].as_str().unwrap(), sent);
}

/// OpenClaw's own frame around its skills list (its title, intro and
/// closing words, from its profile) is the agent's, not the project's,
/// in the context view's rows as in the report's split.
#[test]
fn the_agents_frame_around_skills_is_built_in_in_the_context_rows() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/openclaw");
    let o = run(&["context", ws.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let skills = v["skills"].as_array().unwrap();
    let frame: Vec<&Value> = skills
        .iter()
        .filter(|i| i["name"].as_str().unwrap().starts_with("skills."))
        .collect();
    assert!(!frame.is_empty(), "{v}");
    for i in frame {
        assert_eq!(i["source"], "Built-in", "{i}");
    }
    assert!(
        skills
            .iter()
            .any(|i| i["name"] == "invoice-export" && i["source"] == "Project"),
        "{v}"
    );
}

/// A block the agent sends in a message (Claude Code 2.1's listings, in a
/// system message after the first user message) is not called a "system
/// block" by `predict`: its position names where it goes, as `report`
/// and `render` place it.
#[test]
fn a_block_sent_in_a_message_is_named_where_it_goes() {
    let ws = fixture("claude-code").join("workspace");
    let o = run(&["predict", ws.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("(layer 1, in the system message after the first user message)"),
        "{text}"
    );
    let r = json(&run(&["report", ws.to_str().unwrap(), "--format", "json"]));
    let in_messages: Vec<usize> = r["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.get("placement").is_some())
        .map(|(i, _)| i + 1)
        .collect();
    assert!(!in_messages.is_empty(), "{r}");
    for n in in_messages {
        assert!(!text.contains(&format!("system block {n} ")), "{n}: {text}");
    }
}
