//! Memory files above the folder opened: each agent that looks above the
//! folder it runs in (Claude Code and Pi up to the file system's root,
//! Codex and Gemini CLI up to the git repository's root, OpenCode up to it
//! or to the top outside one) sends them; the view reads only the folder,
//! so it says each one and how to count it, and the way it names counts
//! the file.

use crate::common;

use std::path::Path;

use common::*;

/// A monorepo: a root with each agent's memory file, a package with its
/// own CLAUDE.md, and a `.git` when `git` says so.
fn monorepo(dir: &Path, git: bool) -> std::path::PathBuf {
    let repo = dir.join("repo");
    write_ws(
        &repo,
        &[
            ("CLAUDE.md", "Use pnpm for every package.\n"),
            ("AGENTS.md", "Run the linters before a commit.\n"),
            ("GEMINI.md", "Answer in British English.\n"),
            ("packages/api/CLAUDE.md", "The API speaks JSON only.\n"),
        ],
    );
    if git {
        std::fs::create_dir_all(repo.join(".git")).unwrap();
    }
    repo
}

/// The warnings of `report` that name a file above the folder.
fn above(home: &Path, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["report"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let o = run_home(home, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains(" too when it runs in ")
        })
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The fragments of `report ARGS` (source, status), the home `home`.
fn fragments(home: &Path, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["report"];
    all.extend(args);
    all.extend(["--format", "json"]);
    json(&run_home(home, &all))["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["source"].as_str().unwrap_or("").to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The sources of the fragments kept.
fn kept(v: &[(String, String)]) -> Vec<&str> {
    v.iter()
        .filter(|(_, s)| s == "kept")
        .map(|(f, _)| f.as_str())
        .collect()
}

#[test]
fn claude_codes_memory_above_the_package_is_said_and_counted_as_told() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    // The user's own memory in the home is --user-memory's, not a folder's.
    write_ws(&home, &[(".claude/CLAUDE.md", "Be brief.\n")]);
    let repo = monorepo(&home, true);
    let api = repo.join("packages/api");
    let said = above(&home, &[api.to_str().unwrap()]);
    let root_file = repo.join("CLAUDE.md").display().to_string();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].0, root_file);
    let how = format!("open {} with --workdir packages/api", repo.display());
    assert!(said[0].1.contains(&how), "{}", said[0].1);
    // Done as told, the root's file is counted and nothing is said.
    let args = [repo.to_str().unwrap(), "--workdir", "packages/api"];
    assert!(above(&home, &args).is_empty());
    let frags = fragments(&home, &args);
    let sources = kept(&frags);
    assert!(
        sources.contains(&"CLAUDE.md") && sources.contains(&"packages/api/CLAUDE.md"),
        "{sources:?}"
    );
}

#[test]
fn each_agent_looks_as_far_up_as_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for git in [true, false] {
        let base = dir.path().join(if git { "in-git" } else { "no-git" });
        let repo = monorepo(&base, git);
        let api = repo.join("packages/api");
        let api = api.to_str().unwrap();
        let named = |profile: &str| -> Vec<String> {
            above(&home, &[api, "--profile", profile])
                .into_iter()
                .map(|(f, _)| f.rsplit('/').next().unwrap().to_string())
                .collect()
        };
        // Codex and Gemini CLI stop at the repository's root, and outside
        // one read only the folder they run in.
        let in_repo = |f: &str| if git { vec![f.to_string()] } else { vec![] };
        assert_eq!(named("codex"), in_repo("AGENTS.md"), "git: {git}");
        assert_eq!(named("gemini"), in_repo("GEMINI.md"), "git: {git}");
        // Pi and OpenCode read the root's AGENTS.md either way (OpenCode's
        // worktree outside a repository is the file system's root).
        assert_eq!(named("pi"), vec!["AGENTS.md"], "git: {git}");
        assert_eq!(named("opencode"), vec!["AGENTS.md"], "git: {git}");
        assert_eq!(named("claude-code"), vec!["CLAUDE.md"], "git: {git}");
    }
    // Gemini CLI run below the folder opened is modelled: the warning sends
    // the user to --workdir, and that command counts the file.
    let repo = dir.path().join("in-git/repo/packages/api");
    let g = above(&home, &[repo.to_str().unwrap(), "--profile", "gemini"]);
    assert!(
        g[0].1
            .contains("--workdir packages/api --profile gemini to count it"),
        "{g:?}"
    );
    let top = dir.path().join("in-git/repo");
    let counted = above(
        &home,
        &[
            top.to_str().unwrap(),
            "--workdir",
            "packages/api",
            "--profile",
            "gemini",
        ],
    );
    assert!(counted.is_empty(), "{counted:?}");
}

