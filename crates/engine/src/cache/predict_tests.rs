//! One or more tests per documented caching rule, on synthetic requests, and
//! on real workspaces edited between two requests.

use crate::assembly::models::{ModelTable, Provider};
use crate::cache::predictors::{self, openai_cached, prefix_cached};
use crate::cache::shape::{self, RequestShape, SegKind, Segment, Strategy};
use crate::test_support::write_ws;
use crate::workspace::settings::Ttl;
use crate::*;

fn seg(kind: SegKind, text: &str, tokens: u64, bp: Option<Ttl>) -> Segment {
    Segment {
        kind,
        text: text.into(),
        tokens,
        breakpoint: bp,
        spans: Vec::new(),
        source_block: None,
    }
}

fn sys(i: usize, text: &str, tokens: u64, bp: Option<Ttl>) -> Segment {
    seg(
        SegKind::System {
            layer: i as u8 + 1,
            block: i,
            placement: crate::workspace::settings::Placement::System,
        },
        text,
        tokens,
        bp,
    )
}

fn msg(i: usize, text: &str, tokens: u64, bp: Option<Ttl>) -> Segment {
    let role = if i.is_multiple_of(2) {
        crate::workspace::session::Role::User
    } else {
        crate::workspace::session::Role::Assistant
    };
    seg(
        SegKind::Message {
            index: i,
            role,
            block: 0,
        },
        text,
        tokens,
        bp,
    )
}

fn req(index: usize, at: u64, segments: Vec<Segment>) -> RequestShape {
    RequestShape {
        turn: index + 1,
        index,
        gap_secs: 0,
        at_secs: at,
        segments,
        history_notes: vec![],
        history_tokens: 0,
        current_tokens: 0,
    }
}

fn model(id: &str) -> ModelInfo {
    ModelTable::bundled().get(id).unwrap().clone()
}

fn usage(p: &predictors::Predicted) -> (u64, u64, u64) {
    (
        p.usage.cache_read_input_tokens,
        p.usage.cache_creation_input_tokens,
        p.usage.input_tokens,
    )
}

const FIVE: Option<Ttl> = Some(Ttl::FiveMinutes);
const HOUR: Option<Ttl> = Some(Ttl::OneHour);

#[test]
fn cold_then_warm_reads_the_identical_prefix() {
    let r = |i, at| {
        req(
            i,
            at,
            vec![sys(0, "stable", 1500, FIVE), msg(0, "hi", 10, None)],
        )
    };
    let p = predictors::anthropic(&model("claude-sonnet-4-5"), &[r(0, 0), r(1, 30)]);
    assert_eq!(usage(&p[0]), (0, 1500, 10));
    assert_eq!(usage(&p[1]), (1500, 0, 10));
    assert!(p[0].notes.iter().any(|n| n.contains("cold cache")));
}

#[test]
fn minimum_cacheable_length_per_model_class() {
    let r = |i, tokens| {
        req(
            i,
            i as u64 * 10,
            vec![sys(0, "s", tokens, FIVE), msg(0, "hi", 5, None)],
        )
    };
    // Sonnet: 1024. 1000 tokens are silently not cached; 1100 are.
    let p = predictors::anthropic(&model("claude-sonnet-4-5"), &[r(0, 1000), r(1, 1000)]);
    assert_eq!(usage(&p[1]), (0, 0, 1005));
    assert!(
        p[1].notes
            .iter()
            .any(|n| n.contains("under the 1024-token minimum")),
        "{:?}",
        p[1].notes
    );
    let p = predictors::anthropic(&model("claude-sonnet-4-5"), &[r(0, 1100), r(1, 1100)]);
    assert_eq!(usage(&p[1]).0, 1100);
    // Opus 4.7: 2048. Haiku 4.5 and Opus 4.5: 4096.
    for (id, min) in [
        ("claude-opus-4-7", 2048),
        ("claude-haiku-4-5", 4096),
        ("claude-opus-4-5", 4096),
    ] {
        let p = predictors::anthropic(&model(id), &[r(0, min - 1), r(1, min - 1)]);
        assert_eq!(usage(&p[1]).0, 0, "{id}");
        let p = predictors::anthropic(&model(id), &[r(0, min), r(1, min)]);
        assert_eq!(usage(&p[1]).0, min, "{id}");
    }
}

