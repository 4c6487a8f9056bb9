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
                .contains("sends this file too")
        })
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
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
    let mut all = vec!["report"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let v = json(&run_home(&home, &all));
    let sources: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["source"].as_str())
        .collect();
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
    // Gemini CLI run below the folder opened is not modelled: the warning
    // says it cannot be counted rather than sending the user to --workdir.
    let repo = dir.path().join("in-git/repo/packages/api");
    let g = above(&home, &[repo.to_str().unwrap(), "--profile", "gemini"]);
    assert!(
        g[0].1.contains("cannot count it") && !g[0].1.contains("--workdir"),
        "{g:?}"
    );
}
