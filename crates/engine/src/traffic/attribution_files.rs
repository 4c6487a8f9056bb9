//! The files of a workspace a request is traced back to, read again
//! through the guarded reader within the tracer's caps (a file, and all of
//! them), those past the caps named.

use crate::clean;

/// A workspace file's text, as read.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Workspace-relative path.
    pub path: String,
    pub text: String,
    /// When it was last modified (Unix seconds), when known.
    pub modified: Option<f64>,
}

/// Most files of a workspace traced.
pub const MAX_FILES: usize = 5_000;
/// Largest file traced (bytes): a memory file, a skill or a rule is a few
/// KB; a bigger one is named as not traced.
pub const MAX_TRACED_FILE_BYTES: usize = 1 << 20;
/// Bytes of all the files traced at most; past it the rest are named as not
/// traced.
pub const MAX_TRACED_BYTES: usize = 8 << 20;

/// The files a request is traced back to, and those left out by the caps
/// (each with why).
#[derive(Debug, Clone, Default)]
pub struct Traced {
    pub files: Vec<SourceFile>,
    pub not_traced: Vec<String>,
}

/// The files of a workspace a request is traced back to: every file its
/// fragments come from as its profile reads the folder, and every Markdown
/// file of the folder (six folders down at most, links not followed,
/// `.git` and `node_modules` aside: an agent may read one its profile does
/// not know, like a nested AGENTS.md; a file the agent leaves out is listed
/// as not sent), read again whole through the guarded reader; sorted.
/// Within [`MAX_TRACED_FILE_BYTES`] a file and [`MAX_TRACED_BYTES`] in all:
/// the files past them are named in [`Traced::not_traced`].
pub fn workspace_files(ws: &crate::workspace::Workspace) -> Traced {
    let Ok(mut reader) = crate::workspace::reader::Reader::new(&ws.root) else {
        return Traced::default();
    };
    let mut paths: Vec<String> = ws
        .fragments
        .iter()
        .map(|f| f.source.clone())
        .filter(|s| !s.starts_with('~') && !s.starts_with('/') && !s.is_empty())
        .collect();
    let root = reader.root().to_path_buf();
    if let Ok((found, _)) = crate::workspace::reader::files_under(&root, "md", 6, MAX_FILES) {
        paths.extend(found.iter().filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.to_str()?.to_string();
            let skipped = rel.split('/').any(|c| c == ".git" || c == "node_modules");
            (!skipped).then_some(rel)
        }));
    }
    paths.sort();
    paths.dedup();
    paths.truncate(MAX_FILES);
    let mut out = Traced::default();
    let mut total = 0usize;
    for path in paths {
        let Some(text) = reader.read(&path) else {
            continue;
        };
        let modified = reader.modified.get(&path).copied();
        if text.len() > MAX_TRACED_FILE_BYTES {
            out.not_traced.push(format!(
                "{}: {} bytes, over the {} MiB a file traced may have",
                clean(&path, 200),
                crate::thousands(text.len()),
                MAX_TRACED_FILE_BYTES >> 20
            ));
            continue;
        }
        if total + text.len() > MAX_TRACED_BYTES {
            out.not_traced.push(format!(
                "{}: the files traced already hold {} MiB, the most traced at once",
                clean(&path, 200),
                MAX_TRACED_BYTES >> 20
            ));
            continue;
        }
        total += text.len();
        out.files.push(SourceFile {
            path,
            text,
            modified,
        });
    }
    // The files the agent read outside the workspace (its user memory),
    // named as it names them.
    for f in &ws.agent_files {
        if f.text.len() <= MAX_TRACED_FILE_BYTES && total + f.text.len() <= MAX_TRACED_BYTES {
            total += f.text.len();
            out.files.push(SourceFile {
                path: f.shown.clone(),
                text: f.text.clone(),
                modified: f.modified,
            });
        }
    }
    out
}
