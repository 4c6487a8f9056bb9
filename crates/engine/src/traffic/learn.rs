//! The agent's own parts learned from the user's own request: its system
//! prompt, its runtime context and its tool definitions as that release
//! sent them, taken out of a recorded request with the user's files left
//! out, the run's values (the folder, the home folder, the date) put back
//! as placeholders. The folder views then render the agent as the user's
//! release sends it, labelled as observed, instead of the bundled
//! recording of another release. What the request holds that the tool
//! cannot tell apart from the user's text (the listing of skills and
//! subagents, the reminders on a resumed session) stays as recorded, and
//! [`Learned::kept`] says so.
//!
//! Nothing of the user's files is kept: every part is checked against the
//! lines of every file the request is traced to, and a part holding one is
//! left out (the recording's part of that name is used instead). Keys are
//! the caller's check (the binary's redaction), before anything is saved.

use super::attribution::SourceFile;
use super::learn_parts::{
    claude_code_blocks, claude_code_tools, codex_parts, gemini_parts, openclaw_parts,
    opencode_parts, pi_parts,
};
use crate::error::Error;
use crate::request::Request;
use crate::workspace::agent::Agent;
use crate::workspace::agents::builtin::{Builtin, Observed};

/// A line of a user's file at least this long (in characters, trimmed)
/// is looked for in every part kept; shorter ones (a heading, `---`) are
/// too common to tell anything.
pub const PRIVATE_LINE_CHARS: usize = 24;

/// The request and what is known of it.
pub struct Seen<'a> {
    pub request: &'a Request,
    pub agent: Agent,
    /// The release that sent it (`2.1.332`).
    pub release: &'a str,
    /// The day it was sent (`2026-12-03`).
    pub date: &'a str,
    /// Which request (`capture.jsonl #3`).
    pub from: String,
    /// The user's home folder, when known.
    pub home: Option<&'a str>,
}

/// What was learned, and what was kept from the recording and why.
#[derive(Debug, Clone)]
pub struct Learned {
    pub parts: Builtin,
    pub kept: Vec<String>,
}

/// An agent's own blocks and tools.
type Parts = (
    Vec<crate::workspace::agents::builtin::BuiltinBlock>,
    Vec<crate::workspace::agents::builtin::BuiltinTool>,
);

/// The blocks and tools of the agent's own in `seen` (its adapter's), or
/// why there are none to learn.
fn parts_of(seen: &Seen, template: &Builtin) -> Result<Parts, Error> {
    let req = seen.request;
    let (blocks, tools) = match seen.agent {
        Agent::ClaudeCode => (claude_code_blocks(req, template), claude_code_tools(req)),
        Agent::Codex => codex_parts(req),
        Agent::Gemini => gemini_parts(req),
        Agent::Pi => pi_parts(req),
        Agent::OpenCode => opencode_parts(req),
        Agent::OpenClaw => openclaw_parts(req),
        Agent::Layered => {
            return Err(Error::option(
                "agents learn",
                "the layered design is this tool's own, no agent's: there are no parts of its own to learn",
            ));
        }
    };
    if seen.agent == Agent::Gemini && tools.is_empty() {
        return Err(Error::invalid(
            seen.from.clone(),
            "Gemini CLI's routing call to its small model (no tools): learn from a request to its main model",
        ));
    }
    if blocks.is_empty() && tools.is_empty() {
        return Err(Error::invalid(
            seen.from.clone(),
            format!("no part of {} found in this request", seen.agent),
        ));
    }
    Ok((blocks, tools))
}

