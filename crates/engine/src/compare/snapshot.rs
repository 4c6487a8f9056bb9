//! Snapshots: the assembled result of one session at one moment, as
//! versioned JSON written atomically. No API key is ever part of one.

use crate::usage::Tokens;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::assembly::assemble::{BlockResult, FragmentResult, LayerResult};
use crate::assembly::assembled::Assembled;
use crate::assembly::tokens::TokenCounter;
use crate::cache::test_run::TestRunRecord;
use crate::error::Error;
use crate::workspace::settings::Settings;
use crate::{assembly::report, cache::prediction, workspace::store as fsutil};

pub const SCHEMA: u32 = 1;
/// Largest snapshot file read (a 1,000-fragment workspace is a few MiB).
pub const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;
/// What a snapshot may hold before it is parsed: a snapshot of a
/// 1,000-fragment workspace has about 30,000 values; 2,000,000 tiny values
/// are about 200 MB as a tree.
pub const SNAPSHOT_BOUNDS: crate::json_bounds::JsonBounds = crate::json_bounds::JsonBounds {
    max_values: 2_000_000,
    max_depth: 64,
    max_string_bytes: MAX_SNAPSHOT_BYTES as usize,
};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub schema: u32,
    pub created_unix: u64,
    pub workspace: String,
    pub session: String,
    pub model: String,
    pub tokenizer: String,
    pub settings: Settings,
    /// Every input file: relative path → SHA-256.
    pub files: BTreeMap<String, String>,
    pub fragments: Vec<FragmentResult>,
    pub layers: Vec<LayerResult>,
    pub blocks: Vec<BlockResult>,
    pub tools: Vec<Value>,
    pub tools_tokens: Tokens,
    pub total_tokens: Tokens,
    /// The first user message's tokens as the first request sends it (the
    /// session's, else the stand-in): the blocks sent after it (Claude
    /// Code 2.1's system-role message) count it in their prefix.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_message_tokens: Tokens,
    pub report: Value,
    pub prediction: Value,
    /// Test-request results of this session saved in the workspace.
    #[serde(default)]
    pub runs: Vec<TestRunRecord>,
    /// A recorded request (its blocks are the request's positions), not an
    /// assembly.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// The agent whose own parts the assembly holds, and what it sends on
    /// a resumed session for a memory file changed since it began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_reminder: Option<crate::workspace::agents::builtin::Reminder>,
}

fn is_zero(n: &Tokens) -> bool {
    *n == 0
}

/// The first user message of `ins`'s first request, counted as the
/// prediction counts it (each content block on its own).
fn first_message_tokens(ins: &Assembled, counter: &TokenCounter) -> Tokens {
    let first = ins.session().conversation(1);
    first
        .first()
        .filter(|m| m.role == crate::workspace::session::Role::User)
        .map_or(0, |m| {
            m.content
                .iter()
                .map(|b| counter.count(ins.assembly.tokenizer, &b.counted_text()))
                .sum()
        })
}

impl Snapshot {
    /// The snapshot of `ins` at `now` (Unix seconds), carrying `runs` (the
    /// saved test runs of its session): both passed in by the caller, so
    /// taking a snapshot reads neither the clock nor the disk.
    pub fn take(
        ins: &Assembled,
        counter: &TokenCounter,
        now: u64,
        runs: Vec<TestRunRecord>,
    ) -> Snapshot {
        let a = &ins.assembly;
        let mut settings = ins.prepared.settings.clone();
        settings.budget = a.budget;
        let session = ins.session().name.clone();
        Snapshot {
            schema: SCHEMA,
            created_unix: now,
            workspace: ins.workspace.root.display().to_string(),
            session: session.clone(),
            model: a.model.clone(),
            tokenizer: a.tokenizer.as_str().into(),
            settings,
            files: ins.workspace.files.clone(),
            fragments: a.fragments.clone(),
            layers: a.layers.clone(),
            blocks: a.blocks.clone(),
            tools: a.tools.clone(),
            tools_tokens: a.tools_tokens,
            total_tokens: a.total_tokens,
            first_message_tokens: first_message_tokens(ins, counter),
            report: report::to_json(ins),
            prediction: prediction::to_json(&prediction::predict(ins, None, counter)),
            runs,
            recorded: false,
            agent: a.agent.clone(),
            resume_reminder: ins
                .workspace
                .builtin
                .as_ref()
                .and_then(|b| b.resume_reminder.clone()),
        }
    }

