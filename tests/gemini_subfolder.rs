//! Gemini CLI 0.61.0 run in a subfolder of its repository
//! (tests/fixtures/agents/gemini-subfolder, recorded by
//! `GEMINI_SCENARIO=subfolder scripts/record-agent.sh gemini`): it sends
//! the GEMINI.md of `app/` and of the repository's root above it, not
//! `web/`'s; its tree is `app/`'s, with `app/.gitignore`; the user's
//! `~/.gemini/GEMINI.md` has its `@tools.md` import inlined. Rendered with
//! `--workdir app --user-memory`, the request is what it sent.

use crate::common;

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

/// The first request to the main model (the one before is its router's).
fn sent() -> Value {
    let text =
        std::fs::read_to_string(AgentHome::fixture("gemini-subfolder").join("capture.jsonl"))
            .unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["request"].get("tools").is_some())
        .unwrap()["request"]
        .clone()
}

/// The day as Gemini CLI wrote it (`Monday, December 7, 2026`).
fn day(first: &str) -> &str {
    first
        .split("Today's date is ")
        .nth(1)
        .unwrap()
        .split(" (formatted")
        .next()
        .unwrap()
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
    assert_eq!(body["systemInstruction"], real["systemInstruction"]);
    assert_eq!(body["tools"], real["tools"]);
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