/// The agent's own parts of `seen`, over `template` (the bundled
/// recording of that agent: what the request cannot tell is kept from
/// it); `private` are the user's files the request was traced to.
pub fn learn(seen: &Seen, template: &Builtin, private: &[SourceFile]) -> Result<Learned, Error> {
    let req = seen.request;
    let (blocks, tools) = parts_of(seen, template)?;
    let vars = Placeholders::of(&req.to_wire().to_string(), seen.home, seen.date);
    let lines = private_lines(private);
    let mut kept = Vec::new();
    let mut parts = Builtin {
        release: seen.release.to_string(),
        recorded_from: format!("your request of {} ({})", seen.date, seen.from),
        model: req.model.clone().or(template.model.clone()),
        blocks: Vec::new(),
        tools: Vec::new(),
        observed: Some(Observed {
            profile: seen.agent.name().to_string(),
            date: seen.date.to_string(),
            from: seen.from.clone(),
        }),
        // The request's values of the body fields the recording keeps
        // (not its session's ids).
        request_fields: template
            .request_fields
            .keys()
            .filter_map(|k| Some((k.clone(), req.extra.get(k)?.clone())))
            .collect(),
        ..template.clone()
    };
    for mut b in blocks {
        b.text = vars.unfill(&b.text);
        match holds_private(&b.text, &lines) {
            None => parts.blocks.push(b),
            Some(at) => {
                // The recording's block of that name, unless it holds the
                // line too (the user's file copies the agent's text).
                let old = template
                    .blocks
                    .iter()
                    .find(|t| t.name == b.name && holds_private(&t.text, &lines).is_none());
                kept.push(format!(
                    "{}: holds {at}, so {}",
                    b.name,
                    if old.is_some() {
                        "the recording's is used"
                    } else {
                        "it is left out"
                    }
                ));
                parts.blocks.extend(old.cloned());
            }
        }
    }
    for t in tools {
        let text = serde_json::to_string(&t.definition).unwrap_or_default();
        match holds_private(&text, &lines) {
            None => parts.tools.push(t),
            Some(at) => kept.push(format!("tool {}: holds {at}, so it is left out", t.name())),
        }
    }
    if let Some(listing) = &mut parts.listing {
        // Entries of a line each (Claude Code's) are found in the request;
        // others (OpenClaw's `<skill>` blocks) stay as recorded.
        let said = if listing.agent_line.is_some() {
            let n = listed_as_sent(listing, req, (private, &lines), &vars);
            format!(
                "its frame as recorded from {}, its own entries as the request sends them ({n} changed since)",
                template.source()
            )
        } else {
            format!("as recorded from {}", template.source())
        };
        kept.push(format!("the listing of skills and subagents: {said}"));
    }
    if !template.deferred_tools.is_empty() {
        kept.push(format!(
            "{} deferred tools (not sent, so not in the request): as recorded from {}",
            template.deferred_tools.len(),
            template.source()
        ));
    }
    Ok(Learned { parts, kept })
}

/// The agent's own entries of `listing` (its built-in skills and
/// subagents) as `req` sends them: each found by its line's head
/// (`- NAME: `) at a line's start in one of the request's parts, running
/// to the next entry or blank line. An entry whose name one of the user's
/// files carries (their skill or subagent of that name wins it), or whose
/// text holds a line of theirs (`lines`, from [`private_lines`]), stays as
/// recorded. Returns how many changed.
fn listed_as_sent(
    listing: &mut crate::workspace::agents::builtin::Listing,
    req: &Request,
    (private, lines): (&[SourceFile], &[(&str, String)]),
    vars: &Placeholders,
) -> usize {
    let texts: Vec<String> = req
        .positions()
        .into_iter()
        .map(|p| p.text.into_owned())
        .collect();
    let users = |name: &str| {
        private.iter().any(|f| {
            f.path.contains(&format!("/{name}/")) || f.path.ends_with(&format!("/{name}.md"))
        })
    };
    let mut changed = 0;
    for e in listing.agents.iter_mut().chain(listing.skills.iter_mut()) {
        let head = format!("- {}: ", e.name);
        if users(&e.name) || !e.text.starts_with(&head) {
            continue;
        }
        let found = texts.iter().find_map(|t| {
            let at = if t.starts_with(&head) {
                0
            } else {
                t.find(&format!("\n{head}"))? + 1
            };
            let rest = &t[at + head.len()..];
            let end = [rest.find("\n- "), rest.find("\n\n")]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(rest.len());
            Some(t[at..at + head.len() + end].to_string())
        });
        if let Some(text) = found.map(|t| vars.unfill(&t))
            && text != e.text
            && holds_private(&text, lines).is_none()
        {
            e.text = text;
            changed += 1;
        }
    }
    changed
}

/// Who sent a request: the agent, its release, the bundled profile whose
/// recording the learned parts go over, and which request it is.
#[derive(Debug, Clone)]
pub struct Sender {
    pub agent: Agent,
    pub version: String,
    /// The id of the newest bundled profile of the agent (`codex@0.171`):
    /// the folder is loaded with it to find the user's files.
    pub profile: String,
    /// That profile's recorded parts: what the request cannot tell is kept
    /// from them.
    pub template: std::sync::Arc<Builtin>,
    /// `capture.jsonl #3`.
    pub from: String,
}

