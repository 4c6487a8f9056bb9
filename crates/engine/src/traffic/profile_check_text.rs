//! The text of a profile check (`traffic --against --check-profile`): the
//! differences between what the profile renders and what the agent sent,
//! then what is none (files loaded during the session, this home's files
//! the request holds nothing of).

use super::profile_check::{Against, Difference};

/// The text view: the differences, then the files read in the session.
pub fn to_text(a: &Against, agent: &str) -> String {
    let mut o = differences_text(&a.differences, &a.profile, agent);
    if !a.read_in_session.is_empty() {
        o += &format!(
            "\nloaded during the session, not in the prompt the profile renders for its first request (no difference):\n{}",
            a.read_in_session
                .iter()
                .map(|r| format!("  {} (first in {})\n", r.file, r.part))
                .collect::<String>()
        );
    }
    if !a.home_not_sent.is_empty() {
        o += &format!("\n{}\n", home_not_sent_words(&a.home_not_sent));
    }
    o
}

/// This home's files a request holds nothing of, in a sentence (the text
/// view and the window say it alike).
pub fn home_not_sent_words(files: &[String]) -> String {
    format!(
        "not in the request, though in this home: {} (the request was sent from another home, or before {} written; no difference of the agent's)",
        files.join(", "),
        if files.len() == 1 {
            "it was"
        } else {
            "they were"
        }
    )
}

/// The differences' text.
fn differences_text(d: &[Difference], profile: &str, agent: &str) -> String {
    if d.is_empty() {
        return format!(
            "the {profile} profile renders your files as {agent} sent them: no difference\n"
        );
    }
    let mut o = format!(
        "{agent} sends this differently from the {profile} profile: {}\n",
        crate::plural(d.len(), "difference")
    );
    for x in d {
        let point = serde_json::to_value(x.point)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        o += &format!(
            "\n  {point}{}\n",
            x.file
                .as_deref()
                .map(|f| format!(" · {f}"))
                .unwrap_or_default()
        );
        o += &format!("    profile: {}\n    agent:   {}\n", x.profile, x.agent);
    }
    o
}
