//! Claude Code's rules, recorded from 2.1.332 (scripts/record-agent.sh with
//! CLAUDE_SCENARIO=rules: tests/fixtures/agents/claude-code-rules): a rule
//! of the project's `.claude/rules/` (in a subfolder) and the user's
//! `~/.claude/rules/` are sent at the start with the memory files; a rule
//! with `paths:` is added once the agent reads a file they match. The
//! report, `context` and `traffic --against` give each the same figure, and
//! the profile renders both requests as sent.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// The recording at HOME/project of a private home, its user rules in
/// that home, its capture with the home written as this one.
struct Recorded {
    dir: tempfile::TempDir,
}

impl Recorded {
    fn new() -> Recorded {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude-code-rules");
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        copy_dir(&fixture.join("user-home"), &home);
        copy_dir(&fixture.join("workspace"), &home.join("project"));
        let cap = std::fs::read_to_string(fixture.join("capture.jsonl")).unwrap();
        let cap = cap.replace("/home/user", &home.display().to_string());
        std::fs::write(home.join("capture.jsonl"), cap).unwrap();
        Recorded { dir }
    }

    fn path(&self, p: &str) -> String {
        self.home().join(p).display().to_string()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        let o = std::process::Command::new(bin())
            .args(args)
            .env("HOME", self.home())
            .env("XDG_DATA_HOME", self.home().join("data"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        o
    }

    fn traffic(&self, request: &str, extra: &[&str]) -> Output {
        let (cap, ws) = (self.path("capture.jsonl"), self.path("project"));
        let mut args = vec!["traffic", &cap, "--against", &ws, "--request", request];
        args.extend(extra);
        self.run(&args)
    }
}

#[test]
fn the_rules_are_rendered_as_claude_code_sent_them() {
    let h = Recorded::new();
    for n in ["1", "2"] {
        let check = stdout(&h.traffic(n, &["--check-profile"]));
        assert!(
            check.contains("renders your files as the agent sent them: no difference"),
            "request {n}: {check}"
        );
    }
    // The rule with paths: joins once the agent read src/api/health.go.
    let check = stdout(&h.traffic("2", &["--check-profile"]));
    assert!(
        check.contains("loaded during the session") && check.contains(".claude/rules/api.md"),
        "{check}"
    );
    let ws = h.path("project");
    let v = json(&h.run(&["report", &ws, "--user-memory", "--format", "json"]));
    let frags: Vec<(&str, &str)> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"].as_str().unwrap().contains("rules/"))
        .map(|f| (f["source"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        frags,
        [
            ("~/.claude/rules/mine.md", "kept"),
            (".claude/rules/api.md", "disabled"),
            (".claude/rules/lang/go.md", "kept"),
        ],
        "{v}"
    );
    let text = stdout(&h.run(&["report", &ws]));
    assert!(
        text.contains("after it first reads a file matching src/api/**/*.go"),
        "{text}"
    );
    // `context` lists it with the memory files on demand.
    let ctx = json(&h.run(&["context", &ws, "--format", "json"]));
    let on_demand = ctx["memory_files_on_demand"].to_string();
    assert!(on_demand.contains(".claude/rules/api.md"), "{ctx}");
}

#[test]
fn a_rules_figure_is_the_same_in_context_and_traffic() {
    let h = Recorded::new();
    let ws = h.path("project");
    let ctx = json(&h.run(&["context", &ws, "--user-memory", "--format", "json"]));
    let in_context = |file: &str| -> u64 {
        ctx["memory_files"]
            .as_array()
            .unwrap_or_else(|| panic!("{ctx}"))
            .iter()
            .find(|m| m["name"].as_str().unwrap().ends_with(file))
            .unwrap_or_else(|| panic!("{file} in {ctx}"))["tokens"]
            .as_u64()
            .unwrap()
    };
    let a = json(&h.traffic("1", &["--format", "json"]));
    let in_traffic = |file: &str| -> u64 {
        a["attribution"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(file))
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    for file in ["rules/lang/go.md", "rules/mine.md", "CLAUDE.md"] {
        assert_eq!(in_context(file), in_traffic(file), "{file}");
        assert!(in_traffic(file) > 0, "{file}");
    }
}

/// Claude Code takes a folder of rules in the order the file system lists
/// it, a subfolder's rules where it is listed: the report lists them so,
/// whatever the names' order.
#[test]
fn rules_are_taken_in_the_order_the_file_system_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let mut files = vec![("CLAUDE.md", "# Project\n".to_string())];
    for n in ["a.md", "c.md", "e.md", "aa/x.md", "bb/x.md", "bb/notes.txt"] {
        files.push((n, format!("Rule {n}: keep it.\n")));
    }
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|(n, t)| {
            let n = if n == "CLAUDE.md" {
                n.to_string()
            } else {
                format!(".claude/rules/{n}")
            };
            (n, t)
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    write_ws(ws, &refs);
    // The order as listed, depth first.
    fn listed(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = format!("{rel}/{name}");
            if e.file_type().unwrap().is_dir() {
                listed(&e.path(), &rel, out);
            } else if name.ends_with(".md") {
                out.push(rel);
            }
        }
    }
    let mut want = Vec::new();
    listed(&ws.join(".claude/rules"), ".claude/rules", &mut want);
    let v = json(&run(&["report", ws.to_str().unwrap(), "--format", "json"]));
    let got: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["source"].as_str())
        .filter(|s| s.starts_with(".claude/rules/"))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.len(), 5);
}

#[test]
fn a_rules_broken_frontmatter_is_named_and_the_rule_still_counted() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", "# Project\n"),
            (
                ".claude/rules/api.md",
                "---\npaths: [unclosed\n---\nEvery handler returns JSON.\n",
            ),
        ],
    );
    let o = run(&["report", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    assert!(
        out.contains(".claude/rules/api.md:2: warning: frontmatter not read"),
        "{out}"
    );
    assert!(out.contains("kept       .claude.rules.api"), "{out}");
}

/// Claude Code 2.1.332 writes its own parts per model: to Haiku 4.5 it
/// sends no system-role message, its listings as reminders in the first
/// user message, and another system prompt (recorded:
/// tests/fixtures/agents/claude-code-haiku). The bundled parts are Opus
/// 5.5's, so a report for another model says so.
#[test]
fn another_models_own_parts_are_said_to_be_the_recorded_models() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let first = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(fixtures.join(name).join("capture.jsonl")).unwrap();
        serde_json::from_str::<serde_json::Value>(text.lines().next().unwrap()).unwrap()["request"]
            .clone()
    };
    let system_messages = |r: &serde_json::Value| {
        r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "system")
            .count()
    };
    let (opus, haiku) = (first("claude-code-rules"), first("claude-code-haiku"));
    assert_eq!(opus["model"], "claude-opus-5-5");
    assert_eq!(haiku["model"], "claude-haiku-4-5-20251001");
    assert_eq!((system_messages(&opus), system_messages(&haiku)), (1, 0));
    assert_ne!(opus["system"][2]["text"], haiku["system"][2]["text"]);
    let ws = fixtures.join("claude-code-haiku/workspace");
    let ws = ws.to_str().unwrap();
    let said = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["report", ws, "--format", "json"];
        args.extend(extra);
        json(&run(&args))["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .filter(|m| m.contains("own parts"))
            .collect()
    };
    let w = said(&["--model", "claude-haiku-4-5-20251001"]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("taken from its requests to claude-opus-5-5")
            && w[0].contains("their figures here are claude-opus-5-5's"),
        "{}",
        w[0]
    );
    assert!(said(&[]).is_empty());
    assert!(said(&["--model", "opus"]).is_empty());
    // Another agent's warning names that agent's recording, not Claude
    // Code's example.
    let codex = fixtures.join("codex-0.171/workspace");
    let out = json(&run(&[
        "report",
        codex.to_str().unwrap(),
        "--format",
        "json",
        "--model",
        "gpt-4.1",
    ]));
    let w: Vec<&str> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["message"].as_str())
        .filter(|m| m.contains("own parts"))
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("taken from its requests to gpt-6.2-sol") && !w[0].contains("Claude Code"),
        "{}",
        w[0]
    );
}

