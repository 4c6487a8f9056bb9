//! Tests of the Traffic table's caches: a live capture's requests taken in
//! one at a time leave the rows, their order and the filters' choices as
//! working them out again from the whole list would.

use super::*;
use crate::engine::traffic::Traffic;

/// A capture of `n` requests read as the Traffic tab reads it: three
/// chains, writes in three of every seven requests (the rest read), 5 s
/// apart, and a pause of ten minutes halfway (every entry expires in it).
pub(in crate::ui) fn traffic(n: usize) -> Traffic {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("capture.jsonl");
    let lines: Vec<String> = (0..n)
        .map(|i| {
            let t = i * 5 + if i >= n / 2 { 600 } else { 0 };
            let (m, s) = (t / 60, t % 60);
            let (written, read) = if i % 7 < 3 { (900 + i, 0) } else { (10, 900) };
            let system = ["one", "two", "three"][i % 3];
            format!(
                r#"{{"schema":1,"id":"{i}","ts_start":"2026-12-01T10:{m:02}:{s:02}Z","ts_end":"2026-12-01T10:{m:02}:{s:02}Z","endpoint":"/v1/messages","model":"claude-sonnet-4-6","status":200,"stream":false,"latency_ms":{},"error":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":{written},"cache_read_input_tokens":{read},"output_tokens":5}},"request":{{"model":"claude-sonnet-4-6","system":"You are {system}.","messages":[{{"role":"user","content":"turn {i}"}}]}}}}"#,
                40 + i * 37 % 11
            )
        })
        .collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let table = crate::engine::ModelTable::bundled();
    crate::engine::traffic::read(&file, &table, &crate::engine::TokenCounter::new()).unwrap()
}

/// The first `k` requests of `t`, as a live capture holds them so far.
pub(in crate::ui) fn first(t: &Traffic, k: usize) -> Traffic {
    let mut part = t.clone();
    part.requests.truncate(k);
    part
}

#[test]
fn requests_added_live_are_shown_where_a_fresh_sort_puts_them() {
    let whole = traffic(60);
    for (sort, ascending, chain, text) in [
        (Col::Index, true, None, ""),
        (Col::Cost, false, None, ""),
        (
            Col::Latency,
            true,
            Some(whole.requests[1].chain.clone()),
            "",
        ),
        (Col::Gap, false, None, "#1"),
    ] {
        let mut s = TableState {
            sort,
            ascending,
            chain,
            text: text.to_string(),
            ..TableState::default()
        };
        let mut live = first(&whole, 20);
        s.shown(&live);
        s.choices(&live);
        for r in &whole.requests[20..] {
            let before = identity(&live);
            live.requests.push(r.clone());
            s.appended(&live, before);
        }
        let cached: Vec<usize> = s.shown(&live).iter().map(|r| r.index).collect();
        let fresh: Vec<usize> = visible(&whole, &s).iter().map(|r| r.index).collect();
        assert_eq!(cached, fresh, "{sort:?} ascending {ascending}");
        assert!(!fresh.is_empty());
        let taken_in = s.choices(&live);
        s.cache = Cache::default();
        assert_eq!(taken_in, s.choices(&whole));
    }
}
