//! The text view of a request traced back to a workspace's files
//! (`traffic --against`).

use super::attribution::{Attribution, Sent};
use crate::clean;
use crate::text::{clip, lines};

/// The text view.
pub fn to_text(a: &Attribution, request: usize) -> String {
    let mut o = format!(
        "request #{request}: {} tokens, {} from your files, {} from no file (the agent's own prompt, tools, runtime context)\n\nyour files in this request:\n",
        crate::thousands(a.tokens),
        crate::thousands(a.from_files),
        crate::thousands(a.from_no_file)
    );
    for n in &a.not_traced {
        o += &format!("  not traced: {n}\n");
    }
    for f in &a.files {
        o += &file_text(f);
    }
    o += "\nparts:\n";
    for p in &a.parts {
        let files: Vec<String> = p
            .from_files
            .iter()
            .map(|(f, t)| format!("{f} {}", crate::thousands(*t)))
            .collect();
        o += &format!(
            "  {:<32} {:>8} tokens  {}{}\n",
            clip(&p.label, 32),
            crate::thousands(p.tokens),
            if files.is_empty() {
                String::new()
            } else {
                format!("{} · ", files.join(", "))
            },
            match (&p.agent, p.from_no_file) {
                (_, 0) => String::new(),
                (Some(a), n) => format!("from no file {}: {a}, as recorded", crate::thousands(n)),
                (None, n) => format!("from no file {}", crate::thousands(n)),
            }
        );
    }
    o
}

/// One file's lines of [`to_text`]: how it was sent, its spans, its
/// occurrences when they differ, what is missing and the markers.
fn file_text(f: &super::attribution::FileInRequest) -> String {
    let mut o = String::new();
    let how = match f.sent {
        Sent::Whole => "whole".to_string(),
        Sent::Cut => format!("cut: {} of {} lines sent", f.lines_sent, f.lines),
        Sent::Changed => {
            let (m, at) = f.changed_since.unwrap_or_default();
            format!(
                "{}; the file was modified {}, after the request ({}): the agent cut nothing",
                f.changed_words(),
                super::format_rfc3339(m),
                super::format_rfc3339(at)
            )
        }
        Sent::Listed => "listed: its description, its body not sent".to_string(),
        Sent::Absent => "not sent".to_string(),
    };
    o += &format!(
        "  {:<40} {:>8} tokens  {how}",
        clean(&f.path, 40),
        crate::thousands(f.tokens)
    );
    if !f.stripped.is_empty() {
        o += &format!(" ({} stripped)", f.stripped.join(", "));
    }
    o += "\n";
    for s in &f.spans {
        let what = if s.listed {
            format!("its description (line {})", s.first_line)
        } else {
            lines(&[(s.first_line, s.last_line)])
        };
        o += &format!(
            "      {what} in {} at characters {}-{}\n",
            s.part,
            crate::thousands(s.start),
            crate::thousands(s.end)
        );
    }
    if f.occurrences.iter().any(|oc| oc.sent != f.sent) {
        for oc in &f.occurrences {
            let how = match oc.sent {
                Sent::Cut => format!("cut, without {}", lines(&oc.missing)),
                Sent::Changed if oc.missing.is_empty() => "as before the change".into(),
                Sent::Changed => format!("as before the change, without {}", lines(&oc.missing)),
                Sent::Listed => "its description listed".into(),
                _ => "whole".into(),
            };
            o += &format!("      in {}: {how}\n", oc.part);
        }
    }
    if !f.missing.is_empty() && f.sent != Sent::Listed {
        let what = if f.sent == Sent::Changed {
            "not in the request (written after it)"
        } else {
            "not sent"
        };
        o += &format!("      {what}: {}\n", lines(&f.missing));
    }
    let marker = if f.sent == Sent::Changed {
        "sent in its place (the file as it was then)"
    } else {
        "marker"
    };
    for m in &f.markers {
        o += &format!("      {marker}: {}\n", clip(m, 120));
    }
    if f.sent == Sent::Changed {
        for m in &f.between {
            o += &format!(
                "      sent between its lines (the file as it was then; from no file today): {}\n",
                clip(m, 120)
            );
        }
    }

    o
}
