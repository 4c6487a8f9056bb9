//! One truth: every figure computed through every view agrees — the CLI's
//! `report`, `predict`, `snapshot` and `diff` JSON, and the window's state
//! and labels (via kittest) — on the sample, on a generated 1,000-fragment
//! workspace, and on a workspace with tools, Chinese text and truncation.

use crate::common;
use crate::window;

use std::path::Path;

use common::*;
use egui_kittest::kittest::Queryable;
use prompt_inspector::engine::thousands;
use serde_json::Value;

fn cli(args: &[&str]) -> Value {
    let o = run(args);
    assert!(
        o.status.success() || o.status.code() == Some(1),
        "{args:?}: {}",
        stderr(&o)
    );
    json(&o)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Every figure through every CLI view, checked against the report's.
fn check_cli(ws: &Path, session: Option<&str>) -> Value {
    let dir = ws.to_str().unwrap();
    let mut common = vec![dir];
    if let Some(s) = session {
        common.extend(["--session", s]);
    }
    let with = |cmd: &str, extra: &[&str]| {
        let mut a = vec![cmd];
        a.extend(common.iter().copied());
        a.extend(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let r = cli(&args(&with("report", &["--format", "json"])));
    let p = cli(&args(&with("predict", &["--format", "json"])));
    let snap_path = ws.join("consistency-snapshot.json");
    let o = run(&args(&with(
        "snapshot",
        &["-o", snap_path.to_str().unwrap()],
    )));
    assert!(o.status.success(), "{}", stderr(&o));
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&snap_path).unwrap()).unwrap();

    // Layer used = the exact count of the layer's block.
    let blocks = r["blocks"].as_array().unwrap();
    for l in r["layers"].as_array().unwrap() {
        let block = blocks
            .iter()
            .find(|b| b["layer"] == l["layer"])
            .map_or(0, |b| u(&b["tokens"]));
        assert_eq!(u(&l["used"]), block, "layer {}", l["layer"]);
        if u(&l["layer"]) >= 3 {
            assert!(
                u(&l["used"]) <= u(&l["available"]),
                "layer {} fits",
                l["layer"]
            );
        }
    }
    // System tokens = the sum of the blocks.
    let system: u64 = blocks.iter().map(|b| u(&b["tokens"])).sum();
    assert_eq!(u(&r["total_tokens"]), system);
    // Tool-definition tokens and system blocks: the same in predict, and
    // request input tokens = tools + system + messages.
    let rep: Vec<u64> = blocks.iter().map(|b| u(&b["tokens"])).collect();
    for req in p["requests"].as_array().unwrap() {
        assert_eq!(
            u(&req["tools_tokens"]),
            u(&r["tools_tokens"]),
            "tool tokens"
        );
        assert_eq!(u(&req["system_tokens"]), system, "system tokens");
        let sys: Vec<u64> = req["system_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(u)
            .collect();
        assert_eq!(sys, rep, "system blocks");
        assert_eq!(
            u(&req["total_tokens"]),
            u(&req["tools_tokens"]) + system + u(&req["message_tokens"]),
            "request {}",
            req["index"]
        );
        if req["error"].is_null() {
            assert_eq!(
                u(&req["input_tokens"])
                    + u(&req["cache_creation_input_tokens"])
                    + u(&req["cache_read_input_tokens"]),
                u(&req["total_tokens"]),
                "read + written + uncached = the request's input"
            );
        }
    }
    // The snapshot carries the same figures.
    assert_eq!(s["total_tokens"], r["total_tokens"]);
    assert_eq!(s["tools_tokens"], r["tools_tokens"]);
    for (a, b) in s["layers"]
        .as_array()
        .unwrap()
        .iter()
        .zip(r["layers"].as_array().unwrap())
    {
        assert_eq!(a["used"], b["used"]);
        assert_eq!(a["available"], b["available"]);
    }
    for (a, b) in s["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .zip(r["fragments"].as_array().unwrap())
    {
        assert_eq!(a["id"], b["id"]);
        assert_eq!(a["tokens"], b["tokens"]);
        assert_eq!(a["kept_tokens"], b["kept_tokens"]);
    }
    // The diff of the snapshot against the live state: identical, with the
    // same totals and layer figures.
    let live = match session {
        Some(name) => format!("{dir}@{name}"),
        None => dir.to_string(),
    };
    let d = cli(&[
        "diff",
        snap_path.to_str().unwrap(),
        &live,
        "--format",
        "json",
    ]);
    assert_eq!(d["identical"], true, "{d:#}");
    assert_eq!(u(&d["total_before"]), system);
    assert_eq!(u(&d["total_after"]), system);
    for (dl, rl) in d["layers"]
        .as_array()
        .unwrap()
        .iter()
        .zip(r["layers"].as_array().unwrap())
    {
        assert_eq!(dl["before"], rl["used"]);
        assert_eq!(dl["delta"], 0);
    }
    std::fs::remove_file(&snap_path).unwrap();
    r
}

/// The window shows the report's figures, labelled.
fn check_window(ws: &Path, session: Option<&str>, r: &Value) {
    let mut h = window::harness(ws.to_path_buf());
    if let Some(s) = session {
        h.state_mut()
            .as_mut()
            .unwrap()
            .apply(prompt_inspector::ui::command::Command::SetSession(s.into()));
        window::wait_for(&mut h, "the session", |a| {
            a.is_idle() && a.state.assembly().is_some_and(|x| x.session == s)
        });
    }
    let a = window::app(&h).state.assembly().unwrap().clone();
    assert_eq!(a.total_tokens, u(&r["total_tokens"]));
    assert_eq!(a.tools_tokens, u(&r["tools_tokens"]));
    for (l, rl) in a.layers.iter().zip(r["layers"].as_array().unwrap()) {
        assert_eq!(l.used, u(&rl["used"]), "layer {}", l.layer);
        assert_eq!(l.available, u(&rl["available"]), "layer {}", l.layer);
        h.get_by_label_contains(&format!(
            "{} of {} tokens used",
            thousands(l.used),
            thousands(l.available)
        ));
    }
    // The blocks' phrase (where they go) with the report's total.
    let blocks = prompt_inspector::engine::assembly::report::blocks_phrase(&a);
    assert!(blocks.starts_with(&format!("{} tokens in ", thousands(u(&r["total_tokens"])))));
    h.get_by_label_contains(&format!(
        "{blocks} · tool definitions {} tokens",
        thousands(u(&r["tools_tokens"]))
    ));
}

#[test]
fn the_sample_agrees_in_every_view() {
    let ws = copy_sample();
    for session in ["coding", "chat", "research"] {
        let r = check_cli(ws.path(), Some(session));
        if session == "coding" {
            check_window(ws.path(), Some(session), &r);
        }
    }
}

#[test]
fn a_generated_thousand_fragment_workspace_agrees_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    common::generate::generate_workspace(dir.path(), 1000, 200);
    let r = check_cli(dir.path(), None);
    let counts = &r["counts"];
    assert!(u(&counts["dropped"]) + u(&counts["summarized"]) + u(&counts["truncated"]) > 0);
    check_window(dir.path(), None, &r);
}

#[test]
fn tools_chinese_and_truncation_agree_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let zh = "用户喜欢简洁的回答，偏好 Rust 和 TypeScript。".repeat(120);
    write_ws(
        dir.path(),
        &[
            ("SOUL.md", "你是苏雄，一个细心的编程助手。"),
            ("USER.md", &zh),
            (
                "tools/search.json",
                r#"{"name": "search", "description": "搜索代码库", "input_schema": {"type": "object", "properties": {"q": {"type": "string", "description": "查询"}}, "required": ["q"]}}"#,
            ),
            (
                "tools/read.json",
                r#"{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}"#,
            ),
            (
                "workspace.yaml",
                "budget: {total: 900, fixed: {1: 100, 2: 50}, layer3_ratio: 0.5}\nlayers: {3: {title: \"## 工具\"}}\n",
            ),
        ],
    );
    let r = check_cli(dir.path(), None);
    let user = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "user")
        .unwrap();
    assert_eq!(user["status"], "truncated", "{user:#}");
    assert!(u(&r["tools_tokens"]) > 0);
    check_window(dir.path(), None, &r);
}

