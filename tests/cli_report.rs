//! The report and render commands, run as a user would: the built binary on
//! the sample workspace and on workspaces written to temp folders.

use crate::common;
use common::*;
use prompt_inspector::engine::thousands;

#[test]
fn sample_report_json_has_every_status_and_the_documented_fields() {
    let o = run(&["report", sample().to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["schema"], 2);
    assert_eq!(r["tokenizer"], "o200k_base");
    assert_eq!(r["session"], "coding");
    for s in ["kept", "summarized", "truncated", "dropped", "disabled"] {
        assert!(
            r["fragments"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["status"] == s),
            "sample workspace shows no '{s}' fragment"
        );
    }
    for f in r["fragments"].as_array().unwrap() {
        for k in [
            "id",
            "layer",
            "priority",
            "source",
            "tokens",
            "kept_tokens",
            "status",
            "reason",
        ] {
            assert!(!f[k].is_null(), "fragment field {k} missing: {f}");
        }
        if f["status"] == "kept" {
            assert_eq!(f["tokens"], f["kept_tokens"]);
        }
        if f["status"] == "dropped" || f["status"] == "disabled" {
            assert_eq!(f["kept_tokens"], 0);
        }
    }
    let layers = r["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 4);
    let total: u64 = layers.iter().map(|l| l["budget"].as_u64().unwrap()).sum();
    assert_eq!(total, r["budget"]["total"].as_u64().unwrap());
    let blocks = r["blocks"].as_array().unwrap();
    let sum: u64 = blocks.iter().map(|b| b["tokens"].as_u64().unwrap()).sum();
    assert_eq!(sum, r["total_tokens"].as_u64().unwrap());
    assert_eq!(blocks[0]["cache_control"], true);
    assert_eq!(blocks.last().unwrap()["cache_control"], false);
    // Stable layers are long enough for Anthropic's 1024-token minimum.
    let stable: u64 = blocks
        .iter()
        .filter(|b| b["layer"].as_u64().unwrap() <= 2)
        .map(|b| b["tokens"].as_u64().unwrap())
        .sum();
    assert!(stable > 1024, "stable layers have {stable} tokens");
}

#[test]
fn report_is_deterministic_and_formats_render() {
    let a = run(&["report", sample().to_str().unwrap(), "--format", "json"]);
    let b = run(&["report", sample().to_str().unwrap(), "--format", "json"]);
    assert_eq!(a.stdout, b.stdout, "same inputs, byte-identical output");
    let t = run(&["report", sample().to_str().unwrap()]);
    let text = stdout(&t);
    assert!(
        text.contains("layer 1 identity") && text.contains("█"),
        "{text}"
    );
    assert!(text.contains("dropped") && text.contains("fragments:"));
    let md = stdout(&run(&[
        "report",
        sample().to_str().unwrap(),
        "--format",
        "markdown",
    ]));
    assert!(md.contains("| status | fragment |"));
    let r = stdout(&run(&[
        "render",
        sample().to_str().unwrap(),
        "--debug-markers",
    ]));
    assert!(r.contains("[[DEBUG:soul]]") && r.contains("[[/DEBUG:soul]]"));
    assert!(r.contains("苏雄"), "Chinese text survives rendering");
}

#[test]
fn render_request_json_is_an_anthropic_messages_body() {
    let o = run(&[
        "render",
        sample().to_str().unwrap(),
        "--request-json",
        "--session",
        "research",
    ]);
    assert!(o.status.success());
    let body = json(&o);
    let tools: Vec<_> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tools, vec!["file_read", "web_search"]);
    let system = body["system"].as_array().unwrap();
    assert_eq!(system[0]["cache_control"]["type"], "ephemeral");
    assert!(system.last().unwrap().get("cache_control").is_none());
    assert_eq!(body["messages"][0]["role"], "user");
    assert!(body["max_tokens"].as_u64().unwrap() <= 16);
}

#[test]
fn check_gate_and_exit_codes() {
    let o = run(&["report", sample().to_str().unwrap(), "--check"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "sample drops fragments, so the gate fails"
    );
    assert!(stderr(&o).contains("dropped"));
    let o = run(&[
        "report",
        sample().to_str().unwrap(),
        "--check",
        "--budget",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["report", "/definitely/not/here"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).lines().count(),
        1,
        "one-line reason: {}",
        stderr(&o)
    );
    let o = run(&["report", sample().to_str().unwrap(), "--session", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("coding"),
        "lists the sessions: {}",
        stderr(&o)
    );
}

#[test]
fn only_soul_opens() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(dir.path(), &[("SOUL.md", "I am tiny.")]);
    let o = run(&["report", dir.path().to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success());
    let r = json(&o);
    assert_eq!(r["fragments"][0]["id"], "soul");
    assert_eq!(r["diagnostics"].as_array().unwrap().len(), 0);
}

// Regressions of the window issue: `--budget T` on a workspace that
// declares no budget keeps every layer inside T; DEBUG markers never move
// what is kept.
#[test]
fn a_total_given_on_the_command_line_holds_every_layer() {
    let dir = tempfile::tempdir().unwrap();
    let soul = "I am careful and precise. ".repeat(200);
    let tools = "Use the shell only when asked. ".repeat(300);
    common::write_ws(
        dir.path(),
        &[("SOUL.md", soul.as_str()), ("TOOLS.md", tools.as_str())],
    );
    let ws = dir.path().to_str().unwrap();
    let v = json(&run(&[
        "report", ws, "--budget", "2000", "--format", "json",
    ]));
    let layers = v["layers"].as_array().unwrap();
    let budgets: u64 = layers.iter().map(|l| l["budget"].as_u64().unwrap()).sum();
    assert_eq!(budgets, 2000, "{layers:?}");
    assert!(layers.iter().all(|l| l["budget"].as_u64().unwrap() <= 2000));
    // Layer 1 (SOUL.md, never trimmed) is over its share of 2,000: --check fails.
    let o = run(&["report", ws, "--budget", "2000", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}

/// A warning about a value given on the command line names the option,
/// not workspace.yaml (which said otherwise or nothing).
#[test]
fn a_warning_about_an_option_names_the_option() {
    let s = common::sample();
    let ws = s.to_str().unwrap();
    let diags = |args: &[&str]| {
        let mut all = vec!["report", ws, "--format", "json"];
        all.extend(args);
        json(&run(&all))["diagnostics"].as_array().unwrap().clone()
    };
    let below = |d: &serde_json::Value| {
        d["message"]
            .as_str()
            .unwrap()
            .contains("is below the fixed budgets of layers 1 and 2")
    };
    let d = diags(&["--budget", "0"]);
    let w = d.iter().find(|d| below(d)).unwrap();
    assert_eq!(w["file"], "--budget", "{w}");
    assert!(w["line"].is_null(), "{w}");
    assert!(w["message"].as_str().unwrap().contains("raise `--budget`"));
    // workspace.yaml's own budget is not below: no such warning.
    assert!(!diags(&[]).iter().any(below));
    let d = diags(&["--model", "gpt-4"]);
    let w = d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("deprecated"))
        .unwrap();
    assert_eq!(w["file"], "--model", "{w}");
}

#[test]
fn debug_markers_never_change_what_is_kept() {
    let ws = sample();
    let ws = ws.to_str().unwrap();
    for budget in ["600", "900", "1400", "2500"] {
        let plain = json(&run(&[
            "report", ws, "--budget", budget, "--format", "json",
        ]));
        let marked = json(&run(&[
            "report",
            ws,
            "--budget",
            budget,
            "--debug-markers",
            "--format",
            "json",
        ]));
        let kept = |v: &serde_json::Value| -> Vec<(String, String, u64)> {
            v["fragments"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    (
                        f["id"].as_str().unwrap().to_string(),
                        f["status"].as_str().unwrap().to_string(),
                        f["kept_tokens"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(kept(&plain), kept(&marked), "budget {budget}");
        // The marked blocks cost more, and say by how much.
        for (p, m) in plain["layers"]
            .as_array()
            .unwrap()
            .iter()
            .zip(marked["layers"].as_array().unwrap())
        {
            let (pu, mu) = (p["used"].as_u64().unwrap(), m["used"].as_u64().unwrap());
            assert_eq!(mu, pu + m["markers"].as_u64().unwrap(), "{m}");
            // A view of the prompt, not part of its budget: markers never
            // put a layer over it.
            assert_eq!(m["overflow"], p["overflow"], "{m}");
        }
    }
}

/// `--format markdown` is Markdown on every subcommand that documents it
/// (it printed the text view on `context`, `predict` and `models`): a
/// heading, a table whose rows are the text view's figures.
#[test]
fn markdown_is_markdown_on_context_predict_and_models() {
    let ws = sample();
    let ws = ws.to_str().unwrap();
    for args in [vec!["context", ws], vec!["predict", ws], vec!["models"]] {
        let text = run(&args);
        let mut md_args = args.clone();
        md_args.extend(["--format", "markdown"]);
        let md = run(&md_args);
        assert!(md.status.success(), "{args:?}: {}", stderr(&md));
        let (text, md) = (stdout(&text), stdout(&md));
        assert_ne!(text, md, "{args:?}");
        assert!(md.starts_with("## "), "{args:?}: {md}");
        assert!(md.contains("|---"), "{args:?}: {md}");
        // The same figures: every number of the text view's first table
        // row is in the Markdown.
        let row = md
            .lines()
            .filter(|l| l.starts_with("| ") && !l.contains("---"))
            .nth(1)
            .unwrap();
        let plain = text.replace(',', "");
        let numbers: Vec<String> = row
            .split('|')
            .map(|c| c.trim().replace(',', ""))
            .filter(|c| {
                !c.is_empty()
                    && c.chars()
                        .all(|x| x.is_ascii_digit() || x == '.' || x == '%')
            })
            .collect();
        assert!(numbers.len() >= 2, "{row}");
        for n in numbers {
            assert!(
                plain.contains(&n),
                "{args:?}: {n} of {row} not in the text view"
            );
        }
    }
}

/// One truth on a block the agent's text shares with the user's files
/// (OpenClaw joins its own prompt around them): the layer's `used` and the
/// agent's own tokens add up to the block as sent, in JSON and in text.
#[test]
fn a_layer_sharing_its_block_with_the_agent_adds_up_to_the_block() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/openclaw/workspace");
    let o = run(&["report", ws.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let mut shared = 0;
    for l in r["layers"].as_array().unwrap() {
        let Some(b) = r["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["layer"] == l["layer"])
        else {
            continue;
        };
        let own = l["agent_own"].as_u64().unwrap_or(0);
        assert_eq!(
            l["used"].as_u64().unwrap() + own,
            b["tokens"].as_u64().unwrap(),
            "{l}"
        );
        shared += usize::from(own > 0);
    }
    assert_eq!(shared, 1, "OpenClaw's own text shares one block");
    // `used` is the user's files: the kept tokens of the fragments of the
    // user's files in that layer (the built-in skills' entries and the
    // profile's wording are OpenClaw's own).
    let layer2 = &r["layers"].as_array().unwrap()[1];
    assert_eq!(layer2["layer"], 2);
    let files: u64 = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .filter(|f| {
            let src = f["source"].as_str().unwrap();
            !src.ends_with("(built in)") && src != "profile" && src != "skills"
        })
        .map(|f| f["kept_tokens"].as_u64().unwrap())
        .sum();
    // (Within a few tokens: a fragment counted alone and the same text
    // counted where it joins the next differ by a token at a seam.)
    let used = layer2["used"].as_u64().unwrap();
    assert!(
        used.abs_diff(files) <= 3,
        "{used} against {files}: {layer2}"
    );
    assert!(
        files < 500,
        "the user's files, not the agent's list: {files}"
    );
    let text = stdout(&run(&["report", ws.to_str().unwrap()]));
    assert!(
        text.contains("tokens of OpenClaw 2026.9.6's own text in the same block"),
        "{text}"
    );
    // A workspace of the layered profile has no agent text in its blocks.
    let o = run(&["report", sample().to_str().unwrap(), "--format", "json"]);
    let r = json(&o);
    assert!(
        r["layers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l.get("agent_own").is_none())
    );
}

/// Claude Code's listings of subagents and skills share a block with its
/// own entries: the layer's figure is the user's entries and the
/// separator before each, not the separators and titles among the agent's
/// own entries (it said 376 for the user's 51 tokens).
#[test]
fn a_listing_shared_with_the_agent_counts_only_the_users_entries() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code");
    let r = json(&run(&["report", ws.to_str().unwrap(), "--format", "json"]));
    let l1 = &r["layers"][0];
    assert_eq!(l1["layer"], 1);
    let users: Vec<&serde_json::Value> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 1 && f["status"] == "kept")
        .filter(|f| !f["source"].as_str().unwrap().ends_with("(built in)"))
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    let rows: u64 = users
        .iter()
        .map(|f| f["kept_tokens"].as_u64().unwrap())
        .sum();
    let used = l1["used"].as_u64().unwrap();
    // Each entry's separator (a line break), and a token at a seam.
    assert!(
        used >= rows && used <= rows + 2 * users.len() as u64 + 1,
        "{used} for rows of {rows}: {l1}"
    );
    let block = r["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["layer"] == 1)
        .unwrap();
    assert_eq!(
        used + l1["agent_own"].as_u64().unwrap(),
        block["tokens"].as_u64().unwrap()
    );
    let text = stdout(&run(&["report", ws.to_str().unwrap()]));
    // The rows listed add up, the agent's own in its own figure.
    let frame = used - rows;
    let around = match frame {
        0 => String::new(),
        1 => " + 1 token of separators and headings around them".to_string(),
        n => format!(" + {n} tokens of separators and headings around them"),
    };
    let built_in: u64 = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 1 && f["source"].as_str().unwrap().ends_with("(built in)"))
        .map(|f| f["kept_tokens"].as_u64().unwrap())
        .sum();
    let line = format!(
        "  = your files' rows{around}: {used} in all; the rows built in ({}) are the agent's, within its {} above",
        thousands(built_in),
        thousands(l1["agent_own"].as_u64().unwrap())
    );
    assert!(text.contains(&line), "{line}\n{text}");
}

/// The report's and the window's one phrase for the blocks: where they go
/// (a Claude Code folder puts its memory files in the first user message,
/// which is no system block) and how many, in the singular when one.
#[test]
fn the_blocks_are_counted_where_they_go() {
    let o = run(&["report", sample().to_str().unwrap()]);
    assert!(
        stdout(&o).contains(
            "prompt: 2,268 tokens in 4 system blocks, plus 261 tokens of tool definitions (3 tools)"
        ),
        "{}",
        stdout(&o)
    );
    let cc = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/workspace");
    let text = stdout(&run(&["report", cc.to_str().unwrap()]));
    assert!(text.contains(" in messages), plus "), "{text}");
}

/// `context`'s lists keep their figures in one column, whatever the length
/// of a path (a folder deep enough pushed them out of it).
#[test]
fn the_context_lists_keep_their_figures_in_one_column() {
    let root = tempfile::tempdir().unwrap();
    let ws = root
        .path()
        .join("a-rather-long-folder-name/of-a-project/nested-deeper");
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(ws.join("CLAUDE.md"), "Answer briefly. Use cents.\n").unwrap();
    std::fs::write(
        ws.join("CLAUDE.local.md"),
        "Local notes for this machine.\n",
    )
    .unwrap();
    let o = run(&["context", ws.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.starts_with("  Project ") || l.starts_with("  Local ") || l.starts_with("  Built-in ")
        })
        .collect();
    assert!(rows.len() >= 3, "{text}");
    assert!(rows.iter().any(|r| r.contains("CLAUDE.local.md")), "{text}");
    let ends: std::collections::HashSet<usize> = rows.iter().map(|r| r.chars().count()).collect();
    assert_eq!(ends.len(), 1, "figures in one column:\n{}", rows.join("\n"));
}

/// An agent's folder has no layer budgets: its Markdown report says so
/// (it printed budgets of 193,400), `--budget` says what it does there
/// instead of blaming workspace.yaml, and another model's window is that
/// model's (gpt-4's 8,192, not Claude Code's 1,000,000), a prompt over it
/// said.
#[test]
fn an_agents_folder_has_its_models_window_and_no_layer_budgets() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code");
    let w = ws.to_str().unwrap();
    let md = stdout(&run(&["report", w, "--format", "markdown"]));
    assert!(
        md.contains("No layer budgets: the agent's own caps decide what is sent."),
        "{md}"
    );
    assert!(!md.contains("| budget | inflow |"), "{md}");
    let diags = |extra: &[&str]| {
        let mut args = vec!["report", w, "--format", "json"];
        args.extend(extra);
        json(&run(&args))["diagnostics"].as_array().unwrap().clone()
    };
    let d = diags(&["--budget", "0"]);
    assert!(d.iter().all(|d| d["file"] != "workspace.yaml"), "{d:?}");
    assert!(
        d.iter().any(|d| d["file"] == "--budget"
            && d["message"]
                .as_str()
                .unwrap()
                .contains("an agent's folder has no layer budgets")),
        "{d:?}"
    );
    let c = json(&run(&[
        "context", w, "--model", "gpt-4", "--format", "json",
    ]));
    assert_eq!(c["window"], 8192, "{c}");
    let d = diags(&["--model", "gpt-4"]);
    assert!(
        d.iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .contains("gpt-4's 8,192-token window as Claude Code")),
        "{d:?}"
    );
    // Its own model: the window Claude Code runs it with, nothing said.
    let c = json(&run(&["context", w, "--format", "json"]));
    assert_eq!(c["window"], 1_000_000);
    assert!(
        diags(&[])
            .iter()
            .all(|d| !d["message"].as_str().unwrap().contains("of room in"))
    );
}

/// The layered Markdown report writes its figures as every other view
/// does, with thousands separators (it wrote `193400`).
#[test]
fn the_layered_markdown_report_has_separators_in_its_figures() {
    let ws = sample();
    let w = ws.to_str().unwrap();
    let r = json(&run(&[
        "report", w, "--budget", "200000", "--format", "json",
    ]));
    let md = stdout(&run(&[
        "report", w, "--budget", "200000", "--format", "markdown",
    ]));
    let th = prompt_inspector::engine::thousands;
    let (n, budget) = r["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["layer"].as_u64().unwrap(), l["budget"].as_u64().unwrap()))
        .max_by_key(|l| l.1)
        .unwrap();
    assert!(budget >= 1000, "{budget}");
    let layer = md
        .lines()
        .find(|l| l.starts_with(&format!("| {n} ")))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(layer.contains(&format!("| {} |", th(budget))), "{layer}");
    let total = r["total_tokens"].as_u64().unwrap();
    assert!(
        md.contains(&format!("**Total:** {} tokens", th(total))),
        "{md}"
    );
    // No bare figure of four or more digits anywhere in a table row.
    let bare = bare_figures(&md);
    assert!(bare.is_empty(), "{bare:?}");
}

/// Table cells that are a bare number of four or more digits.
fn bare_figures(md: &str) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('|'))
        .flat_map(|l| l.split('|').map(str::trim).map(String::from))
        .filter(|c| c.len() >= 4 && c.chars().all(|ch| ch.is_ascii_digit()))
        .collect()
}

/// The Messages row of a folder with no recorded session holds a stand-in
/// first message: `context` says so (the row read "1" with no word of
/// why); a folder with a session says nothing of the kind.
#[test]
fn context_says_what_the_messages_row_holds_without_a_session() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude-code");
    let w = ws.to_str().unwrap();
    let c = json(&run(&["context", w, "--format", "json"]));
    let messages = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Messages")
        .unwrap()["tokens"]
        .as_u64()
        .unwrap();
    let note = c["messages_note"].as_str().unwrap_or_else(|| panic!("{c}"));
    assert!(
        note.starts_with(&format!(
            "Messages: {} of a stand-in first message (\"Hello\")",
            prompt_inspector::engine::plural(messages, "token")
        )),
        "{note}"
    );
    assert!(stdout(&run(&["context", w])).contains(note));
    let s = sample();
    let c = json(&run(&["context", s.to_str().unwrap(), "--format", "json"]));
    assert!(c["messages_note"].is_null(), "{c}");
}
