//! An agent's list of subagents and skills when the agent sends its own
//! entries beside the workspace's (Claude Code 2.1: a system-role message
//! after the first user message): the workspace's skills and subagents in
//! the agent's line format, and the agent's built-in ones as recorded, each
//! one fragment of layer 1, in the agent's order (subagents by name, then
//! the workspace's skills, then the built-in ones); and the profile's own
//! listing (OpenClaw's `<available_skills>`) with the agent's built-in skills
//! among the workspace's.

use std::collections::BTreeSet;
use std::path::Path;

use super::builtin::{Builtin, Category, Entry, Listing};
use super::expand::Expander;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::{Profile, Skills};
use crate::workspace::reader::Reader;
use crate::workspace::sources::base;
use crate::workspace::types::{AgentWords, FragmentDef, FragmentKind, Preset, WordsKind};
use crate::workspace::yaml::{self, Node, split_frontmatter};

/// A path under the home folder as the agents show it (`~/workspace/…`).
fn home_relative(path: &str, home: Option<&Path>) -> String {
    let Some(h) = home.map(|h| h.display().to_string()) else {
        return path.to_string();
    };
    match path.strip_prefix(h.trim_end_matches('/')) {
        Some(rest) if rest.starts_with('/') => format!("~{rest}"),
        _ => path.to_string(),
    }
}

/// One skill or subagent of the workspace.
pub struct Own {
    pub name: String,
    pub description: String,
    /// A subagent's `tools:` (`All tools` when it names none, as Claude
    /// Code 2.1.332 writes it: recorded in claude-code-rules).
    pub tools: String,
    pub rel: String,
    /// `skill` or `agent`.
    pub kind: &'static str,
    /// Hidden from the model by the profile's `hide_key`.
    pub hidden: bool,
}

/// A frontmatter key's value as the agents read it, one `key: value` line.
pub fn frontmatter_value(text: &str, key: &str) -> Option<String> {
    let (fm, _, _) = split_frontmatter(text);
    fm?.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key && !v.trim().is_empty())
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
    })
}

/// The source a built-in fragment names (`Claude Code 2.1.328 (built in)`).
pub fn builtin_source(b: &Builtin) -> String {
    format!("{} (built in)", b.source())
}

fn builtin_fragment(
    id: String,
    priority: i64,
    text: &str,
    category: Category,
    src: &str,
) -> FragmentDef {
    let mut f = base(
        id,
        1,
        priority,
        text.to_string(),
        src,
        1,
        FragmentKind::Builtin { category },
    );
    f.interpolate = false;
    f
}

/// The fragments of the listing: the workspace's own entries and the
/// agent's built-in ones (a built-in entry of the same name as one of the
/// workspace's is left out: the workspace's wins, as in the agent).
pub fn fragments(
    b: &Builtin,
    l: &Listing,
    own: &[Own],
    ex: &mut Expander,
    out: &mut Vec<FragmentDef>,
) {
    let src = builtin_source(b);
    let key = |n: &str| n.to_lowercase();
    let mine = |kind: &str, n: &str| own.iter().any(|o| o.kind == kind && key(&o.name) == key(n));
    for o in own {
        let (line, field, priority) = if o.kind == "agent" {
            (&l.agent_line, "listing.agent_line", 900)
        } else {
            (&l.skill_line, "listing.skill_line", 700)
        };
        let text = ex.expand(
            field,
            line.as_deref().unwrap_or("- {name}: {description}"),
            &[
                ("name", &o.name),
                ("description", &o.description),
                ("tools", &o.tools),
            ],
        );
        let words = entry_words(&text, &o.description);
        let mut f = base(
            format!("{}.{}", o.kind, key(&o.name)),
            1,
            priority,
            text,
            &o.rel,
            1,
            FragmentKind::Skill {
                name: o.name.clone(),
                always: false,
            },
        );
        f.interpolate = false;
        f.agent_words = words;
        out.push(f);
    }
    let entries = |v: &[Entry], kind: &str| -> Vec<(usize, Entry)> {
        v.iter()
            .filter(|e| !mine(kind, &e.name))
            .cloned()
            .enumerate()
            .collect()
    };
    for (_, e) in entries(&l.agents, "agent") {
        out.push(builtin_fragment(
            format!("agent.{}", key(&e.name)),
            900,
            &e.text,
            e.category,
            &src,
        ));
    }
    out.push(builtin_fragment(
        "listing.between".into(),
        800,
        l.between.as_deref().unwrap_or(""),
        Category::SystemPrompt,
        &src,
    ));
    for (i, e) in entries(&l.skills, "skill") {
        out.push(builtin_fragment(
            format!("skill.{}", key(&e.name)),
            600 - i as i64,
            &e.text,
            e.category,
            &src,
        ));
    }
}