/// The report's rows add up to their layer's figure: each layer's kept
/// tokens, plus the line that names the rest (titles, headings and
/// separators), are the layer's tokens, in the layered sample and in a
/// Claude Code folder's memory files (three files and Claude Code's
/// heading before each).
#[test]
fn a_layers_rows_and_its_frame_add_up_to_its_figure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n = |s: &str| -> u64 { s.trim().replace(',', "").parse().unwrap() };
    for (ws, layers) in [
        (root.join("sample-workspace"), vec![1, 2, 3, 4]),
        (
            root.join("tests/fixtures/agents/claude-code/workspace"),
            vec![2],
        ),
    ] {
        let text = stdout(&run(&["report", ws.to_str().unwrap()]));
        for layer in layers {
            let head = format!("layer {layer} ");
            let block: Vec<&str> = text
                .lines()
                .skip_while(|l| !l.starts_with(&head))
                .take_while(|l| !l.is_empty())
                .collect();
            assert!(!block.is_empty(), "{head}: {text}");
            let rows: u64 = block
                .iter()
                .filter(|l| l.starts_with("  ") && l.contains(" → "))
                .map(|l| {
                    n(l.split(" → ")
                        .nth(1)
                        .unwrap()
                        .split_whitespace()
                        .next()
                        .unwrap())
                })
                .sum();
            let frame = block
                .iter()
                .find(|l| l.contains("tokens of titles, headings and separators"))
                .unwrap_or_else(|| panic!("{}", block.join("\n")));
            let plus = n(frame
                .trim_start_matches("  + ")
                .split(" tokens")
                .next()
                .unwrap());
            let all = n(frame
                .rsplit(": ")
                .next()
                .unwrap()
                .trim_end_matches(" in all"));
            assert_eq!(rows + plus, all, "{}", block.join("\n"));
            assert!(block[0].contains(&thousands(all)), "{}", block.join("\n"));
        }
    }
}