#[test]
fn ttl_expires_and_is_refreshed_by_hits() {
    let r = |i, at| req(i, at, vec![sys(0, "s", 2000, FIVE), msg(0, "x", 5, None)]);
    let p = predictors::anthropic(
        &model("claude-sonnet-4-5"),
        &[r(0, 0), r(1, 240), r(2, 480), r(3, 800)],
    );
    assert_eq!(usage(&p[1]).0, 2000, "within 5 minutes");
    assert_eq!(
        usage(&p[2]).0,
        2000,
        "240 s after the refresh at 240 s, not 480 s after the write"
    );
    assert_eq!(usage(&p[3]), (0, 2000, 5), "320 s idle: expired");
    assert!(
        p[3].notes
            .iter()
            .any(|n| n.contains("expired") && n.contains("5m20s")),
        "{:?}",
        p[3].notes
    );
    // A 1-hour entry survives a 10-minute gap, and its write costs 2×.
    let h = |i, at| req(i, at, vec![sys(0, "s", 2000, HOUR), msg(0, "x", 5, None)]);
    let m = model("claude-sonnet-4-5");
    let p = predictors::anthropic(&m, &[h(0, 0), h(1, 600)]);
    assert_eq!(usage(&p[1]).0, 2000);
    let expected = 2000.0 * 3.0 * 2.0 / 1e6 + 5.0 * 3.0 / 1e6;
    assert!(
        (p[0].cost_usd - expected).abs() < 1e-9,
        "{} vs {expected}",
        p[0].cost_usd
    );
    let read_cost = 2000.0 * 3.0 * 0.1 / 1e6 + 5.0 * 3.0 / 1e6;
    assert!((p[1].cost_usd - read_cost).abs() < 1e-9);
}

#[test]
fn twenty_block_lookback() {
    // Request 1 caches a prefix at its message breakpoint (position 1).
    // Request 2 adds `extra` blocks; its only breakpoint is at the end.
    let run = |extra: usize| {
        let mut first = vec![sys(0, "s", 2000, None), msg(0, "m0", 10, FIVE)];
        let p1 = req(0, 0, first.clone());
        first[1].breakpoint = None;
        for i in 1..=extra {
            first.push(msg(
                i,
                &format!("m{i}"),
                10,
                if i == extra { FIVE } else { None },
            ));
        }
        predictors::anthropic(&model("claude-sonnet-4-5"), &[p1, req(1, 10, first)])
    };
    // The cached position is 19 before the new breakpoint: within 20 (itself included).
    assert_eq!(usage(&run(19)[1]).0, 2010);
    // 20 before: beyond the lookback.
    let p = run(20);
    assert_eq!(usage(&p[1]).0, 0);
    assert!(
        p[1].notes.iter().any(|n| n.contains("beyond the lookback")),
        "{:?}",
        p[1].notes
    );
}

#[test]
fn more_than_four_breakpoints_is_an_api_error_and_ttl_order() {
    let segs: Vec<Segment> = (0..5).map(|i| sys(i, "s", 500, FIVE)).collect();
    let p = predictors::anthropic(&model("claude-sonnet-4-5"), &[req(0, 0, segs)]);
    assert!(p[0].error.as_deref().unwrap().contains("400"));
    assert_eq!(p[0].usage.total(), 0);
    let p = predictors::anthropic(
        &model("claude-sonnet-4-5"),
        &[req(
            0,
            0,
            vec![sys(0, "a", 1500, FIVE), sys(1, "b", 10, HOUR)],
        )],
    );
    assert!(
        p[0].error
            .as_deref()
            .unwrap()
            .contains("longer TTLs must come first")
    );
}

#[test]
fn openai_rounds_to_128_token_steps_from_1024() {
    assert_eq!(openai_cached(1000, 5000), 0);
    assert_eq!(openai_cached(1024, 5000), 1024);
    assert_eq!(openai_cached(1024 + 127, 5000), 1024);
    assert_eq!(openai_cached(1024 + 128, 5000), 1152);
    assert_eq!(
        openai_cached(3000, 900),
        0,
        "a prompt under 1024 tokens is never cached"
    );
}

#[test]
fn prefix_predictor_reuses_common_prefix_but_one_token() {
    let a = vec![1, 2, 3, 4, 5];
    let b = vec![1, 2, 3, 9, 9, 9];
    assert_eq!(
        prefix_cached(&[a.clone(), b.clone(), b.clone()]),
        vec![0, 3, 5]
    );
    assert_eq!(
        prefix_cached(&[a.clone(), a.clone()]),
        vec![0, 4],
        "at least one token is re-evaluated"
    );
}

fn two_requests(
    before: &Assembly,
    after: &Assembly,
    ins: &Inspection,
    counter: &TokenCounter,
) -> Vec<predictors::Predicted> {
    let s = ins.session();
    let settings = &ins.prepared.settings;
    let mut r1 = shape::shapes(before, s, settings, Strategy::Layered, counter).remove(0);
    let mut r2 = shape::shapes(after, s, settings, Strategy::Layered, counter).remove(0);
    r1.at_secs = 0;
    r2.at_secs = 30;
    r2.index = 1;
    predictors::anthropic(&ins.prepared.model, &[r1, r2])
}

