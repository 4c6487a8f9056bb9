//! OpenClaw 2026.9's cuts of a bootstrap file over its cap, as its
//! `trimBootstrapContent` makes them (dist/bootstrap-*.mjs of 2026.9.6):
//! head and tail shared out of what the marker leaves (75/25), and
//! AGENTS.md's head + policy digest + tail. Lengths are UTF-16 units, as
//! the agent counts them. The ratios, markers and patterns are the
//! profile's (`caps`, `files[].policy_digest`).

use regex::{Regex, RegexBuilder};

use super::expand::Expander;
use crate::workspace::profile::{Caps, PolicyDigest, js_len, js_prefix, js_suffix};

/// Most bytes a compiled digest pattern may take.
const MAX_PATTERN_BYTES: usize = 1 << 20;

/// A cut file: its text and the characters of head and tail kept.
pub struct Cut {
    pub text: String,
    pub head: usize,
    pub tail: usize,
    /// AGENTS.md: characters of the policy digest.
    pub digest: Option<usize>,
}

/// The 75/25 cut: the marker (full, or compact when the cap leaves too
/// little for text) comes off `max`, head and tail share what is left,
/// settled over three rounds as the marker's digits change.
pub fn cut_in_cap(text: &str, name: &str, max: usize, c: &Caps, ex: &mut Expander) -> Cut {
    let total = js_len(text);
    let total_s = total.to_string();
    let marker = |ex: &mut Expander, (key, template): (&str, &str), h: usize, t: usize| {
        let (h, t) = (h.to_string(), t.to_string());
        let vars = [
            ("name", name),
            ("head", &h),
            ("tail", &t),
            ("total", &total_s),
        ];
        ex.expand(key, template, &vars)
    };
    let full = |ex: &mut Expander, h, t| marker(ex, ("caps.marker", &c.marker), h, t);
    let compact = |ex: &mut Expander, h, t| match &c.compact_marker {
        Some(m) => marker(ex, ("caps.compact_marker", m), h, t),
        None => full(ex, h, t),
    };
    let sep = |h: usize, t: usize, m: &str| {
        if m.contains('\n') {
            usize::from(h > 0) + usize::from(t > 0)
        } else {
            0
        }
    };
    let probe = full(ex, 0, 0);
    let use_full =
        max as i64 - js_len(&probe) as i64 - sep(1, 1, &probe) as i64 >= c.min_content_chars as i64;
    let marker_of = |ex: &mut Expander, h, t| {
        if use_full {
            full(ex, h, t)
        } else {
            compact(ex, h, t)
        }
    };
    let (mut h, mut t) = (0usize, 0usize);
    let mut marker = marker_of(ex, 0, 0);
    for _ in 0..3 {
        let budget = max.saturating_sub(js_len(&marker) + sep(h, t, &marker));
        let nh = (budget as f64 * c.head).floor() as usize;
        let nt = (budget as f64 * c.tail).floor() as usize;
        let next = marker_of(ex, nh, nt);
        if nh == h && nt == t && js_len(&next) == js_len(&marker) {
            break;
        }
        (h, t, marker) = (nh, nt, next);
    }
    let mut rendered = h + t + js_len(&marker) + sep(h, t, &marker);
    while rendered > max && (t > 0 || h > 0) {
        let over = rendered - max;
        if t > 0 {
            t = t.saturating_sub(over);
        } else {
            h = h.saturating_sub(over);
        }
        marker = marker_of(ex, h, t);
        rendered = h + t + js_len(&marker) + sep(h, t, &marker);
    }
    if h == 0 && t == 0 && total > 0 {
        let single = marker_of(ex, 1, 0);
        if 1 + js_len(&single) + sep(1, 0, &single) <= max {
            h = 1;
            marker = single;
        }
    }
    joined(text, (h, t), &marker, max)
}

/// The first `h` and last `t` characters of `text` around `marker` (on
/// lines of their own when the marker has a line break), at most `max`.
fn joined(text: &str, (h, t): (usize, usize), marker: &str, max: usize) -> Cut {
    let head = js_prefix(text, h);
    let tail = if t > 0 { js_suffix(text, t) } else { "" };
    let joiner = if marker.contains('\n') { "\n" } else { "" };
    let parts: Vec<&str> = [head, marker, tail]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    let joined = parts.join(joiner);
    let text = if js_len(&joined) > max {
        js_prefix(&joined, max).to_string()
    } else {
        joined
    };
    Cut {
        text,
        head: js_len(head),
        tail: js_len(tail),
        digest: None,
    }
}

/// The digest's patterns, compiled within a size limit.
pub struct Patterns {
    structure: Regex,
    candidate: Regex,
    high: Regex,
    fence: Regex,
}

