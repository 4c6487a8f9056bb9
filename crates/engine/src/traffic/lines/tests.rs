//! Unit tests of the line reader's bounds.

use super::*;
use crate::traffic::parse::values_of;

#[test]
fn the_estimate_is_the_number_of_values_parsed() {
    for line in [
        r#"{}"#,
        r#"{"a":1}"#,
        r#"{"a":[1,2,{"b":"x,y{[\"z"}],"c":null}"#,
        r#"[{},{},{},[],[[]]]"#,
        r#"[ { } , [ 1 , 2 ] , { "k" : [ ] } ]"#,
        r#""a string, with [brackets] and {braces}""#,
    ] {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(estimate_values(line), values_of(&v), "{line}");
    }
    // Text inside strings is one value, however many commas it holds.
    assert_eq!(estimate_values(r#""a,b,c,[{""#), 1);
    // A line cut inside a string or after a lone backslash ends there.
    assert_eq!(estimate_values(r#"{"a":"x\"#), 2);
    assert_eq!(estimate_values("{\"a\":\"x\\"), 2);
}

#[test]
fn lines_over_the_budget_are_counted_and_named() {
    let tiny = |n: usize| {
        format!(
            r#"{{"endpoint":"/v1/messages","ts_start":"2026-11-30T10:00:00Z","request":{{"system":"s","messages":[{}]}}}}"#,
            vec!["{}"; n].join(",")
        )
    };
    let mut l = Lines::default();
    l.push(&tiny(MAX_VALUES / 2));
    l.push(&tiny(MAX_VALUES / 2));
    l.push(&tiny(10));
    let (source, x, skipped) = l.finish().unwrap();
    assert_eq!(source, Source::Capture);
    assert_eq!(x.len(), 2, "the first and the last fit");
    assert_eq!(skipped.over_budget, 1);
    assert_eq!(skipped.first_over_budget, Some(2));
    let d = skipped.describe().unwrap();
    assert!(
        d.contains("1 line over the 4,000,000-value budget not read (the first is line 2)"),
        "{d}"
    );
    // Nothing read at all: the error says why.
    let mut l = Lines::default();
    l.push(&tiny(MAX_VALUES + 1));
    let e = l.finish().unwrap_err().to_string();
    assert!(
        e.starts_with("nothing read: 1 line over the 4,000,000-value budget"),
        "{e}"
    );
}

#[test]
fn a_line_over_the_line_limit_is_named_as_such_not_as_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("capture.jsonl");
    let ok = r#"{"endpoint":"/v1/messages","ts_start":"2026-11-30T10:00:00Z","request":{"system":"s","messages":[]}}"#;
    let mut text = format!("{ok}\n{{\"request\":\"");
    text.push_str(&"x".repeat(MAX_LINE_BYTES as usize));
    text.push_str("\"}\nnot json\n");
    std::fs::write(&f, text).unwrap();
    let (_, x, skipped, _) = read_file_lazy(&f).unwrap();
    assert_eq!(x.len(), 1);
    assert_eq!((skipped.too_long, skipped.first_too_long), (1, Some(2)));
    assert_eq!((skipped.lines, skipped.first), (1, Some(3)));
    let d = skipped.describe().unwrap();
    assert!(
        d.contains("1 line over the 64 MiB line limit not read (the first is line 2)")
            && d.contains("1 line not JSON, skipped (the first is line 3)"),
        "{d}"
    );
}

#[test]
fn a_usage_figure_that_is_not_a_count_is_said_with_its_line() {
    let line = |usage: &str| {
        format!(
            r#"{{"endpoint":"/v1/messages","ts_start":"2026-11-30T10:00:00Z","usage":{usage},"request":{{"system":"s","messages":[]}}}}"#
        )
    };
    let mut l = Lines::default();
    l.push(&line(r#"{"input_tokens":5,"output_tokens":2}"#));
    l.push(&line(r#"{"input_tokens":5,"output_tokens":-5}"#));
    l.push(&line(r#"{"input_tokens":"abc"}"#));
    let (_, x, skipped) = l.finish().unwrap();
    assert_eq!(x.len(), 3, "the requests are kept");
    assert!(x[2].usage.is_none(), "no figure made up");
    assert_eq!(skipped.usage_unread, 2);
    let d = skipped.describe().unwrap();
    assert!(
        d.contains("2 requests with a usage figure that is not a count of tokens, read as absent (the first is line 2: \"output_tokens\": -5)"),
        "{d}"
    );
}
