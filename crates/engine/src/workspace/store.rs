//! The engine's only writer: the app's own files under
//! `WORKSPACE/.prompt-inspector/` (snapshots, runs, calibration), written
//! atomically (a temporary file in the same folder, flushed, then renamed
//! or linked into place), so a reader never sees a half-written file, two
//! writers never share a name, and a write never follows a link out of the
//! workspace. Reading them goes through the guarded [`super::reader`].

use std::io::Write;

use crate::error::Error;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder under a workspace where the app keeps its own files.
pub const STATE_DIR: &str = ".prompt-inspector";

/// The app's state folder `ROOT/.prompt-inspector/SUB…`, created when
/// missing. Every component must be a real folder inside the workspace: a
/// symbolic link (even one pointing inside) is refused, so a write never
/// leaves the workspace.
pub fn state_dir(root: &Path, sub: &[&str]) -> Result<PathBuf, Error> {
    let root = root
        .canonicalize()
        .map_err(|e| Error::file(root.display(), format!("cannot open the workspace: {e}")))?;
    let mut p = root.clone();
    for c in std::iter::once(STATE_DIR).chain(sub.iter().copied()) {
        p.push(c);
        let at = || p.display().to_string();
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::file(
                    at(),
                    "a symbolic link: refused (the app writes only into real folders inside the workspace)",
                ));
            }
            Ok(_) => return Err(Error::file(at(), "exists and is not a folder: refused")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&p)
                    .map_err(|e| Error::file(at(), format!("cannot be created: {e}")))?;
            }
            Err(e) => return Err(Error::file(at(), e.to_string())),
        }
    }
    Ok(p)
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A random 64-bit number (from the standard library's per-process random
/// hash keys, seeded by the operating system), so that no name this writer
/// creates can be predicted and planted beforehand.
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(TEMP_COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

/// Options that create a new file and nothing else: `O_CREAT|O_EXCL` (an
/// existing file, a planted link or FIFO included, is an error, never
/// opened), `O_NOFOLLOW`, readable by its owner only.
fn create_exclusive() -> std::fs::OpenOptions {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NOCTTY);
    }
    o
}

/// Writes `bytes` to a new temporary file in `dir` (created exclusively
/// under a name with a random part, never through a link), flushed to disk.
/// `clean` also removes temporary files left in `dir` by processes of this
/// app that died mid-write (only in the app's own state folder: elsewhere
/// nothing is deleted that this writer did not create).
fn write_temp(dir: &Path, name: &str, bytes: &[u8], clean: bool) -> std::io::Result<PathBuf> {
    if clean {
        clean_stale_temps(dir);
    }
    loop {
        let tmp = dir.join(format!(
            ".{name}.tmp-{}-{:016x}",
            std::process::id(),
            random_u64()
        ));
        let mut f = match create_exclusive().open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = f.write_all(bytes).and_then(|_| f.sync_all());
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        return Ok(tmp);
    }
}

/// Whether `dir` is (inside) the app's state folder.
fn in_state_dir(dir: &Path) -> bool {
    dir.components()
        .any(|c| c.as_os_str() == std::ffi::OsStr::new(STATE_DIR))
}