impl Patterns {
    /// The error's place is the profile field (`policy_digest.candidate`).
    pub fn new(d: &PolicyDigest) -> Result<Patterns, crate::error::Error> {
        let build = |field: &str, p: &str| {
            RegexBuilder::new(p)
                .size_limit(MAX_PATTERN_BYTES)
                .build()
                .map_err(|e| {
                    crate::error::Error::invalid(
                        format!("policy_digest.{field}"),
                        e.to_string().lines().last().unwrap_or("invalid pattern"),
                    )
                })
        };
        Ok(Patterns {
            structure: build("structure", &d.structure)?,
            candidate: build("candidate", &d.candidate)?,
            high: build("high_priority", &d.high_priority)?,
            fence: build("fence", &d.fence)?,
        })
    }
}

struct Candidate {
    text: String,
    high: bool,
}

/// A line as the digest holds it: trimmed, runs of white space one space,
/// at most `max` characters (the last an ellipsis).
fn normalize(line: &str, max: usize) -> String {
    let n = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if js_len(&n) <= max {
        n
    } else {
        format!("{}…", js_prefix(&n, max.saturating_sub(1)))
    }
}

fn candidates(text: &str, d: &PolicyDigest, pat: &Patterns) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut prose: Option<String> = None;
    for source in text.split('\n') {
        let line = normalize(source.trim_end_matches('\r'), d.max_line_chars);
        if line.is_empty() {
            prose = None;
            continue;
        }
        if pat.fence.is_match(&line) {
            prose = None;
        } else if pat.structure.is_match(&line) || pat.candidate.is_match(&line) {
            let high = pat.high.is_match(&line);
            let text = match prose.take() {
                Some(p) => format!("{p}\n{line}"),
                None => line,
            };
            out.push(Candidate { text, high });
        } else {
            prose = Some(line);
        }
    }
    out
}

