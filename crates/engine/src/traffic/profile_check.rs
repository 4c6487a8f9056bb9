//! The profile's prediction against reality: the request a workspace's
//! profile renders and the request the agent really sent, both traced back
//! to the workspace's files ([`super::attribution`]), compared file by
//! file: a file sent by one and not the other, how much of it, where
//! (system block or message), in which order, under which heading, with
//! frontmatter or comments kept or stripped, the truncation point and
//! marker; and where the system blocks carry breakpoints.

use serde::Serialize;
use serde_json::Value;

#[path = "profile_check_after.rs"]
mod after;
use after::changed_since;

use super::attribution::{Attribution, FileInRequest, Sent, SourceFile, attribute};
use crate::assembly::tokens::Encoding;
use crate::request::Request;
use crate::{TokenCounter, clean};

/// What differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Point {
    /// The agent sends a file the profile leaves out.
    Added,
    /// The profile sends a file the agent leaves out.
    Missing,
    /// Both send it, one whole and the other cut (or cut elsewhere).
    Truncation,
    /// The file changed after the request: the profile renders today's
    /// text, the agent sent the one before (no cut of the agent's).
    ChangedSince,
    /// The agent sent lines right after the file that no file holds and
    /// the profile does not render: the file as the agent read it had
    /// them (the folder is older or newer than the request), or the agent
    /// added them.
    SentAfter,
    Marker,
    Stripped,
    /// A system block in one, a message in the other.
    Placement,
    Order,
    Heading,
    Breakpoint,
}

/// One difference between the profile's rendering and the real request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub point: Point,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// What the profile renders.
    pub profile: String,
    /// What the agent sent.
    pub agent: String,
}

/// A file the agent sent only in the conversation, after its first answer
/// (a skill it invoked, a file a tool read, memory it loads on demand):
/// not part of the prompt a profile renders, so no difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadInSession {
    pub file: String,
    /// The first part that holds it (`message 12 (user) block 2`).
    pub part: String,
}

/// The kind of place a part is: `system` or `message (role)`, `tool`.
fn place(part: &str) -> String {
    if part.starts_with("system block") {
        "a system block".into()
    } else if part.starts_with("tool ") {
        "a tool".into()
    } else {
        let role = part
            .split_once('(')
            .and_then(|(_, r)| r.split_once(')'))
            .map_or("?", |(r, _)| r);
        format!("a {role} message")
    }
}

/// The last line with text before `start` (a character offset) in `text`.
fn heading_before(text: &str, start: usize) -> String {
    let byte = text
        .char_indices()
        .nth(start)
        .map_or(text.len(), |(i, _)| i);
    text[..byte]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map_or(String::new(), |l| clean(l, 200))
}

/// Each part's label and text.
type Texts = Vec<(String, String)>;

fn texts(req: &Request) -> Texts {
    req.positions()
        .into_iter()
        .map(|p| (p.label, p.text.into_owned()))
        .collect()
}

fn system_breakpoints(req: &Request) -> Vec<String> {
    req.positions()
        .into_iter()
        .filter(|p| p.breakpoint && p.label.starts_with("system block"))
        .map(|p| p.label)
        .collect()
}

fn sent_words(f: &FileInRequest) -> String {
    match f.sent {
        Sent::Whole => "whole".into(),
        Sent::Absent => "not sent".into(),
        Sent::Listed => "listed (its description)".into(),
        Sent::Cut => format!("cut: {} of {} lines", f.lines_sent, f.lines),
        Sent::Changed => f.changed_words(),
    }
}

/// The first place a file is (its first span's part and heading, the
/// folder of the file's path in it written `<workspace>/`: the agent ran
/// elsewhere).
fn first_place(f: &FileInRequest, texts: &[(String, String)]) -> Option<(String, String)> {
    let s = f.spans.first()?;
    let text = texts
        .iter()
        .find(|(l, _)| *l == s.part)
        .map_or("", |(_, t)| t);
    let heading = heading_before(text, s.start);
    Some((s.part.clone(), without_root(&heading, &f.path)))
}