/// Links between the folders of rules are walked once each (sixty links
/// to sibling folders made the walk visit a million folders); a folder past
/// the depth is passed over, its siblings still read; two rules whose paths
/// read alike as ids are both kept; a big rule is passed over alone; a
/// rule's name cannot drive the terminal.
#[test]
fn a_hostile_rules_folder_is_walked_once_and_loses_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let rules = ws.join(".claude/rules");
    write_ws(ws, &[("CLAUDE.md", "# Project\n")]);
    // Six levels of ten links each to the next level.
    for l in 1..=7 {
        std::fs::create_dir_all(rules.join(format!("fan/{l}"))).unwrap();
    }
    for l in 1..=6 {
        for i in 0..10 {
            std::os::unix::fs::symlink(
                format!("../{}", l + 1),
                rules.join(format!("fan/{l}/k{i}")),
            )
            .unwrap();
        }
    }
    // No rule in them: a rule there would end a walk of every path at its
    // 500 files; without one, that walk went through a million folders.
    // Past the depth: passed over, the rest read.
    let deep = rules.join("d/1/2/3/4/5/6/7/8/9/10");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("x.md"), "Too deep.\n").unwrap();
    std::fs::write(rules.join("d/1/2/x7.md"), "Within the depth.\n").unwrap();
    for n in ["K.md", "k.md", "c.d.md", "top.md"] {
        std::fs::write(rules.join(n), format!("Rule {n}, kept.\n")).unwrap();
    }
    std::fs::create_dir_all(rules.join("c")).unwrap();
    std::fs::write(rules.join("c/d.md"), "Rule c/d.md, kept.\n").unwrap();
    std::fs::write(rules.join("big.md"), "x".repeat(5 << 20)).unwrap();
    std::fs::write(rules.join("\u{1b}]0;PWNED\u{7}.md"), "A title.\n").unwrap();
    // Done within a deadline (a hang fails loudly, no time is asserted).
    let (status, err) = run_within(
        std::process::Command::new(bin()).args(["report", ws.to_str().unwrap()]),
        120,
    );
    assert!(status.success(), "{err}");
    let out = stdout(&run(&["report", ws.to_str().unwrap(), "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kept: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "kept")
        .filter_map(|f| f["source"].as_str())
        .filter(|s| s.starts_with(".claude/rules/"))
        .collect();
    for want in ["K.md", "k.md", "c.d.md", "c/d.md", "top.md", "d/1/2/x7.md"] {
        let n = kept.iter().filter(|s| s.ends_with(want)).count();
        assert!(n >= 1, "{want} in {kept:?}");
    }
    assert!(
        !kept
            .iter()
            .any(|s| s.ends_with("big.md") || s.ends_with("10/x.md")),
        "{kept:?}"
    );
    let ids: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    let messages = v["diagnostics"].to_string();
    assert!(messages.contains("rules not looked for here"), "{messages}");
    assert!(
        messages.contains("big.md") && messages.contains("the files after it are still read"),
        "{messages}"
    );
    assert!(!messages.contains("duplicate fragment id"), "{messages}");
    let text = stdout(&run(&["report", ws.to_str().unwrap()]));
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "a control character reached the terminal"
    );
}

/// The user's rules in the home, there but not asked for, are said to be
/// left out, as the user's CLAUDE.md is.
#[test]
fn the_users_rules_left_out_are_said() {
    let h = Recorded::new();
    let ws = h.path("project");
    let text = stdout(&h.run(&["report", &ws]));
    assert!(
        text.contains(
            "~/.claude/rules/: warning: the agent sends the rules in this folder with every request"
        ),
        "{text}"
    );
    let with = stdout(&h.run(&["report", &ws, "--user-memory"]));
    assert!(!with.contains("the agent sends the rules"), "{with}");
}

/// A frontmatter of aliases that would expand past the parser's budget is
/// said in words, not in the parser's debug text.
#[test]
fn an_alias_bomb_in_a_rules_frontmatter_is_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut fm = vec!["---".to_string(), "a: &a [x,x,x,x,x,x,x,x,x,x]".to_string()];
    let mut prev = "a".to_string();
    for i in 1..9 {
        let refs = vec![format!("*{prev}"); 10].join(",");
        fm.push(format!("b{i}: &b{i} [{refs}]"));
        prev = format!("b{i}");
    }
    fm.push(format!("paths: *{prev}"));
    fm.push("---".into());
    fm.push("A rule.".into());
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", "# P\n"),
            (".claude/rules/bomb.md", &fm.join("\n")),
        ],
    );
    let out = stdout(&run(&["report", dir.path().to_str().unwrap()]));
    assert!(out.contains("too big to read"), "{out}");
    assert!(!out.contains("Nodes {"), "{out}");
}

