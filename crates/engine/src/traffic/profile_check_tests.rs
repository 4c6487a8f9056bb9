//! Unit tests of the profile check (compiled for tests only).

use super::*;
use crate::TokenCounter;
use crate::assembly::tokens::Encoding;
use crate::request::Request;
use crate::traffic::attribution::SourceFile;
use serde_json::{Value, json};

#[test]
fn the_folder_the_agent_ran_in_is_not_a_difference() {
    assert_eq!(
        without_root("## /home/u/ws/SOUL.md", "SOUL.md"),
        "## <workspace>/SOUL.md"
    );
    assert_eq!(
        without_root("Contents of /a/b/docs/x.md (imported):", "docs/x.md"),
        "Contents of <workspace>/docs/x.md (imported):"
    );
    assert_eq!(without_root("## SOUL.md", "SOUL.md"), "## SOUL.md");
}

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: text.into(),
        modified: None,
    }
}

#[test]
fn placement_heading_order_and_breakpoints_are_named() {
    let files = [
        file("A.md", "Alpha rule one here\nAlpha rule two here\n"),
        file("B.md", "Beta rule one here\nBeta rule two here\n"),
        file("C.md", "Gamma rule one here\nGamma rule two here\n"),
    ];
    let predicted = json!({"system": [
        {"type": "text", "text": "## A.md\nAlpha rule one here\nAlpha rule two here\n## B.md\nBeta rule one here\nBeta rule two here", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "## C.md\nGamma rule one here\nGamma rule two here"}]});
    let real = json!({"system": [{"type": "text", "text": "agent prompt", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Contents of /w/B.md:\nBeta rule one here\nBeta rule two here\nContents of /w/A.md:\nAlpha rule one here\nAlpha rule two here\n"}]});
    let (predicted, real) = (Request::of_body(&predicted), Request::of_body(&real));
    let d = check(
        &predicted,
        (&real, None, None),
        (&files, &[]),
        &TokenCounter::new(),
        Encoding::O200kBase,
    )
    .differences;
    let points: Vec<(Point, Option<&str>)> =
        d.iter().map(|x| (x.point, x.file.as_deref())).collect();
    assert!(
        points.contains(&(Point::Placement, Some("A.md"))),
        "{points:?}"
    );
    assert!(
        points.contains(&(Point::Heading, Some("B.md"))),
        "{points:?}"
    );
    assert!(
        points.contains(&(Point::Missing, Some("C.md"))),
        "{points:?}"
    );
    assert!(points.contains(&(Point::Order, None)), "{points:?}");
    assert!(
        !points.contains(&(Point::Breakpoint, None)),
        "both on system block 1"
    );
    let same = check(
        &predicted,
        (&predicted, None, None),
        (&files, &[]),
        &TokenCounter::new(),
        Encoding::O200kBase,
    )
    .differences;
    assert!(same.is_empty(), "{same:?}");
}

/// A file the agent sent only after its first answer (a skill it
/// invoked, a file a tool read) is read in the session, no difference;
/// the same file in the prompt is one.
#[test]
fn a_file_read_in_the_conversation_is_no_difference() {
    let files = [file(
        "SKILL.md",
        "Draft the notes from the log
One line per change
",
    )];
    let predicted = Request::of_body(&json!({"system": "agent prompt"}));
    let skill = r"Draft the notes from the log\nOne line per change\n";
    let later = Request::of_body(
        &serde_json::from_str::<Value>(&format!(
            r#"{{"system": "agent prompt", "messages": [
            {{"role": "user", "content": "hi"}},
            {{"role": "assistant", "content": "Using the skill"}},
            {{"role": "user", "content": "{skill}"}}]}}"#
        ))
        .unwrap(),
    );
    let enc = Encoding::O200kBase;
    let c = TokenCounter::new();
    let Checked {
        differences: d,
        read_in_session: read,
        ..
    } = check(&predicted, (&later, None, None), (&files, &[]), &c, enc);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].file, "SKILL.md");
    assert!(read[0].part.starts_with("message 3"), "{read:?}");
    let first = Request::of_body(&serde_json::from_str::<Value>(&format!(
        r#"{{"system": "agent prompt", "messages": [{{"role": "user", "content": "{skill}"}}]}}"#
    ))
    .unwrap());
    let Checked {
        differences: d,
        read_in_session: read,
        ..
    } = check(&predicted, (&first, None, None), (&files, &[]), &c, enc);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].point, Point::Added);
    assert!(read.is_empty());
    // Memory the profile loads on demand: read in the session once the
    // agent has answered; in a conversation's first request, nothing was
    // read yet: a difference (the agent runs in its folder).
    let with = |req: &Request| {
        check(
            &predicted,
            (req, None, None),
            (&files, &["SKILL.md"]),
            &c,
            enc,
        )
    };
    let later_in_system = Request::of_body(
        &serde_json::from_str::<Value>(&format!(
            r#"{{"system": "agent prompt\n{skill}", "messages": [
            {{"role": "user", "content": "hi"}},
            {{"role": "assistant", "content": "Reading a file there"}},
            {{"role": "user", "content": "go on"}}]}}"#
        ))
        .unwrap(),
    );
    let c1 = with(&later_in_system);
    assert!(
        c1.differences.is_empty() && c1.read_in_session.len() == 1,
        "{c1:?}"
    );
    let c2 = with(&first);
    assert_eq!(c2.differences.len(), 1, "{c2:?}");
    assert_eq!(c2.differences[0].point, Point::Added);
}

#[test]
fn a_home_file_the_request_holds_nothing_of_is_no_difference_of_the_agents() {
    let files = [
        file(
            "CLAUDE.md",
            "Project rule one here\nProject rule two here\n",
        ),
        file(
            "~/.claude/CLAUDE.md",
            "Home rule one here\nHome rule two here\n",
        ),
    ];
    let predicted = Request::of_body(
        &json!({"system": "agent prompt", "messages": [{"role": "user",
        "content": "Contents of /w/CLAUDE.md:\nProject rule one here\nProject rule two here\nContents of /h/.claude/CLAUDE.md:\nHome rule one here\nHome rule two here\n"}]}),
    );
    let run = |real: &Value| {
        check(
            &predicted,
            (&Request::of_body(real), None, None),
            (&files, &[]),
            &TokenCounter::new(),
            Encoding::O200kBase,
        )
    };
    // Sent from another home: the project file only.
    let c = run(
        &json!({"system": "agent prompt", "messages": [{"role": "user",
        "content": "Contents of /w/CLAUDE.md:\nProject rule one here\nProject rule two here\n"}]}),
    );
    assert!(c.differences.is_empty(), "{:?}", c.differences);
    assert_eq!(c.home_not_sent, ["~/.claude/CLAUDE.md"]);
    // A project file left out stays a difference.
    let c = run(
        &json!({"system": "agent prompt", "messages": [{"role": "user",
        "content": "Contents of /h/.claude/CLAUDE.md:\nHome rule one here\nHome rule two here\n"}]}),
    );
    assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
    assert_eq!(c.differences[0].point, Point::Missing);
    assert!(c.home_not_sent.is_empty());
}
