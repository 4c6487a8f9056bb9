//! The map stays true: ARCHITECTURE.md names every source file of the three
//! crates once, and nothing that is gone (`scripts/check-architecture.sh`);
//! and the engine's rooms import only the rooms below them (the `use`
//! lines read; the imports that run up today listed, a list that only
//! shrinks).

use std::process::Command;

#[test]
fn architecture_md_names_every_source_file() {
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
const KNOWN_UPWARD: &[(&str, &str)] = &[
    ("assembly/context.rs", "cache"),
    ("assembly/context.rs", "inspection"),
    ("assembly/report.rs", "inspection"),
    ("cache/prediction.rs", "inspection"),
    ("cache/test_run.rs", "inspection"),
    ("compare/snapshot.rs", "inspection"),
    ("traffic/profile_check.rs", "inspection"),
];

/// What the crate root re-exports, by the room it comes from.
const REEXPORTS: &[(&str, &str)] = &[
    ("Inspection", "inspection"),
    ("Options", "inspection"),
    ("inspect", "inspection"),
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