    /// Saves under `WORKSPACE/.prompt-inspector/snapshots/` as
    /// `YYYYMMDD-HHMMSS-SESSION.json` (then `-2`, `-3`… when taken): never
    /// overwrites a snapshot, even one written at the same moment by another
    /// process, and never writes through a link out of the workspace.
    pub fn save_new(&self, root: &Path) -> Result<PathBuf, Error> {
        let safe: String = self
            .session
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let dir =
            fsutil::state_dir(root, &["snapshots"]).map_err(|e| Error::file(root.display(), e))?;
        let stem = format!("{}-{safe}", fsutil::stamp(self.created_unix));
        fsutil::write_new(&dir, &stem, "json", &self.to_json())
            .map_err(|e| Error::file(dir.display(), format!("cannot write a snapshot: {e}")))
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// Writes atomically (temp file, then rename): never a half-written file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        fsutil::write_atomic(path, &self.to_json())
    }

    /// Reads a snapshot file: a regular file only (a FIFO or a device is
    /// refused, never waited on), at most [`MAX_SNAPSHOT_BYTES`].
    pub fn load(path: &Path) -> Result<Snapshot, Error> {
        let text = crate::workspace::reader::read_text_file(path, MAX_SNAPSHOT_BYTES)?;
        Snapshot::parse(&text).map_err(|e| match e {
            Error::Invalid { line, reason, .. } => Error::Invalid {
                place: path.display().to_string(),
                line,
                reason,
            },
            e => e,
        })
    }

    /// A snapshot's text read; an error names what is wrong (its place is
    /// empty: the caller names the file).
    pub fn parse(text: &str) -> Result<Snapshot, Error> {
        let bad = |reason: String| Error::invalid("", reason);
        // Measured before it is parsed: a snapshot of tiny values would
        // take tens of times its size as a tree.
        crate::json_bounds::check(text, SNAPSHOT_BOUNDS)
            .map_err(|e| bad(format!("not read: {e}")))?;
        let v: Value = serde_json::from_str(text).map_err(|e| {
            bad(format!(
                "not a snapshot: invalid JSON at line {}: {e}",
                e.line()
            ))
        })?;
        match v.get("schema").and_then(Value::as_u64) {
            Some(s) if s > SCHEMA as u64 => {
                return Err(bad(format!(
                    "snapshot schema {s} is newer than this prompt-inspector understands (schema {SCHEMA}): update prompt-inspector"
                )));
            }
            Some(_) => {}
            None => return Err(bad("not a snapshot: no \"schema\" field".into())),
        }
        serde_json::from_value(v).map_err(|e| bad(format!("corrupt snapshot: {e}")))
    }

    /// A short hash of what the prompt is (blocks and statuses), to tell
    /// whether the live state changed since this snapshot.
    pub fn content_key(blocks: &[BlockResult], fragments: &[FragmentResult]) -> u64 {
        let mut h = 0u64;
        for b in blocks {
            h = h.rotate_left(9) ^ xxhash_rust::xxh3::xxh3_64(b.text.as_bytes());
        }
        for f in fragments {
            h = h.rotate_left(3)
                ^ xxhash_rust::xxh3::xxh3_64(
                    format!("{}{:?}{}", f.id, f.status, f.kept_tokens).as_bytes(),
                );
        }
        h
    }
}
