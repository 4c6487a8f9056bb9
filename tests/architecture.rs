//! The map stays true: every source file of the three crates is in one
//! room of ARCHITECTURE.md and starts with its `//!` line, and no room
//! names a path that is gone (`scripts/check-architecture.sh`);
//! and the engine's rooms import only the rooms below them (the `use`
//! lines read; the imports that run up today listed, a list that only
//! shrinks); and no source file is over 600 lines nor any function over
//! 80 (issue 37's bounds).

use std::process::Command;

#[test]
fn architecture_md_rooms_hold_every_source_file() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("bash")
        .arg(format!("{root}/scripts/check-architecture.sh"))
        .current_dir(root)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "scripts/check-architecture.sh failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The engine's rooms from the bottom up: a room may import the rooms
/// below it, never one above (rust-analyzer's architecture invariants are
/// the model). The leaves import nothing of the crate but other leaves.
const ROOMS: &[(&str, u8)] = &[
    ("text", 0),
    ("json_bounds", 0),
    ("usage", 0),
    ("request", 1),
    ("workspace", 2),
    ("assembly", 3),
    ("cache", 4),
    ("compare", 5),
    ("traffic", 6),
    ("inspection", 7),
    ("problems", 8),
];

/// The imports that run up today, each `file → room` (issue 37: the rooms
/// import each other in a loop through `&Inspection`). This list only
/// shrinks: a new upward import fails the test, and so does one listed here
/// that is gone (take it off the list).
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// What the crate root re-exports, by the room it comes from.
const REEXPORTS: &[(&str, &str)] = &[
    ("Inspection", "inspection"),
    ("Options", "inspection"),
    ("inspect", "inspection"),
    ("against_request", "inspection"),
    ("load_workspace", "inspection"),
    ("Assembly", "assembly"),
    ("Status", "assembly"),
    ("assemble", "assembly"),
    ("ModelInfo", "assembly"),
    ("ModelTable", "assembly"),
    ("Provider", "assembly"),
    ("Encoding", "assembly"),
    ("TokenCounter", "assembly"),
    ("Workspace", "workspace"),
    ("Diagnostic", "workspace"),
    ("Severity", "workspace"),
    ("Budget", "workspace"),
    ("Usage", "usage"),
    ("clean", "text"),
    ("md_cell", "text"),
    ("md_code", "text"),
    ("duration", "text"),
    ("plural", "text"),
    ("terminal_safe", "text"),
    ("thousands", "text"),
];

/// The rooms a source file names through `crate::` (its unit tests aside).
fn rooms_used(src: &str) -> std::collections::BTreeSet<String> {
    let src = src
        .find("#[cfg(test)]\nmod tests")
        .map_or(src, |i| &src[..i]);
    let mut used = std::collections::BTreeSet::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in src.match_indices("crate::") {
        let after = &src[i + "crate::".len()..];
        let names: Vec<String> = match after.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or("")
                .split(',')
                .map(|n| word(n.trim()))
                .collect(),
            None => vec![word(after)],
        };
        for n in names {
            if let Some((_, room)) = REEXPORTS.iter().find(|(r, _)| *r == n) {
                used.insert(room.to_string());
            } else {
                used.insert(n);
            }
        }
    }
    used
}

#[test]
fn no_engine_room_imports_a_room_above_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src");
    let rank = |room: &str| ROOMS.iter().find(|(r, _)| *r == room).map(|(_, n)| *n);
    let mut found: Vec<(String, String)> = Vec::new();
    let mut stack = vec![root.clone()];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !rel.ends_with(".rs") || rel.ends_with("tests.rs") || rel == "test_support.rs" {
                continue;
            }
            let room = rel.split('/').next().unwrap().trim_end_matches(".rs");
            let Some(mine) = rank(room) else { continue };
            files += 1;
            for used in rooms_used(&std::fs::read_to_string(&p).unwrap()) {
                if rank(&used).is_some_and(|theirs| theirs > mine) {
                    found.push((rel.clone(), used));
                }
            }
        }
    }
    found.sort();
    let known: Vec<(String, String)> = KNOWN_UPWARD
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    let new: Vec<_> = found.iter().filter(|x| !known.contains(x)).collect();
    let gone: Vec<_> = known.iter().filter(|x| !found.contains(x)).collect();
    assert!(files > 60, "{files} files read");
    assert!(
        new.is_empty(),
        "imports that run up (file → the room above it): {new:?}"
    );
    assert!(
        gone.is_empty(),
        "no longer imported upward: take them off KNOWN_UPWARD: {gone:?}"
    );
}

/// The engine's files by module path (`workspace/agents/gemini.rs` is
/// `workspace::agents::gemini`; a `mod.rs` is its folder), with their
/// source as compiled outside tests (comment lines and the test module
/// left out). Test files are not read.
fn engine_modules() -> Vec<(Vec<String>, String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !rel.ends_with(".rs") || rel.ends_with("tests.rs") || rel == "test_support.rs" {
                continue;
            }
            let mut path: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(String::from)
                .collect();
            if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
                path.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            out.push((path, rel, code));
        }
    }
    out
}

