//! Real agents' folders assembled the way those agents assemble them:
//! profile detection and override, OpenClaw's order, headings, caps,
//! head/tail split, markers, missing files, skills, frontmatter and memory,
//! and Claude Code's memory files with @imports, skills and subagents.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::Value;

fn report(ws: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["report", ws.to_str().unwrap(), "--format", "json"];
    args.extend(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

fn render(ws: &Path) -> String {
    render_as(ws, &[])
}

fn render_as(ws: &Path, extra: &[&str]) -> String {
    let mut args = vec!["render", ws.to_str().unwrap()];
    args.extend(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn frag<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no fragment {id}"))
}

#[test]
fn profiles_are_detected_explained_and_overridden() {
    let r = report(&example("openclaw"), &[]);
    assert_eq!(r["schema"], 2);
    assert_eq!(r["profile"]["name"], "openclaw");
    assert_eq!(r["profile"]["id"], "openclaw@2026.9");
    // The files seen, and the agent and version assumed.
    let why = r["profile"]["why"].as_str().unwrap();
    assert!(
        why.starts_with("AGENTS.md, SOUL.md")
            && why.ends_with(
                "no workspace.yaml or fragments: assumed OpenClaw 2026.9, verified against 2026.9.6"
            ),
        "{why}"
    );
    // An older version by name@version.
    let r = report(&example("openclaw"), &["--profile", "openclaw@2026.7"]);
    assert_eq!(r["profile"]["id"], "openclaw@2026.7");
    // AGENTS.md alone (no OpenClaw file, no CLAUDE.md): Codex.
    let codex = tempfile::tempdir().unwrap();
    write_ws(codex.path(), &[("AGENTS.md", "rules\n")]);
    let r = report(codex.path(), &[]);
    assert_eq!(r["profile"]["id"], "codex@0.171");
    assert!(
        r["profile"]["why"]
            .as_str()
            .unwrap()
            .starts_with("AGENTS.md present, no SOUL.md or IDENTITY.md"),
        "{}",
        r["profile"]["why"]
    );
    assert_eq!(
        report(&example("claude-code"), &[])["profile"]["id"],
        "claude-code@2.1.332"
    );
    assert_eq!(report(&sample(), &[])["profile"]["name"], "layered");
    // --profile overrides detection; `profile:` in workspace.yaml too.
    let r = report(&example("openclaw"), &["--profile", "layered"]);
    assert_eq!(r["profile"]["name"], "layered");
    assert_eq!(
        r["profile"]["why"],
        "chosen explicitly (--profile, or in the window)"
    );
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("AGENTS.md", "rules"),
            ("workspace.yaml", "profile: openclaw\n"),
        ],
    );
    let r = report(dir.path(), &[]);
    assert_eq!(r["profile"]["name"], "openclaw");
    assert_eq!(
        r["profile"]["why"],
        "profile: in workspace.yaml; the newest openclaw profile: OpenClaw 2026.9, verified against 2026.9.6"
    );
    let o = run(&[
        "report",
        dir.path().to_str().unwrap(),
        "--profile",
        "hermes",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown profile 'hermes' (profiles: layered@1, openclaw@2026.9, openclaw@2026.7, claude-code@2.1.332, claude-code@2.1, claude-code@2.0, pi@0.73, opencode@1.18, codex@0.171, codex@0.169, gemini@0.61)"),
        "{}",
        stderr(&o)
    );
}

/// OpenClaw 2026.4–2026.7 as their docs describe it (`openclaw@2026.7`).
const OLD: [&str; 2] = ["--profile", "openclaw@2026.7"];

#[test]
fn openclaw_order_headings_missing_files_and_cache_boundary() {
    let ws = example("openclaw");
    let root = ws.canonicalize().unwrap().display().to_string();
    let text = render_as(&ws, &OLD);
    // Rendered in OpenClaw's order under # Project Context, with `## PATH`.
    let order = [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "TOOLS.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|f| {
            text.find(&format!("## {root}/{f}\n"))
                .unwrap_or_else(|| panic!("{f}: {text}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    assert!(text.contains("# Project Context\nThe following project context files have been loaded:\nIf SOUL.md is present"));
    // BOOTSTRAP.md is absent: OpenClaw's missing-file marker.
    assert!(text.contains(&format!(
        "## {root}/BOOTSTRAP.md\n[MISSING] Expected at: {root}/BOOTSTRAP.md"
    )));
    // Lines are joined with one newline (no blank line between sections).
    assert!(text.contains(&format!(
        "instructions override it.\n## {root}/AGENTS.md\n# AGENTS.md"
    )));
    // HEARTBEAT.md is below the cache boundary: its own uncached block.
    let r = report(&ws, &OLD);
    assert_eq!(frag(&r, "heartbeat")["layer"], 4);
    let l4 = &r["layers"][3];
    assert_eq!(l4["cache"], false);
    assert_eq!(r["layers"][1]["cache"], true);
    assert!(text.contains("# Dynamic Project Context"));
}

#[test]
fn openclaw_frontmatter_is_metadata_skills_and_memory_are_listed() {
    let ws = example("openclaw");
    let r = report(&ws, &OLD);
    // USER.md carries the template's frontmatter: stripped, no warning, never
    // a trimming summary.
    assert!(
        r["diagnostics"].as_array().unwrap().is_empty(),
        "{:#}",
        r["diagnostics"]
    );
    let text = render_as(&ws, &OLD);
    assert!(!text.contains("User profile record") && !text.contains("read_when"));
    // 2026.9 injects a workspace file's frontmatter verbatim.
    assert!(render(&ws).contains("read_when"));
    assert!(text.contains("- Name: Mira Okafor"));
    // Skills as <available_skills>; the hidden one is not offered.
    assert!(text.contains("<available_skills>\n  <skill>\n    <name>invoice-export</name>"));
    assert!(text.contains("<location>") && text.contains("</available_skills>"));
    assert!(!text.contains("<name>release-checklist</name>"));
    assert_eq!(frag(&r, "skill.release-checklist")["status"], "disabled");
    // `always` does not inline a body.
    assert!(!text.contains("Collect invoices of the week"));
    // Daily memory is read on demand, listed as such.
    let m = frag(&r, "memory.2026-11-29");
    assert_eq!(m["status"], "disabled");
    assert!(m["reason"].as_str().unwrap().contains("read on demand"));
    assert!(!text.contains("CSV column order"));
}

#[test]
fn openclaw_caps_cut_head_and_tail_at_exact_character_counts() {
    let dir = tempfile::tempdir().unwrap();
    let agents: String = ('a'..='z').cycle().take(31_204).collect();
    let soul: String = "soul ".repeat(9_000); // 45,000 chars
    write_ws(
        dir.path(),
        &[
            ("AGENTS.md", &agents),
            ("SOUL.md", &soul),
            ("USER.md", "Mira"),
            ("memory.md", "lowercase legacy memory"),
        ],
    );
    let r = report(dir.path(), &OLD);
    let a = frag(&r, "agents");
    assert_eq!(a["status"], "truncated");
    assert_eq!(a["chars_before"], 31_204);
    assert_eq!(
        a["reason"],
        "AGENTS.md: 11,204 chars over the 20,000 cap (bootstrapMaxChars): kept head 14,000 + tail 4,000"
    );
    // Its tokens are the whole file's (under the same heading), kept what
    // is sent: a cut the agent's caps made shows what it cost, as a
    // budget's cut does.
    let whole = a["tokens"].as_u64().unwrap();
    let kept = a["kept_tokens"].as_u64().unwrap();
    assert!(whole > kept + kept / 4, "{a}");
    let text = render_as(dir.path(), &OLD);
    assert!(text.contains(&agents[..14_000]));
    assert!(text.contains(&agents[agents.len() - 4_000..]));
    assert!(text.contains("[...truncated, read AGENTS.md for full content...]\n…(truncated AGENTS.md: kept 14000+4000 chars of 31204)…"));
    // The 60,000 total: SOUL.md gets what AGENTS.md left.
    let s = frag(&r, "soul");
    assert_eq!(s["status"], "truncated");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("over the 20,000 cap"),
        "{s}"
    );
    // Only MEMORY.md with that exact case is injected.
    assert!(!text.contains("lowercase legacy memory"));
    // A tight total: the files after it are dropped, saying why.
    for (f, c) in [("TOOLS.md", "x"), ("IDENTITY.md", "y"), ("USER.md", "z")] {
        std::fs::write(dir.path().join(f), c.repeat(30_000)).unwrap();
    }
    let r = report(dir.path(), &OLD);
    let identity = frag(&r, "identity");
    assert!(
        identity["reason"]
            .as_str()
            .unwrap()
            .contains("chars left of the total cap"),
        "{identity}"
    );
    let heartbeat = frag(&r, "heartbeat");
    assert_eq!(heartbeat["status"], "dropped", "{heartbeat}");
    assert!(
        heartbeat["reason"]
            .as_str()
            .unwrap()
            .contains("total cap (bootstrapTotalMaxChars) is spent")
    );
    // What OpenClaw injects never exceeds its total cap.
    let injected: u64 = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["chars_after"].as_u64())
        .sum();
    assert!(injected <= 60_000, "{injected}");
}

#[test]
fn claude_code_memory_files_imports_skills_and_agents() {
    let ws = example("claude-code");
    let r = report(&ws, &[]);
    let ids: Vec<&str> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![
            "claude",
            "import.docs.architecture",
            "import.docs.matching-rules",
            "import.docs.testing",
            "claude.local"
        ]
    );
    let text = render(&ws);
    // In Claude Code's own listing (its system message), in its line
    // format, among its built-in skills and subagents.
    assert!(
        text.contains("\n- release-notes: Write the release notes"),
        "{text}"
    );
    assert!(
        text.contains("\n- reviewer: Reviews a diff for money handling"),
        "{text}"
    );
    assert!(
        text.contains("\n- general-purpose: General-purpose agent"),
        "{text}"
    );
    // Each file once, with one figure: the report's row counts it as sent
    // (heading included), `context` as Claude Code's `/context` does (its
    // own text); the report names the view, it does not count it again.
    let t = stdout(&run(&["report", ws.to_str().unwrap()]));
    assert!(
        t.contains("/context counts them") && t.contains("prompt-inspector context /"),
        "{t}"
    );
    assert!(!t.contains("└ docs/testing.md"), "{t}");
    let t = stdout(&run(&["context", ws.to_str().unwrap()]));
    assert!(t.contains("/docs/testing.md"), "{t}");
}

#[test]
fn claude_code_imports_stop_at_the_depth_limit_and_loops_are_one_diagnostic() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "OUTSIDE-SECRET").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let escape = format!(
        "@../{}/secret.md",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", &format!("root @a1.md @loop1.md {escape}")),
            ("a1.md", "one @a2.md"),
            ("a2.md", "two @a3.md"),
            ("a3.md", "three @a4.md"),
            ("a4.md", "four @a5.md"),
            ("a5.md", "five: too deep"),
            ("loop1.md", "loop @loop2.md"),
            ("loop2.md", "back @loop1.md"),
        ],
    );
    let r = report(dir.path(), &[]);
    let ids: Vec<&str> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"import.a4") && !ids.contains(&"import.a5"),
        "{ids:?}"
    );
    let d = r["diagnostics"].as_array().unwrap();
    let msgs: Vec<&str> = d.iter().map(|x| x["message"].as_str().unwrap()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("deeper than Claude Code's 4 import hops")),
        "{msgs:?}"
    );
    assert_eq!(
        msgs.iter().filter(|m| m.contains("import loop")).count(),
        1,
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("leaves the workspace")),
        "{msgs:?}"
    );
    assert!(!render(dir.path()).contains("OUTSIDE-SECRET"));
}

