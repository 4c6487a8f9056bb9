//! Property tests: for random workspaces and budgets the output is
//! deterministic, trimmed layers fit, and statuses agree with the counts.

use prompt_inspector::engine::{self, ModelTable, Options, Status, TokenCounter, assembly::report};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Frag {
    layer: u8,
    priority: i64,
    words: usize,
    zh: bool,
    summary: bool,
    truncate: bool,
}

fn frag() -> impl Strategy<Value = Frag> {
    (
        1u8..=4,
        0i64..5,
        1usize..160,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(layer, priority, words, zh, summary, truncate)| Frag {
            layer,
            priority,
            words,
            zh,
            summary,
            truncate,
        })
}

fn body(f: &Frag, i: usize) -> String {
    // Awkward starts and ends, to test that block counts stay exact.
    let starts = ["", "/", " ", "- ", "'s ", "。", "\\n", "12"];
    let ends = ["", ".", "/", "。", " ", ":", "!!"];
    format!(
        "{}{}{}",
        starts[i % starts.len()],
        words(f, i),
        ends[(i / 2) % ends.len()]
    )
}

fn words(f: &Frag, i: usize) -> String {
    if f.zh {
        "记忆摘要按 token 边界裁剪，中文不能乱码。".repeat(f.words / 8 + 1)
    } else {
        (0..f.words)
            .map(|w| format!("w{}", (w * 7 + i) % 50))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn yaml(frags: &[Frag]) -> String {
    let mut out = String::new();
    for (i, f) in frags.iter().enumerate() {
        out += &format!(
            "- id: f{i:02}\n  layer: {}\n  priority: {}\n  content: \"{}\"\n",
            f.layer,
            f.priority,
            body(f, i)
        );
        if f.summary {
            out += &format!("  summary: \"short form of f{i:02}\"\n");
        }
        if f.truncate {
            out += "  truncate: true\n";
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn assembly_invariants(frags in prop::collection::vec(frag(), 1..14), total in 0u64..3000, l1 in 0u64..400, l2 in 0u64..300, ratio in 0.0f64..=1.0) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("fragments")).unwrap();
        std::fs::write(dir.path().join("fragments/f.yaml"), yaml(&frags)).unwrap();
        std::fs::write(dir.path().join("workspace.yaml"), format!(
            "layers: {{3: {{title: \"## Tools\"}}}}\nbudget: {{total: {total}, fixed: {{1: {l1}, 2: {l2}}}, layer3_ratio: {ratio}}}\n")).unwrap();
        let table = ModelTable::bundled();
        let run = || {
            let ins = engine::inspect(dir.path(), &Options::default(), &table, &TokenCounter::new()).unwrap();
            (serde_json::to_string(&report::to_json(&ins)).unwrap(), ins)
        };
        let (json_a, ins) = run();
        let (json_b, _) = run();
        prop_assert_eq!(&json_a, &json_b, "byte-identical JSON for the same inputs");
        let a = &ins.assembly;
        prop_assert!(ins.workspace.diagnostics.is_empty(), "{:?}", ins.workspace.diagnostics);
        prop_assert!(ins.prepared.diagnostics.is_empty(), "{:?}", ins.prepared.diagnostics);
        // The only other problems are the budget's, one per overflowing
        // layer (and one for a total below the fixed budgets).
        let overflowing = a.layers.iter().filter(|l| l.overflow > 0).count();
        let below = usize::from(total < l1 + l2);
        prop_assert_eq!(ins.diagnostics().len(), overflowing + below);
        for l in &a.layers[2..] {
            prop_assert!(l.used <= l.available, "layer {} uses {} of {}", l.layer, l.used, l.available);
        }
        // The budget is a promise: a layer's used tokens are its block's.
        for l in &a.layers {
            let block = a.blocks.iter().find(|b| b.layer == l.layer).map_or(0, |b| b.tokens);
            prop_assert_eq!(l.used, block, "layer {}", l.layer);
        }
        let sum: u64 = a.layers.iter().map(|l| l.budget).sum();
        if total >= l1 + l2 { prop_assert_eq!(sum, total); }
        for f in &a.fragments {
            match f.status {
                Status::Kept => prop_assert_eq!(f.kept_tokens, f.tokens),
                Status::Summarized => prop_assert!(f.kept_tokens < f.tokens),
                Status::Truncated => {
                    prop_assert!(f.kept_tokens > 0 && f.kept_tokens <= f.tokens);
                    prop_assert!(f.text.contains("…[truncated"));
                }
                Status::Dropped | Status::Disabled => {
                    prop_assert_eq!(f.kept_tokens, 0);
                    prop_assert!(f.text.is_empty());
                }
            }
            if f.layer <= 2 { prop_assert_eq!(f.status, Status::Kept); }
            prop_assert!(!f.reason.is_empty());
        }
        // Block token counts are exact counts of their text.
        let c = TokenCounter::new();
        for b in &a.blocks {
            prop_assert_eq!(b.tokens, c.count(a.tokenizer, &b.text));
        }
    }
}