/// Every module path `code` names through `crate::` or `super::` (groups
/// `{a, b::c}` spelled out), relative to the module `me`.
fn paths_named(me: &[String], code: &str) -> Vec<Vec<String>> {
    fn ident(s: &str) -> &str {
        let n = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        &s[..n]
    }
    // `prefix` then `rest` (`a::b::{c, d}` or `a::b`), each path whole.
    fn expand(prefix: Vec<String>, rest: &str, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        let mut s = rest;
        loop {
            if let Some(group) = s.strip_prefix('{') {
                let (mut depth, mut start) = (0, 0);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            expand(path.clone(), group[start..i].trim(), out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(path.clone(), group[start..i].trim(), out);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            let w = ident(s);
            if w.is_empty() {
                break;
            }
            path.push(w.to_string());
            match s[w.len()..].strip_prefix("::") {
                Some(next) => s = next,
                None => break,
            }
        }
        out.push(path);
    }
    let mut out = Vec::new();
    for kw in ["crate::", "super::"] {
        for (i, _) in code.match_indices(kw) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &code[i + kw.len()..];
            let prefix = if kw == "crate::" {
                Vec::new()
            } else {
                let mut up = me[..me.len().saturating_sub(1)].to_vec();
                while let Some(r) = rest.strip_prefix("super::") {
                    up.pop();
                    rest = r;
                }
                up
            };
            expand(prefix, rest, &mut out);
        }
    }
    out
}

/// File → the files it names (the longest module prefix of each path that
/// is a file), `mod.rs` and `lib.rs` left out: they declare and re-export.
fn file_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let modules = engine_modules();
    let file_of = |path: &[String]| -> Option<&str> {
        (1..=path.len()).rev().find_map(|k| {
            modules
                .iter()
                .find(|(p, _, _)| p.as_slice() == &path[..k])
                .map(|(_, rel, _)| rel.as_str())
        })
    };
    let plain = |rel: &str| !rel.ends_with("mod.rs") && rel != "lib.rs";
    let mut graph = std::collections::BTreeMap::new();
    for (me, rel, code) in modules.iter().filter(|(_, rel, _)| plain(rel)) {
        let named: std::collections::BTreeSet<String> = paths_named(me, code)
            .iter()
            .filter_map(|p| file_of(p))
            .filter(|f| plain(f) && *f != rel.as_str())
            .map(String::from)
            .collect();
        graph.insert(rel.clone(), named);
    }
    graph
}

#[test]
fn the_paths_named_are_read_as_written() {
    let me: Vec<String> = ["workspace", "agents", "gemini"].map(String::from).to_vec();
    let code =
        "use crate::a::{b::C, d};\nuse super::super::e::F;\nlet x = crate::g::h(super::i::j);";
    let got: Vec<String> = paths_named(&me, code)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        got,
        [
            "a::b::C",
            "a::d",
            "g::h",
            "workspace::e::F",
            "workspace::agents::i::j"
        ]
    );
}

/// No two files of the engine import each other, even through others
/// (issue 37's four cycles inside rooms, and those found after it).
#[test]
fn no_engine_file_imports_itself_through_others() {
    let graph = file_imports();
    assert!(graph.len() > 60, "{} files read", graph.len());
    let reaches = |from: &str, to: &str| -> bool {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(f) = stack.pop() {
            if f == to {
                return true;
            }
            if seen.insert(f.clone()) {
                stack.extend(graph.get(&f).into_iter().flatten().cloned());
            }
        }
        false
    };
    let cycles: Vec<String> = graph
        .iter()
        .flat_map(|(f, named)| named.iter().map(move |g| (f, g)))
        .filter(|(f, g)| reaches(g, f))
        .map(|(f, g)| format!("{f} → {g}"))
        .collect();
    assert!(cycles.is_empty(), "imports in a cycle: {cycles:#?}");
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The functions of `src` longer than `max` lines, from the `fn` line to
/// the closing brace at its indentation: (first line, length).
fn long_functions(src: &str, max: usize) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let indent = l.len() - l.trim_start().len();
        let t = l.trim_start();
        let t = t.strip_prefix("pub ").or_else(|| {
            t.strip_prefix("pub(")
                .and_then(|r| r.split_once(") ").map(|x| x.1))
        });
        let t = t.unwrap_or(l.trim_start());
        let t = t.strip_prefix("async ").unwrap_or(t);
        let t = t.strip_prefix("const ").unwrap_or(t);
        if !t.starts_with("fn ") {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(j) = lines[i + 1..].iter().position(|x| *x == close)
            && j + 1 > max
        {
            out.push((i + 1, j + 1));
        }
    }
    out
}

#[test]
fn no_source_file_over_600_lines_nor_function_over_80() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates/engine/src", "crates/net/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut over = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let shown = f.strip_prefix(root).unwrap().display();
        if src.lines().count() > 600 {
            over.push(format!("{shown}: {} lines", src.lines().count()));
        }
        for (line, len) in long_functions(&src, 80) {
            over.push(format!("{shown}:{line}: a function of {len} lines"));
        }
    }
    assert!(over.is_empty(), "over the bounds:\n{}", over.join("\n"));
    // The scan sees functions: a long one is found.
    let long = format!("fn f() {{\n{}}}\n", "    x;\n".repeat(81));
    assert_eq!(long_functions(&long, 80), vec![(1, 82)]);
}