/// Removes `.NAME.tmp-PID-HEX` files (a random part, or an earlier
/// version's counter) whose writer (PID) no longer runs.
fn clean_stale_temps(dir: &Path) {
    if !Path::new("/proc/self").exists() || !in_state_dir(dir) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) else {
            continue;
        };
        let Some((pid, hex)) = rest.1.split_once('-') else {
            continue;
        };
        if pid.is_empty()
            || !pid.bytes().all(|b| b.is_ascii_digit())
            || hex.is_empty()
            || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            continue;
        }
        let alive = Path::new("/proc").join(pid).exists();
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Opens a capture to append to. A new one is created exclusively (never
/// through a planted link, 0600); an existing one is appended only if it is
/// a regular file of this user, checked on the opened handle (the open does
/// not follow a link and does not block on a FIFO). `Err` is one line.
pub fn open_append(path: &Path) -> Result<std::fs::File, Error> {
    let shown = path.display();
    let refused = |why: String| Error::file(&shown, why);
    // Read too: a writer looks at the file's last byte before each line, so
    // that a line torn by a crash never glues onto the next one.
    let mut o = std::fs::OpenOptions::new();
    o.read(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY);
    }
    let f = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut o = create_exclusive();
            o.read(true).append(true);
            return o
                .open(path)
                .map_err(|e| refused(format!("cannot be created: {e}")));
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refused(
                "a symbolic link: refused (a capture is written only to a regular file)".into(),
            ));
        }
        Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
            return Err(refused("a folder, not a file: refused".into()));
        }
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
            return Err(refused(
                "a pipe or socket, not a regular file: refused".into(),
            ));
        }
        Err(e) => return Err(refused(format!("cannot be opened: {e}"))),
    };
    let meta = f.metadata().map_err(|e| refused(e.to_string()))?;
    if !meta.is_file() {
        return Err(refused(
            "not a regular file (a folder, device, socket or pipe): refused".into(),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(refused(format!(
                "belongs to another user (uid {}): refused",
                meta.uid()
            )));
        }
    }
    Ok(f)
}

/// Whether an appended line would start a line of its own: the file is
/// empty or ends in a newline. A line torn by a crash (a writer killed in
/// the middle of its write) does not; the next line then starts with a
/// newline, so the torn one stays alone and readers skip it (said), instead
/// of gluing it onto a whole one. Read on the open handle (at its end).
pub fn ends_a_line(f: &std::fs::File) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return true;
    };
    if len == 0 {
        return true;
    }
    let mut last = [0u8; 1];
    // A file opened for appending only cannot be read: taken as whole.
    !matches!(f.read_at(&mut last, len - 1), Ok(1) if last[0] != b'\n')
}

/// A new capture under a name nobody can predict
/// (`capture-YYYYMMDD-HHMMSS-RANDOM.jsonl`) in `dir`, created exclusively.
pub fn create_capture(dir: &Path, now: u64) -> Result<(std::fs::File, PathBuf), Error> {
    loop {
        let p = dir.join(format!(
            "capture-{}-{:08x}.jsonl",
            stamp(now),
            random_u64() as u32
        ));
        let mut o = create_exclusive();
        o.append(true);
        match o.open(&p) {
            Ok(f) => return Ok((f, p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::file(p.display(), format!("cannot be created: {e}"))),
        }
    }
}

fn parent_and_name(path: &Path) -> (PathBuf, String) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    (dir, name)
}

/// Writes `bytes` to `path` atomically (replacing it). `fail_after_temp`
/// simulates a crash after the temporary file is written (for tests): the
/// target is untouched.
pub fn write_atomic_with(path: &Path, bytes: &[u8], fail_after_temp: bool) -> std::io::Result<()> {
    let (dir, name) = parent_and_name(path);
    std::fs::create_dir_all(&dir)?;
    let tmp = write_temp(&dir, &name, bytes, in_state_dir(&dir))?;
    if fail_after_temp {
        let _ = std::fs::remove_file(&tmp);
        return Err(std::io::Error::other(
            "simulated failure after the temporary file was written",
        ));
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, bytes, false)
}

/// Writes a new file `dir/STEM.EXT` atomically without ever replacing one:
/// the complete temporary file is linked in under the first free name
/// (`STEM.EXT`, `STEM-2.EXT`, `STEM-3.EXT`…), so concurrent writers never
/// share or overwrite a file. Returns the path written.
pub fn write_new(dir: &Path, stem: &str, ext: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let tmp = write_temp(dir, &format!("{stem}.{ext}"), bytes, in_state_dir(dir))?;
    let mut n = 1u32;
    let result = loop {
        let name = if n == 1 {
            format!("{stem}.{ext}")
        } else {
            format!("{stem}-{n}.{ext}")
        };
        let target = dir.join(name);
        match std::fs::hard_link(&tmp, &target) {
            Ok(()) => break Ok(target),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
            Err(e) => break Err(e),
        }
    };
    let _ = std::fs::remove_file(&tmp);
    result
}

