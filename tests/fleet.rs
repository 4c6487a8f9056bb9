//! `traffic --format jsonl`: flat rows DuckDB reads as a table. The queries
//! shipped in examples/fleet/ run with the DuckDB Python package (pip) over
//! rows written from the three agents' recorded captures and a Claude Code
//! project folder, and their totals equal `traffic`'s own.

use crate::common;

use std::path::Path;

use serde_json::Value;

use common::*;

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(rel)
}

#[test]
fn every_row_has_every_field_of_the_schema() {
    let cap = fixture("openclaw/capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    for r in &rows {
        assert_eq!(keys(r), keys(&rows[0]), "the same fields in every row");
        assert_eq!(r["schema"], 1);
    }
    assert_eq!(rows[0]["gap_s"], Value::Null);
    assert_eq!(rows[1]["gap_s"], 2.242);
    assert_eq!(rows[2]["miss_kind"], "prefix");
    assert_eq!(rows[2]["first_difference"], "system block 1");
    assert_eq!(rows[0]["provider"], "anthropic");
}

/// The totals compared, as `traffic --format json` and totals.sql name them.
const TOTALS: [&str; 6] = [
    "requests",
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
    "cost_usd",
];

#[test]
#[ignore = "needs the DuckDB Python package (pip install duckdb); .ci/run runs it"]
fn the_fleet_queries_give_traffics_own_totals() {
    let dir = tempfile::tempdir().unwrap();
    let sources = [
        fixture("claude-code/capture.jsonl"),
        fixture("openclaw/capture.jsonl"),
        fixture("codex/capture.jsonl"),
        fixture("claude-code/transcript"),
        fixture("codex/transcript"),
    ];
    let mut files = Vec::new();
    let mut want = [0f64; 6];
    for (i, s) in sources.iter().enumerate() {
        let o = run(&["traffic", s.to_str().unwrap(), "--format", "jsonl"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let f = dir.path().join(format!("rows-{i}.jsonl"));
        std::fs::write(&f, &o.stdout).unwrap();
        files.push(f);
        let t = json(&run(&["traffic", s.to_str().unwrap(), "--format", "json"]))["totals"].clone();
        for (k, key) in TOTALS.iter().enumerate() {
            want[k] += t[key].as_f64().unwrap();
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/fleet/run.py");
    let o = std::process::Command::new("python3")
        .arg(&script)
        .args(&files)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Value = serde_json::from_slice(&o.stdout).unwrap();
    let totals = &got["totals.sql"][0];
    for (k, key) in TOTALS.iter().enumerate() {
        let g = totals[key].as_f64().unwrap();
        assert!(
            (g - want[k]).abs() < 1e-5,
            "{key}: DuckDB {g}, traffic {}",
            want[k]
        );
    }
    // Every query ran and gave rows.
    for q in [
        "hit_ratio_by_day_and_model.sql",
        "cost_by_miss_kind.sql",
        "rewrites_by_change.sql",
    ] {
        assert!(!got[q].as_array().unwrap().is_empty(), "{q}: {}", got[q]);
    }
    let kinds = got["cost_by_miss_kind.sql"].as_array().unwrap();
    assert!(kinds.iter().any(|k| k["kind"] == "prefix"), "{kinds:?}");
}
