//! The engine's only writer: the app's own files under
//! `WORKSPACE/.prompt-inspector/` (snapshots, runs, calibration), written
//! atomically (a temporary file in the same folder, flushed, then renamed
//! or linked into place), so a reader never sees a half-written file, two
//! writers never share a name, and a write never follows a link out of the
//! workspace. Reading them goes through the guarded [`super::reader`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder under a workspace where the app keeps its own files.
pub const STATE_DIR: &str = ".prompt-inspector";

/// The app's state folder `ROOT/.prompt-inspector/SUB…`, created when
/// missing. Every component must be a real folder inside the workspace: a
/// symbolic link (even one pointing inside) is refused, so a write never
/// leaves the workspace.
pub fn state_dir(root: &Path, sub: &[&str]) -> Result<PathBuf, String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("cannot open workspace {}: {e}", root.display()))?;
    let mut p = root.clone();
    let mut shown = String::new();
    for c in std::iter::once(STATE_DIR).chain(sub.iter().copied()) {
        p.push(c);
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(c);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "{shown} is a symbolic link: refused (the app writes only into real folders inside the workspace)"
                ));
            }
            Ok(_) => return Err(format!("{shown} exists and is not a folder: refused")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&p).map_err(|e| format!("cannot create {shown}: {e}"))?;
            }
            Err(e) => return Err(format!("{shown}: {e}")),
        }
    }
    Ok(p)
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to a new temporary file in `dir` (create-new, never
/// through a link), flushed to disk. Removes temporary files left by
/// processes that died mid-write.
fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    clean_stale_temps(dir);
    loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        let mut f = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
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

/// Removes `.NAME.tmp-PID-N` files whose writer (PID) no longer runs.
fn clean_stale_temps(dir: &Path) {
    if !Path::new("/proc/self").exists() {
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
        let pid = rest.1.split('-').next().unwrap_or("");
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let alive = Path::new("/proc").join(pid).exists();
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
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
    let tmp = write_temp(&dir, &name, bytes)?;
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
    let tmp = write_temp(dir, &format!("{stem}.{ext}"), bytes)?;
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
    fn new_files_never_overwrite_and_stale_temps_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        let a = write_new(dir.path(), "s", "json", b"1").unwrap();
        let b = write_new(dir.path(), "s", "json", b"2").unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("s-2.json"));
        assert_eq!(std::fs::read(&a).unwrap(), b"1");
        // A temp file of a dead writer (no such PID) is removed on the next write.
        let stale = dir.path().join(".x.json.tmp-999999999-0");
        std::fs::write(&stale, b"half").unwrap();
        write_new(dir.path(), "t", "json", b"3").unwrap();
        assert!(!stale.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