/// The engine's files whose functions may take or give JSON values: its
/// edges, each with what it reads or writes. Everywhere else a request is
/// the typed `Request` and a figure a typed struct (issue 37).
const JSON_EDGES: &[(&str, &str)] = &[
    (
        "request/",
        "the adapters: each API's body to and from the typed request",
    ),
    (
        "traffic/lines.rs",
        "a capture's or transcript's lines, read",
    ),
    ("traffic/lines/", "a line's head, streamed"),
    ("traffic/parse.rs", "a capture line into an exchange"),
    ("traffic/capture.rs", "the capture line's schema"),
    (
        "traffic/request.rs",
        "a request's counted head, as the first pass wrote it",
    ),
    ("traffic/history.rs", "a raw line's messages, hashed"),
    ("traffic/codex.rs", "Codex's session lines"),
    ("traffic/pi_session.rs", "Pi's session lines"),
    ("traffic/gemini_session.rs", "Gemini CLI's session lines"),
    ("traffic/opencode_session.rs", "OpenCode's rows"),
    (
        "traffic/explain.rs",
        "the provider's own miss reason, as recorded",
    ),
    ("traffic/release.rs", "the client headers, as recorded"),
    (
        "traffic/learn_parts.rs",
        "tool definitions (JSON schemas by nature)",
    ),
    ("traffic/curl.rs", "a body written out as cURL"),
    ("traffic/adopt.rs", "turns written out as a session file"),
    ("traffic/report.rs", "JSON output"),
    ("traffic/mod.rs", "its tests' bodies"),
    ("traffic/attribution_tests.rs", "tests' bodies"),
    ("usage.rs", "usage objects and stream events in answers"),
    ("assembly/report.rs", "JSON output"),
    ("assembly/context_views.rs", "JSON output"),
    ("assembly/litellm.rs", "LiteLLM's price table"),
    ("cache/prediction.rs", "JSON output"),
    (
        "cache/test_run.rs",
        "a planned request's body, written out to send",
    ),
    ("compare/diff_report.rs", "JSON output"),
    (
        "compare/diff.rs",
        "tool definitions (JSON schemas by nature)",
    ),
    ("inspection.rs", "the request body, written out"),
    ("workspace/session.rs", "session files"),
    ("workspace/yaml.rs", "YAML values"),
    ("workspace/tooldefs.rs", "tool definition files"),
    ("workspace/profile_bounds.rs", "a parsed profile's bounds"),
    (
        "workspace/agents/claude_settings.rs",
        "Claude Code's settings.json",
    ),
    (
        "workspace/agents/runs.rs",
        "the head of an agent's session file",
    ),
];

/// The signatures (from `fn` to the body's brace) of `src` that name a
/// JSON `Value`: (line, name).
fn json_signatures(src: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, l) in src.lines().enumerate() {
        let Some(at) = l.find("fn ") else { continue };
        if l.trim_start().starts_with("//") {
            continue;
        }
        let rest = &src[src.lines().take(i).map(|x| x.len() + 1).sum::<usize>() + at..];
        let sig = &rest[..rest.find(['{', ';']).unwrap_or(rest.len())];
        let names_value = sig
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "Value");
        if names_value {
            let name = sig[3..].split(['(', '<']).next().unwrap_or("").trim();
            out.push((i + 1, name.to_string()));
        }
    }
    out
}

#[test]
fn json_values_cross_only_the_engines_edges() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src_dir = root.join("crates/engine/src");
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files);
    let mut inside = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src_dir)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let found = json_signatures(&std::fs::read_to_string(f).unwrap());
        if found.is_empty() {
            continue;
        }
        match JSON_EDGES.iter().find(|(e, _)| rel.starts_with(e)) {
            Some((e, _)) => {
                used.insert(*e);
            }
            None => inside.extend(
                found
                    .into_iter()
                    .map(|(l, n)| format!("crates/engine/src/{rel}:{l}: fn {n}")),
            ),
        }
    }
    assert!(
        inside.is_empty(),
        "JSON values inside the engine, off its edges (type them, or name the edge in JSON_EDGES and ARCHITECTURE.md):\n{}",
        inside.join("\n")
    );
    let stale: Vec<&str> = JSON_EDGES
        .iter()
        .map(|(e, _)| *e)
        .filter(|e| !used.contains(e))
        .collect();
    assert!(
        stale.is_empty(),
        "edges that take no JSON any more: {stale:?}"
    );
    // The scan sees a signature over lines and ignores others.
    let src = "pub fn a(\n    v: &serde_json::Value,\n) -> u8 {\n}\nfn b(x: u8) -> Values {}\n";
    assert_eq!(json_signatures(src), vec![(1, "a".to_string())]);
}
