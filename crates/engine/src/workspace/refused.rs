//! Why the guarded reader refused a path or a file: the reasons, as types,
//! that the reader's callers name with the file (a diagnostic, an
//! [`crate::error::Error::File`]). Words are made only when shown. (A leaf:
//! imports nothing of the crate.)

/// Why a path or a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The open failed (absent, permissions): the system's words.
    Unopenable(String),
    /// The opened file could not be read: the system's words.
    Unreadable(String),
    /// A folder where a file was expected.
    Folder,
    /// A device, socket or pipe.
    NotRegular,
    /// Over the size limit (bytes, limit in bytes).
    TooLarge { bytes: u64, max: u64 },
    /// It grew over the limit while it was read.
    Grew { max: u64 },
    /// An empty relative path.
    EmptyPath,
    /// A relative path with `..` (the path as written).
    Leaves(String),
    /// An absolute path where a workspace path was expected.
    Absolute(String),
    /// A link whose target is outside the workspace.
    Outside,
    /// A broken link or a path that cannot be resolved.
    BrokenLink(String),
    /// NUL bytes in it.
    Binary,
    /// Not UTF-8 from this byte on.
    NotUtf8 { byte: usize },
    /// A line read again through the same handle is no longer text.
    LineChanged,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |b: u64| b / (1024 * 1024);
        match self {
            Refused::Unopenable(e) => write!(f, "cannot be read: {e}"),
            Refused::Unreadable(e) => write!(f, "unreadable: {e}"),
            Refused::Folder => f.write_str("is a folder, not a file"),
            Refused::NotRegular => {
                f.write_str("not a regular file (a device, socket or pipe): refused")
            }
            Refused::TooLarge { bytes, max } => write!(
                f,
                "file is {:.1} MiB, over the {} MiB limit (skipped)",
                *bytes as f64 / 1048576.0,
                mib(*max)
            ),
            Refused::Grew { max } => write!(
                f,
                "file grew over the {} MiB limit while it was read (skipped)",
                mib(*max)
            ),
            Refused::EmptyPath => f.write_str("empty path"),
            Refused::Leaves(rel) => write!(f, "path '{rel}' leaves the workspace (refused)"),
            Refused::Absolute(rel) => write!(
                f,
                "path '{rel}' is absolute: only paths inside the workspace are allowed (refused)"
            ),
            Refused::Outside => f.write_str(
                "points outside the workspace through a symbolic link (refused; its target was not read)",
            ),
            Refused::BrokenLink(e) => {
                write!(f, "broken symbolic link or unreadable path: {e}")
            }
            Refused::Binary => f.write_str("binary file (contains NUL bytes), skipped"),
            Refused::NotUtf8 { byte } => {
                write!(f, "not valid UTF-8 (byte {byte}); save the file as UTF-8")
            }
            Refused::LineChanged => f.write_str("the line changed"),
        }
    }
}

impl std::error::Error for Refused {}

/// A diagnostic's or an error's words.
impl From<Refused> for String {
    fn from(r: Refused) -> String {
        r.to_string()
    }
}