/// Claude Code's rules above the folder are said as its files are; the
/// command a warning names runs as printed (paths quoted for the shell,
/// the profile carried); a file that is a link out of the top folder is
/// said to be uncountable rather than sent to a command that would refuse
/// it.
#[test]
fn rules_above_a_quoted_command_and_a_link_out() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let top = dir.path().join("my top");
    write_ws(
        &top,
        &[
            (".claude/rules/style.md", "Tabs, not spaces.\n"),
            ("a b/proj/CLAUDE.md", "The project.\n"),
        ],
    );
    let outside = dir.path().join("elsewhere.md");
    std::fs::write(&outside, "Not in the top folder.\n").unwrap();
    std::os::unix::fs::symlink(&outside, top.join("CLAUDE.md")).unwrap();
    let proj = top.join("a b/proj");
    let said = above(&home, &[proj.to_str().unwrap()]);
    assert_eq!(said.len(), 2, "{said:?}");
    let link = said.iter().find(|(f, _)| f.ends_with("CLAUDE.md")).unwrap();
    assert!(link.1.contains("it is a link out of"), "{}", link.1);
    let rules = said
        .iter()
        .find(|(f, _)| f.ends_with(".claude/rules"))
        .unwrap();
    assert!(
        rules.1.contains("sends the rules in this folder"),
        "{}",
        rules.1
    );
    let want = format!(
        "open '{}' with --workdir 'a b/proj' --profile claude-code to count it",
        top.display()
    );
    assert!(rules.1.contains(&want), "{}", rules.1);
    // Run as printed: the rule is counted.
    let args = [
        top.to_str().unwrap(),
        "--workdir",
        "a b/proj",
        "--profile",
        "claude-code",
    ];
    let frags = fragments(&home, &args);
    assert!(
        kept(&frags).contains(&".claude/rules/style.md"),
        "{frags:?}"
    );
}

/// Codex looks for AGENTS.md from its git repository's root down to where
/// it runs, and outside a repository only there: the folder's files above
/// that are listed as not sent, saying why.
#[test]
fn codex_reads_from_its_git_root_down() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let top = dir.path().join("top");
    write_ws(
        &top,
        &[
            ("AGENTS.md", "Top.\n"),
            ("proj/AGENTS.md", "Project.\n"),
            ("proj/sub/AGENTS.md", "Sub folder.\n"),
        ],
    );
    let statuses = |git: Option<&str>| -> Vec<(String, String)> {
        let _ = std::fs::remove_dir(top.join(".git"));
        let _ = std::fs::remove_dir(top.join("proj/.git"));
        if let Some(g) = git {
            std::fs::create_dir_all(top.join(g).join(".git")).unwrap();
        }
        let args = [
            top.to_str().unwrap(),
            "--workdir",
            "proj/sub",
            "--profile",
            "codex",
        ];
        let mut all = fragments(&home, &args);
        all.retain(|(f, _)| f.ends_with("AGENTS.md"));
        all
    };
    let all = ["AGENTS.md", "proj/AGENTS.md", "proj/sub/AGENTS.md"];
    assert_eq!(kept(&statuses(Some(""))), all);
    assert_eq!(kept(&statuses(Some("proj"))), all[1..]);
    let outside = statuses(None);
    assert_eq!(kept(&outside), all[2..]);
    assert_eq!(outside.len(), 3, "the others listed, not sent: {outside:?}");
}