/// `heading` with the absolute folder before `rel` written `<workspace>`,
/// or for a file of the home (`~/.claude/CLAUDE.md`) the home written `~`
/// (the request may come from another home).
fn without_root(heading: &str, rel: &str) -> String {
    let (rel, root) = match rel.strip_prefix("~/") {
        Some(r) => (r, "~"),
        None => (rel, "<workspace>"),
    };
    let Some(i) = heading.find(&format!("/{rel}")) else {
        return heading.to_string();
    };
    let start = heading[..i]
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '"' || c == '`')
        .map_or(0, |j| j + 1);
    if !heading[start..].starts_with('/') && !heading[start..].starts_with('~') {
        return heading.to_string();
    }
    format!("{}{root}{}", &heading[..start], &heading[i..])
}

/// What the agent sent of a file the profile leaves out, and for a memory
/// file of a subfolder how to render it: the agent ran there.
fn ran_in(path: &str, sent: String) -> String {
    let memory = ["AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "GEMINI.md"];
    match path.rsplit_once('/') {
        Some((dir, name)) if memory.contains(&name) && !path.starts_with("~/") => {
            format!("{sent} (the agent ran in {dir} or below it: --workdir {dir} renders it)")
        }
        _ => sent,
    }
}

/// Compares one file as rendered (`p`) and as sent (`a`).
fn compare_file(
    p: &FileInRequest,
    a: &FileInRequest,
    (ptexts, atexts, file_lines): (&Texts, &Texts, &std::collections::HashSet<String>),
    out: &mut Vec<Difference>,
) {
    let diff = |point, profile: String, agent: String| Difference {
        point,
        file: Some(p.path.clone()),
        profile,
        agent,
    };
    match (p.sent, a.sent) {
        (Sent::Absent, Sent::Absent) => return,
        (Sent::Absent, _) => {
            return out.push(diff(
                Point::Added,
                "not sent".into(),
                ran_in(&p.path, sent_words(a)),
            ));
        }
        (_, Sent::Absent) => {
            return out.push(diff(Point::Missing, sent_words(p), "not sent".into()));
        }
        _ => {}
    }
    // A file that changed since the request: what it lacks was written
    // after it, no truncation of the agent's to compare.
    if a.sent == Sent::Changed {
        let (profile, agent) = changed_since(a);
        return out.push(diff(Point::ChangedSince, profile, agent));
    }
    if p.missing != a.missing {
        let cut = |f: &FileInRequest| {
            format!(
                "{}; not sent: {}",
                sent_words(f),
                crate::text::lines(&f.missing)
            )
        };
        out.push(diff(Point::Truncation, cut(p), cut(a)));
    }
    if p.markers != a.markers && (!p.markers.is_empty() || !a.markers.is_empty()) {
        out.push(diff(
            Point::Marker,
            p.markers.join(" | "),
            a.markers.join(" | "),
        ));
    }
    if p.stripped != a.stripped {
        let words = |s: &[&str]| match s {
            [] => "nothing stripped".to_string(),
            s => format!("{} stripped", s.join(", ")),
        };
        out.push(diff(
            Point::Stripped,
            words(&p.stripped),
            words(&a.stripped),
        ));
    }
    out.extend(after::sent_after(p, a, (ptexts, atexts), file_lines));
    if let (Some((pp, ph)), Some((ap, ah))) = (first_place(p, ptexts), first_place(a, atexts)) {
        if place(&pp) != place(&ap) {
            out.push(diff(
                Point::Placement,
                format!("in {}", place(&pp)),
                format!("in {}", place(&ap)),
            ));
        }
        if ph != ah {
            out.push(diff(Point::Heading, ph, ah));
        }
    }
}

/// The files sent by both, in the order the request holds them.
fn order(at: &Attribution, texts: &[(String, String)], both: &[&str]) -> Vec<String> {
    let index = |part: &str| {
        texts
            .iter()
            .position(|(l, _)| l == part)
            .unwrap_or(usize::MAX)
    };
    let mut v: Vec<(usize, usize, &str)> = at
        .files
        .iter()
        .filter(|f| both.contains(&f.path.as_str()))
        .filter_map(|f| {
            f.spans
                .first()
                .map(|s| (index(&s.part), s.start, f.path.as_str()))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, _, p)| p.to_string()).collect()
}

/// The parts of a request after its first answer (the conversation, not
/// the prompt), by label.
fn after_first_answer(texts: &[(String, String)]) -> Vec<&str> {
    let Some(first) = texts.iter().position(|(l, _)| l.contains("(assistant)")) else {
        return Vec::new();
    };
    texts[first..].iter().map(|(l, _)| l.as_str()).collect()
}

/// What [`check`] finds: the differences, and what is none.
#[derive(Debug, Default)]
pub struct Checked {
    pub differences: Vec<Difference>,
    /// Files the agent sent only in the conversation, or that the profile
    /// loads on demand.
    pub read_in_session: Vec<ReadInSession>,
    /// The user's own files of this machine's home (`~/.claude/CLAUDE.md`)
    /// that the request holds nothing of: it was sent from another home,
    /// or before they were written. A fact of the home, not of the agent.
    pub home_not_sent: Vec<String>,
}

/// Every difference between the request the profile renders (`predicted`)
/// and the one the agent sent (`real`), over the workspace's `files`; and
/// what is no difference: the files the agent sent only in the
/// conversation, or that the profile loads `on_demand` (memory the agent
/// adds once it reads a file in its folder), and this home's files the
/// request holds nothing of.
pub fn check(
    predicted: &Request,
    (real, sent_at, first): (&Request, Option<f64>, Option<&Request>),
    (files, on_demand): (&[SourceFile], &[&str]),
    counter: &TokenCounter,
    enc: Encoding,
) -> Checked {
    let p = attribute(predicted, files, counter, enc);
    let mut a = attribute(real, files, counter, enc);
    super::attribution::mark_changed_since(&mut a, files, sent_at);
    let (pt, at) = (texts(predicted), texts(real));
    let conversation = after_first_answer(&at);
    // What the chain's first request held was there from the start, not
    // loaded during the session.
    let at_start = first.map(|f| attribute(f, files, counter, enc));
    let from_start = |i: usize| {
        at_start
            .as_ref()
            .is_some_and(|s| s.files[i].spans.iter().any(|x| !x.listed))
    };
    let file_lines = files
        .iter()
        .flat_map(|f| f.text.lines().map(after::norm))
        .collect();
    let mut out = Vec::new();
    let mut in_session = Vec::new();
    let mut home_not_sent = Vec::new();
    for (i, (pf, af)) in p.files.iter().zip(&a.files).enumerate() {
        if af.path.starts_with("~/") && af.sent == Sent::Absent {
            home_not_sent.push(af.path.clone());
            continue;
        }
        // Its lines, not its description in a listing.
        let lines: Vec<&super::attribution::Span> = af.spans.iter().filter(|s| !s.listed).collect();
        let later = !lines.is_empty()
            && lines
                .iter()
                .all(|s| conversation.contains(&s.part.as_str()));
        // Memory loaded on demand is there once the agent has answered (and
        // read a file): in a conversation's first request it was sent
        // because the agent runs in that folder (a difference, `--workdir`).
        let loaded = (later || (on_demand.contains(&af.path.as_str()) && !conversation.is_empty()))
            && !from_start(i);
        let unsent = matches!(pf.sent, Sent::Absent | Sent::Listed);
        if let (true, Some(first), true) = (unsent, lines.first(), loaded) {
            in_session.push(ReadInSession {
                file: af.path.clone(),
                part: first.part.clone(),
            });
            continue;
        }
        compare_file(pf, af, (&pt, &at, &file_lines), &mut out);
    }
    out.extend(order_and_breakpoints(
        (&p, &a),
        (&pt, &at),
        (predicted, real),
    ));
    Checked {
        differences: out,
        read_in_session: in_session,
        home_not_sent,
    }
}

/// The differences of the request as a whole: the order of the files both
/// send, and where the system blocks' breakpoints are.
fn order_and_breakpoints(
    (p, a): (&Attribution, &Attribution),
    (pt, at): (&Texts, &Texts),
    (predicted, real): (&Request, &Request),
) -> Vec<Difference> {
    let mut out = Vec::new();
    let both: Vec<&str> = p
        .files
        .iter()
        .zip(&a.files)
        .filter(|(x, y)| x.sent != Sent::Absent && y.sent != Sent::Absent)
        .map(|(x, _)| x.path.as_str())
        .collect();
    let (po, ao) = (order(p, pt, &both), order(a, at, &both));
    if po != ao {
        out.push(Difference {
            point: Point::Order,
            file: None,
            profile: po.join(", "),
            agent: ao.join(", "),
        });
    }
    let (pb, ab) = (system_breakpoints(predicted), system_breakpoints(real));
    if pb != ab {
        let words = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        out.push(Difference {
            point: Point::Breakpoint,
            file: None,
            profile: format!("breakpoints on {}", words(&pb)),
            agent: format!("breakpoints on {}", words(&ab)),
        });
    }
    out
}

/// A recorded request set against a workspace: its attribution to the
/// workspace's files, and the workspace's profile rendering against it.
#[derive(Debug, Clone, Serialize)]
pub struct Against {
    /// The request (1-based, as listed).
    pub request: usize,
    pub model: String,
    pub attribution: Attribution,
    /// The profile the workspace was rendered with (`openclaw@2026.9`) and
    /// why it was chosen.
    pub profile: String,
    pub profile_chosen_because: String,
    pub differences: Vec<Difference>,
    /// Files the agent sent only in the conversation (not differences).
    pub read_in_session: Vec<ReadInSession>,
    /// This home's files the request holds nothing of (not differences).
    pub home_not_sent: Vec<String>,
    /// None of the request is the profile's agent's own text: said, as
    /// the request was likely sent by another agent (or release).
    pub not_this_agent: Option<String>,
}

/// Request `n` of `exchanges` (1-based; default: the last one with a
/// recorded body), with its body; errors say why there is none.
pub fn pick(
    exchanges: &[super::Exchange],
    n: Option<usize>,
) -> Result<(usize, &super::Exchange, &Request), crate::error::Error> {
    let n = match n {
        Some(n) => n,
        None => exchanges
            .iter()
            .rposition(|x| x.request.is_some())
            .map(|i| i + 1)
            .ok_or_else(|| {
                crate::error::Error::invalid(
                    "",
                    if exchanges.is_empty() {
                        "it holds no request (an empty capture: nothing went through the proxy)"
                    } else {
                        "no request has a recorded body (a transcript records usage only: record the agent through `prompt-inspector proxy`)"
                    },
                )
            })?,
    };
    let x =
        n.checked_sub(1)
            .and_then(|i| exchanges.get(i))
            .ok_or(crate::error::Error::NoRequest {
                number: n,
                recorded: exchanges.len(),
            })?;
    let req = x
        .request
        .as_ref()
        .ok_or(crate::error::Error::NoBody { number: n })?;
    Ok((n, x, req))
}

/// The first request of the chain of request `n` (1-based), when it is an
/// earlier one with a body: what the agent sent before it loaded anything
/// on the way.
pub fn chain_first(exchanges: &[super::Exchange], n: usize) -> Option<&Request> {
    let x = exchanges.get(n.checked_sub(1)?)?;
    exchanges[..n - 1]
        .iter()
        .find(|e| e.chain == x.chain)?
        .request
        .as_deref()
}

/// Request `n` (`x`, its body `req`) against a workspace assembled with
/// the profile chosen for it (`inspection::against` loads it, with the
/// profile recorded from the release that sent the request): where each
/// part came from, and what the profile renders differently.
pub fn against(
    a: &crate::assembly::assembled::Assembled,
    table: &crate::ModelTable,
    counter: &TokenCounter,
    (n, x, req): (usize, &super::Exchange, &Request),
    first: Option<&Request>,
) -> Against {
    let traced = super::attribution::workspace_files(&a.workspace);
    let files = traced.files;
    let enc = table.resolve(Some(&x.model)).tokenizer;
    let mut attribution = attribute(req, &files, counter, enc);
    attribution.not_traced = traced.not_traced;
    super::attribution::mark_changed_since(&mut attribution, &files, x.at);
    mark_agent_parts(&mut attribution, req, &a.assembly);
    let predicted =
        crate::cache::request::anthropic_request(&a.assembly, &x.model, &[], 1024, false, false);
    let on_demand: Vec<&str> = a
        .assembly
        .fragments
        .iter()
        .filter(|f| a.workspace.profile.agent.loads_nested_on_demand() && f.is_nested_memory())
        .map(|f| f.source.as_str())
        .collect();
    let checked = check(
        &predicted,
        (req, x.at, first),
        (&files, &on_demand),
        counter,
        enc,
    );
    let chosen = &a.workspace.profile;
    let not_this_agent = a
        .assembly
        .agent
        .as_ref()
        .filter(|_| !attribution.parts.iter().any(|p| p.agent.is_some()))
        .map(|agent| {
            // Off the main chain, with the agent's own parts nowhere: one of
            // its side calls (a title, a route), which carry none of them.
            if x.chain != "main" {
                return format!(
                    "request #{n} is not of the main chain ({}, to {}): likely a side call of the agent (a title or a routing request), which holds none of {agent}'s own prompt or tools; a request of the main chain is the one to check",
                    x.chain, x.model
                );
            }
            format!(
                "none of this request is {agent}'s own prompt or tools, as the {} profile renders them: it was likely sent by another agent or release (--profile names the one that sent it)",
                chosen.id()
            )
        });
    Against {
        request: n,
        model: x.model.clone(),
        attribution,
        profile: chosen.id(),
        profile_chosen_because: chosen.why.clone(),
        differences: checked.differences,
        read_in_session: checked.read_in_session,
        home_not_sent: checked.home_not_sent,
        not_this_agent,
    }
}

/// The profile whose own parts were recorded from `rel` (its agent and
/// release), among the bundled ones and the caller's folder.
pub fn profile_of_release(
    rel: &super::release::Release,
    profiles_dir: Option<&std::path::Path>,
    observed_dir: Option<&std::path::Path>,
) -> Option<String> {
    let profiles =
        crate::workspace::profiles::Profiles::load_with(profiles_dir, observed_dir).ok()?;
    profiles
        .with_parts_of(&rel.agent, &rel.version)
        .map(|p| p.id())
}

/// Names the parts that are, as sent, the agent's own as its profile
/// recorded them: the same text as one of the agent's blocks the profile
/// renders (layer 0), or the same definition as one of its tools.
pub fn mark_agent_parts(a: &mut Attribution, request: &Request, asm: &crate::Assembly) {
    let Some(agent) = &asm.agent else { return };
    let blocks: Vec<&crate::assembly::assemble::BlockResult> =
        asm.blocks.iter().filter(|b| b.layer == 0).collect();
    let tools = &asm.tools[..asm.agent_tools.min(asm.tools.len())];
    for (p, crate::request::Position { text, .. }) in a.parts.iter_mut().zip(request.positions()) {
        if let Some(b) = blocks.iter().find(|b| b.text == *text) {
            let name = b.label.as_deref().unwrap_or("");
            let name = name.split(" (").next().unwrap_or(name);
            p.agent = Some(format!("{agent}'s {name}"));
        } else if let Ok(v) = serde_json::from_str::<Value>(&text)
            && let Some(t) = tools.iter().find(|t| **t == v)
        {
            p.agent = Some(format!(
                "{agent}'s tool {}",
                t["name"].as_str().unwrap_or("")
            ));
        }
    }
}

#[cfg(test)]
#[path = "profile_check_tests.rs"]
mod tests;