/// The agent and release `--release AGENT@VERSION` names.
fn release_given(g: &str) -> Result<(Agent, String), Error> {
    let (name, version) = g.split_once('@').unwrap_or((g, ""));
    let agent = Agent::from_name(name)
        .ok()
        .filter(|a| a.is_real_agent() && !version.is_empty())
        .ok_or_else(|| {
            Error::option(
                "--release",
                format!(
                    "{g}: not AGENT@VERSION of a known agent (claude-code@2.1.332, codex@0.171.0)"
                ),
            )
        })?;
    Ok((agent, version.to_string()))
}

/// Who sent request `n` of a capture (`x`, its body `req`; `capture` names
/// the file): the agent and release the request says. `given`
/// (`codex@0.169.0`) names the release of a request that does not say it
/// (a capture made before the proxy kept the client's headers); one that
/// contradicts the request is refused.
pub fn sender(
    (n, x, req): (usize, &super::Exchange, &Request),
    capture: &str,
    given: Option<&str>,
) -> Result<Sender, Error> {
    let from = format!("{capture} #{n}");
    let said = x
        .release
        .clone()
        .or_else(|| super::release::of_request(req));
    let bundled = crate::workspace::profiles::Profiles::bundled();
    let agent_named = |name: &str| {
        Agent::ALL
            .into_iter()
            .filter(|a| a.is_real_agent())
            .find(|a| {
                bundled
                    .newest(a.name())
                    .and_then(|p| p.parts.as_deref())
                    .is_some_and(|b| b.agent == name)
            })
    };
    let (agent, version) = match (said, given) {
        (Some(rel), None) => (
            agent_named(&rel.agent).ok_or_else(|| {
                Error::invalid(
                    from.clone(),
                    format!(
                        "sent by {}, an agent this tool has no recording of",
                        rel.name()
                    ),
                )
            })?,
            rel.version,
        ),
        (Some(rel), Some(g))
            if g != format!(
                "{}@{}",
                agent_named(&rel.agent).map_or("", |a| a.name()),
                rel.version
            ) =>
        {
            return Err(Error::option(
                "--release",
                format!(
                    "{g}, but the request says it was sent by {} ({})",
                    rel.name(),
                    rel.from
                ),
            ));
        }
        (_, Some(g)) => release_given(g)?,
        (None, None) => {
            return Err(Error::invalid(
                from,
                "the request does not say which agent and release sent it (no billing header, User-Agent or originator was recorded): name it with --release AGENT@VERSION",
            ));
        }
    };
    let newest = bundled
        .newest(agent.name())
        .expect("the agent was found among the bundled profiles");
    Ok(Sender {
        agent,
        version,
        profile: newest.id(),
        template: newest
            .parts
            .clone()
            .expect("the agent was found by its parts"),
        from,
    })
}

/// The parts of `req` (request `x`) sent by `who`, learned over the
/// bundled recording: `private` are the user's files of the folder the
/// agent ran in (loaded with `who.profile`, the agent's user-level memory
/// included), none of whose lines is kept.
pub fn learn_request(
    who: &Sender,
    (x, req): (&super::Exchange, &Request),
    home: Option<&str>,
    private: &[SourceFile],
) -> Result<Learned, Error> {
    let date = request_date(req)
        .or_else(|| x.at.map(|t| super::format_rfc3339(t)[..10].to_string()))
        .unwrap_or_default();
    let seen = Seen {
        request: req,
        agent: who.agent,
        release: &who.version,
        date: &date,
        from: who.from.clone(),
        home,
    };
    learn(&seen, &who.template, private)
}

/// The day the request says it is (Claude Code's `Today's date is`,
/// Codex's `<current_date>`).
fn request_date(req: &Request) -> Option<String> {
    req.each_position().find_map(|p| date_in(&p.text))
}

fn date_in(text: &str) -> Option<String> {
    ["Today's date is ", "<current_date>"].iter().find_map(|m| {
        let at = text.find(m)? + m.len();
        let d = text.get(at..at + 10)?;
        let ok = d.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
        ok.then(|| d.to_string())
    })
}

/// The run's values in the request, to be put back as placeholders.
struct Placeholders {
    root: Option<String>,
    home: Option<String>,
    today: Option<String>,
    /// The day in Gemini CLI's words (`Thursday, December 3, 2026`).
    long: Option<String>,
    /// The day as JavaScript writes it (OpenCode's `Thu Dec 03 2026`).
    js: Option<String>,
    /// The folder opened, when the request names it apart from the working
    /// folder (OpenCode's `Workspace root folder:`).
    folder: Option<String>,
}

