//! Diff engine tests on real workspaces edited between two snapshots.

use crate::compare::diff::{ChangeKind, diff, lead};
use crate::compare::snapshot::Snapshot;
use crate::test_support::write_ws;
use crate::*;

fn snap(dir: &std::path::Path, budget: Option<u64>) -> Snapshot {
    let counter = TokenCounter::new();
    let ins = inspect(
        dir,
        &Options {
            budget_total: budget,
            ..Options::default()
        },
        &ModelTable::bundled(),
        &counter,
    )
    .unwrap();
    Snapshot::take(&ins, &counter, 1_795_996_800, Vec::new())
}

fn ws() -> tempfile::TempDir {
    let soul = "You are a careful assistant. ".repeat(50);
    write_ws(&[
        ("SOUL.md", soul.as_str()),
        ("SAFETY.md", "Never run destructive commands."),
        ("TOOLS.md", "Use tools one at a time."),
        ("USER.md", "用户喜欢 Rust。"),
        (
            "fragments/m.yaml",
            &format!(
                "- id: memo\n  layer: 4\n  priority: 1\n  content: \"{}\"\n",
                "memo ".repeat(300)
            ),
        ),
        (
            "workspace.yaml",
            "budget: {total: 1000, fixed: {1: 400, 2: 50}}\n",
        ),
    ])
}

#[test]
fn identical_inputs_have_no_changes() {
    let d = ws();
    let (a, b) = (snap(d.path(), None), snap(d.path(), None));
    let x = diff(&a, &b, ("a", "b"), 0);
    assert!(x.identical);
    assert!(x.fragments.is_empty() && x.divergence.is_none() && x.rewrite_tokens == 0);
    assert!(x.breakpoints.iter().all(|b| !b.invalidated));
    assert!(x.lines.iter().all(|l| l.tag == ' '));
}

#[test]
fn layer_four_edit_invalidates_no_cached_breakpoint() {
    let d = ws();
    let a = snap(d.path(), None);
    std::fs::write(d.path().join("USER.md"), "用户喜欢 Rust 和 Go。").unwrap();
    let b = snap(d.path(), None);
    let x = diff(&a, &b, ("a", "b"), 0);
    assert!(!x.identical);
    assert_eq!(x.fragments.len(), 1);
    assert_eq!(
        (x.fragments[0].id.as_str(), x.fragments[0].kind),
        ("user", ChangeKind::Changed)
    );
    assert!(
        x.breakpoints.iter().all(|b| !b.invalidated),
        "{:?}",
        x.breakpoints
    );
    assert_eq!(x.rewrite_tokens, 0);
    let v = x.divergence.unwrap();
    assert_eq!(v.fragment.as_deref(), Some("user"));
    // Chinese text: the offset counts characters, the excerpts are whole characters.
    assert_eq!(v.offset, "用户喜欢 Rust".chars().count());
    assert!(
        v.before.starts_with('。') && v.after.starts_with(" 和 Go"),
        "{v:?}"
    );
    let added: Vec<_> = x.lines.iter().filter(|l| l.tag == '+').collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].fragment.as_deref(), Some("user"));
}

#[test]
fn layer_one_edit_invalidates_every_breakpoint_after_it() {
    let d = ws();
    let a = snap(d.path(), None);
    let soul = "You are a careful assistant. "
        .repeat(50)
        .replacen("careful", "curious", 1);
    std::fs::write(d.path().join("SOUL.md"), soul).unwrap();
    let b = snap(d.path(), None);
    let x = diff(&a, &b, ("a", "b"), 0);
    assert!(x.breakpoints.len() >= 2);
    assert!(x.breakpoints.iter().all(|b| b.invalidated));
    let v = x.divergence.unwrap();
    assert_eq!(v.position, "system block 1 (layer 1)");
    assert_eq!(v.fragment.as_deref(), Some("soul"));
    assert_eq!(
        v.offset,
        "You are a c".len(),
        "diverges at 'a' vs 'u' of careful/curious"
    );
    assert!(
        v.before.starts_with("areful") && v.after.starts_with("urious"),
        "{v:?}"
    );
    let last = x.breakpoints.last().unwrap().prefix_tokens;
    assert_eq!(
        x.rewrite_tokens, last,
        "everything up to the last breakpoint is rewritten"
    );
}

#[test]
fn budget_change_turns_kept_into_dropped() {
    let d = ws();
    let a = snap(d.path(), None);
    let b = snap(d.path(), Some(600));
    let x = diff(&a, &b, ("a", "b"), 0);
    let memo = x
        .fragments
        .iter()
        .find(|f| f.id == "memo")
        .expect("memo changed");
    assert_eq!(memo.kind, ChangeKind::StatusChanged);
    assert_eq!(
        (memo.before_status, memo.after_status),
        (Some(Status::Kept), Some(Status::Dropped))
    );
    assert!(x.layers.iter().any(|l| l.layer == 4 && l.delta < 0));
    assert!(
        x.breakpoints.iter().all(|b| !b.invalidated),
        "layer 4 is after every breakpoint"
    );
}