/// The listing's words around a file's `description` in its `entry`: the
/// file's own text is its description.
fn entry_words(entry: &str, description: &str) -> Option<AgentWords> {
    let at = entry
        .find(description)
        .filter(|_| !description.is_empty())?;
    Some(AgentWords {
        head: at,
        tail: entry.len() - at - description.len(),
        kind: WordsKind::ListingEntry,
    })
}

/// The category of one of the workspace's own listing fragments.
pub fn own_category(id: &str) -> Category {
    if id.starts_with("agent.") {
        Category::CustomAgents
    } else {
        Category::Skills
    }
}

/// One skill's frontmatter: (name, description, hidden).
fn skill_meta(text: &str, default_name: &str, hide_key: Option<&str>) -> (String, String, bool) {
    let (fm, body, _) = split_frontmatter(text);
    let node = fm.and_then(|f| yaml::parse(f).ok()).unwrap_or(Node::Null);
    // A frontmatter that is not strict YAML (`description: a: b`) is read
    // line by line, `key: value`, as the agents' own parsers read it.
    let loose = |key: &str| {
        fm?.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty())
                .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        })
    };
    let name = node
        .get("name")
        .and_then(Node::scalar_text)
        .or_else(|| loose("name"))
        .unwrap_or_else(|| default_name.to_string());
    let description = node
        .get("description")
        .and_then(Node::scalar_text)
        .or_else(|| loose("description"))
        .unwrap_or_else(|| {
            body.lines()
                .map(|l| l.trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .to_string()
        });
    let hidden = hide_key
        .and_then(|k| node.get(k))
        .and_then(Node::as_bool)
        .unwrap_or(false);
    (name, description, hidden)
}

/// The workspace's skills (each folder of the profile's, the first of a
/// name winning) and subagents, with their frontmatter read.
fn read_entries(sk: &Skills, r: &mut Reader) -> Vec<Own> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for dir in &sk.dirs {
        for (name, is_dir) in r.list(dir) {
            let rel = if is_dir {
                format!("{dir}/{name}/SKILL.md")
            } else if name.ends_with(".md") {
                format!("{dir}/{name}")
            } else {
                continue;
            };
            if !r.exists(&rel) {
                continue;
            }
            let Some(text) = r.read(&rel) else { continue };
            let stem = name.trim_end_matches(".md");
            let (skill, description, hidden) = skill_meta(&text, stem, sk.hide_key.as_deref());
            // Higher-precedence folders win a name clash.
            if seen.insert(skill.clone()) {
                out.push(Own {
                    name: skill,
                    description,
                    tools: String::new(),
                    rel,
                    kind: "skill",
                    hidden,
                });
            }
        }
    }
    if let Some(agents) = &sk.agents_dir {
        for (name, is_dir) in r.list(agents) {
            if is_dir || !name.ends_with(".md") {
                continue;
            }
            let rel = format!("{agents}/{name}");
            let Some(text) = r.read(&rel) else { continue };
            let (agent, description, _) = skill_meta(&text, name.trim_end_matches(".md"), None);
            out.push(Own {
                name: agent,
                description,
                tools: frontmatter_value(&text, "tools").unwrap_or_else(|| "All tools".into()),
                rel,
                kind: "agent",
                hidden: false,
            });
        }
    }
    out
}