/// The UTC date `offset_days` ago.
fn day(offset_days: u64) -> String {
    day_at_utc_offset(offset_days, 0)
}

/// The date `offset_days` ago where the clock is `hours` from UTC.
fn day_at_utc_offset(offset_days: u64, hours: i64) -> String {
    let now = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        + hours * 3600) as u64
        - offset_days * 86_400;
    // Civil date of a Unix day (the same algorithm the app uses).
    let z = (now / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn openclaw_startup_context_on_new_is_an_option() {
    let dir = tempfile::tempdir().unwrap();
    let (today, yesterday, old) = (day(0), day(1), day(5));
    write_ws(
        dir.path(),
        &[
            ("AGENTS.md", "rules"),
            ("SOUL.md", "soul"),
            (&format!("memory/{today}.md"), "TODAY-NOTE"),
            (&format!("memory/{yesterday}.md"), &"y".repeat(3000)),
            (&format!("memory/{old}.md"), "OLD-NOTE"),
        ],
    );
    // Ordinary turns: all read on demand.
    let r = report(dir.path(), &[]);
    assert_eq!(frag(&r, &format!("memory.{today}"))["status"], "disabled");
    // As on /new: today's and yesterday's, capped at 1,200 chars each.
    let r = report_in_zone(dir.path(), "UTC0", &["--new-session"]);
    assert_eq!(frag(&r, &format!("memory.{today}"))["status"], "kept");
    let y = frag(&r, &format!("memory.{yesterday}"));
    assert_eq!(y["status"], "truncated");
    assert_eq!(y["chars_before"], 3000);
    assert!(y["reason"].as_str().unwrap().contains("first user message"));
    assert_eq!(frag(&r, &format!("memory.{old}"))["status"], "disabled");
    let o = std::process::Command::new(bin())
        .args(["render", dir.path().to_str().unwrap(), "--new-session"])
        .env("TZ", "UTC0")
        .output()
        .unwrap();
    let text = stdout(&o);
    assert!(
        text.contains(&format!("[Untrusted daily memory: memory/{today}.md]"))
            && text.contains("TODAY-NOTE")
    );
    assert!(!text.contains("OLD-NOTE"));
    // Under the runtime's own header (OpenClaw 2026.9.6's
    // buildStartupContext), a blank line, then today's note first.
    let header = "[Startup context loaded by runtime]\nBootstrap files like SOUL.md, USER.md, and MEMORY.md are already provided separately when eligible.\n";
    let at = text.find(header).expect("the startup header");
    let note = text
        .find(&format!("[Untrusted daily memory: memory/{today}.md]"))
        .unwrap();
    assert!(
        at < note && text[at..note].ends_with("the user asks.\n\n"),
        "{}",
        &text[at..note]
    );
}

/// `report --format json` with the host's time zone set to `tz` (a POSIX
/// zone such as `UTC-14`, which needs no time zone database).
fn report_in_zone(ws: &Path, tz: &str, extra: &[&str]) -> Value {
    let o = std::process::Command::new(bin())
        .args(["report", ws.to_str().unwrap(), "--format", "json"])
        .args(extra)
        .env("TZ", tz)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

#[test]
fn openclaw_dates_its_startup_context_in_the_hosts_time_zone() {
    // POSIX zones: `UTC-14` is 14 hours ahead of UTC, `UTC+12` 12 behind;
    // at any moment their dates differ by one or two days.
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![("AGENTS.md".to_string(), "rules".to_string())];
    for d in [-2i64, -1, 0, 1] {
        let date = day_at_utc_offset(0, 24 * d);
        files.push((format!("memory/{date}.md"), format!("NOTE {date}")));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_ws(dir.path(), &refs);
    for (tz, hours) in [("UTC-14", 14), ("UTC+12", -12)] {
        let r = report_in_zone(dir.path(), tz, &["--new-session", "--profile", "openclaw"]);
        let (today, yesterday) = (day_at_utc_offset(0, hours), day_at_utc_offset(1, hours));
        for f in r["fragments"].as_array().unwrap() {
            let id = f["id"].as_str().unwrap();
            let Some(date) = id.strip_prefix("memory.") else {
                continue;
            };
            let startup = date == today || date == yesterday;
            assert_eq!(
                f["status"] == "kept",
                startup,
                "{tz}: {id} (today there is {today}): {f}"
            );
        }
    }
}

#[test]
fn claude_code_user_memory_is_an_option() {
    let home = tempfile::tempdir().unwrap();
    write_ws(
        home.path(),
        &[(".claude/CLAUDE.md", "Always answer in British English.")],
    );
    let ws = example("claude-code");
    let o = std::process::Command::new(bin())
        .args([
            "report",
            ws.to_str().unwrap(),
            "--format",
            "json",
            "--user-memory",
        ])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let first = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["layer"] == 2)
        .unwrap();
    assert_eq!(first["id"], "user.claude");
    assert_eq!(first["source"], "~/.claude/CLAUDE.md");
    let warned = |r: &serde_json::Value| {
        r["diagnostics"].as_array().unwrap().iter().any(|d| {
            d["file"] == "~/.claude/CLAUDE.md"
                && d["severity"] == "warning"
                && d["message"]
                    .as_str()
                    .unwrap()
                    .contains("the agent sends this file with every request")
        })
    };
    assert!(!warned(&r), "{r}");
    // Without the option it is not read, and the report says what it
    // leaves out: the agent sends that file.
    let o = std::process::Command::new(bin())
        .args(["report", ws.to_str().unwrap(), "--format", "json"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    assert!(
        r["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["id"] != "user.claude")
    );
    assert!(warned(&r), "{r}");
    // `context` says it too, in every format; not once it is counted.
    let context = |extra: &[&str]| {
        let mut args = vec!["context", ws.to_str().unwrap()];
        args.extend(extra);
        let o = run_home(home.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let said = "~/.claude/CLAUDE.md is not counted here: the agent sends it with every request";
    assert!(context(&[]).contains(said), "{}", context(&[]));
    assert!(context(&["--format", "markdown"]).contains(said));
    let j: serde_json::Value = serde_json::from_str(&context(&["--format", "json"])).unwrap();
    assert!(
        j["home_memory_not_counted"]
            .as_str()
            .unwrap()
            .starts_with(said),
        "{j}"
    );
    assert!(!context(&["--user-memory"]).contains(said));
    // With no such file in the home folder, nothing to say.
    let empty = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(bin())
        .args(["report", ws.to_str().unwrap(), "--format", "json"])
        .env("HOME", empty.path())
        .output()
        .unwrap();
    assert!(!warned(&json(&o)));
    // Asked for and not there: `context` says why it is not counted.
    let o = std::process::Command::new(bin())
        .args(["context", ws.to_str().unwrap(), "--user-memory"])
        .env("HOME", empty.path())
        .output()
        .unwrap();
    assert!(
        stdout(&o).contains("~/.claude/CLAUDE.md is not counted here: --user-memory: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn openclaw_2026_9_loads_six_files_in_one_stable_block() {
    let ws = example("openclaw");
    let root = ws.canonicalize().unwrap().display().to_string();
    let text = render(&ws);
    // TOOLS.md and HEARTBEAT.md are no longer loaded; BOOTSTRAP.md is
    // dropped once set up (no marker).
    assert!(!text.contains(&format!("## {root}/TOOLS.md")));
    assert!(!text.contains(&format!("## {root}/HEARTBEAT.md")));
    assert!(!text.contains("[MISSING]"));
    // The agent's built-in skills are named in the layer they are in.
    let o = run(&["report", ws.to_str().unwrap()]);
    assert!(
        stdout(&o)
            .contains("built-in entries of its listing (fragments from the agent, in layer 2)"),
        "{}",
        stdout(&o)
    );
    // Still, the folder's TOOLS.md is a row: not sent, and why.
    let tools = &report(&ws, &[])["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["source"] == "TOOLS.md")
        .cloned()
        .expect("a row for TOOLS.md");
    assert_eq!(tools["status"], "disabled", "{tools}");
    assert_eq!(tools["kept_tokens"], 0, "{tools}");
    assert!(
        tools["reason"]
            .as_str()
            .unwrap()
            .contains("OpenClaw 2026.9 no longer loads TOOLS.md"),
        "{tools}"
    );
    assert!(text.contains(&format!(
        "## Workspace Files (injected)\nUser-editable; OpenClaw loads below as Project Context.\n# Project Context\nLoaded project context:\nSOUL.md: persona/tone. Follow it unless higher-priority instructions override.\nMEMORY.md: durable non-profile facts and decisions; use when relevant unless higher-priority instructions override.\nUSER.md: durable user preferences and profile directives; follow unless higher-priority instructions override.\n## {root}/AGENTS.md\n"
    )));
    // One stable block: the agent's prompt, the skills, then the context;
    // one breakpoint. Then the agent's runtime context, uncached.
    let r = report(&ws, &[]);
    let blocks = r["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0]["cache_control"], true);
    assert_eq!(
        (
            blocks[1]["layer"].as_u64(),
            blocks[1]["cache_control"].as_bool()
        ),
        (Some(0), Some(false))
    );
    assert!(blocks[0]["text"].as_str().unwrap().starts_with(
        "<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant running inside OpenClaw."
    ));
    let b = blocks[0]["text"].as_str().unwrap();
    assert!(b.find("## Skills").unwrap() < b.find("# Project Context").unwrap());
    assert!(!b.contains("## Bootstrap Context Notice"));
}

#[test]
fn openclaw_2026_9_caps_user_md_digest_agents_md_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut agents = String::from("# AGENTS.md\n\n");
    for i in 0..500 {
        agents += &format!(
            "Background on topic {i}, for context only.\n- Never commit secrets (rule {i}).\n\n"
        );
    }
    write_ws(
        dir.path(),
        &[
            ("AGENTS.md", &agents),
            ("SOUL.md", "Calm."),
            ("USER.md", &"u".repeat(5_000)),
        ],
    );
    let r = report(dir.path(), &[]);
    let user = frag(&r, "user");
    assert_eq!(user["status"], "truncated");
    // 4,000 less the marker and its newlines, shared 75/25 (as OpenClaw
    // computes it: 3,999 here).
    assert_eq!(user["chars_after"], 3_999);
    assert!(
        user["reason"]
            .as_str()
            .unwrap()
            .contains("USER.md's own 4,000 cap"),
        "{user}"
    );
    let a = frag(&r, "agents");
    assert!(a["chars_after"].as_u64().unwrap() <= 20_000, "{a}");
    assert!(
        a["reason"]
            .as_str()
            .unwrap()
            .contains("kept head 9,000 + policy digest"),
        "{a}"
    );
    let text = render(dir.path());
    assert!(text.contains("[Policy digest from AGENTS.md]\n# AGENTS.md\nBackground on topic 0, for context only.\n- Never commit secrets (rule 0)."));
    assert!(text.contains("…(truncated USER.md: kept 2922+974 chars of 5000)…"));
    // Something was cut: the notice, before the Project Context.
    let notice = text
        .find("## Bootstrap Context Notice\n[Bootstrap truncation warning]\n")
        .unwrap();
    assert!(notice < text.find("## Workspace Files (injected)").unwrap());
}

#[test]
fn claude_code_2_1_sends_memory_files_in_the_first_user_message() {
    let ws = example("claude-code");
    let r = report(&ws, &[]);
    let l2 = &r["layers"][1];
    assert_eq!(l2["placement"], "first user message");
    let b = r["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["placement"] == "first user message")
        .unwrap();
    assert_eq!(b["cache_control"], false, "not a cached system block");
    let t = b["text"].as_str().unwrap();
    assert!(t.starts_with("<system-reminder>\nCodebase and user instructions are shown below."));
    assert!(t.ends_with("\n</system-reminder>"));
    assert!(t.contains("(user's private project instructions, not checked in):\n\n"));
    let o = run(&["report", ws.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("in the first user message"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn codex_sends_agents_md_in_instructions_within_its_byte_cap() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!("# Rules\n{}", "é".repeat(20_000)); // 40,008 bytes
    write_ws(
        dir.path(),
        &[("AGENTS.md", &big), ("sub/AGENTS.md", "nested rules")],
    );
    // A repository: Codex run in sub/ reads from its root down.
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let root = dir.path().canonicalize().unwrap().display().to_string();
    let r = report(dir.path(), &[]);
    assert_eq!(r["profile"]["id"], "codex@0.171");
    let a = frag(&r, "agents");
    assert_eq!(a["status"], "truncated");
    assert!(
        a["reason"]
            .as_str()
            .unwrap()
            .contains("cut at byte 32,768 of 40,008"),
        "{a}"
    );
    // Its tokens are the whole file's, as a budget's cut shows them; kept,
    // what is sent (the first 32 KiB).
    let counter = prompt_inspector::engine::TokenCounter::new();
    let enc = prompt_inspector::engine::Encoding::O200kBase;
    let head = &big[..big.floor_char_boundary(32_768)];
    let (whole, sent) = (counter.count(enc, &big), counter.count(enc, head));
    assert!(whole > sent, "{whole} {sent}");
    assert_eq!(a["tokens"], whole, "{a}");
    assert_eq!(a["kept_tokens"], sent, "{a}");
    let nested = frag(&r, "nested.sub");
    assert_eq!(nested["status"], "disabled");
    assert!(
        nested["reason"]
            .as_str()
            .unwrap()
            .contains("when Codex runs in sub")
    );
    let text = render(dir.path());
    assert!(text.contains(&format!(
        "# AGENTS.md instructions for {root}\n\n<INSTRUCTIONS>\n# Rules\n"
    )));
    assert!(text.contains("é\n</INSTRUCTIONS>"), "no marker");
    assert!(!text.contains("nested rules"));
    // The context view lists it apart: not loaded during this session
    // (Codex reads it only when started in sub/), not "on demand".
    let o = run(&["context", dir.path().to_str().unwrap(), "--format", "json"]);
    let context: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(context.get("memory_files_on_demand").is_none(), "{context}");
    let elsewhere = context["memory_files_elsewhere"].as_array().unwrap();
    assert_eq!(elsewhere.len(), 1, "{context}");
    assert_eq!(elsewhere[0]["tokens"], nested["tokens"]);
    let o = run(&["context", dir.path().to_str().unwrap()]);
    let text = stdout(&o);
    assert!(
        text.contains("read only when the agent starts in their folder"),
        "{text}"
    );
    assert!(!text.contains("on demand"), "{text}");
    // Run in sub/, its AGENTS.md comes after the cap is used up: not sent
    // (no separator either), its tokens the file's, none kept.
    let r = report(dir.path(), &["--workdir", "sub"]);
    let sub = frag(&r, "sub.agents");
    assert_eq!(sub["status"], "dropped", "{sub}");
    assert_eq!(sub["kept_tokens"], 0, "{sub}");
    assert!(sub["tokens"].as_u64().unwrap() >= 2, "{sub}");
    assert!(
        sub["reason"]
            .as_str()
            .unwrap()
            .contains("not sent: the files before it used all of Codex's project_doc_max_bytes"),
        "{sub}"
    );
}

/// Codex reads the first project_doc_max_bytes of an AGENTS.md however
/// large (`take`, then `String::from_utf8_lossy`): a file over the tool's
/// own 8 MiB is sent cut, not refused, and a character cut at the last
/// byte is sent as U+FFFD, as Codex decodes it.
#[test]
fn codex_reads_the_head_of_a_large_agents_md_as_codex_decodes_it() {
    let dir = tempfile::tempdir().unwrap();
    // "# Rules\n" is 8 bytes, "界" 3: the cap's last byte falls inside one.
    let line = "界".repeat(1000) + "\n";
    let huge = format!("# Rules\n{}", line.repeat(3000)); // 9,003,008 bytes
    write_ws(dir.path(), &[("AGENTS.md", &huge)]);
    let r = report(dir.path(), &[]);
    assert_eq!(
        r["diagnostics"],
        serde_json::json!([]),
        "{}",
        r["diagnostics"]
    );
    let a = frag(&r, "agents");
    assert_eq!(a["status"], "truncated", "{a}");
    let reason = a["reason"].as_str().unwrap();
    assert!(
        reason.contains("cut at byte 32,768 of 9,003,008"),
        "{reason}"
    );
    let head = String::from_utf8_lossy(&huge.as_bytes()[..32_768]).into_owned();
    assert!(
        head.ends_with('\u{FFFD}'),
        "the cut falls inside a character"
    );
    let text = render(dir.path());
    assert!(
        text.contains(&format!("<INSTRUCTIONS>\n{head}\n</INSTRUCTIONS>")),
        "the first 32 KiB as Codex decodes them"
    );
    let counter = prompt_inspector::engine::TokenCounter::new();
    let enc = prompt_inspector::engine::Encoding::O200kBase;
    assert_eq!(a["kept_tokens"], counter.count(enc, &head), "{a}");
}

/// OpenClaw 2026.9.6's bootstrap files by kind of session (its
/// filterBootstrapFilesForSession): a subagent AGENTS.md only, a cron job
/// four files, a group chat all but MEMORY.md; the others listed, not sent.
#[test]
fn openclaw_sends_each_kind_of_session_its_own_bootstrap_files() {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/openclaw/workspace");
    let w = ws.to_str().unwrap();
    let root = ws.canonicalize().unwrap().display().to_string();
    let sent = |kind: &str| -> Vec<String> {
        let o = run(&["render", w, "--session-kind", kind]);
        assert!(o.status.success(), "{}", stderr(&o));
        let t = stdout(&o);
        [
            "AGENTS.md",
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "MEMORY.md",
        ]
        .iter()
        .filter(|f| t.contains(&format!("## {root}/{f}\n")))
        .map(|f| f.to_string())
        .collect()
    };
    assert_eq!(
        sent("main"),
        [
            "AGENTS.md",
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "MEMORY.md"
        ]
    );
    assert_eq!(sent("subagent"), ["AGENTS.md"]);
    assert_eq!(
        sent("cron"),
        ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]
    );
    assert_eq!(
        sent("group"),
        ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]
    );
    let r = json(&run(&[
        "report",
        w,
        "--session-kind",
        "subagent",
        "--format",
        "json",
    ]));
    let soul = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "soul")
        .unwrap()
        .clone();
    assert_eq!(soul["status"], "disabled");
    assert!(
        soul["reason"]
            .as_str()
            .unwrap()
            .contains("subagents AGENTS.md only"),
        "{soul}"
    );
    let o = run(&["report", w, "--session-kind", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(
        "--session-kind nope: the openclaw@2026.9 profile knows cron, group, main, subagent"
    ));
}

/// A profile of the user's own whose name is no known agent's is refused
/// with the known names; it is never read as some other agent's (it was
/// read as OpenClaw's).
#[test]
fn a_profile_named_for_no_known_agent_is_refused_with_the_known_names() {
    let profiles = tempfile::tempdir().unwrap();
    let file = profiles.path().join("mine.yaml");
    std::fs::write(
        &file,
        "name: my-agent\nagent: My agent\nversion: '1'\nfiles:\n  - name: AGENTS.md\n",
    )
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "rules\n").unwrap();
    let o = std::process::Command::new(bin())
        .args(["report", ws.path().to_str().unwrap()])
        .env("PROMPT_INSPECTOR_PROFILES", profiles.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains(file.to_str().unwrap())
            && e.contains("'my-agent' is no agent this tool knows")
            && e.contains("layered, openclaw, claude-code, codex"),
        "{e}"
    );
    // Named for a known agent, with its own version, it is taken.
    std::fs::write(
        &file,
        "name: codex\nagent: Codex CLI\nversion: '9.9'\nfiles:\n  - name: AGENTS.md\n",
    )
    .unwrap();
    let o = std::process::Command::new(bin())
        .args([
            "report",
            ws.path().to_str().unwrap(),
            "--profile",
            "codex@9.9",
        ])
        .args(["--format", "json"])
        .env("PROMPT_INSPECTOR_PROFILES", profiles.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["profile"]["version"], "9.9");
}

/// The user's own CLAUDE.md as Claude Code sends it: headed with its
/// absolute path, its `@` imports followed inside ~/.claude (each its own
/// block with the parent's kind), an import that would leave the folder
/// one diagnostic naming the file as the agent's.
#[test]
fn claude_code_user_memory_follows_its_imports_and_is_headed_by_its_path() {
    let home = tempfile::tempdir().unwrap();
    write_ws(
        home.path(),
        &[
            (
                ".claude/CLAUDE.md",
                "# Mine\n\nBe terse. @style.md\n@../secrets.md\n",
            ),
            (".claude/style.md", "Use British spelling.\n"),
            ("secrets.md", "not for the prompt\n"),
        ],
    );
    let ws = tempfile::tempdir().unwrap();
    write_ws(ws.path(), &[("CLAUDE.md", "# Project\n\nRun the tests.\n")]);
    let run_with = |cmd: &str, format: &[&str]| {
        let o = std::process::Command::new(bin())
            .args([cmd, ws.path().to_str().unwrap(), "--profile", "claude-code"])
            .args(["--user-memory"])
            .args(format)
            .env("HOME", home.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    let r = json(&run_with("report", &["--format", "json"]));
    let mem: Vec<(&str, &str)> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .map(|f| (f["id"].as_str().unwrap(), f["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        mem,
        [
            ("user.claude", "~/.claude/CLAUDE.md"),
            ("user.import.style", "~/.claude/style.md"),
            ("claude", "CLAUDE.md"),
        ]
    );
    let d: Vec<String> = r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}: {}",
                d["file"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        d.iter()
            .any(|m| m.starts_with("~/.claude/CLAUDE.md: @../secrets.md: leaves ~/.claude")),
        "{d:?}"
    );
    let text = stdout(&run_with("render", &[]));
    let real = home.path();
    assert!(
        text.contains(&format!(
            "Contents of {}/.claude/CLAUDE.md (user's private global instructions for all projects):",
            real.display()
        )),
        "{text}"
    );
    assert!(text.contains("Use British spelling.") && !text.contains("not for the prompt"));
}

/// A profile named by the release it holds (`claude-code@2.1.328`, as a
/// request, a session or the release warning names it) is that profile
/// (`claude-code@2.1`): the same prompt; a release nobody recorded is
/// still refused.
#[test]
fn a_profile_is_also_named_by_its_release() {
    let ws =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude-code/workspace");
    assert_eq!(
        render_as(&ws, &["--profile", "claude-code@2.1.328"]),
        render_as(&ws, &["--profile", "claude-code@2.1"])
    );
    let codex = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/codex/workspace");
    assert_eq!(
        render_as(&codex, &["--profile", "codex@0.171.0"]),
        render_as(&codex, &["--profile", "codex@0.171"])
    );
    let o = run(&[
        "render",
        ws.to_str().unwrap(),
        "--profile",
        "claude-code@2.1.999",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown profile"), "{}", stderr(&o));
}

/// A folder with two agents' files says the other agent and how to read
/// the folder as its (`opencode.json` beside a CLAUDE.md); a Codex
/// subfolder's AGENTS.override.md is the row named, as Codex reads it
/// instead of the folder's AGENTS.md.
#[test]
fn a_second_agents_files_and_a_codex_override_are_named() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[
            ("opencode.json", "{}"),
            (
                "AGENTS.md",
                "# Project\n\nUse pnpm, never npm, in this repository.\n",
            ),
            (
                "CLAUDE.md",
                "# Claude\n\nAnswer briefly and run the tests.\n",
            ),
        ],
    );
    let o = run(&["report", ws.path().to_str().unwrap()]);
    assert!(
        stdout(&o).contains(
            "; opencode.json is OpenCode's too (--profile opencode reads it as OpenCode))"
        ),
        "{}",
        stdout(&o)
    );
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[
            (
                "AGENTS.md",
                "# Root\n\nRun the tests before every commit.\n",
            ),
            ("tools/AGENTS.md", "# Tools\n\nThe old rules.\n"),
            (
                "tools/AGENTS.override.md",
                "# Tools override\n\nThe rules that replace them.\n",
            ),
        ],
    );
    let r = json(&run(&[
        "report",
        ws.path().to_str().unwrap(),
        "--format",
        "json",
    ]));
    let nested = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "nested.tools")
        .cloned()
        .unwrap();
    assert_eq!(nested["source"], "tools/AGENTS.override.md", "{nested}");
}

/// A window the agent sets itself is said as the agent's, beside the
/// model's own (Codex 0.171.0 gives gpt-6.2-sol 272,000 of 1,050,000).
#[test]
fn an_agents_own_window_is_said_as_its() {
    let codex = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/codex/workspace");
    let o = run(&["report", codex.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("(272,000 tokens of room in the model's window: the window Codex CLI 0.171.0 gives gpt-6.2-sol, of the model's 1,050,000)"),
        "{}",
        stdout(&o)
    );
    let o = run(&["context", codex.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("of 272,000 tokens in use (")
            && stdout(&o).contains(
                "; the window Codex CLI 0.171.0 gives gpt-6.2-sol, of the model's 1,050,000)"
            ),
        "{}",
        stdout(&o)
    );
}

/// An option the folder's agent has no use for is said, not dropped in
/// silence (`--session-kind` on a Codex folder was refused, `--new-session`
/// and `--workdir` quietly ignored).
#[test]
fn an_option_the_agent_does_not_use_is_said() {
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let codex = agents.join("codex/workspace");
    let o = run(&["report", codex.to_str().unwrap(), "--new-session"]);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains(
            "--new-session: warning: Codex CLI loads no startup context on a new session: not used"
        ),
        "{}",
        stdout(&o)
    );
    let openclaw = agents.join("openclaw/workspace");
    let o = run(&["report", openclaw.to_str().unwrap(), "--workdir", "memory"]);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains(
            "--workdir: warning: the folder OpenClaw runs in is not modelled for it: not used"
        ),
        "{}",
        stdout(&o)
    );
    // Where the option is used, no word of it.
    let o = run(&["report", openclaw.to_str().unwrap(), "--new-session"]);
    assert!(
        !stdout(&o).contains("--new-session: warning"),
        "{}",
        stdout(&o)
    );
}

/// `--workdir` as users type it: `app/` (a shell's completion), `./app`
/// and the folder's absolute path are `app`; `.` is the folder itself; a
/// file is said to be one.
#[test]
fn workdir_is_taken_as_users_type_it() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("CLAUDE.md", "# R\n\nBe brief.\n"),
            ("app/CLAUDE.md", "# A\n\nUse tabs.\n"),
            ("afile", "x\n"),
        ],
    );
    let root = dir.path().canonicalize().unwrap();
    let ws = root.to_str().unwrap();
    let kept = |w: &str| -> Vec<String> {
        let out = json(&run(&["report", ws, "--workdir", w, "--format", "json"]));
        out["fragments"]
            .as_array()
            .unwrap_or_else(|| panic!("{w}: {out}"))
            .iter()
            .filter(|f| {
                f["status"] == "kept" && !f["source"].as_str().unwrap().contains("built in")
            })
            .map(|f| f["source"].as_str().unwrap().to_string())
            .collect()
    };
    let app = kept("app");
    assert!(app.contains(&"app/CLAUDE.md".to_string()), "{app:?}");
    let abs = root.join("app").display().to_string();
    for w in ["app/", "./app", abs.as_str(), &format!("{abs}/")] {
        assert_eq!(kept(w), app, "{w}");
    }
    assert!(!kept(".").contains(&"app/CLAUDE.md".to_string()));
    let o = run(&["report", ws, "--workdir", "afile"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--workdir afile: afile is a file, not a folder"),
        "{}",
        stderr(&o)
    );
}