#[test]
fn editing_user_md_keeps_cached_reads_and_soul_md_invalidates_everything() {
    let soul = "You are a careful assistant. ".repeat(200);
    let files = [
        ("SOUL.md", soul.as_str()),
        ("SAFETY.md", "Never run destructive commands."),
        ("USER.md", "The user likes Rust."),
        (
            "workspace.yaml",
            "budget: {total: 100000, fixed: {1: 50000, 2: 1000}}\n",
        ),
    ];
    let dir = write_ws(&files);
    let table = ModelTable::bundled();
    let counter = TokenCounter::new();
    let ins = inspect(dir.path(), &Options::default(), &table, &counter).unwrap();
    let before = ins.assembly.clone();
    std::fs::write(dir.path().join("USER.md"), "The user likes Rust and Go.").unwrap();
    let user_edit = inspect(dir.path(), &Options::default(), &table, &counter)
        .unwrap()
        .assembly
        .clone();
    let p = two_requests(&before, &user_edit, &ins, &counter);
    let cached_layers: u64 = before
        .blocks
        .iter()
        .filter(|b| b.cache_control)
        .map(|b| b.tokens)
        .sum();
    assert_eq!(
        p[1].usage.cache_read_input_tokens, cached_layers,
        "layers 1-2 are still read"
    );
    std::fs::write(
        dir.path().join("SOUL.md"),
        soul.replacen("careful", "careless", 1),
    )
    .unwrap();
    let soul_edit = inspect(dir.path(), &Options::default(), &table, &counter)
        .unwrap()
        .assembly
        .clone();
    let p = two_requests(&before, &soul_edit, &ins, &counter);
    assert_eq!(
        p[1].usage.cache_read_input_tokens, 0,
        "a layer-1 edit invalidates everything after it"
    );
    let reason = p[1].notes.join("\n");
    assert!(
        reason.contains("fragment 'soul'") && reason.contains("character 14"),
        "{reason}"
    );
    assert!(
        reason.contains("“less assistant") && reason.contains("“ful assistant"),
        "{reason}"
    );
    // With the message breakpoint on, a USER.md edit is named as the cause of the rewrite.
    std::fs::write(dir.path().join("workspace.yaml"), "budget: {total: 100000, fixed: {1: 50000, 2: 1000}}\nhistory: {message_breakpoint: true}\n").unwrap();
    std::fs::write(dir.path().join("USER.md"), "The user likes Rust.").unwrap();
    let ins = inspect(dir.path(), &Options::default(), &table, &counter).unwrap();
    std::fs::write(dir.path().join("USER.md"), "The user likes Rust and Go.").unwrap();
    let edited = inspect(dir.path(), &Options::default(), &table, &counter)
        .unwrap()
        .assembly
        .clone();
    let p = two_requests(&ins.assembly, &edited, &ins, &counter);
    assert_eq!(p[1].usage.cache_read_input_tokens, cached_layers);
    assert!(
        p[1].notes.join("\n").contains("fragment 'user'"),
        "{:?}",
        p[1].notes
    );
}

#[test]
fn sample_coding_session_shows_hits_writes_expiry_and_lint() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample-workspace");
    let counter = TokenCounter::new();
    let ins = inspect(&root, &Options::default(), &ModelTable::bundled(), &counter).unwrap();
    let p = crate::cache::prediction::predict(&ins, None, &counter);
    assert_eq!(p.provider, Provider::Anthropic);
    assert!(
        p.requests
            .iter()
            .any(|r| r.usage.cache_read_input_tokens > 0)
    );
    assert!(
        p.requests
            .iter()
            .any(|r| r.usage.cache_creation_input_tokens > 0)
    );
    assert!(
        p.requests
            .iter()
            .any(|r| r.notes.iter().any(|n| n.contains("expired")))
    );
    assert!(
        p.requests
            .iter()
            .any(|r| r.notes.iter().any(|n| n.contains("micro-compacted")))
    );
    assert!(
        p.warnings
            .iter()
            .any(|w| w.fragment == "env.snapshot" && w.message.contains("timestamp"))
    );
    let names: Vec<_> = p.strategies.iter().map(|s| s.name).collect();
    assert_eq!(names, vec!["layered", "single_string", "none"]);
    let none = &p.strategies[2];
    assert_eq!(
        none.usage.cache_read_input_tokens + none.usage.cache_creation_input_tokens,
        0
    );
    assert!(p.saving_usd > 0.0);
    // Every request's usage adds up to its tokens.
    for r in &p.requests {
        assert_eq!(r.usage.total(), r.total_tokens);
    }
    let o = crate::cache::prediction::predict(&ins, Some(Provider::Openai), &counter);
    assert!(
        o.requests
            .iter()
            .all(|r| r.usage.cache_creation_input_tokens == 0)
    );
    assert!(
        o.requests
            .iter()
            .skip(1)
            .any(|r| r.usage.cache_read_input_tokens >= 1024
                && (r.usage.cache_read_input_tokens - 1024) % 128 == 0)
    );
}
