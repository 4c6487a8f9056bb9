//! Which agent and release sent a request, read from what the request
//! itself says: Claude Code's billing header in its system prompt
//! (`x-anthropic-billing-header: cc_version=2.1.328.a13; …`), the client's
//! `User-Agent` (`claude-cli/2.1.328 …`, `codex_exec/0.169.0 …`) and Codex's
//! `originator` and `version` headers as the proxy records them, or a
//! transcript line's `version` (Claude Code, OpenClaw) and Codex's
//! `cli_version`. Every view shows it; where the bundled recording of that
//! agent is of another release, the views say so with both.

use serde::Serialize;
use serde_json::Value;

use crate::clean;

/// An agent and release, and where that was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Release {
    /// The agent as its users name it (`Claude Code`, `Codex CLI`).
    pub agent: String,
    /// Its version (`2.1.328`).
    pub version: String,
    /// Where it was read (`the billing header in its system prompt`).
    pub from: &'static str,
}

impl Release {
    pub fn new(agent: &str, version: &str, from: &'static str) -> Option<Release> {
        let version = clean(version.trim(), 40);
        let ok = !version.is_empty()
            && version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'));
        ok.then(|| Release {
            agent: clean(agent, 40),
            version,
            from,
        })
    }

    /// `Claude Code 2.1.328`.
    pub fn name(&self) -> String {
        format!("{} {}", self.agent, self.version)
    }
}

/// The agent a client name (`claude-cli`, `codex_exec`) is.
fn agent_of(client: &str) -> Option<&'static str> {
    let c = client.to_ascii_lowercase();
    Some(match c.as_str() {
        "claude-cli" | "claude-code" | "claude_code" => "Claude Code",
        c if c.starts_with("codex") => "Codex CLI",
        "openclaw" => "OpenClaw",
        c if c.starts_with("geminicli") || c.starts_with("gemini-cli") => "Gemini CLI",
        "opencode" => "OpenCode",
        "pi" | "pi-coding-agent" => "Pi",
        _ => return None,
    })
}

/// Claude Code's release from its billing header, wherever a system block
/// (or the shape a transcript records) holds it: `cc_version=X.Y.Z.hash`.
pub fn of_request(req: &crate::request::Request) -> Option<Release> {
    const KEY: &str = "x-anthropic-billing-header: cc_version=";
    let texts: Vec<&str> = req
        .system
        .iter()
        .take(8)
        .filter(|b| b.kind == crate::request::BlockKind::Text)
        .map(|b| b.text.as_str())
        .collect();
    texts.into_iter().find_map(|t| {
        let at = t.find(KEY)? + KEY.len();
        let v = t[at..].split([';', ' ', '\n']).next()?;
        // `2.1.328.a13`: the release, then the build's hash.
        let release: Vec<&str> = v.split('.').take(3).collect();
        Release::new(
            "Claude Code",
            &release.join("."),
            "the billing header in its system prompt",
        )
    })
}

/// The agent whose own words open a request's system prompt, for an agent
/// whose requests name no release (Pi sends the Anthropic SDK's
/// User-Agent only): its profile is the newest of that agent's.
pub fn agent_of_request(req: &crate::request::Request) -> Option<crate::workspace::agent::Agent> {
    use crate::workspace::agent::Agent;
    let first = req
        .system
        .first()
        .filter(|b| b.kind == crate::request::BlockKind::Text)?;
    first
        .text
        .starts_with(
            "You are an expert coding assistant operating inside pi, a coding agent harness.",
        )
        .then_some(Agent::Pi)
}

/// The release a client's headers name, as the proxy records them
/// (`{"user_agent": …, "originator": …, "version": …}`).
pub fn of_client(client: &Value) -> Option<Release> {
    let s = |k: &str| client.get(k).and_then(Value::as_str);
    if let (Some(o), Some(v)) = (s("originator"), s("version"))
        && let Some(agent) = agent_of(o)
    {
        return Release::new(agent, v, "its originator and version headers");
    }
    let ua = s("user_agent")?;
    let first = ua.split_whitespace().next()?;
    let (name, rest) = first.split_once('/')?;
    // Gemini CLI adds its model: `GeminiCLI-tui/0.61.0/gemini-3.1-pro-preview`.
    let version = rest.split('/').next()?;
    Release::new(agent_of(name)?, version, "its User-Agent")
}

