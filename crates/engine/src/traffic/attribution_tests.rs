//! Unit tests of the attribution of a request to a workspace's files.

use super::attribution::*;
use crate::TokenCounter;
use crate::assembly::tokens::Encoding;
use serde_json::Value;
use serde_json::json;

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: text.into(),
        modified: None,
    }
}

fn run(req: Value, files: &[SourceFile]) -> Attribution {
    attribute(
        &crate::request::Request::of_body(&req),
        files,
        &TokenCounter::new(),
        Encoding::O200kBase,
    )
}

#[test]
fn a_file_sent_whole_with_its_whitespace_changed_is_found() {
    let soul = "# Soul\n\nBe  kind to the user.\r\nNever   guess a number.\n";
    let req = json!({"system": [{"type": "text", "text": "You are an agent.\n## /ws/SOUL.md\n# Soul\nBe kind to the user.\n   Never guess a number.\n"}],
                     "messages": [{"role": "user", "content": "hi there"}]});
    let a = run(
        req,
        &[
            file("SOUL.md", soul),
            file("USER.md", "# User\nName: Ada Lovelace\n"),
        ],
    );
    assert_eq!(a.files[0].sent, Sent::Whole);
    assert_eq!(a.files[0].spans[0].part, "system block 1");
    assert_eq!(
        (
            a.files[0].spans[0].first_line,
            a.files[0].spans[0].last_line
        ),
        (1, 4)
    );
    assert_eq!(a.files[1].sent, Sent::Absent);
    assert!(a.parts[0].from_no_file > 0, "the agent's own line");
    assert_eq!(a.from_files + a.from_no_file, a.tokens);
}

#[test]
fn a_cut_file_names_its_kept_spans_missing_lines_and_marker() {
    let body: Vec<String> = (1..=12)
        .map(|i| format!("Rule number {i}: keep it short"))
        .collect();
    let text = body.join("\n");
    let sent = format!(
        "{}\n[...truncated, read AGENTS.md for full content...]\n{}",
        body[..4].join("\n"),
        body[10..].join("\n")
    );
    let a = run(json!({"system": sent}), &[file("AGENTS.md", &text)]);
    let f = &a.files[0];
    assert_eq!(f.sent, Sent::Cut);
    assert_eq!(f.missing, vec![(5, 10)]);
    assert_eq!(
        f.markers,
        vec!["[...truncated, read AGENTS.md for full content...]"]
    );
    assert_eq!(f.spans.len(), 2);
}

#[test]
fn frontmatter_and_comments_stripped_leave_a_file_whole() {
    let text = "---\nname: helper skill\ndescription: does things\n---\n<!-- a note to myself here -->\nUse the helper for all the things.\nAnd then stop working.\n";
    let a = run(
        json!({"messages": [{"role": "user", "content": "<system-reminder>\nUse the helper for all the things.\nAnd then stop working.\n</system-reminder>"}]}),
        &[file("CLAUDE.md", text)],
    );
    assert_eq!(a.files[0].sent, Sent::Whole);
    assert_eq!(a.files[0].stripped, vec!["frontmatter", "HTML comments"]);
}

#[test]
fn a_line_common_to_many_files_does_not_start_a_span() {
    let a = run(
        json!({"system": "## Rules\nsomething else entirely here"}),
        &[
            file("A.md", "## Rules\nalpha line one\n"),
            file("B.md", "## Rules\nbeta line two\n"),
        ],
    );
    assert!(a.files.iter().all(|f| f.sent == Sent::Absent));
}
