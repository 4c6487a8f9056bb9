//! Gemini CLI 0.61.0 run in a subfolder of its repository
//! (tests/fixtures/agents/gemini-subfolder, recorded by
//! `GEMINI_SCENARIO=subfolder scripts/record-agent.sh gemini`): it sends
//! the GEMINI.md of `app/` and of the repository's root above it, not
//! `web/`'s; its tree is `app/`'s, with `app/.gitignore`; the user's
//! `~/.gemini/GEMINI.md` has its `@tools.md` import inlined. Rendered with
//! `--workdir app --user-memory`, the request is what it sent.

use crate::common;

use crate::gemini_folder::day;
use common::agent_home::AgentHome;
use serde_json::Value;

/// The user's memory and the file it imports, as the recording wrote them.
const MEMORY: &str = "# My preferences\n\n- Answer briefly; show commands before running them.\n- Tools I use: @tools.md\n";
const TOOLS: &str = "# Tools\n\n- ripgrep, not grep.\n";

fn home() -> AgentHome {
    let h = AgentHome::new(
        "gemini-subfolder",
        "notes-app",
        (".gemini/GEMINI.md", MEMORY),
    );
    std::fs::write(h.home().join(".gemini/tools.md"), TOOLS).unwrap();
    h
}

fn sent() -> Value {
    crate::gemini_folder::sent_in("gemini-subfolder")
}

#[test]
fn run_in_a_subfolder_the_request_is_what_gemini_cli_sent() {
    let h = home();
    let ws = h.ws();
    let body: Value = serde_json::from_str(&h.run(&[
        "render",
        &ws,
        "--workdir",
        "app",
        "--request-json",
        "--user-memory",
    ]))
    .unwrap();
    let real = sent();
    crate::gemini_folder::assert_sent_as(&body, &real);
    let ours = body["contents"][0]["parts"][0]["text"].as_str().unwrap();
    let theirs = real["contents"][0]["parts"][0]["text"].as_str().unwrap();
    assert!(theirs.contains("--- Context from: /home/user/notes-app/app/GEMINI.md ---"));
    assert!(!theirs.contains("The web front"));
    assert_eq!(ours.replace(day(ours), day(theirs)), theirs);
}

/// The report counts what is sent and says what is not: `web/GEMINI.md`
/// is not read where Gemini CLI runs in `app/`; the user's import is its
/// own row, shown under `~/.gemini/`.
#[test]
fn the_report_names_what_a_subfolder_run_reads_and_what_it_does_not() {
    let h = home();
    let ws = h.ws();
    let report: Value = serde_json::from_str(&h.run(&[
        "report",
        &ws,
        "--workdir",
        "app",
        "--user-memory",
        "--format",
        "json",
    ]))
    .unwrap();
    let fragments = report["fragments"].as_array().unwrap();
    let of = |id: &str| fragments.iter().find(|f| f["id"] == id);
    for id in [
        "gemini",
        "gemini.app",
        "user.gemini",
        "user.gemini.import.tools",
    ] {
        let f = of(id).unwrap_or_else(|| panic!("{id}: {report}"));
        assert_eq!(f["status"], "kept", "{f}");
    }
    assert_eq!(
        of("user.gemini.import.tools").unwrap()["source"],
        "~/.gemini/tools.md"
    );
    let web = of("gemini.web").unwrap();
    assert_ne!(web["status"], "kept");
    assert!(
        web["reason"]
            .as_str()
            .unwrap()
            .contains("not read: Gemini CLI runs in app/"),
        "{web}"
    );
    // Without --workdir, app/GEMINI.md is read once it works there.
    let plain: Value = serde_json::from_str(&h.run(&["report", &ws, "--format", "json"])).unwrap();
    let app = plain["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "gemini.app")
        .unwrap();
    assert!(
        app["reason"]
            .as_str()
            .unwrap()
            .contains("reads it once it works with a file in app/"),
        "{app}"
    );
}

/// `traffic --against` with the folder it ran in traces the request to the
/// two GEMINI.md files, the import and the user's files, and the profile
/// renders them as sent.
#[test]
fn the_subfolder_request_is_traced_and_checked_against_the_profile() {
    let h = home();
    let ws = h.ws();
    let capture = AgentHome::fixture("gemini-subfolder").join("capture.jsonl");
    let capture = capture.to_str().unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "traffic",
            capture,
            "--against",
            &ws,
            "--request",
            "2",
            "--workdir",
            "app",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        h.run(&a)
    };
    let text = run(args(&[]));
    for file in [
        "GEMINI.md",
        "app/GEMINI.md",
        "docs/style.md",
        "~/.gemini/tools.md",
    ] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{file} "))),
            "{file}: {text}"
        );
    }
    let check = run(args(&["--check-profile"]));
    assert!(check.contains("no difference"), "{check}");
}

