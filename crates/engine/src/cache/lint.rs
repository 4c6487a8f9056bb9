//! Cache-breaker lint: content inside a cached block that will change
//! between requests silently defeats prompt caching. It warns about what is
//! likely to change, and says why: values a template fills in at run time,
//! files the agent itself rewrites, and values that are generated at run
//! time (full timestamps, UUIDs, Unix times, request ids). Static prose is
//! not a warning: "quiet hours 23:00–08:00" in a rule, or an example JSON
//! object in AGENTS.md, stays the same from one request to the next.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::assembly::assemble::{Assembly, Prepared, Status};

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
    /// Generated at run time wherever it appears (a full timestamp, a
    /// UUID): a warning even in static text. Others (a date, a time of
    /// day, a counter) only where the text is dynamic.
    generated: bool,
}

/// Files an agent rewrites as it works (OpenClaw's memory and heartbeat,
/// the user profile): their content changes between sessions.
const REWRITTEN: &[&str] = &["MEMORY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md"];

fn rewritten_by_agent(source: &str) -> bool {
    let name = source.rsplit('/').next().unwrap_or(source);
    REWRITTEN.contains(&name) || source.starts_with("memory/")
}

// Word boundaries are ASCII's (`(?-u:\b)`): a date or an id beside a CJK
// character is still found (Unicode's `\b` sees none there), and the
// regexes run on their fast engine (a 1,000-fragment workspace's lint took
// half of every re-assembly with Unicode's).
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |what, pat: &str, generated| Rule {
        what,
        re: Regex::new(pat).expect("lint pattern"),
        generated,
    };
    let r = |what, pat: &str| rule(what, pat, true);
    let weak = |what, pat: &str| rule(what, pat, false);
    vec![
        r(
            "a timestamp",
            r"(?-u:\b)\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?(?-u:\b)",
        ),
        r(
            "a UUID",
            r"(?i)(?-u:\b)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?-u:\b)",
        ),
        weak(
            "a date",
            r"(?-u:\b)\d{4}[-/]\d{1,2}[-/]\d{1,2}(?-u:\b)|\d{4}年\d{1,2}月\d{1,2}日",
        ),
        weak(
            "a time of day",
            r"(?-u:\b)([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?(?-u:\b)",
        ),
        r("a Unix timestamp", r"(?-u:\b)1[6-9]\d{8}(\d{3})?(?-u:\b)"),
        r(
            "a random-looking id",
            r"(?i)(?-u:\b)(?:[0-9a-f]{16,}|(?:req|msg|run|sess|trace|request)[_-][0-9a-z]{6,})(?-u:\b)",
        ),
        weak(
            "a counter",
            r"(?i)(?-u:\b)(?:turn|request|attempt|iteration|call)\s*(?:#|no\.?\s*)?\d+(?-u:\b)|第\s*\d+\s*[轮次]",
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

/// Why a match in a fragment is likely to change between requests, if it
/// is: filled in by a template, in a file the agent rewrites, or generated
/// at run time.
fn why_dynamic(rule: &Rule, found: &str, raw: &str, source: &str) -> Option<String> {
    if !raw.contains(found) {
        Some("a template fills it in at run time".into())
    } else if rewritten_by_agent(source) {
        Some(format!("{source} is rewritten by the agent as it works"))
    } else if rule.generated {
        Some("values like this are generated at run time, not written by hand".into())
    } else {
        None
    }
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
        let prepared = p.fragments.iter().find(|x| x.id == f.id);
        let base_line = prepared.map(|x| x.body_line).unwrap_or(f.line);
        let raw: &str = prepared.map(|x| &*x.raw).unwrap_or("");
        let warn = |offset: usize, message: String| LintWarning {
            fragment: f.id.clone(),
            file: f.source.clone(),
            line: base_line + line_of(&f.text, offset),
            layer: f.layer,
            message,
        };
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for rule in RULES.iter() {
            for m in rule.re.find_iter(&f.text) {
                // A date inside a timestamp is the same finding.
                if seen.iter().any(|(s, e)| m.start() >= *s && m.end() <= *e) {
                    continue;
                }
                let Some(why) = why_dynamic(rule, m.as_str(), raw, &f.source) else {
                    continue;
                };
                seen.push((m.start(), m.end()));
                out.push(warn(
                    m.start(),
                    format!(
                        "{} (“{}”) in cached layer {}: {why}; when it changes, every cached prefix from here on is rewritten instead of read",
                        rule.what,
                        m.as_str(),
                        f.layer
                    ),
                ));
                break;
            }
        }
        if let Some(off) = unstable_json(&f.text)
            && (rewritten_by_agent(&f.source) || !raw.contains(json_at(&f.text, off)))
        {
            out.push(warn(
                off,
                format!(
                    "a JSON object whose keys are not sorted in cached layer {}: it is filled in at run time, and a serializer that reorders keys breaks the cache; serialize it with a stable key order",
                    f.layer
                ),
            ));
        }
    }
    out
}

/// The JSON object starting at `off` (up to its closing brace).
fn json_at(text: &str, off: usize) -> &str {
    let mut depth = 0;
    for (j, b) in text.as_bytes()[off..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[off..off + j + 1];
                }
            }
            _ => {}
        }
    }
    &text[off..]
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
        // Beside CJK characters (no Unicode word boundary there).
        assert!(hits("截止日期2026-11-29之前").contains(&"a date"));
        assert!(hits("会话sess_8fj3k2l9x已开始").contains(&"a random-looking id"));
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
    fn static_prose_is_spared_and_dynamic_content_is_caught() {
        let t = &RULES;
        let rule = |what: &str| t.iter().find(|r| r.what == what).unwrap();
        // A rule's hours, written by hand: not a warning.
        assert_eq!(
            why_dynamic(
                rule("a time of day"),
                "23:00",
                "Quiet hours 23:00–08:00.",
                "AGENTS.md"
            ),
            None
        );
        // The same hour filled in by a template: a warning, saying why.
        let why = why_dynamic(
            rule("a time of day"),
            "09:41",
            "It is {{session.now}}.",
            "SOUL.md",
        );
        assert!(why.unwrap().contains("template"));
        // A date in the agent's memory file: it is rewritten.
        let why = why_dynamic(
            rule("a date"),
            "2026-11-29",
            "- 2026-11-29 met",
            "MEMORY.md",
        );
        assert!(why.unwrap().contains("rewritten by the agent"));
        // A full timestamp or a UUID is generated, even in static text.
        assert!(
            why_dynamic(
                rule("a timestamp"),
                "2026-11-29T09:30:00Z",
                "x 2026-11-29T09:30:00Z",
                "f.yaml"
            )
            .is_some()
        );
    }

    #[test]
    fn unsorted_json_is_found() {
        assert!(unstable_json(r#"config: {"zeta": 1, "alpha": 2, "mid": 3}"#).is_some());
        assert!(unstable_json(r#"config: {"alpha": 1, "beta": 2, "gamma": 3}"#).is_none());
        assert!(unstable_json("no json { here").is_none());
    }
}
