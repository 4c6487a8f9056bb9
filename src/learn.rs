//! Learning an agent's own parts from one of the user's recorded requests
//! and keeping them in the user's data folder: the road `agents learn` and
//! the Traffic tab's "Learn" button share (the engine learns; this edge
//! reads the surroundings, checks for key shapes and writes the file).

use std::path::{Path, PathBuf};

use crate::engine::workspace::agents::builtin::Builtin;
use crate::engine::workspace::agents::observed;
use crate::engine::{self, TokenCounter};

/// What was learned, and where it was kept (none: a dry run).
pub struct Learned {
    pub parts: Builtin,
    /// What was kept from the bundled recording, each in a sentence.
    pub kept: Vec<String>,
    pub saved: Option<PathBuf>,
    /// Tokens of its blocks and of its tool definitions.
    pub tokens: (u64, u64),
}

/// Learns the own parts of the agent that sent request `request` (default:
/// the last with a body) of `capture`, the user's files of `against` (and
/// their user-level memory) left out; kept in `keep_in` (the data folder's
/// `agents/`, [`crate::observed_dir`]; none: a dry run). `release` names
/// the sender when the request does not.
pub fn learn(
    capture: &Path,
    request: Option<usize>,
    against: &Path,
    release: Option<&str>,
    keep_in: Option<&Path>,
) -> Result<Learned, String> {
    use crate::engine::traffic::{self, learn, profile_check};
    let (table, counter) = (crate::model_table()?, TokenCounter::new());
    let wanted: Vec<usize> = request.into_iter().collect();
    let learned = crate::opencode_db::read_exchanges(capture, &wanted).and_then(|(_, x, _)| {
        let (n, x, req) = profile_check::pick(&x, request)?;
        let name = capture
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let who = learn::sender((n, x, req), &name, release)?;
        // The folder as that agent reads it, its user-level memory
        // included: the files none of whose lines may be kept.
        let mut opts = crate::with_surroundings(engine::Options::default());
        opts.user_memory = opts.home.is_some();
        opts.profile = Some(who.profile.clone());
        let ins = engine::inspect(against, &opts, &table, &counter)?;
        let files = traffic::attribution::workspace_files(&ins.workspace).files;
        let home = opts.home.as_deref().and_then(|h| h.to_str());
        learn::learn_request(&who, (x, req), home, &files)
    })?;
    let text = serde_json::to_string_pretty(&learned.parts).unwrap_or_default() + "\n";
    // Redacted by the same shapes as every capture: a part holding a
    // key-shaped string is not kept, whatever it is.
    if matches!(
        crate::net::guard::redact_shapes(&text),
        std::borrow::Cow::Owned(_)
    ) {
        return Err("the request's own parts hold a key-shaped string: nothing was learned".into());
    }
    let saved = match keep_in {
        None => None,
        Some(dir) => Some(save(dir, &learned.parts, &text)?),
    };
    let tokens = tokens(&learned.parts, &table, &counter);
    Ok(Learned {
        parts: learned.parts,
        kept: learned.kept,
        saved,
        tokens,
    })
}

/// Tokens of the parts' blocks and of their tool definitions (as JSON), in
/// the encoding of the parts' model.
pub fn tokens(b: &Builtin, table: &engine::ModelTable, counter: &TokenCounter) -> (u64, u64) {
    let enc = table.resolve(b.model.as_deref()).tokenizer;
    let blocks = b.blocks.iter().map(|x| counter.count(enc, &x.text)).sum();
    let tools = b
        .sent_tools()
        .iter()
        .map(|t| counter.count(enc, &t.wire_text()))
        .sum();
    (blocks, tools)
}

/// `codex@0.172.0`: the id of the profile an observation becomes.
pub fn id_of(b: &Builtin) -> String {
    let name = observed::file_name(b);
    name.trim_end_matches(".json").to_string()
}

/// Writes the observation into the data folder (created for this user
/// only), atomically; the folder must be a real folder, not a link.
fn save(dir: &Path, b: &Builtin, text: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!(
            "{} is not a folder (a link?): refused",
            dir.display()
        ));
    }
    let path = dir.join(observed::file_name(b));
    engine::workspace::store::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// One agent's parts as `agents` and the window's Agents list show them:
/// a bundled recording or an observation learned from the user's request.
#[derive(Debug, Clone, PartialEq)]
pub struct PartsRow {
    /// The profile id (`claude-code@2.1.332`).
    pub id: String,
    pub agent: String,
    pub release: String,
    /// Where the parts come from, in words.
    pub source: String,
    /// The observation's file (learned here), none for a recording.
    pub file: Option<PathBuf>,
    /// The one the agent's folders use unless a profile is named.
    pub default: bool,
    pub blocks: usize,
    pub tools: usize,
    /// Its parts, to count their tokens where a view shows them.
    pub parts: std::sync::Arc<Builtin>,
}

/// Every agent's parts, and the observation files that could not be used
/// (each with why).
pub type Listed = (Vec<PartsRow>, Vec<String>);

/// Every agent's parts, bundled and observed (those in `observed_dir`),
/// agent by agent, with the observation files that could not be used.
pub fn rows(extra_profiles: Option<&Path>, observed_dir: Option<&Path>) -> Result<Listed, String> {
    let profiles = engine::workspace::profiles::Profiles::load_with(extra_profiles, observed_dir)?;
    let bad = observed_dir.map_or(Vec::new(), |d| observed::load(d).1);
    let mut rows = Vec::new();
    for name in profiles.names() {
        let default = profiles.newest(&name).map(|p| p.id());
        for p in profiles.all.iter().filter(|p| p.name == name) {
            let Some(b) = p.parts.clone() else {
                continue;
            };
            rows.push(PartsRow {
                id: p.id(),
                agent: b.agent.clone(),
                release: b.release.clone(),
                source: b.provenance(),
                file: b.observed.as_ref().map(|_| PathBuf::from(&p.origin)),
                default: default.as_deref() == Some(p.id().as_str()),
                blocks: b.blocks.len(),
                tools: b.tools.len(),
                parts: b,
            });
        }
    }
    Ok((rows, bad.iter().map(|e| e.to_string()).collect()))
}

/// Forgets the observation `id` (`codex@0.172.0`, as [`rows`] names it)
/// kept in `dir`: its file removed, so the agent's folders go back to the
/// bundled recording unless another observation is newer. The file
/// removed and the agent it was of, or why not (the known ids named).
pub fn forget(dir: &Path, id: &str) -> Result<(PathBuf, String), String> {
    let (kept, _) = observed::load(dir);
    let Some(k) = kept.iter().find(|k| id_of(&k.parts) == id) else {
        let known: Vec<String> = kept.iter().map(|k| id_of(&k.parts)).collect();
        return Err(format!(
            "no observation '{id}' (learned: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    std::fs::remove_file(&k.path)
        .map_err(|e| format!("cannot remove {}: {e}", k.path.display()))?;
    Ok((k.path.clone(), k.parts.agent.clone()))
}
