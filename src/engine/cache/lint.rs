//! Cache-breaker lint: content inside a cached block that changes between
//! requests (timestamps, dates, times, UUIDs and other random ids, counters,
//! JSON whose key order is not stable) silently defeats prompt caching.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::engine::assembly::assemble::{Assembly, Prepared, Status};

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LintWarning {
    pub fragment: String,
    pub file: String,
    pub line: usize,
    pub layer: u8,
    pub message: String,
}

struct Rule {
    what: &'static str,
    re: Regex,
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let r = |what, pat: &str| Rule {
        what,
        re: Regex::new(pat).expect("lint pattern"),
    };
    vec![
        r(
            "a timestamp",
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?\b",
        ),
        r(
            "a UUID",
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        ),
        r(
            "a date",
            r"\b\d{4}[-/]\d{1,2}[-/]\d{1,2}\b|\d{4}年\d{1,2}月\d{1,2}日",
        ),
        r("a time of day", r"\b([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?\b"),
        r("a Unix timestamp", r"\b1[6-9]\d{8}(\d{3})?\b"),
        r(
            "a random-looking id",
            r"(?i)\b(?:[0-9a-f]{16,}|(?:req|msg|run|sess|trace|request)[_-][0-9a-z]{6,})\b",
        ),
        r(
            "a counter",
            r"(?i)\b(?:turn|request|attempt|iteration|call)\s*(?:#|no\.?\s*)?\d+\b|第\s*\d+\s*[轮次]",
        ),
    ]
});

/// JSON objects embedded in the text whose keys are not in sorted order: a
/// serializer with unstable ordering (a hash map) reorders them between runs.
fn unstable_json(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = text[i..].find('{') {
        let start = i + off;
        let mut depth = 0;
        let mut end = None;
        for (j, b) in bytes[start..].iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + j + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        if let Ok(serde_json::Value::Object(map)) =
            serde_json::from_str::<serde_json::Value>(&text[start..end])
            && map.len() >= 3
        {
            let keys: Vec<&String> = map.keys().collect();
            if keys.windows(2).any(|w| w[0] > w[1]) {
                return Some(start);
            }
        }
        i = end;
    }
    None
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count()
}

/// Lints the fragments kept in cached blocks.
pub fn lint(a: &Assembly, p: &Prepared) -> Vec<LintWarning> {
    let mut out = Vec::new();
    for f in &a.fragments {
        if matches!(f.status, Status::Dropped | Status::Disabled) {
            continue;
        }
        let Some(layer) = a.layers.iter().find(|l| l.layer == f.layer) else {
            continue;
        };
        if !layer.cache {
            continue;
        }
        let base_line = p
            .fragments
            .iter()
            .find(|x| x.id == f.id)
            .map(|x| x.body_line)
            .unwrap_or(f.line);
        let mut seen = Vec::new();
        for rule in RULES.iter() {
            if let Some(m) = rule.re.find(&f.text) {
                // A date inside a timestamp is the same finding.
                if seen
                    .iter()
                    .any(|(s, e): &(usize, usize)| m.start() >= *s && m.end() <= *e)
                {
                    continue;
                }
                seen.push((m.start(), m.end()));
                out.push(LintWarning {
                    fragment: f.id.clone(),
                    file: f.source.clone(),
                    line: base_line + line_of(&f.text, m.start()),
                    layer: f.layer,
                    message: format!(
                        "{} (“{}”) in cached layer {}: if it changes between requests, every cached prefix from here on is rewritten instead of read",
                        rule.what,
                        m.as_str(),
                        f.layer
                    ),
                });
            }
        }
        if let Some(off) = unstable_json(&f.text) {
            out.push(LintWarning {
                fragment: f.id.clone(),
                file: f.source.clone(),
                line: base_line + line_of(&f.text, off),
                layer: f.layer,
                message: format!(
                    "a JSON object whose keys are not sorted in cached layer {}: serialize it with a stable key order, or a reordering breaks the cache",
                    f.layer
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_find_cache_breakers_and_spare_plain_text() {
        let hits = |t: &str| {
            RULES
                .iter()
                .filter(|r| r.re.is_match(t))
                .map(|r| r.what)
                .collect::<Vec<_>>()
        };
        assert!(hits("generated 2026-11-29T09:30:00Z").contains(&"a timestamp"));
        assert!(hits("id 7f3d214c-81d0-4605-9a1b-2c3d4e5f6a7b").contains(&"a UUID"));
        assert!(hits("today is 2026/11/29").contains(&"a date"));
        assert!(hits("今天是2026年11月29日").contains(&"a date"));
        assert!(hits("at 09:30 sharp").contains(&"a time of day"));
        assert!(hits("trace req_8fj3k2l9x").contains(&"a random-looking id"));
        assert!(hits("this is turn 7").contains(&"a counter"));
        assert!(hits("第 3 轮对话").contains(&"a counter"));
        assert!(hits("Keep skills under 500 tokens; max_messages 20; version 1.95").is_empty());
        assert!(
            hits("2026-11：用户偏好").is_empty(),
            "a year-month is not a date that changes per request"
        );
    }

    #[test]
    fn unsorted_json_is_found() {
        assert!(unstable_json(r#"config: {"zeta": 1, "alpha": 2, "mid": 3}"#).is_some());
        assert!(unstable_json(r#"config: {"alpha": 1, "beta": 2, "gamma": 3}"#).is_none());
        assert!(unstable_json("no json { here").is_none());
    }
}
