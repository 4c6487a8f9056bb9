//! Real agents' folders assembled the way those agents assemble them:
//! profile detection and override, OpenClaw's order, headings, caps,
//! head/tail split, markers, missing files, skills, frontmatter and memory,
//! and Claude Code's memory files with @imports, skills and subagents.

mod common;

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
    let o = run(&["render", ws.to_str().unwrap()]);
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
    let why = r["profile"]["why"].as_str().unwrap();
    assert!(
        why.starts_with("AGENTS.md, SOUL.md") && why.ends_with("no workspace.yaml or fragments"),
        "{why}"
    );
    assert_eq!(
        report(&example("claude-code"), &[])["profile"]["name"],
        "claude-code"
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
    assert_eq!(r["profile"]["why"], "profile: in workspace.yaml");
    let o = run(&[
        "report",
        dir.path().to_str().unwrap(),
        "--profile",
        "hermes",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown profile 'hermes' (profiles: layered, openclaw, claude-code)")
    );
}

#[test]
fn openclaw_order_headings_missing_files_and_cache_boundary() {
    let ws = example("openclaw");
    let root = ws.canonicalize().unwrap().display().to_string();
    let text = render(&ws);
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
    let r = report(&ws, &[]);
    assert_eq!(frag(&r, "heartbeat")["layer"], 4);
    let l4 = &r["layers"][3];
    assert_eq!(l4["cache"], false);
    assert_eq!(r["layers"][1]["cache"], true);
    assert!(text.contains("# Dynamic Project Context"));
}

#[test]
fn openclaw_frontmatter_is_metadata_skills_and_memory_are_listed() {
    let ws = example("openclaw");
    let r = report(&ws, &[]);
    // USER.md carries the template's frontmatter: stripped, no warning, never
    // a trimming summary.
    assert!(
        r["diagnostics"].as_array().unwrap().is_empty(),
        "{:#}",
        r["diagnostics"]
    );
    let text = render(&ws);
    assert!(!text.contains("User profile record") && !text.contains("read_when"));
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
    let r = report(dir.path(), &["--profile", "openclaw"]);
    let a = frag(&r, "agents");
    assert_eq!(a["status"], "truncated");
    assert_eq!(a["chars_before"], 31_204);
    assert_eq!(
        a["reason"],
        "AGENTS.md: 11,204 chars over the 20,000 cap (bootstrapMaxChars): kept head 14,000 + tail 4,000"
    );
    let text = render(dir.path());
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
    let r = report(dir.path(), &["--profile", "openclaw"]);
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
    assert!(text.contains("- skill release-notes: Write the release notes"));
    assert!(text.contains("- agent reviewer: Reviews a diff for money handling"));
    let o = run(&["report", ws.to_str().unwrap()]);
    let t = stdout(&o);
    assert!(
        t.contains("Memory files") && t.contains("└ docs/testing.md"),
        "{t}"
    );
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
    // Without the option it is not read.
    let r = report(&ws, &[]);
    assert!(
        r["fragments"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["id"] != "user.claude")
    );
}