impl Placeholders {
    /// The working folder as the request says it (Claude Code's `Primary
    /// working directory:`, Codex's `<cwd>`), the home folder, the day.
    /// Read from the request's JSON text (its strings escaped).
    fn of(text: &str, home: Option<&str>, date: &str) -> Placeholders {
        let after = |marker: &str, end: &[char]| {
            let at = text.find(marker)? + marker.len();
            let rest = &text[at..];
            let v = &rest[..rest.find(end).unwrap_or(rest.len())];
            (v.starts_with('/') && v.len() > 1).then(|| v.to_string())
        };
        let root = after("Primary working directory: ", &['\\', '"'])
            .or_else(|| after("<cwd>", &['<', '\\', '"']))
            .or_else(|| after("Workspace Directories:**\\n  - ", &['\\', '"']))
            .or_else(|| after("Current working directory: ", &['\\', '"']))
            .or_else(|| after("  Working directory: ", &['\\', '"']))
            .or_else(|| after("\\nWorking directory: ", &['\\', '"']));
        let folder = after("Workspace root folder: ", &['\\', '"']);
        Placeholders {
            root,
            home: home.filter(|h| h.len() > 1).map(str::to_string),
            today: (date.len() == 10).then(|| date.to_string()),
            long: crate::text::long_date(date),
            js: crate::text::js_date(date),
            folder,
        }
    }

    /// The text with the run's values as `{root}`, `{project_slug}`,
    /// `{home}` and `{today}` (the folder before the home folder it is in).
    fn unfill(&self, text: &str) -> String {
        let mut t = text.to_string();
        if let Some(r) = &self.root {
            // Gemini CLI's temporary folder is named for the folder.
            if let Some(name) = r.rsplit('/').next().filter(|n| !n.is_empty()) {
                t = t.replace(&format!("/.gemini/tmp/{name}"), "/.gemini/tmp/{root_name}");
            }
            t = t.replace(r.as_str(), "{root}");
            // After the working folder, which may be inside it.
            if let Some(f) = &self.folder {
                t = t.replace(
                    &format!("Workspace root folder: {f}"),
                    "Workspace root folder: {folder}",
                );
            }
            let slug: String = r
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            t = t.replace(&slug, "{project_slug}");
        }
        if let Some(h) = &self.home {
            t = t.replace(h.as_str(), "{home}");
        }
        if let Some(d) = &self.today {
            t = t.replace(d.as_str(), "{today}");
        }
        if let Some(d) = &self.long {
            t = t.replace(d.as_str(), "{today_long}");
        }
        if let Some(d) = &self.js {
            t = t.replace(d.as_str(), "{today_js}");
        }
        for git in ["yes", "no"] {
            t = t.replace(
                &format!("Is directory a git repo: {git}"),
                "Is directory a git repo: {is_git}",
            );
        }
        for git in ["true", "false"] {
            t = t.replace(
                &format!("Is a git repository: {git}"),
                "Is a git repository: {is_git_bool}",
            );
        }
        t
    }
}

/// Each long enough line of the user's files, with where it is.
fn private_lines(files: &[SourceFile]) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    for f in files {
        for (i, l) in f.text.lines().enumerate() {
            let l = l.trim();
            if l.chars().count() >= PRIVATE_LINE_CHARS {
                out.push((l, format!("line {} of {}", i + 1, f.path)));
            }
        }
    }
    out
}

/// Where the first of the user's lines in `text` comes from, if any.
fn holds_private(text: &str, lines: &[(&str, String)]) -> Option<String> {
    lines
        .iter()
        .find(|(l, _)| text.contains(l))
        .map(|(_, at)| at.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_go_back() {
        let req = serde_json::json!({"input": [{"content": [{"text": "<cwd>/home/u/p</cwd>"}]}]});
        let v = Placeholders::of(&req.to_string(), Some("/home/u"), "2026-12-03");
        assert_eq!(v.root.as_deref(), Some("/home/u/p"));
        assert_eq!(
            v.unfill("in /home/u/p, -home-u-p, /home/u/x on 2026-12-03"),
            "in {root}, {project_slug}, {home}/x on {today}"
        );
    }

    #[test]
    fn a_part_holding_a_line_of_the_users_files_is_not_kept() {
        let files = [SourceFile {
            path: "AGENTS.md".into(),
            text: "# Rules\nAlways run the linter before you commit anything.\n".into(),
            modified: None,
        }];
        let lines = private_lines(&files);
        assert_eq!(lines.len(), 1);
        assert_eq!(
            holds_private(
                "x Always run the linter before you commit anything. y",
                &lines
            )
            .as_deref(),
            Some("line 2 of AGENTS.md")
        );
        assert_eq!(holds_private("# Rules", &lines), None);
    }
}