/// DEBUG markers are a view: where the agent's text shares a block with the
/// user's files (Claude Code's listings, OpenClaw's stable block), the
/// user's files and the agent's own are the same with markers on as off,
/// the markers counted apart, and the three add up to the block as sent
/// (markers on, the user's 52 tokens read 0 and the agent's own grew by
/// every marker).
#[test]
fn debug_markers_move_nothing_between_your_files_and_the_agents_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for agent in ["claude-code", "openclaw"] {
        let w = root.join(agent);
        let w = w.to_str().unwrap();
        let plain = cli(&["report", w, "--format", "json"]);
        let marked = cli(&["report", w, "--debug-markers", "--format", "json"]);
        let mut shared = 0;
        for (p, m) in plain["layers"]
            .as_array()
            .unwrap()
            .iter()
            .zip(marked["layers"].as_array().unwrap())
        {
            let own = |l: &Value| l["agent_own"].as_u64().unwrap_or(0);
            if own(p) == 0 {
                continue;
            }
            shared += 1;
            let files = u(&m["used"]) - m["markers"].as_u64().unwrap_or(0);
            assert_eq!(files, u(&p["used"]), "{agent}: {m}");
            assert_eq!(own(m), own(p), "{agent}: {m}");
            assert!(m["markers"].as_u64().unwrap() > 0, "{agent}: {m}");
            let block = marked["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["layer"] == m["layer"])
                .unwrap();
            assert_eq!(u(&m["used"]) + own(m), u(&block["tokens"]), "{agent}");
        }
        assert_eq!(shared, 1, "{agent}: one block shared with the agent");
    }
}

/// A Codex project file counts the same with the user's own file before it
/// or not: `--- project-doc ---` between them is Codex's words, not the
/// file's, in `context` and in the report's row.
#[test]
fn codexs_project_file_is_one_figure_with_or_without_the_users_own() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/codex/workspace");
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::write(
        home.path().join(".codex/AGENTS.md"),
        "# My defaults\n\nPrefer short answers and explain every change.\n",
    )
    .unwrap();
    let project = |extra: &[&str]| -> u64 {
        let mut args = vec!["context", ws.to_str().unwrap(), "--format", "json"];
        args.extend(extra);
        let c = json(&run_home(home.path(), &args));
        let files = c["memory_files"].as_array().unwrap().clone();
        files
            .iter()
            .find(|f| {
                f["name"]
                    .as_str()
                    .unwrap()
                    .ends_with("/workspace/AGENTS.md")
            })
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    let alone = project(&[]);
    assert_eq!(project(&["--user-memory"]), alone);
    let r = json(&run_home(
        home.path(),
        &[
            "report",
            ws.to_str().unwrap(),
            "--user-memory",
            "--format",
            "json",
        ],
    ));
    let row = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "agents")
        .cloned()
        .unwrap();
    assert_eq!(row["file_tokens"].as_u64(), Some(alone), "{row}");
    assert!(row["heading_tokens"].as_u64().unwrap() > 0, "{row}");
}

/// Where the agent's text shares a block with the memory files (Pi's and
/// OpenCode's system prompt), `context` splits the block as the report's
/// layer does: its Memory files are the layer's `used` (the files and the
/// words around them), its System prompt the agent's own text beside them
/// (`agent_own`), where context counted each agent text alone and gave
/// the gaps to the files (Pi's: 93 against the report's 84).
#[test]
fn a_block_shared_with_the_agent_splits_the_same_in_report_and_context() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    for (agent, extra) in [
        ("pi", ["--profile", "pi", "--workdir", "src"]),
        (
            "opencode",
            ["--profile", "opencode@1.18", "--workdir", "api"],
        ),
    ] {
        let w = root.join(agent).join("workspace");
        let mut args = vec!["report", w.to_str().unwrap(), "--format", "json"];
        args.extend(extra);
        let r = cli(&args);
        args[0] = "context";
        let c = cli(&args);
        let layer = r["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["agent_own"].as_u64().unwrap_or(0) > 0)
            .unwrap_or_else(|| panic!("{agent}: no shared block: {r}"));
        let row = |name: &str| {
            c["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == name)
                .map(|x| u(&x["tokens"]))
                .unwrap()
        };
        assert_eq!(row("Memory files"), u(&layer["used"]), "{agent}: {c}");
        assert_eq!(row("System prompt"), u(&layer["agent_own"]), "{agent}: {c}");
    }
}
