//! The documents' links hold: every relative link of README.md,
//! docs/guide.md, CHANGELOG.md, ARCHITECTURE.md and the fixtures' README
//! names a file of the repository, and every `#anchor` a heading of the
//! file it points to (GitHub's anchors: lower case, spaces as hyphens,
//! punctuation left out); and the README's table of the agents' first
//! requests holds what the recorded fixtures give.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DOCUMENTS: &[&str] = &[
    "README.md",
    "docs/guide.md",
    "CHANGELOG.md",
    "ARCHITECTURE.md",
    "tests/fixtures/agents/README.md",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// GitHub's anchor of a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced code).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced
            && let Some(h) = line.trim_start_matches('#').strip_prefix(' ')
            && line.starts_with('#')
        {
            let base = slug(h);
            let mut anchor = base.clone();
            let mut n = 0;
            while !out.insert(anchor.clone()) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
        }
    }
    out
}

/// The `](target)` links of a Markdown text, outside fenced and inline code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans left out.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_of_the_documents_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in DOCUMENTS {
        let path = root().join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        for link in links(&text) {
            if link.starts_with("http://")
                || link.starts_with("https://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = if file.is_empty() {
                path.clone()
            } else {
                path.parent().unwrap().join(file)
            };
            checked += 1;
            if !target.exists() {
                broken.push(format!("{doc}: {link}: no such file"));
                continue;
            }
            if !anchor.is_empty() {
                let t = std::fs::read_to_string(&target).unwrap_or_default();
                if !anchors(&t).contains(anchor) {
                    broken.push(format!(
                        "{doc}: {link}: no such heading in {}",
                        rel(&target)
                    ));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn the_guides_contents_list_every_section_in_order() {
    let text = std::fs::read_to_string(root().join("docs/guide.md")).unwrap();
    let contents = text.split("## Contents\n").nth(1).unwrap();
    let listed: Vec<String> = links(contents.split("\n## ").next().unwrap())
        .into_iter()
        .map(|l| l.trim_start_matches('#').to_string())
        .collect();
    let mut fenced = false;
    let headings: Vec<String> = text
        .lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && (l.starts_with("## ") || l.starts_with("### ")) && *l != "## Contents"
        })
        .map(|l| slug(l.trim_start_matches('#')))
        .collect();
    assert_eq!(listed, headings);
}

/// The README's table of the six agents' first requests holds what the
/// recorded fixtures give today: each row's tokens, from the folder's
/// files and from the agent itself (`traffic --against`), and what the
/// next request read of its prompt (the capture's usage).
#[test]
fn the_readmes_first_requests_are_the_fixtures() {
    use crate::common::{json, run};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let n = |s: &str| -> u64 { s.trim().replace(',', "").parse().unwrap() };
    let mut rows = 0;
    for line in readme.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some(first) = cells.first() else { continue };
        let (fixture, request) = match first {
            s if s.starts_with("Claude Code 2.1.332") => ("claude-code-2.1.332", 1),
            s if s.starts_with("Claude Code 2.1.328") => ("claude-code", 1),
            s if s.starts_with("OpenClaw 2026.9.6") => ("openclaw", 1),
            s if s.starts_with("Codex CLI 0.171.0") => ("codex-0.171", 1),
            s if s.starts_with("Codex CLI 0.169.0") => ("codex", 1),
            s if s.starts_with("Gemini CLI 0.61.0 (") => ("gemini", 2),
            s if s.starts_with("Pi 0.73.1") => ("pi", 1),
            s if s.starts_with("OpenCode 1.18.33 (") => ("opencode", 2),
            _ => continue,
        };
        assert_eq!(cells.len(), 5, "{line}");
        let dir = root.join("tests/fixtures/agents").join(fixture);
        let cap = dir.join("capture.jsonl");
        let a = crate::attribution::attribution(fixture, &dir.join("workspace"), request);
        assert_eq!(
            [n(cells[1]), n(cells[2]), n(cells[3])],
            [
                a["tokens"].as_u64().unwrap(),
                a["from_files"].as_u64().unwrap(),
                a["from_no_file"].as_u64().unwrap()
            ],
            "README's row for {fixture}: {line}"
        );
        let t = json(&run(&[
            "traffic",
            cap.to_str().unwrap(),
            "--format",
            "json",
        ]));
        let next = &t["requests"][request];
        let read = next["cache_read_input_tokens"].as_u64().unwrap();
        let all = read
            + next["cache_creation_input_tokens"].as_u64().unwrap()
            + next["input_tokens"].as_u64().unwrap();
        let (said_read, said_all) = cells[4].split_once(" of ").unwrap();
        assert_eq!(
            (n(said_read), n(said_all)),
            (read, all),
            "{fixture}: {line}"
        );
        rows += 1;
    }
    assert_eq!(rows, 8, "the README's table lost a row");
}