/// Skills (and subagents) listed the way the agent lists them: in the
/// agent's own listing when its recording has one (Claude Code 2.1), else
/// the profile's (OpenClaw's `<available_skills>` entries with the agent's
/// built-in ones among them, or a name and description).
pub(super) fn load_skill_listing(
    p: &Profile,
    r: &mut Reader,
    (home, user_home): (Option<&Path>, Option<&Path>),
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(sk) = &p.skills else { return };
    // The user's own first (with --user-memory, where the profile reads
    // them): a name of theirs wins over the folder's.
    let mut own = user_home
        .filter(|_| sk.in_home)
        .map(|h| home_entries(sk, h, r, diags))
        .unwrap_or_default();
    let theirs: BTreeSet<(&str, String)> = own
        .iter()
        .map(|o| (o.kind, o.name.to_lowercase()))
        .collect();
    let folder: Vec<Own> = read_entries(sk, r)
        .into_iter()
        .filter(|o| !theirs.contains(&(o.kind, o.name.to_lowercase())))
        .collect();
    own.extend(folder);
    let parts = p
        .parts
        .as_deref()
        .and_then(|b| Some((b, b.listing.as_ref()?)));
    if let Some((b, l)) = parts.filter(|(_, l)| l.agent_line.is_some()) {
        let mut ex = Expander::new(p);
        fragments(b, l, &own, &mut ex, out);
        ex.finish(diags);
        return;
    }
    let root = r.root().display().to_string();
    profile_listing(sk, &root, home, &own, parts, out);
}

/// The profile's own listing of the workspace's entries, with the agent's
/// built-in skills among them by name (a workspace skill of the same name
/// wins).
fn profile_listing(
    sk: &Skills,
    root: &str,
    home: Option<&Path>,
    own: &[Own],
    parts: Option<(&Builtin, &Listing)>,
    out: &mut Vec<FragmentDef>,
) {
    let builtin_skills = parts.map_or(&[][..], |(_, l)| &l.skills[..]);
    if own.is_empty() && builtin_skills.is_empty() {
        return;
    }
    let openclaw = sk.format == "openclaw";
    if openclaw {
        let intro = sk.intro.clone().unwrap_or_default();
        out.push(listing_fragment(
            "skills.intro",
            999,
            &format!("{intro}\n<available_skills>"),
            "skills",
        ));
        out.push(listing_fragment(
            "skills.zend",
            0,
            "</available_skills>",
            "skills",
        ));
    }
    if let Some((b, _)) = parts {
        let src = builtin_source(b);
        for e in builtin_skills
            .iter()
            .filter(|e| !own.iter().any(|o| o.name == e.name))
        {
            out.push(builtin_fragment(
                format!("skill.{}", e.name),
                500,
                &e.text,
                e.category,
                &src,
            ));
        }
    }
    for o in own {
        let (name, kind) = (&o.name, o.kind);
        let body = if openclaw {
            format!(
                "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>",
                crate::text::xml_escape(name),
                crate::text::xml_escape(&o.description),
                crate::text::xml_escape(&home_relative(&format!("{root}/{}", o.rel), home))
            )
        } else {
            format!("- {kind} {name}: {}", o.description)
        };
        let mut f = base(
            format!("{kind}.{name}"),
            1,
            500,
            body,
            &o.rel,
            1,
            FragmentKind::Skill {
                name: name.clone(),
                always: false,
            },
        );
        f.interpolate = false;
        if o.hidden {
            f.preset = Some(Preset::Disabled(format!(
                "hidden from the model ({}: true): only the user can invoke it",
                sk.hide_key.as_deref().unwrap_or("")
            )));
        }
        out.push(f);
    }
}

pub(super) fn listing_fragment(id: &str, priority: i64, body: &str, source: &str) -> FragmentDef {
    let mut f = base(
        id.to_string(),
        1,
        priority,
        body.to_string(),
        source,
        1,
        FragmentKind::Markdown,
    );
    f.interpolate = false;
    f
}

/// The user's own skills and subagents: the profile's folders read in the
/// home (`~/.claude/skills`, `~/.claude/agents`, `~/.claude/commands`)
/// through a guarded reader of its own, each named `~/…` and kept as one
/// of the agent's files (to trace a request to); what that reader refused
/// said, named the same way.
fn home_entries(sk: &Skills, home: &Path, r: &mut Reader, diags: &mut Vec<Diagnostic>) -> Vec<Own> {
    let Ok(mut hr) = Reader::new(home) else {
        return Vec::new();
    };
    let mut own = read_entries(sk, &mut hr);
    for o in &mut own {
        if let Some(text) = hr.read(&o.rel) {
            r.agent_files.push(crate::workspace::reader::AgentFile {
                shown: format!("~/{}", o.rel),
                modified: hr.modified.get(&o.rel).copied(),
                text,
            });
        }
        o.rel = format!("~/{}", o.rel);
    }
    for mut d in std::mem::take(&mut hr.diags) {
        d.file = format!("~/{}", d.file);
        diags.push(d);
    }
    own
}
