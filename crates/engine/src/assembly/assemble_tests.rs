//! Unit tests of the assembly rules, on workspaces written to temp folders.

use std::path::Path;

use crate::assembly::assemble::{Status, layer_budgets};
use crate::test_support::write_ws;
use crate::workspace::settings::Budget;
use crate::*;

/// Text of exactly `n` o200k tokens (" w" repeats are one token each).
fn tokens(n: usize) -> String {
    let s = format!("w{}", " w".repeat(n - 1));
    assert_eq!(TokenCounter::new().count(Encoding::O200kBase, &s), n as u64);
    s
}

fn run(dir: &Path, opts: Options) -> crate::assembly::assembled::Assembled {
    inspect(dir, &opts, &ModelTable::bundled(), &TokenCounter::new())
        .unwrap()
        .into()
}

fn frag(a: &Assembly, id: &str) -> crate::assembly::assemble::FragmentResult {
    a.fragments
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no fragment {id}"))
        .clone()
}

fn yaml_frag(id: &str, layer: u8, priority: i64, n: usize, extra: &str) -> String {
    format!(
        "- id: {id}\n  layer: {layer}\n  priority: {priority}\n  content: \"{}\"\n{extra}",
        tokens(n)
    )
}

#[test]
fn seed_example_budgets_and_inflow() {
    assert_eq!(layer_budgets(&Budget::default()), [300, 200, 900, 600]);
    // Layer 3 uses 700 of 900, so layer 4 gets 600 + 200 = 800.
    let frags = [
        yaml_frag("a", 1, 1, 300, ""),
        yaml_frag("b", 2, 1, 200, ""),
        yaml_frag("c", 3, 1, 700, ""),
        yaml_frag("d", 4, 1, 800, ""),
    ]
    .join("");
    let dir = write_ws(&[
        ("fragments/f.yaml", &frags),
        ("workspace.yaml", "budget: {total: 2000}\n"),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    let l: Vec<_> = a
        .layers
        .iter()
        .map(|l| (l.budget, l.inflow, l.available, l.used))
        .collect();
    assert_eq!(
        l,
        vec![
            (300, 0, 300, 300),
            (200, 0, 200, 200),
            (900, 0, 900, 700),
            (600, 200, 800, 800)
        ]
    );
    assert!(a.fragments.iter().all(|f| f.status == Status::Kept));
    // Every block's count is the exact count of its text.
    let c = TokenCounter::new();
    for b in &a.blocks {
        assert_eq!(b.tokens, c.count(Encoding::O200kBase, &b.text));
    }
}

#[test]
fn sort_order_and_tie_break_by_id() {
    let frags = [
        yaml_frag("zeta", 3, 5, 10, ""),
        yaml_frag("alpha", 3, 5, 10, ""),
        yaml_frag("top", 3, 9, 10, ""),
        yaml_frag("first", 1, 0, 10, ""),
    ]
    .join("");
    let dir = write_ws(&[("fragments/f.yaml", &frags)]);
    let a = run(dir.path(), Options::default()).assembly;
    let ids: Vec<_> = a.fragments.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, vec!["first", "top", "alpha", "zeta"]);
    // Under pressure the larger id of equal priority goes first.
    let dir = write_ws(&[
        (
            "fragments/f.yaml",
            &[
                yaml_frag("zeta", 3, 5, 100, ""),
                yaml_frag("alpha", 3, 5, 100, ""),
            ]
            .join(""),
        ),
        (
            "workspace.yaml",
            "budget: {total: 650, fixed: {1: 0, 2: 0}, layer3_ratio: 0.2}\n",
        ),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    assert_eq!(frag(&a, "zeta").status, Status::Dropped);
    assert_eq!(frag(&a, "alpha").status, Status::Kept);
}

#[test]
fn summaries_come_before_drops_and_truncation() {
    let frags = [
        yaml_frag("high", 3, 9, 100, "  summary: short high\n"),
        yaml_frag("low", 3, 1, 100, "  summary: short low\n"),
        yaml_frag("plain", 3, 5, 100, ""),
    ]
    .join("");
    // Layer 3 gets 250: summarizing `low` (lowest priority) then `high` fits.
    let dir = write_ws(&[
        ("fragments/f.yaml", &frags),
        (
            "workspace.yaml",
            "budget: {total: 250, fixed: {1: 0, 2: 0}, layer3_ratio: 1.0}\n",
        ),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    assert_eq!(frag(&a, "low").status, Status::Summarized);
    assert_eq!(
        frag(&a, "high").status,
        Status::Kept,
        "only as many summaries as needed"
    );
    assert_eq!(frag(&a, "plain").status, Status::Kept);
    // With 103 even both summaries do not fit: pass 2 drops lowest priority first.
    let dir = write_ws(&[
        ("fragments/f.yaml", &frags),
        (
            "workspace.yaml",
            "budget: {total: 103, fixed: {1: 0, 2: 0}, layer3_ratio: 1.0}\n",
        ),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    assert_eq!(frag(&a, "high").status, Status::Summarized);
    assert_eq!(
        frag(&a, "low").status,
        Status::Dropped,
        "a summarized fragment can still be dropped"
    );
    assert_eq!(frag(&a, "plain").status, Status::Kept);
    assert!(a.layers[2].used <= a.layers[2].available);
}

#[test]
fn truncation_keeps_valid_chinese_prefix_with_marker() {
    let zh =
        "第四层是状态，随对话流动，裁剪空间最大。记忆摘要往往比预期长，所以要按 token 边界裁剪。"
            .repeat(12);
    let ws =
        format!("- id: memo\n  layer: 4\n  priority: 1\n  truncate: true\n  content: \"{zh}\"\n");
    let dir = write_ws(&[
        ("fragments/f.yaml", &ws),
        (
            "workspace.yaml",
            "budget: {total: 120, fixed: {1: 0, 2: 0}, layer3_ratio: 0}\n",
        ),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    let f = frag(&a, "memo");
    assert_eq!(f.status, Status::Truncated, "{}", f.reason);
    assert!(f.kept_tokens <= 120 && f.kept_tokens > 0);
    let marker_at = f.text.rfind("\n…[truncated").expect("visible marker");
    assert!(
        zh.starts_with(&f.text[..marker_at]),
        "kept text is a prefix of the original"
    );
    assert!(f.text.contains("tokens]"));
}

#[test]
fn layers_one_and_two_are_never_trimmed() {
    let frags = [
        yaml_frag("id1", 1, 1, 400, "  summary: s\n"),
        yaml_frag("id2", 2, 1, 300, "  truncate: true\n"),
        yaml_frag("cap", 3, 1, 50, ""),
    ]
    .join("");
    let dir = write_ws(&[
        ("fragments/f.yaml", &frags),
        ("workspace.yaml", "budget: {total: 2000}\n"),
    ]);
    let ins = run(dir.path(), Options::default());
    let a = &ins.assembly;
    assert_eq!(frag(a, "id1").status, Status::Kept);
    assert_eq!(frag(a, "id2").status, Status::Kept);
    assert_eq!(a.layers[0].overflow, 100);
    assert_eq!(a.layers[1].overflow, 100);
    // No other layer pays: layer 3 still has its own budget, with no inflow.
    assert_eq!((a.layers[2].budget, a.layers[2].inflow), (900, 0));
    assert_eq!(frag(a, "cap").status, Status::Kept);
    assert!(!crate::assembly::report::check_failures(a).is_empty());
}

#[test]
fn debug_markers_wrap_without_changing_what_is_kept() {
    let dir = write_ws(&[
        ("SOUL.md", "I am a test agent."),
        (
            "fragments/f.yaml",
            &[yaml_frag("a", 3, 2, 80, ""), yaml_frag("b", 3, 1, 80, "")].join(""),
        ),
        (
            "workspace.yaml",
            "budget: {total: 120, fixed: {1: 20, 2: 0}, layer3_ratio: 1.0}\n",
        ),
    ]);
    let plain = run(dir.path(), Options::default()).assembly;
    let marked = run(
        dir.path(),
        Options {
            debug_markers: true,
            ..Options::default()
        },
    )
    .assembly;
    let st = |a: &Assembly| {
        a.fragments
            .iter()
            .map(|f| (f.id.clone(), f.status, f.kept_tokens))
            .collect::<Vec<_>>()
    };
    assert_eq!(st(&plain), st(&marked));
    let text: String = marked.blocks.iter().map(|b| b.text.clone()).collect();
    assert!(text.contains("[[DEBUG:soul]]\nI am a test agent.\n[[/DEBUG:soul]]"));
    assert!(text.contains("[[DEBUG:a]]") && !text.contains("[[DEBUG:b]]"));
}

#[test]
fn skills_always_full_on_demand_entry_and_degrade() {
    let dir = write_ws(&[
        (
            "skills/ts.md",
            "---\nname: typescript\ndescription: TS rules\nalways: true\n---\nUse strict mode everywhere.",
        ),
        (
            "skills/mem/SKILL.md",
            "---\nname: mem\ndescription: memory\nmetadata:\n  openclaw:\n    always: true\n---\nRemember things.",
        ),
        (
            "skills/sql.md",
            "---\nname: sql\ndescription: SQL review\n---\nLong body that is not injected.",
        ),
    ]);
    let a = run(dir.path(), Options::default()).assembly;
    let ts = frag(&a, "skill.typescript");
    assert!(
        ts.text
            .starts_with("## typescript (always loaded)\n\nUse strict mode")
    );
    assert!(
        frag(&a, "skill.mem").text.contains("Remember things."),
        "metadata.openclaw.always counts"
    );
    let sql = frag(&a, "skill.sql");
    assert_eq!(
        &*sql.text,
        "- **sql**: SQL review _(load via `read_file(\"skills/sql.md\")` when needed)_"
    );
    // Under pressure the always skill degrades to its entry.
    let entry = "- **typescript**: TS rules _(load via `read_file(\"skills/ts.md\")` when needed)_";
    let n = TokenCounter::new().count(Encoding::O200kBase, entry);
    let dir2 = write_ws(&[
        (
            "skills/ts.md",
            &format!(
                "---\nname: typescript\ndescription: TS rules\nalways: true\n---\n{}",
                "Use strict mode everywhere. ".repeat(10)
            ),
        ),
        (
            "workspace.yaml",
            &format!("budget: {{total: {n}, fixed: {{1: 0, 2: 0}}, layer3_ratio: 1.0}}\n"),
        ),
    ]);
    let a2 = run(dir2.path(), Options::default()).assembly;
    let ts2 = frag(&a2, "skill.typescript");
    assert_eq!(ts2.status, Status::Summarized, "{}", ts2.reason);
    assert!(ts2.text.starts_with("- **typescript**"));
}

#[test]
fn enabled_when_and_templates() {
    let dir = write_ws(&[
        (
            "fragments/f.yaml",
            "- id: t\n  layer: 4\n  template: \"root={{workspaceDir}} s={{session.name}} v={{session.task}} u={{nope}}\"\n- id: gated\n  layer: 3\n  content: x\n  enabled_when: bash in session.tools\n- id: broken\n  layer: 3\n  content: y\n  enabled_when: bash in\n",
        ),
        ("sessions/a.yaml", "tools: [bash]\nvars: {task: build}\n"),
        ("sessions/b.yaml", "tools: []\n"),
    ]);
    let ins = run(
        dir.path(),
        Options {
            session: Some("a".into()),
            ..Options::default()
        },
    );
    let t = frag(&ins.assembly, "t");
    assert!(t.text.contains("s=a v=build u={{nope}}"), "{}", t.text);
    assert!(
        t.text
            .contains(&format!("root={}", ins.workspace.root.display()))
    );
    assert_eq!(frag(&ins.assembly, "gated").status, Status::Kept);
    let broken = frag(&ins.assembly, "broken");
    assert_eq!(broken.status, Status::Disabled);
    let d = ins.diagnostics();
    assert!(
        d.iter()
            .any(|d| d.message.contains("unknown template variable {{nope}}") && d.line == Some(3)),
        "{d:?}"
    );
    assert!(
        d.iter()
            .any(|d| d.message.contains("invalid enabled_when") && d.line == Some(11)),
        "{d:?}"
    );
    let b = run(
        dir.path(),
        Options {
            session: Some("b".into()),
            ..Options::default()
        },
    );
    let g = frag(&b.assembly, "gated");
    assert_eq!(g.status, Status::Disabled);
    assert!(
        g.reason.contains("'bash' is not in session.tools"),
        "{}",
        g.reason
    );
    assert!(
        inspect(
            dir.path(),
            &Options {
                session: Some("zzz".into()),
                ..Options::default()
            },
            &ModelTable::bundled(),
            &TokenCounter::new()
        )
        .is_err()
    );
}

#[test]
fn warm_reassembly_tokenizes_nothing_new() {
    let dir = write_ws(&[(
        "fragments/f.yaml",
        &[
            yaml_frag("a", 3, 2, 200, ""),
            yaml_frag("b", 4, 1, 200, "  summary: s\n"),
        ]
        .join(""),
    )]);
    let table = ModelTable::bundled();
    let counter = TokenCounter::new();
    let ins = inspect(dir.path(), &Options::default(), &table, &counter).unwrap();
    let before = counter.misses();
    let b = Budget {
        total: 250,
        layer1: 0,
        layer2: 0,
        layer3_ratio: 0.8,
    };
    let again = assemble(&ins.prepared, &b, false, &counter);
    let _ = assemble(&ins.prepared, &Budget::default(), false, &counter);
    assert!(
        again
            .fragments
            .iter()
            .any(|f| f.status == Status::Summarized)
    );
    // Only the changed block texts were counted; no fragment was re-tokenized.
    assert!(
        counter.misses() - before <= 2,
        "{} new tokenizations",
        counter.misses() - before
    );
    let _ = assemble(&ins.prepared, &b, false, &counter);
    let after = counter.misses();
    let _ = assemble(&ins.prepared, &b, false, &counter);
    assert_eq!(
        counter.misses(),
        after,
        "a repeated budget costs no tokenization at all"
    );
}