/// The releases of an agent whose own parts this tool bundles (recorded
/// from each: `assets/profiles/*.builtin.json`), the newest first.
pub fn bundled(agent: &str) -> Vec<&'static str> {
    use std::sync::OnceLock;
    static BUNDLED: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let all = BUNDLED.get_or_init(|| {
        crate::workspace::agents::builtin::BUNDLED
            .iter()
            .filter_map(|(_, text)| {
                #[derive(serde::Deserialize)]
                struct Head {
                    agent: String,
                    release: String,
                }
                let h: Head = serde_json::from_str(text).ok()?;
                Some((h.agent, h.release))
            })
            .collect()
    });
    let mut v: Vec<&'static str> = all
        .iter()
        .filter(|(a, _)| a == agent)
        .map(|(_, r)| r.as_str())
        .collect();
    v.sort_by(|a, b| crate::workspace::profile::version_cmp(b, a));
    v
}

/// What the folder views (report, context, `--against`, the window) take
/// an agent's own parts from: the release they assume, where its parts
/// were observed when they were (`observed in your request of …`), and
/// every release whose parts are known (bundled and observed) with the
/// profile that holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumed {
    /// The agent as its users name it (`Claude Code`).
    pub agent: String,
    pub release: String,
    pub observed: Option<String>,
    /// Each known release and its profile's id (`0.169.0`, `codex@0.169`).
    pub known: Vec<(String, String)>,
}

/// What the folder views assume of each agent, given the profiles they
/// load (the bundled ones and the user's observations): the newest
/// observed release when there is one, else the newest bundled one.
pub fn assumed(profiles: &crate::workspace::profiles::Profiles) -> Vec<Assumed> {
    let mut out: Vec<Assumed> = Vec::new();
    for p in &profiles.all {
        let Some(parts) = &p.parts else { continue };
        let known = (parts.release.clone(), p.id());
        if let Some(a) = out.iter_mut().find(|a| a.agent == parts.agent) {
            if !a.known.iter().any(|k| k.0 == known.0) {
                a.known.push(known);
            }
            continue;
        }
        let Some(newest) = profiles.newest(&p.name) else {
            continue;
        };
        let Some(newest_parts) = &newest.parts else {
            continue;
        };
        out.push(Assumed {
            agent: parts.agent.clone(),
            release: newest_parts.release.clone(),
            observed: newest.observed.clone(),
            known: vec![known],
        });
    }
    out
}

/// What the folder views assume of `agent` when the caller did not say:
/// the newest bundled recording.
fn bundled_assumed(agent: &str) -> Option<Assumed> {
    let known = bundled(agent);
    Some(Assumed {
        agent: agent.to_string(),
        release: known.first()?.to_string(),
        observed: None,
        known: known
            .into_iter()
            .map(|r| (r.to_string(), String::new()))
            .collect(),
    })
}

/// The lines a traffic view opens with: which agent release sent which
/// requests (and where that was read), and, where the folder views take
/// that agent's own parts from another release (a bundled recording or an
/// observation: [`Traffic::assumed`](super::Traffic)), both releases.
pub fn summary(t: &super::Traffic) -> Vec<String> {
    let mut runs: Vec<(&Release, usize, usize)> = Vec::new();
    for r in &t.requests {
        let Some(rel) = &r.release else { continue };
        match runs.last_mut() {
            Some((last, _, to)) if *last == rel && *to + 1 == r.index => *to = r.index,
            _ => runs.push((rel, r.index, r.index)),
        }
    }
    let mut out = Vec::new();
    let mut said: Vec<&Release> = Vec::new();
    for (rel, from, to) in &runs {
        let which = if from == to {
            format!("request {from}")
        } else {
            format!("requests {from}-{to}")
        };
        out.push(format!("sent by {} ({}): {which}", rel.name(), rel.from));
        if !said
            .iter()
            .any(|s| s.agent == rel.agent && s.version == rel.version)
        {
            said.push(rel);
        }
    }
    for rel in said {
        let assumed = match t.assumed.iter().find(|a| a.agent == rel.agent) {
            Some(a) => Some(a.clone()),
            None if t.assumed.is_empty() => bundled_assumed(&rel.agent),
            None => None,
        };
        if let Some(line) = assumed.and_then(|a| differs(rel, &a)) {
            out.push(line);
        }
    }
    out
}