/// Files with extension `ext` in the state folder `sub` (e.g. the
/// snapshots), newest first by modification time. Listed through the
/// guarded reader: a folder that leads out of the workspace, and links in
/// it, are not listed.
pub fn list_files(root: &Path, sub: &str, ext: &str) -> Vec<PathBuf> {
    let Ok(mut r) = super::reader::Reader::new(root) else {
        return Vec::new();
    };
    let rel = format!("{STATE_DIR}/{sub}");
    let dir = r.root().join(&rel);
    let suffix = format!(".{ext}");
    let mut v: Vec<(std::time::SystemTime, PathBuf)> = r
        .list(&rel)
        .into_iter()
        .filter(|(n, is_dir)| !is_dir && n.ends_with(&suffix))
        .map(|(n, _)| dir.join(n))
        .filter_map(|p| {
            let m = p.symlink_metadata().ok().filter(|m| m.is_file())?;
            Some((m.modified().unwrap_or(std::time::UNIX_EPOCH), p))
        })
        .collect();
    v.sort();
    v.into_iter().rev().map(|(_, p)| p).collect()
}

/// `YYYYMMDD-HHMMSS` (UTC) of a Unix time, for readable file names.
pub fn stamp(unix: u64) -> String {
    let days = (unix / 86400) as i64;
    let secs = unix % 86400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_and_atomic_writes() {
        assert_eq!(stamp(0), "19700101-000000");
        assert_eq!(stamp(1_795_996_800 + 3661), "20261130-010101");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        assert!(write_atomic_with(&p, b"two", true).is_err());
        assert_eq!(
            std::fs::read(&p).unwrap(),
            b"one",
            "the previous content is intact"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn new_files_never_overwrite_and_stale_temps_are_cleaned_only_in_the_state_folder() {
        let ws = tempfile::tempdir().unwrap();
        let dir = state_dir(ws.path(), &["snapshots"]).unwrap();
        let a = write_new(&dir, "s", "json", b"1").unwrap();
        let b = write_new(&dir, "s", "json", b"2").unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("s-2.json"));
        assert_eq!(std::fs::read(&a).unwrap(), b"1");
        // A temp file of a dead writer (no such PID) is removed on the next write.
        let stale = dir.join(".x.json.tmp-999999999-00000000deadbeef");
        std::fs::write(&stale, b"half").unwrap();
        write_new(&dir, "t", "json", b"3").unwrap();
        assert!(!stale.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
        // Outside the state folder nothing is deleted that was not created.
        let other = tempfile::tempdir().unwrap();
        let planted = other.path().join(".s.yaml.tmp-999999999-00000000deadbeef");
        std::fs::write(&planted, b"mine").unwrap();
        write_atomic(&other.path().join("s.yaml"), b"x").unwrap();
        assert_eq!(std::fs::read(&planted).unwrap(), b"mine");
    }

    #[test]
    fn captures_are_created_exclusively_and_appended_only_to_regular_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (_, p) = create_capture(dir.path(), 0).unwrap();
        let (_, q) = create_capture(dir.path(), 0).unwrap();
        assert_ne!(p, q, "a random part in every name");
        assert_eq!(p.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        assert!(open_append(&p).is_ok());
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(
            open_append(&link)
                .unwrap_err()
                .to_string()
                .contains("symbolic link")
        );
        let fifo = dir.path().join("fifo.jsonl");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(
            open_append(&fifo)
                .unwrap_err()
                .to_string()
                .contains("refused")
        );
        assert!(
            open_append(dir.path())
                .unwrap_err()
                .to_string()
                .contains("refused")
        );
        let new = dir.path().join("new.jsonl");
        open_append(&new).unwrap();
        assert_eq!(new.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }
}
