//! A regular file read line by line through the guarded reader's open
//! (a capture, a transcript, a log): one line held at a time, each line's
//! place remembered so that it can be read again through the same handle.

use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::reader::open_regular;
use super::refused::Refused;

/// Reads a file named on the command line line by line (a capture, a log):
/// a regular file only, at most `max` bytes (one line at a time is held).
/// Each line goes to `each` as `str::lines` gives the lines of the file
/// read whole: bytes that are not UTF-8 become U+FFFD, a byte order mark
/// is dropped, and CRLF and a lone CR end a line as LF does.
pub fn for_each_line_lossy(
    path: &Path,
    max: u64,
    mut each: impl FnMut(&str),
) -> Result<(), crate::error::Error> {
    LineFile::open(path, max)?.for_each_line(max, max, |l, _| each(l))
}

/// Bytes read from a file at once when it is read line by line.
const READ_BUFFER: usize = 64 * 1024;

/// Reads up to and including the next `\n` into `buf`, at most `limit`
/// bytes (`BufRead::read_until` under `take`, with a vectorised search).
fn read_line(
    r: &mut impl std::io::BufRead,
    limit: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut n = 0usize;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = usize::try_from(limit.saturating_sub(n as u64))
            .unwrap_or(usize::MAX)
            .min(avail.len());
        if room == 0 {
            return Ok(n);
        }
        let chunk = &avail[..room];
        if let Some(i) = memchr::memchr(b'\n', chunk) {
            buf.extend_from_slice(&chunk[..=i]);
            r.consume(i + 1);
            return Ok(n + i + 1);
        }
        buf.extend_from_slice(chunk);
        r.consume(room);
        n += room;
    }
}

/// Reads past the rest of a line (1 MiB at a time into `buf`, which is
/// left holding the last piece); the bytes read.
fn skip_line(r: &mut impl std::io::BufRead, buf: &mut Vec<u8>) -> std::io::Result<u64> {
    let mut read = 0u64;
    loop {
        buf.clear();
        let m = read_line(r, 1 << 20, buf)?;
        read += m as u64;
        if m == 0 || buf.last() == Some(&b'\n') {
            return Ok(read);
        }
    }
}

/// Where a line's text is in its file (its line ending left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: u64,
    pub len: u32,
}

/// A regular file opened once, read line by line, then read again a line
/// at a time through the same handle (what is read again is the file that
/// was checked, never another swapped in at its path).
#[derive(Debug)]
pub struct LineFile {
    file: File,
    path: PathBuf,
}

impl LineFile {
    /// Opens `path`: a regular file of at most `max` bytes.
    pub fn open(path: &Path, max: u64) -> Result<LineFile, crate::error::Error> {
        let (file, _) =
            open_regular(path, max).map_err(|e| crate::error::Error::file(path.display(), e))?;
        Ok(LineFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Each line (see [`for_each_line_lossy`]) with where it is when it
    /// can be read again as it is (valid UTF-8, no lone CR in it). At most
    /// `max` bytes are read; a line longer than `max_line` is not held: it
    /// goes to `each` as [`LONG_LINE`].
    pub fn for_each_line(
        &self,
        max: u64,
        max_line: u64,
        mut each: impl FnMut(&str, Option<Span>),
    ) -> Result<(), crate::error::Error> {
        self.for_each_line_until(max, max_line, |l, span| {
            each(l, span);
            ControlFlow::Continue(())
        })
        .map(|_| ())
    }

    /// [`LineFile::for_each_line`] until `each` says stop (a read
    /// cancelled): `Break` when it did, before the end of the file.
    pub fn for_each_line_until(
        &self,
        max: u64,
        max_line: u64,
        mut each: impl FnMut(&str, Option<Span>) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, crate::error::Error> {
        let named = |e: Refused| crate::error::Error::file(self.path.display(), e);
        let mut r = std::io::BufReader::with_capacity(READ_BUFFER, (&self.file).take(max + 1));
        let (mut buf, mut read, mut first) = (Vec::new(), 0u64, true);
        loop {
            buf.clear();
            let n = read_line(&mut r, max_line + 1, &mut buf)
                .map_err(|e| named(Refused::Unreadable(e.to_string())))?;
            if n == 0 {
                return Ok(ControlFlow::Continue(()));
            }
            let offset = read;
            read += n as u64;
            if buf.len() as u64 > max_line && buf.last() != Some(&b'\n') {
                // Too long to hold: skipped to its end, said as one line.
                read += skip_line(&mut r, &mut buf)
                    .map_err(|e| named(Refused::Unreadable(e.to_string())))?;
                first = false;
                if each(LONG_LINE, None).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                continue;
            }
            if read > max {
                return Err(named(Refused::Grew { max }));
            }
            let ended = buf.last() == Some(&b'\n');
            if ended {
                buf.pop();
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
            }
            let len = buf.len();
            // Checked at full speed first; mended only when it is not UTF-8.
            let text = match simdutf8::basic::from_utf8(&buf) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(&buf),
            };
            let exact = matches!(text, std::borrow::Cow::Borrowed(_));
            let mut text: &str = &text;
            let mut start = offset;
            if std::mem::take(&mut first)
                && let Some(t) = text.strip_prefix('\u{feff}')
            {
                text = t;
                start += 3;
            }
            // A lone CR ends a line; one at the very end leaves no line after it.
            let single = memchr::memchr(b'\r', text.as_bytes()).is_none();
            let span = (exact && single).then(|| Span {
                offset: start,
                len: (len - (start - offset) as usize) as u32,
            });
            if single {
                if (ended || !text.is_empty()) && each(text, span).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                continue;
            }
            let mut pieces = text.split('\r').peekable();
            while let Some(line) = pieces.next() {
                if (ended || pieces.peek().is_some() || !line.is_empty())
                    && each(line, span).is_break()
                {
                    return Ok(ControlFlow::Break(()));
                }
            }
        }
    }

    /// The line at `span`, read again through the same handle.
    pub fn read_span(&self, span: Span) -> Result<String, crate::error::Error> {
        use crate::error::Error;
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; span.len as usize];
        self.file
            .read_exact_at(&mut buf, span.offset)
            .map_err(|e| Error::file(self.path.display(), Refused::Unreadable(e.to_string())))?;
        String::from_utf8(buf).map_err(|_| Error::file(self.path.display(), Refused::LineChanged))
    }
}

/// What [`LineFile::for_each_line`] gives for a line too long to hold
/// (not JSON: counted among the lines skipped).
pub const LONG_LINE: &str = "(a line too long to read)";
