//! The guarded reader: the only way the engine reads a file. A workspace
//! file is opened once and the opened handle is checked (a regular file,
//! inside the workspace, at most 8 MiB, UTF-8); a FIFO or device never
//! blocks the open. Every refusal is one diagnostic and loading goes on.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

pub use super::refused::Refused;

use sha2::{Digest, Sha256};

use crate::workspace::diag::Diagnostic;

/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Opens `path` for reading without following it into a hang: the open does
/// not block (a FIFO cannot stall it), and the opened handle must be a
/// regular file of at most `max` bytes. Returns the handle and its size.
pub fn open_regular(path: &Path, max: u64) -> Result<(File, u64), Refused> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY);
    }
    let f = opts
        .open(path)
        .map_err(|e| Refused::Unopenable(e.to_string()))?;
    let meta = f
        .metadata()
        .map_err(|e| Refused::Unreadable(e.to_string()))?;
    if meta.is_dir() {
        return Err(Refused::Folder);
    }
    if !meta.is_file() {
        return Err(Refused::NotRegular);
    }
    if meta.len() > max {
        return Err(Refused::TooLarge {
            bytes: meta.len(),
            max,
        });
    }
    Ok((f, meta.len()))
}

/// Reads at most `max` bytes from an opened file (a file that grows while
/// read is cut there and refused).
pub fn read_capped(f: &mut File, max: u64) -> Result<Vec<u8>, Refused> {
    let mut bytes = Vec::new();
    f.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refused::Unreadable(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(Refused::Grew { max });
    }
    Ok(bytes)
}

/// Reads a file named on the command line or in the environment (a
/// snapshot, a model table): a regular file only, at most `max` bytes, UTF-8.
pub fn read_text_file(path: &Path, max: u64) -> Result<String, crate::error::Error> {
    use crate::error::Error;
    let shown = path.display();
    let (mut f, _) = open_regular(path, max).map_err(|e| Error::file(&shown, e))?;
    let bytes = read_capped(&mut f, max).map_err(|e| Error::file(&shown, e))?;
    let text = String::from_utf8(bytes).map_err(|_| Error::file(&shown, "not valid UTF-8"))?;
    Ok(normalize_text(text))
}

/// The size of the file at `path` (the link itself, never followed), 0
/// when there is none: for a progress bar's total, never to bound a read.
pub fn size_of(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.len())
}

/// Where `path` really is (links followed), when it exists: to tell one
/// file reached by two roads, never to read it.
pub fn canonical_path(path: &Path) -> Option<PathBuf> {
    path.canonicalize().ok()
}

/// Whether `path` is a regular file (a link followed, as the agent that
/// reads it follows it): to say a file is there, never to read it.
pub fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Whether `path` is a folder (a link to one followed); nothing opened.
pub fn is_folder(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// When the file at `path` (the link itself, never followed) was last
/// modified, in Unix seconds: to order files, never to bound a read.
pub fn modified_of(path: &Path) -> Option<f64> {
    let t = std::fs::symlink_metadata(path).ok()?.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
}

/// The files of a folder named outside any workspace (a profiles folder)
/// whose extension is one of `exts`, sorted. Each is then read with
/// [`read_text_file`] (regular files only, size-capped).
pub fn files_with_extension(
    dir: &Path,
    exts: &[&str],
) -> Result<Vec<PathBuf>, crate::error::Error> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| crate::error::Error::file(dir.display(), e.to_string()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// The files ending in `.ext` under a folder named outside any workspace
/// (a transcripts folder), at most `max_depth` folders down and at most
/// `max_files` of them, sorted; links under it are not followed (a link to
/// a folder is not entered, a link to a file is not listed: each file is then
/// opened with [`open_regular`], which checks the handle). Folders that
/// cannot be listed are passed over. The flag says whether files were left
/// out at `max_files`.
pub fn files_under(
    dir: &Path,
    ext: &str,
    max_depth: usize,
    max_files: usize,
) -> Result<(Vec<PathBuf>, bool), crate::error::Error> {
    use crate::error::Error;
    let meta = std::fs::metadata(dir)
        .map_err(|e| Error::file(dir.display(), Refused::Unopenable(e.to_string())))?;
    if !meta.is_dir() {
        return Err(Error::file(dir.display(), "not a folder"));
    }
    let (mut out, mut more) = (Vec::new(), false);
    // Entries looked at, at most ten per file wanted.
    let mut budget = max_files.saturating_mul(10);
    let mut todo = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            if budget == 0 {
                more = true;
                break;
            }
            budget -= 1;
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() && depth < max_depth {
                todo.push((p, depth + 1));
            } else if t.is_file() && p.extension().is_some_and(|x| x == ext) {
                if out.len() == max_files {
                    more = true;
                    continue;
                }
                out.push(p);
            }
        }
    }
    out.sort();
    Ok((out, more))
}

