//! OpenCode's session database (`~/.local/share/opencode/opencode.db`, a
//! file the agent itself writes), read here at the edge for the engine,
//! which reads no database: opened read-only (SQLite's own locking, so a
//! running OpenCode's write-ahead log is read too), a regular file checked
//! on the opened handle, bounded (sessions, messages and each message's
//! size), its rows handed over as [`OpenCodeSession`]s. Every road that
//! reads a capture or a transcript by its path goes through
//! [`read_traffic`] or [`read_exchanges`], so that `traffic`, its `--diff`
//! and `--against`, `run` and the window's Traffic tab read the database
//! as they read a file of JSON lines.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

use crate::engine::error::Error;
use crate::engine::traffic::opencode_session::{OpenCodeMessage, OpenCodeSession};
use crate::engine::traffic::{self, Exchange, Progress, Skipped, Source, Traffic};
use crate::engine::{ModelTable, TokenCounter};

/// A SQLite database's first bytes.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
/// Sessions read at most (the newest).
const MAX_SESSIONS: usize = 10_000;
/// Messages read at most (the newest).
const MAX_MESSAGES: usize = 200_000;
/// A message's `data` read at most, in bytes (OpenCode keeps the parts
/// apart: a message is its role, model, tokens and times).
const MAX_MESSAGE_BYTES: i64 = 1 << 20;

/// Whether `path` is a regular file that starts as a SQLite database.
pub fn is_database(path: &Path) -> bool {
    // Opened without blocking and checked on the handle: a FIFO named
    // here is refused by the reader that follows, never waited on.
    let Ok((mut f, _)) = crate::engine::workspace::reader::open_regular(path, u64::MAX) else {
        return false;
    };
    let mut head = [0u8; 16];
    f.read_exact(&mut head).is_ok() && &head == MAGIC
}

/// OpenCode's sessions, each with its messages, oldest first. Errors name
/// the file and say what is missing.
pub fn read(path: &Path) -> Result<Vec<OpenCodeSession>, Error> {
    let name = path.display().to_string();
    let file = |reason: String| Error::File {
        path: name.clone(),
        reason,
    };
    // A regular file, not a link to one: checked on the opened handle,
    // then the database opened at the same path is that file.
    let (opened, _) = crate::engine::workspace::reader::open_regular(path, u64::MAX)
        .map_err(|e| file(e.to_string()))?;
    let link = std::fs::symlink_metadata(path).map_err(|e| file(e.to_string()))?;
    if link.file_type().is_symlink() {
        return Err(file("not a regular file".into()));
    }
    use rusqlite::OpenFlags;
    let db = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| file(e.to_string()))?;
    same_file(&opened, path).map_err(file)?;
    let not_opencode = |e: rusqlite::Error| {
        Error::invalid(
            name.clone(),
            format!(
                "not an OpenCode session database ({e}): OpenCode 1.x keeps its sessions in ~/.local/share/opencode/opencode.db"
            ),
        )
    };
    let mut sessions = query_sessions(&db).map_err(not_opencode)?;
    let messages = query_messages(&db).map_err(not_opencode)?;
    for (session, m) in messages {
        if let Some(s) = sessions.iter_mut().find(|s| s.id == session) {
            s.messages.push(m);
        }
    }
    Ok(sessions)
}

/// Whether the file at `path` is still the one opened (not replaced).
fn same_file(opened: &std::fs::File, path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let (a, b) = (
        opened.metadata().map_err(|e| e.to_string())?,
        std::fs::symlink_metadata(path).map_err(|e| e.to_string())?,
    );
    if (a.dev(), a.ino()) == (b.dev(), b.ino()) {
        Ok(())
    } else {
        Err("replaced while it was opened".into())
    }
}

fn query_sessions(db: &rusqlite::Connection) -> rusqlite::Result<Vec<OpenCodeSession>> {
    let mut q = db.prepare(
        "select id, parent_id, version from (select * from session order by time_created desc limit ?1) order by time_created",
    )?;
    let rows = q.query_map([MAX_SESSIONS as i64], |r| {
        Ok(OpenCodeSession {
            id: r.get(0)?,
            parent_id: r.get(1)?,
            version: r.get(2)?,
            messages: Vec::new(),
        })
    })?;
    rows.collect()
}

fn query_messages(db: &rusqlite::Connection) -> rusqlite::Result<Vec<(String, OpenCodeMessage)>> {
    let mut q = db.prepare(
        "select id, session_id, time_created, case when length(data) <= ?2 then data else '' end from (select * from message order by time_created desc limit ?1) order by time_created",
    )?;
    let rows = q.query_map([MAX_MESSAGES as i64, MAX_MESSAGE_BYTES], |r| {
        Ok((
            r.get::<_, String>(1)?,
            OpenCodeMessage {
                id: r.get(0)?,
                created_ms: r.get(2)?,
                data: r.get(3)?,
            },
        ))
    })?;
    rows.collect()
}

/// A capture, a transcript or OpenCode's database read and analysed (the
/// `traffic` command's road and the Traffic tab's).
pub fn read_traffic(
    path: &Path,
    table: &ModelTable,
    counter: &TokenCounter,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Traffic, Error> {
    if is_database(path) {
        return traffic::read_opencode(&read(path)?, table, counter);
    }
    traffic::read_with(path, table, counter, progress)
}

/// [`traffic::read_file`] (every request with its body), OpenCode's
/// database included.
pub fn read_every_exchange(path: &Path) -> Result<(Source, Vec<Exchange>, Skipped), Error> {
    if is_database(path) {
        return database_exchanges(path);
    }
    traffic::read_file(path)
}

/// The database's sessions as exchanges (the file already known to be one).
fn database_exchanges(path: &Path) -> Result<(Source, Vec<Exchange>, Skipped), Error> {
    let (x, skipped) = traffic::opencode_exchanges(&read(path)?);
    Ok((Source::OpenCode, x, skipped))
}

/// [`traffic::read_file_for`], OpenCode's database included (it records
/// no request bodies: a diff or a trace of one says so).
pub fn read_exchanges(
    path: &Path,
    wanted: &[usize],
) -> Result<(Source, Vec<Exchange>, Skipped), Error> {
    if is_database(path) {
        return database_exchanges(path);
    }
    traffic::read_file_for(path, wanted)
}