/// The line saying that the folder views take `rel`'s agent's own parts
/// from another release, with both; none when they take that release's.
fn differs(rel: &Release, a: &Assumed) -> Option<String> {
    let (agent, v, newest) = (&rel.agent, &rel.version, &a.release);
    if newest == v {
        return None;
    }
    let profile = a.known.iter().find(|k| &k.0 == v).map(|k| k.1.as_str());
    let named = match profile {
        Some(id) if !id.is_empty() => format!(" ({id})"),
        _ => String::new(),
    };
    Some(match (&a.observed, profile.is_some()) {
        (None, false) => format!(
            "{agent} {v} sent these; this tool's recording of {agent}'s own parts is of {newest}: where they differ, the views that use the recording (report, context, --against, --check-profile) show {newest}'s"
        ),
        (None, true) => format!(
            "{agent} {v} sent these; its own parts are recorded for that release too, but the folder views assume the newest ({newest}) unless --profile names the older one{named}"
        ),
        (Some(seen), false) => format!(
            "{agent} {v} sent these; the folder views use {agent} {newest}'s own parts, {seen}: where they differ, the views that use them (report, context, --against, --check-profile) show {newest}'s (agents learn keeps this release's)"
        ),
        (Some(seen), true) => format!(
            "{agent} {v} sent these; its own parts are known for that release too, but the folder views assume {newest}, {seen}, unless --profile names it{named}"
        ),
    })
}

/// The release a transcript line names: Claude Code's and OpenClaw's
/// `version` (the agent given by the transcript's kind).
pub fn of_transcript(agent: &str, version: Option<&str>) -> Option<Release> {
    Release::new(agent, version?, "its transcript")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_from_each_place_an_agent_says_it() {
        let req = json!({"system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332.a13; cc_entrypoint=sdk-cli;"}, {"type": "text", "text": "You are Claude Code"}]});
        let typed = |v: &Value| crate::request::Request::of_body(v);
        let r = of_request(&typed(&req)).unwrap();
        assert_eq!(
            (r.name().as_str(), r.from),
            (
                "Claude Code 2.1.332",
                "the billing header in its system prompt"
            )
        );
        assert_eq!(
            of_request(&typed(&json!({"system": "You are terse."}))),
            None
        );
        let ua =
            of_client(&json!({"user_agent": "claude-cli/2.1.328 (external, sdk-cli)"})).unwrap();
        assert_eq!(ua.name(), "Claude Code 2.1.328");
        let codex = of_client(&json!({"user_agent": "codex_exec/0.171.0 (Debian 12; x86_64)", "originator": "codex_exec", "version": "0.171.0"})).unwrap();
        assert_eq!(
            (codex.name().as_str(), codex.from),
            ("Codex CLI 0.171.0", "its originator and version headers")
        );
        let gemini = of_client(&json!({"user_agent": "GeminiCLI-tui/0.61.0/gemini-3.1-pro-preview (linux; x64; terminal)"})).unwrap();
        assert_eq!(gemini.name(), "Gemini CLI 0.61.0");
        assert_eq!(of_client(&json!({"user_agent": "curl/8.5.0"})), None);
        assert_eq!(
            of_client(&json!({"user_agent": "claude-cli/\u{1b}[2J"})),
            None
        );
        assert_eq!(
            of_transcript("OpenClaw", Some("2026.9.6")).unwrap().name(),
            "OpenClaw 2026.9.6"
        );
    }
}