#[test]
fn snapshots_round_trip_refuse_newer_schemas_and_write_atomically() {
    let d = ws();
    let s = snap(d.path(), None);
    let path = s.save_new(d.path()).unwrap();
    assert_eq!(Snapshot::load(&path).unwrap(), s);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"schema\": 1"));
    let newer = text.replacen("\"schema\": 1", "\"schema\": 7", 1);
    assert!(
        Snapshot::parse(&newer)
            .unwrap_err()
            .to_string()
            .contains("newer")
    );
    assert!(
        Snapshot::parse("{\"schema\": 1, \"fragments\": 3}")
            .unwrap_err()
            .to_string()
            .contains("corrupt")
    );
    assert!(
        Snapshot::parse("{oops")
            .unwrap_err()
            .to_string()
            .contains("line 1")
    );
    // An interrupted write leaves the previous snapshot intact.
    let mut other = s.clone();
    other.session = "changed".into();
    assert!(crate::workspace::store::write_atomic_with(&path, &other.to_json(), true).is_err());
    assert_eq!(Snapshot::load(&path).unwrap(), s);
    assert_eq!(
        crate::workspace::store::list_files(d.path(), "snapshots", "json"),
        vec![path.clone()]
    );
    // A second snapshot of the same moment gets its own name.
    let second = s.save_new(d.path()).unwrap();
    assert_ne!(second, path);
}

// The lead before a change (`diff::lead`), read from its end.
/// The definition walked from the start, that `lead` must equal.
fn from_start(s: &str, at: usize) -> String {
    let same = &s[..at.min(s.len())];
    let n = same.chars().count();
    if n <= 24 {
        return same.replace('\n', "¶");
    }
    let cut_mid_word = same.chars().nth(n - 25).is_some_and(char::is_alphanumeric);
    let tail: String = same.chars().skip(n - 24).collect();
    let tail = if cut_mid_word {
        tail.trim_start_matches(char::is_alphanumeric)
    } else {
        &tail
    };
    format!("…{}", tail.trim_start().replace('\n', "¶"))
}

#[test]
fn the_lead_reads_the_last_characters_before_the_change_as_before() {
    let texts = [
        "",
        "short",
        "exactly twenty-four char",
        "exactly twenty-five chars",
        "The quick brown fox jumps over the lazy dog and then some more words follow",
        "日本語のテキストがここにあります、そして変更はこの後に来ます。さらに続く",
        "line one\nline two\nline three\nline four\nline five",
        "a 🪶 feather and 👍🏽 thumbs in a sentence long enough to be cut somewhere",
    ];
    for t in texts {
        for (at, _) in t.char_indices().chain([(t.len(), ' ')]) {
            assert_eq!(lead(t, at), from_start(t, at), "{t:?} at {at}");
        }
    }
}

/// A fragment added after the last of its layer adds the join before it: the added
/// blank line shows under the new fragment's header, not as a line added
/// to the fragment before it.
#[test]
fn an_added_fragments_separator_is_shown_under_it() {
    let d = ws();
    let a = snap(d.path(), None);
    std::fs::write(
        d.path().join("fragments/n.yaml"),
        "- id: note\n  layer: 4\n  priority: 0\n  content: \"a new note\"\n",
    )
    .unwrap();
    let b = snap(d.path(), None);
    let text = crate::compare::diff_report::to_text(&diff(&a, &b, ("a", "b"), 0));
    let lines: Vec<&str> = text.lines().collect();
    let blank = lines
        .iter()
        .position(|l| *l == "+")
        .unwrap_or_else(|| panic!("an added separator in\n{text}"));
    let header = lines[..blank]
        .iter()
        .rev()
        .find(|l| l.starts_with("@@ "))
        .unwrap();
    assert_eq!(*header, "@@ note @@", "{text}");
    assert!(text.contains("+a new note"), "{text}");
}

/// Where the tool definitions are cached (a breakpoint on the last one, as
/// Claude Code and OpenClaw place it), a change in the blocks after them
/// leaves that entry valid: what is written again starts after the tools.
/// Under the model's minimum cacheable length a breakpoint caches nothing,
/// so nothing of it is kept or lost.
#[test]
fn a_cached_tools_prefix_outlives_a_change_in_the_blocks_after_it() {
    let d = ws();
    let with_tools = |mut s: Snapshot| {
        s.tools = vec![serde_json::json!({"name": "read", "input_schema": {}})];
        s.tools_tokens = 300;
        s.settings.cache_tools = true;
        s
    };
    let a = with_tools(snap(d.path(), None));
    std::fs::write(d.path().join("SOUL.md"), "You are terse.").unwrap();
    let b = with_tools(snap(d.path(), None));
    let x = diff(&a, &b, ("a", "b"), 0);
    let tools = &x.breakpoints[0];
    assert_eq!(
        (tools.name.as_str(), tools.prefix_tokens),
        ("tool 1 (read)", 300)
    );
    assert_eq!(tools.state(), "still valid");
    assert!(x.breakpoints[1..].iter().any(|p| p.invalidated), "{x:?}");
    let a_total = a.tools_tokens + a.blocks.iter().map(|b| b.tokens).sum::<u64>();
    assert!(
        x.rewrite_tokens > 0 && x.rewrite_tokens <= a_total - 300,
        "{x:?}"
    );
    let short = diff(&a, &b, ("a", "b"), 1_000_000);
    assert!(
        short.breakpoints.iter().all(|p| p.below_minimum),
        "{short:?}"
    );
    assert_eq!(short.rewrite_tokens, 0);
}