/// The GEMINI.md files Gemini CLI does not read when it runs in a
/// subfolder are listed, each saying why: outside a repository only the
/// folder's own is read; inside one, nothing above the repository's root.
#[test]
fn the_files_above_it_does_not_read_say_why() {
    let dir = tempfile::tempdir().unwrap();
    common::write_ws(
        dir.path(),
        &[
            ("GEMINI.md", "# Root\n\nBe brief.\n"),
            ("app/GEMINI.md", "# App\n\nUse tabs.\n"),
        ],
    );
    let ws = dir.path().to_str().unwrap();
    let reason = |id: &str| -> (String, String) {
        let out = common::json(&common::run(&[
            "report",
            ws,
            "--profile",
            "gemini",
            "--workdir",
            "app",
            "--format",
            "json",
        ]));
        let f = out["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {out}"))
            .clone();
        (
            f["status"].as_str().unwrap().to_string(),
            f["reason"].as_str().unwrap().to_string(),
        )
    };
    // The temporary folder may lie in a repository: only when it does not
    // is the root's file out for want of one.
    let in_git = dir.path().ancestors().any(|d| d.join(".git").exists());
    if !in_git {
        let (status, why) = reason("gemini");
        assert_eq!(status, "disabled");
        assert!(why.contains("outside a git repository Gemini CLI reads only the GEMINI.md of the folder it runs in (app/)"), "{why}");
        assert_eq!(reason("gemini.app").0, "kept");
    }
    std::fs::create_dir(dir.path().join("app/.git")).unwrap();
    let (status, why) = reason("gemini");
    assert_eq!(status, "disabled");
    assert!(
        why.contains("up to the repository's root (app/, which holds .git), not above it"),
        "{why}"
    );
    assert_eq!(reason("gemini.app").0, "kept");
}

/// A GEMINI.md of every kind of `@` Gemini CLI's import code meets (code
/// spans of one and three backticks and an odd one, a missing file, a
/// folder, an absolute path, a URL, `@~`, a word with no dot, a self
/// import, a chain past its depth, a tab before it, a path out of the
/// project) rendered by prompt-inspector and by Gemini CLI's own
/// `processImports` (read out of the npm package by
/// scripts/gemini-imports.sh, which installs it when missing): the same
/// bytes, in a repository, run in a subfolder, and outside a repository,
/// where a subfolder's file may not import from above it.
#[test]
#[ignore = "needs node and the Gemini CLI package from npm (.ci/run)"]
fn imports_are_inlined_as_gemini_clis_own_code_inlines_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("p");
    let abs = root.join("docs/b.md").display().to_string();
    let top = format!(
        "Top @docs/a.md and `@docs/b.md` in code\n```\n@docs/b.md\n```\nSee @missing.md, @adir and @{abs}.\nMail me@x.org or @Name or @~/x.md or @http://x/y.md or @../out.md\n@GEMINI.md self\n\t@docs/c1.md tab\n``odd ` span`` @docs/b.md ```g` @docs/b.md\n"
    );
    let mut files = vec![
        ("GEMINI.md".to_string(), top),
        ("docs/a.md".into(), "A text @b.md\n".into()),
        ("docs/b.md".into(), "B text\n".into()),
        ("app/GEMINI.md".into(), "App @../docs/b.md\n".into()),
        ("adir/keep".into(), String::new()),
    ];
    for i in 1..8 {
        files.push((format!("docs/c{i}.md"), format!("C{i} @c{}.md\n", i + 1)));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    common::write_ws(&root, &files);
    let compare = |workdir: &[&str]| {
        let out = std::process::Command::new("bash")
            .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gemini-imports.sh"))
            .arg(&root)
            .args(workdir)
            .env("PROMPT_INSPECTOR", common::bin())
            .output()
            .unwrap();
        let text = common::stdout(&out);
        assert!(out.status.success(), "{text}{}", common::stderr(&out));
        assert!(text.contains("SAME") && !text.contains("DIFF"), "{text}");
        text
    };
    std::fs::create_dir(root.join(".git")).unwrap();
    compare(&[]);
    assert_eq!(compare(&["app"]).matches("SAME").count(), 2);
    std::fs::remove_dir(root.join(".git")).unwrap();
    compare(&["app"]);
}