/// `.claude/rules` that is a file, not a folder, is said as such (it read
/// "folder cannot be read"), and the rest of the folder is read.
#[test]
fn a_rules_file_where_the_folder_belongs_is_said_as_such() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "CLAUDE.md",
                "# P

Be brief.
",
            ),
            (
                ".claude/rules",
                "not a folder
",
            ),
        ],
    );
    let out = stdout(&run(&["report", dir.path().to_str().unwrap()]));
    assert!(
        out.contains(
            ".claude/rules: error: a file where a folder is looked for: nothing in it is read"
        ),
        "{out}"
    );
    assert!(out.contains("kept       claude "), "{out}");
}

/// The user's own skill and subagent (`~/.claude/skills`,
/// `~/.claude/agents`, with `--user-memory`), the project's skill, subagent
/// and command are listed where Claude Code 2.1.332 lists them: its
/// system-role message rendered for the recorded folder is the one it
/// sent, but for the machine's kernel release in its environment.
#[test]
fn the_users_and_the_projects_skills_agents_and_commands_are_listed_as_sent() {
    let h = Recorded::new();
    let ws = h.path("project");
    let ours = json(&h.run(&["render", &ws, "--user-memory", "--request-json"]));
    let cap = std::fs::read_to_string(h.path("capture.jsonl")).unwrap();
    let sent: serde_json::Value = serde_json::from_str(cap.lines().next().unwrap()).unwrap();
    let system_message = |b: &serde_json::Value| -> String {
        let m = b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "system")
            .unwrap()
            .clone();
        m["content"][0]["text"]
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(" - OS Version:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (o, s) = (system_message(&ours), system_message(&sent["request"]));
    assert_eq!(o, s);
    for entry in [
        "- deploy: Deploys the app to staging.\n- lint: Lints the Go code.\n- runtests: Run the test suite\n",
        "- reviewer: Reviews diffs for style. (Tools: All tools)",
    ] {
        assert!(o.contains(entry), "{entry}");
    }
    // Without --user-memory the user's own are not in the picture.
    let bare = json(&h.run(&["render", &ws, "--request-json"]));
    let b = system_message(&bare);
    assert!(!b.contains("- deploy:") && b.contains("- lint:"), "{b}");
}
