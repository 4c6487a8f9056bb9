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
    let learned = traffic::read_file_for(capture, &wanted).and_then(|(_, x, _)| {
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
        .tools
        .iter()
        .map(|t| {
            counter.count(
                enc,
                &serde_json::to_string(&t.definition).unwrap_or_default(),
            )
        })
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