/// Strips a UTF-8 byte order mark and turns CRLF (and lone CR) line endings
/// into LF, so no `\r` reaches a prompt, a frontmatter value or a parser.
pub fn normalize_text(text: String) -> String {
    let text = match text.strip_prefix('\u{feff}') {
        Some(t) => t.to_string(),
        None => text,
    };
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    }
}

/// Where an opened file really is (Linux: `/proc/self/fd`), to check the
/// handle itself rather than a path that may have changed since.
pub fn real_path(f: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = f;
        None
    }
}

/// Reads files of one workspace, refusing anything outside it.
pub struct Reader {
    root: PathBuf,
    pub files: BTreeMap<String, String>,
    /// Each file read's modification time (Unix seconds), from its opened
    /// handle.
    pub modified: BTreeMap<String, f64>,
    pub diags: Vec<Diagnostic>,
    /// Files the agent itself reads outside the workspace (the user's own
    /// memory and its imports), read through their own guarded reader and
    /// named as the agent names them (`~/.claude/CLAUDE.md`).
    pub agent_files: Vec<AgentFile>,
}

/// A file the agent reads outside the workspace, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFile {
    /// Its path as shown (`~/.claude/style.md`).
    pub shown: String,
    pub text: String,
    /// When it was last modified (Unix seconds), when known.
    pub modified: Option<f64>,
}

/// Why a relative path may not be used.
pub fn check_relative(rel: &str) -> Result<PathBuf, Refused> {
    let p = Path::new(rel);
    if rel.is_empty() {
        return Err(Refused::EmptyPath);
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(Refused::Leaves(rel.into()));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(Refused::Absolute(rel.into()));
            }
        }
    }
    Ok(out)
}

