//! A session to share: the traffic view as one self-contained HTML file.
//! No script at all, no request to anywhere (its Content-Security-Policy
//! forbids every fetch; the styles are inline, the timeline inline SVG); it
//! opens from disk in any browser. Every text from the capture is escaped.
//! `content: false` leaves out every piece of prompt text (the excerpts in
//! the reasons): the figures, kinds, part labels and models stay.

use super::{Row, Traffic};
use crate::text::thousands;

/// What the file may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Prompt text (the excerpts a reason quotes) kept.
    pub content: bool,
}

/// Text made safe inside an element or an attribute.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in crate::clean(s, usize::MAX).chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d1d1f;background:#fff}\
h1{font-size:20px;margin:0 0 4px}.sub{color:#555;margin:0 0 16px}\
table{border-collapse:collapse;width:100%}th,td{padding:4px 8px;border-bottom:1px solid #ddd;vertical-align:top}\
th{text-align:left;background:#f4f4f6;position:sticky;top:0}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\
td.t,td.n,td.m{white-space:nowrap}tr.miss td.why{color:#9a3412}tr.expected td.why{color:#475569}tr.err td.why{color:#b91c1c}.kind{font-weight:600}\
details{margin:2px 0}summary{cursor:pointer;color:#334}\
table.parts{width:auto;margin:4px 0 8px 16px}table.parts td{border:none;padding:1px 8px}\
.bp{color:#6d28d9}.notes li{color:#444}svg{display:block;margin:8px 0 16px;background:#fafafa;border:1px solid #eee}\
@media (prefers-color-scheme:dark){body{background:#161618;color:#e6e6e8}th{background:#232326}\
td,th{border-color:#333}.sub,.notes li{color:#aaa}svg{background:#1d1d20;border-color:#333}}";

/// A miss that is no waste: nothing cached yet, or a conversation that
/// grew (as every view words them).
fn expected(k: super::MissKind) -> bool {
    use super::MissKind::{Cold, Growth, Shared};
    matches!(k, Cold | Growth | Shared)
}

/// The whole file.
pub fn to_html(t: &Traffic, title: &str, o: HtmlOptions) -> String {
    let mut h = String::with_capacity(4096 + t.requests.len() * 600);
    h.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    h.push_str(&format!(
        "<title>{}</title>\n<style>{STYLE}</style></head><body>\n",
        escape(title)
    ));
    h.push_str(&format!(
        "<h1>{}</h1>\n<p class=\"sub\">{} from {} · {}</p>\n",
        escape(title),
        crate::plural(t.requests.len(), "request"),
        escape(&t.source.a_noun()),
        escape(&t.totals.headline())
    ));
    let notes: Vec<String> = super::release::summary(t)
        .into_iter()
        .chain(super::report::notes(t))
        .collect();
    if !notes.is_empty() {
        h.push_str("<ul class=\"notes\">");
        for n in notes {
            h.push_str(&format!("<li>{}</li>", escape(&n)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str(&timeline(&t.requests));
    h.push_str("<table class=\"requests\"><thead><tr><th class=\"n\">#</th><th>time</th><th>chain</th><th>model</th>\
<th class=\"n\">uncached</th><th class=\"n\">written</th><th class=\"n\">read</th><th class=\"n\">output</th><th class=\"n\">cost $</th><th>why</th></tr></thead><tbody>\n");
    for r in &t.requests {
        h.push_str(&row(r, o));
    }
    h.push_str("</tbody></table>\n<p class=\"sub\">Written by prompt-inspector (traffic --format html).</p>\n</body></html>\n");
    h
}

/// One request: its figures, its reason, its parts folded under it.
fn row(r: &Row, o: HtmlOptions) -> String {
    // As every table writes them: "–" when no usage was reported.
    let [uncached, written, read, output] = super::report::figures(r);
    let class = match (&r.error, &r.miss) {
        (Some(_), _) => " class=\"request err\"",
        (None, Some(m)) if expected(m.kind) => " class=\"request expected\"",
        (None, Some(_)) => " class=\"request miss\"",
        _ => " class=\"request\"",
    };
    let why = match (&r.error, &r.miss) {
        (Some(e), _) => format!(
            "error: {}",
            if o.content {
                escape(e)
            } else {
                "(left out)".into()
            }
        ),
        (None, Some(m)) => format!(
            "<span class=\"kind\">{}</span>{}",
            escape(&m.kind.to_string()),
            if o.content {
                format!(": {}", escape(&m.detail))
            } else {
                String::new()
            }
        ),
        (None, None) => String::new(),
    };
    let cost = r.cost().cell("no price");
    let mut s = format!(
        "<tr{class} id=\"r{}\"><td class=\"n\">{}</td><td class=\"t\">{}</td><td>{}</td><td class=\"m\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{cost}</td><td class=\"why\">{why}{}</td></tr>\n",
        r.index,
        r.index,
        escape(&r.time),
        escape(&r.chain),
        escape(&r.model),
        uncached,
        written,
        read,
        output,
        parts(r)
    );
    s.shrink_to_fit();
    s
}

/// The request's parts, folded.
fn parts(r: &Row) -> String {
    let p = &r.parts;
    if p.parts.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<details><summary>{} parts, {} tokens ({})</summary><table class=\"parts\">",
        p.parts.len(),
        thousands(p.sum()),
        escape(&p.counted_by)
    );
    for x in &p.parts {
        s.push_str(&format!(
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"bp\">{}</td></tr>",
            escape(&x.label),
            thousands(x.tokens),
            if x.breakpoint { "breakpoint" } else { "" }
        ));
    }
    s.push_str("</table></details>");
    s
}

/// Each request as a bar on a time axis (its start to its answer's end),
/// coloured by what happened to the cache; its lane is its chain.
fn timeline(rows: &[Row]) -> String {
    let spans: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| {
            let at = r.at?;
            Some((at, at + r.latency_ms.unwrap_or(0) as f64 / 1000.0))
        })
        .collect();
    let (Some(start), Some(end)) = (
        spans.iter().map(|s| s.0).reduce(f64::min),
        spans.iter().map(|s| s.1).reduce(f64::max),
    ) else {
        return String::new();
    };
    let mut chains: Vec<&str> = Vec::new();
    for r in rows {
        if !chains.contains(&r.chain.as_str()) {
            chains.push(&r.chain);
        }
    }
    let (w, lane) = (1000.0, 18.0);
    let height = 24.0 + lane * chains.len() as f64;
    let scale = w / (end - start).max(0.001);
    let mut s = format!(
        "<svg viewBox=\"0 0 {} {height}\" width=\"100%\" role=\"img\" aria-label=\"timeline of {} requests over {:.1} s\">",
        w + 120.0,
        rows.len(),
        end - start
    );
    for (i, c) in chains.iter().enumerate() {
        s.push_str(&format!(
            "<text x=\"4\" y=\"{}\" font-size=\"11\" fill=\"#888\">{}</text>",
            16.0 + lane * i as f64 + 12.0,
            escape(c)
        ));
    }
    for r in rows {
        let Some(at) = r.at else { continue };
        let lane_i = chains.iter().position(|c| *c == r.chain).unwrap_or(0);
        let x = 110.0 + (at - start) * scale;
        let wid = (r.latency_ms.unwrap_or(0) as f64 / 1000.0 * scale).max(2.0);
        let colour = match (&r.error, &r.miss) {
            (Some(_), _) => "#dc2626",
            (None, Some(m)) if expected(m.kind) => "#64748b",
            (None, Some(_)) => "#ea580c",
            _ => "#16a34a",
        };
        s.push_str(&format!(
            "<rect class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{wid:.1}\" height=\"12\" fill=\"{colour}\"><title>#{} {}</title></rect>",
            18.0 + lane * lane_i as f64,
            r.index,
            escape(&r.model)
        ));
    }
    s.push_str(&format!(
        "<text x=\"110\" y=\"{:.0}\" font-size=\"11\" fill=\"#888\">0 s</text><text x=\"{:.0}\" y=\"{:.0}\" font-size=\"11\" fill=\"#888\" text-anchor=\"end\">{:.1} s</text></svg>\n",
        height - 2.0,
        110.0 + w,
        height - 2.0,
        end - start
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_capture_cannot_become_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn a_request_without_usage_reads_as_in_every_table() {
        let line = |u: &str| {
            format!(
                r#"{{"endpoint":"/v1/messages","ts_start":"2026-11-30T10:00:00Z","model":"claude-sonnet-4-6","usage":{u},"request":{{"system":"s","messages":[]}}}}"#
            )
        };
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.jsonl");
        let text = format!("{}\n{}\n", line(r#"{"input_tokens":5}"#), line("null"));
        std::fs::write(&f, text).unwrap();
        let t = crate::traffic::read(
            &f,
            &crate::ModelTable::bundled(),
            &crate::TokenCounter::new(),
        )
        .unwrap();
        let html = row(&t.requests[1], HtmlOptions { content: true });
        // The four figures and the cost: no usage, nothing to price.
        assert_eq!(html.matches("<td class=\"n\">–</td>").count(), 5, "{html}");
        assert!(
            crate::traffic::to_text(&t, false).contains("–        –        –        –        –")
        );
    }
}
