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