fn rel_string(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl Reader {
    pub fn new(root: &Path) -> Result<Reader, crate::error::Error> {
        use crate::error::Error;
        let shown = root.display();
        let root = root
            .canonicalize()
            .map_err(|e| Error::file(shown, format!("cannot open the workspace: {e}")))?;
        if !root.is_dir() {
            return Err(Error::file(root.display(), "not a folder"));
        }
        std::fs::read_dir(&root)
            .map_err(|e| Error::file(root.display(), format!("cannot read the workspace: {e}")))?;
        Ok(Reader {
            root,
            files: BTreeMap::new(),
            modified: BTreeMap::new(),
            diags: Vec::new(),
            agent_files: Vec::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `rel` to a path inside the workspace, or says why not. Links
    /// are followed only to check where they lead; a target outside is never
    /// opened.
    fn resolve(&self, rel: &str) -> Result<PathBuf, Refused> {
        let clean = check_relative(rel)?;
        let full = self.root.join(&clean);
        match full.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(Refused::Outside),
            Err(e) if full.symlink_metadata().is_ok() => Err(Refused::BrokenLink(e.to_string())),
            Err(e) => Err(Refused::Unopenable(e.to_string())),
        }
    }

    /// Where a workspace path really is (links resolved), when it is
    /// inside the workspace: one file reached by two names is one file.
    pub fn canonical(&self, rel: &str) -> Option<PathBuf> {
        self.resolve(rel).ok()
    }

    /// Whether a relative path exists inside the workspace (no diagnostics).
    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).symlink_metadata().is_ok()
    }

    /// Reads a workspace file as UTF-8 text. Every refusal is one diagnostic
    /// on `rel` itself.
    pub fn read(&mut self, rel: &str) -> Option<String> {
        match self.read_checked(rel) {
            Ok(text) => Some(text),
            Err((line, msg)) => {
                self.refusal(Diagnostic::error(rel, line, msg));
                None
            }
        }
    }

    /// This reader of the agent's own folder (`~/.claude/`) handed over:
    /// every file it read but `skip` (which the caller keeps itself), and
    /// what it refused there, each named `{prefix}{rel}` as the agent's
    /// files are named (`~/.claude/style.md`).
    pub fn into_agent_files(
        mut self,
        skip: &str,
        prefix: &str,
    ) -> (Vec<AgentFile>, Vec<Diagnostic>) {
        let read: Vec<String> = self.files.keys().filter(|k| *k != skip).cloned().collect();
        let mut files = Vec::new();
        for rel in read {
            if let Some(text) = self.read(&rel) {
                let modified = self.modified.get(&rel).copied();
                let shown = format!("{prefix}{rel}");
                files.push(AgentFile {
                    shown,
                    text,
                    modified,
                });
            }
        }
        let mut diags = std::mem::take(&mut self.diags);
        for d in &mut diags {
            d.file = format!("{prefix}{}", d.file);
        }
        (files, diags)
    }

    /// Like [`Reader::read`], but the error is returned for the caller to
    /// report (for paths named inside another file).
    ///
    /// The file is opened once and the opened handle is checked (a regular
    /// file, inside the workspace, at most 8 MiB), so a file swapped for a
    /// link between a check and the read cannot leak what the link points
    /// to. A UTF-8 byte order mark is stripped and line endings become LF.
    pub fn read_checked(&mut self, rel: &str) -> Result<String, (Option<usize>, Refused)> {
        let (mut file, _) = self.open(rel, MAX_FILE_BYTES).map_err(|m| (None, m))?;
        let bytes = read_capped(&mut file, MAX_FILE_BYTES).map_err(|m| (None, m))?;
        if memchr::memchr(0, &bytes).is_some() {
            return Err((None, Refused::Binary));
        }
        let hash = hex(&Sha256::digest(&bytes));
        // Validated with SIMD (a big fragment file of CJK text took std's
        // validation several milliseconds); std names where it breaks.
        let text = if simdutf8::basic::from_utf8(&bytes).is_ok() {
            // SAFETY: `bytes` was just validated as UTF-8.
            unsafe { String::from_utf8_unchecked(bytes) }
        } else {
            match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    let valid = e.utf8_error().valid_up_to();
                    let bytes = e.into_bytes();
                    let line = bytes[..valid].iter().filter(|b| **b == b'\n').count() + 1;
                    return Err((Some(line), Refused::NotUtf8 { byte: valid }));
                }
            }
        };
        self.files.insert(rel_string(Path::new(rel)), hash);
        Ok(normalize_text(text))
    }

    /// Opens a workspace file of at most `max` bytes, checked on the opened
    /// handle (a regular file inside the workspace), and notes when it was
    /// last modified.
    fn open(&mut self, rel: &str, max: u64) -> Result<(File, u64), Refused> {
        // A cheap first check so that an obvious link out is never opened.
        let path = self.resolve(rel)?;
        let (file, size) = open_regular(&path, max)?;
        if let Some(real) = real_path(&file)
            && !real.starts_with(&self.root)
        {
            return Err(Refused::Outside);
        }
        if let Some(t) = file
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        {
            self.modified
                .insert(rel_string(Path::new(rel)), t.as_secs_f64());
        }
        Ok((file, size))
    }

    /// The first `max` bytes of a workspace file of any size, as they are
    /// (not decoded: an agent that reads a file's head decodes it its own
    /// way), and the file's size; a refusal is one diagnostic on `rel`.
    /// For an agent that reads only a file's head (Codex reads the first
    /// `project_doc_max_bytes` of an AGENTS.md, however large).
    pub fn read_head(&mut self, rel: &str, max: u64) -> Option<(Vec<u8>, u64)> {
        let read = self.open(rel, u64::MAX).and_then(|(file, size)| {
            let mut bytes = Vec::new();
            file.take(max)
                .read_to_end(&mut bytes)
                .map_err(|e| Refused::Unreadable(e.to_string()))?;
            Ok((bytes, size))
        });
        match read {
            Ok((bytes, size)) => {
                self.files
                    .insert(rel_string(Path::new(rel)), hex(&Sha256::digest(&bytes)));
                Some((bytes, size))
            }
            Err(why) => {
                self.refusal(Diagnostic::error(rel, None, why));
                None
            }
        }
    }

    /// A refusal, said once however many reads met it.
    fn refusal(&mut self, d: Diagnostic) {
        if !self.diags.contains(&d) {
            self.diags.push(d);
        }
    }

    /// Sorted names of the entries of a workspace folder (empty when absent),
    /// each with whether it is a folder; links followed where they stay
    /// inside. A folder that leads outside the workspace is refused with a
    /// diagnostic. Hidden entries (`.name`) are passed over.
    pub fn list(&mut self, rel: &str) -> Vec<(String, bool)> {
        self.list_entries(rel, false, true)
    }

    /// [`Reader::list`]'s entries in the order the file system lists them,
    /// not sorted: the order an agent that reads a folder as listed takes
    /// its files in (Claude Code's rules).
    pub fn list_as_listed(&mut self, rel: &str) -> Vec<(String, bool)> {
        self.list_entries(rel, false, false)
    }

    /// The entries of a folder as an agent that draws the folder's tree
    /// lists them (Gemini CLI): hidden ones too, links passed over (neither
    /// a file nor a folder to it), names only.
    pub fn list_for_tree(&mut self, rel: &str) -> Vec<(String, bool)> {
        self.list_entries(rel, true, true)
    }

    /// `tree`: [`Reader::list_for_tree`]'s listing, else [`Reader::list`]'s;
    /// sorted by name, or as listed.
    fn list_entries(&mut self, rel: &str, tree: bool, sorted: bool) -> Vec<(String, bool)> {
        let full = self.root.join(rel);
        if full.symlink_metadata().is_err() {
            return Vec::new();
        }
        let dir = match self.resolve(rel) {
            Ok(d) => d,
            Err(m) => {
                self.diags.push(Diagnostic::error(rel, None, m));
                return Vec::new();
            }
        };
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) => {
                // A file where a folder is looked for is said as such.
                let why = if dir.is_file() {
                    "a file where a folder is looked for: nothing in it is read".to_string()
                } else {
                    format!("folder cannot be read: {e}")
                };
                self.diags.push(Diagnostic::error(rel, None, why));
                return Vec::new();
            }
        };
        let mut out: Vec<(String, bool)> = Vec::new();
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !tree {
                continue;
            }
            // The root's entries by their own names (`SOUL.md`, not
            // `./SOUL.md`), as every other read names them.
            let entry_rel = match rel {
                "" | "." => name.clone(),
                _ => format!("{rel}/{name}"),
            };
            let Ok(kind) = e.file_type() else { continue };
            if tree && !(kind.is_file() || kind.is_dir()) {
                continue;
            }
            if kind.is_symlink() {
                match self.resolve(&entry_rel) {
                    Err(m) => {
                        self.refusal(Diagnostic::error(entry_rel, None, m));
                        continue;
                    }
                    // A link to this folder or one above it: followed, a
                    // walk would go round it (`loop/up` → `..`).
                    Ok(to) if dir.starts_with(&to) => {
                        self.refusal(Diagnostic::warning(
                            entry_rel,
                            None,
                            "a link to a folder that holds it (a loop): not followed",
                        ));
                        continue;
                    }
                    Ok(_) => {}
                }
            }
            out.push((name, e.path().is_dir()));
        }
        if sorted {
            out.sort();
        }
        out
    }
}

#[path = "reader_above.rs"]
mod above;
pub use above::{Ceiling, GitRoot};

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_normalized() {
        assert_eq!(normalize_text("\u{feff}a\r\nb\rc".into()), "a\nb\nc");
    }
}