/// The candidates that fit `budget` (the high-priority ones chosen first),
/// in the file's order: (text, lines left out).
fn digest(c: &[Candidate], budget: usize) -> (String, usize) {
    if budget == 0 {
        return (String::new(), 0);
    }
    let mut chosen = vec![false; c.len()];
    let (mut used, mut n) = (0usize, 0usize);
    for pass_high in [true, false] {
        for (i, x) in c.iter().enumerate() {
            if chosen[i] || (pass_high && !x.high) {
                continue;
            }
            let sep = usize::from(n > 0);
            let len = js_len(&x.text);
            if used + sep + len > budget {
                continue;
            }
            chosen[i] = true;
            used += sep + len;
            n += 1;
        }
    }
    let text = c
        .iter()
        .zip(&chosen)
        .filter(|(_, k)| **k)
        .map(|(x, _)| x.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (text, c.len() - n)
}

/// AGENTS.md over its cap: the head, the cut marker, the policy digest
/// with its title and how many lines it left out, the summary, the tail;
/// over the cap still, the tail shrinks first, then the head, then the
/// digest.
pub fn cut_with_digest(
    text: &str,
    name: &str,
    max: usize,
    d: &PolicyDigest,
    pat: &Patterns,
    ex: &mut Expander,
) -> Cut {
    let total = js_len(text);
    let mut h = (max as f64 * d.head).floor() as usize;
    let mut t = (max as f64 * d.tail).floor() as usize;
    let mut budget = (max as f64 * d.digest).floor() as usize;
    let cands = if budget > 0 {
        candidates(text, d, pat)
    } else {
        Vec::new()
    };
    let mut dg = digest(&cands, budget);
    let cut_marker = ex.expand("policy_digest.cut_marker", &d.cut_marker, &[("name", name)]);
    let title = ex.expand(
        "policy_digest.digest_title",
        &d.digest_title,
        &[("name", name)],
    );
    let render = |ex: &mut Expander, h: usize, t: usize, dg: &(String, usize)| {
        let omitted = if dg.1 > 0 {
            ex.expand(
                "policy_digest.omitted",
                &d.omitted,
                &[("n", &dg.1.to_string())],
            )
        } else {
            String::new()
        };
        let summary = ex.expand(
            "policy_digest.summary",
            &d.summary,
            &[
                ("name", name),
                ("head", &h.to_string()),
                ("digest", &js_len(&dg.0).to_string()),
                ("tail", &t.to_string()),
                ("total", &total.to_string()),
            ],
        );
        let tail = if t > 0 { js_suffix(text, t) } else { "" };
        let parts = [
            js_prefix(text, h),
            cut_marker.as_str(),
            if dg.0.is_empty() { "" } else { title.as_str() },
            dg.0.as_str(),
            omitted.as_str(),
            summary.as_str(),
            tail,
        ];
        parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut out = render(ex, h, t, &dg);
    // Each round takes at least one character off, and every quantity is
    // bounded by `max`: at most a few rounds per quantity.
    while js_len(&out) > max && (t > 0 || h > 1 || budget > 0) {
        let over = js_len(&out) - max;
        if t > 0 {
            t = t.saturating_sub(over);
        } else if h > 1 {
            h = h.saturating_sub(over).max(1);
        } else {
            budget = budget.saturating_sub(over);
            dg = digest(&cands, budget);
        }
        out = render(ex, h, t, &dg);
    }
    digest_cut(text, out, (h, t, &dg.0), max)
}

/// The digest's rendering `out` of `text` (its first `h` and last `t`
/// characters around `digest`), at most `max`.
fn digest_cut(text: &str, out: String, (h, t, digest): (usize, usize, &str), max: usize) -> Cut {
    let text_out = if js_len(&out) > max {
        js_prefix(&out, max).to_string()
    } else {
        out
    };
    Cut {
        text: text_out,
        head: js_len(js_prefix(text, h)),
        tail: if t > 0 { js_len(js_suffix(text, t)) } else { 0 },
        digest: Some(js_len(digest)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::profile::Profile;
    use crate::workspace::profiles::Profiles;

    fn openclaw() -> Profile {
        Profiles::bundled().get("openclaw@2026.9").unwrap().clone()
    }

    #[test]
    fn the_marker_comes_off_the_cap_and_head_and_tail_share_the_rest() {
        let p = openclaw();
        let c = p.caps.clone().unwrap();
        let text: String = ('a'..='z').cycle().take(31_204).collect();
        let mut ex = Expander::new(&p);
        let cut = cut_in_cap(&text, "SOUL.md", 20_000, &c, &mut ex);
        // Computed as OpenClaw's trimBootstrapContent does (replayed
        // outside this code): the marker and the two joining newlines come
        // off 20,000, head and tail share the rest 75/25, settled as the
        // marker's digits change.
        let marker = "[...truncated, read SOUL.md for full content...]\n…(truncated SOUL.md: kept 14920+4973 chars of 31204)…";
        assert_eq!((cut.head, cut.tail), (14_920, 4_973));
        assert_eq!(
            cut.text,
            format!(
                "{}\n\n{marker}\n\n{}",
                &text[..14_920],
                &text[text.len() - 4_973..]
            )
        );
        assert_eq!(js_len(&cut.text), 19_999);
        assert!(js_len(&cut.text) <= 20_000);
        // USER.md's own 4,000: the same rule under the smaller cap.
        let user = cut_in_cap(&text, "USER.md", 4_000, &c, &mut ex);
        assert!(js_len(&user.text) <= 4_000, "{}", js_len(&user.text));
        assert_eq!((user.head, user.tail), (2_922, 974));
        assert!(
            user.text
                .contains("…(truncated USER.md: kept 2922+974 chars of 31204)…")
        );
        // A cap too small for the full marker: the compact one.
        let tiny = cut_in_cap(&text, "SOUL.md", 100, &c, &mut ex);
        assert!(tiny.text.contains("[…truncated "), "{}", tiny.text);
        assert!(js_len(&tiny.text) <= 100);
    }

    #[test]
    fn agents_md_keeps_head_policy_digest_and_tail() {
        let p = openclaw();
        let d = p.files[0].policy_digest.clone().unwrap();
        let pat = Patterns::new(&d).unwrap();
        let mut text = String::from("# AGENTS.md\n\n");
        for i in 0..400 {
            text += &format!(
                "Some prose about the house, paragraph {i}, nothing to obey here at all.\n"
            );
            text += &format!("- Never push to main without a review (rule {i}).\n\n");
        }
        let total = js_len(text.trim_end());
        assert!(total > 20_000);
        let mut ex = Expander::new(&p);
        let cut = cut_with_digest(text.trim_end(), "AGENTS.md", 20_000, &d, &pat, &mut ex);
        let out = &cut.text;
        assert!(js_len(out) <= 20_000, "{}", js_len(out));
        assert!(out.starts_with(js_prefix(&text, cut.head)));
        assert_eq!(cut.head, 9_000);
        assert!(out.contains(
            "\n[...truncated, read AGENTS.md for full content...]\n[Policy digest from AGENTS.md]\n"
        ));
        // The rule lines with the prose line before each, whole.
        assert!(out.contains("Some prose about the house, paragraph 0, nothing to obey here at all.\n- Never push to main without a review (rule 0)."));
        let dg = cut.digest.unwrap();
        assert!(dg > 6_000 && dg <= 7_000, "{dg}");
        let summary = format!(
            "…(truncated AGENTS.md: kept {}+policy {dg}+{} chars of {total})…",
            cut.head, cut.tail
        );
        assert!(out.contains(&summary), "{summary}");
        assert!(out.contains("more policy lines omitted...]"));
        assert!(out.ends_with(js_suffix(text.trim_end(), cut.tail)));
        assert!(cut.tail > 0 && cut.tail <= 3_000, "{}", cut.tail);
    }

    #[test]
    fn high_priority_lines_are_chosen_first() {
        let p = openclaw();
        let d = p.files[0].policy_digest.clone().unwrap();
        let pat = Patterns::new(&d).unwrap();
        let c = candidates(
            "- plain item\n- must not leak secrets\n```\ncode\n```",
            &d,
            &pat,
        );
        assert_eq!(c.len(), 2);
        assert!(!c[0].high && c[1].high);
        let (text, omitted) = digest(&c, 25);
        assert_eq!((text.as_str(), omitted), ("- must not leak secrets", 1));
        assert!(
            Patterns::new(&PolicyDigest {
                fence: "(".into(),
                ..d
            })
            .is_err()
        );
    }
}
