//! The engine's errors, as types: what failed and where (the file, the
//! line, the field or the name given), so that a caller can tell a vanished
//! session from an unreadable folder. Words are made only when an error is
//! shown (`Display`), at the binary's edge. (A leaf: imports nothing of the
//! crate.)

/// Why an engine call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A file or folder that could not be opened, read or written.
    File { path: String, reason: String },
    /// Something read that is not what it should be: where (a file, a
    /// field, a request), the line when known, and what is wrong.
    Invalid {
        place: String,
        line: Option<usize>,
        reason: String,
    },
    /// A name given (a session, a profile, a model) that names nothing
    /// known, with the names that are known.
    Unknown {
        what: Named,
        name: String,
        known: Vec<String>,
    },
    /// An option that cannot apply here, and why.
    Option { option: String, reason: String },
    /// A request number (1-based) past the requests recorded.
    NoRequest { number: usize, recorded: usize },
    /// A recorded request without its body (a transcript records usage
    /// only).
    NoBody { number: usize },
    /// A long read stopped by the one who asked for it (a newer read
    /// replaced it, or Cancel).
    Cancelled,
}

/// What kind of thing a name was expected to name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Session,
    Profile,
    Model,
}

impl Error {
    /// A file's error.
    pub fn file(path: impl std::fmt::Display, reason: impl Into<String>) -> Error {
        Error::File {
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    /// Something read that is not what it should be.
    pub fn invalid(place: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::Invalid {
            place: place.into(),
            line: None,
            reason: reason.into(),
        }
    }

    /// An option that cannot apply.
    pub fn option(option: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::Option {
            option: option.into(),
            reason: reason.into(),
        }
    }

    /// Whether the error is a session name that no longer names one (a
    /// reload removed it): the one failure a view may answer by showing
    /// the default session, and saying so.
    pub fn is_unknown_session(&self) -> bool {
        matches!(
            self,
            Error::Unknown {
                what: Named::Session,
                ..
            }
        )
    }
}

/// `: did you mean claude-code?` when one of `known` is near `name`: the
/// same but for case or a `.yaml` ending (a session's file named), a name
/// it starts (`claude`), or within a third of its characters' edits (on
/// the whole id or on its name before `@`); else nothing.
fn did_you_mean(name: &str, known: &[String]) -> String {
    let lower = name.to_lowercase();
    let typed = lower
        .strip_suffix(".yaml")
        .or_else(|| lower.strip_suffix(".yml"))
        .unwrap_or(&lower);
    let bare = |k: &str| k.split('@').next().unwrap_or(k).to_lowercase();
    let same = known
        .iter()
        .find(|k| k.to_lowercase() == typed || bare(k) == typed)
        .map(|k| {
            if k.to_lowercase() == typed {
                k.clone()
            } else {
                bare(k)
            }
        });
    let starts = || {
        (typed.chars().count() >= 3)
            .then(|| {
                known
                    .iter()
                    .find(|k| bare(k).starts_with(typed))
                    .map(|k| bare(k))
            })
            .flatten()
    };
    let near = || {
        // A third of the name's characters at most, one at least, and
        // never all of them (`x` is near nothing).
        let len = typed.chars().count();
        let most = (len / 3).max(1);
        known
            .iter()
            .map(|k| {
                let (whole, b) = (
                    crate::text::edit_distance(typed, &k.to_lowercase()),
                    crate::text::edit_distance(typed, &bare(k)),
                );
                // The name the user would type: without `@version` when
                // the bare name is what was near.
                (whole.min(b), if b <= whole { bare(k) } else { k.clone() })
            })
            .filter(|(d, _)| *d <= most && *d < len)
            .min_by_key(|(d, _)| *d)
            .map(|(_, k)| k)
    };
    same.or_else(starts)
        .or_else(near)
        .filter(|k| k != name)
        .map_or(String::new(), |k| format!(": did you mean {k}?"))
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::File { path, reason } => write!(f, "{path}: {reason}"),
            Error::Invalid {
                place,
                line: Some(l),
                reason,
            } => write!(f, "{place}:{l}: {reason}"),
            Error::Invalid { place, reason, .. } if place.is_empty() => f.write_str(reason),
            Error::Invalid { place, reason, .. } => write!(f, "{place}: {reason}"),
            Error::Unknown { what, name, known } => {
                let list = known.join(", ");
                match what {
                    Named::Session => write!(
                        f,
                        "no session named '{name}'{} (sessions: {list})",
                        did_you_mean(name, known)
                    ),
                    Named::Profile => write!(
                        f,
                        "unknown profile '{name}'{} (profiles: {list})",
                        did_you_mean(name, known)
                    ),
                    Named::Model => write!(
                        f,
                        "unknown model '{name}': the nearest the table knows is {list} (`prompt-inspector models` lists them all)"
                    ),
                }
            }
            Error::Option { option, reason } => write!(f, "{option}: {reason}"),
            Error::NoRequest { number, recorded } => {
                write!(f, "there is no request #{number} ({recorded} recorded)")
            }
            Error::NoBody { number } => write!(
                f,
                "request #{number} has no recorded body (a transcript records usage only)"
            ),
            Error::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for Error {}

/// At the binary's edge an error becomes its words.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_says_where_and_what() {
        assert_eq!(
            Error::file("/w/a.md", "not valid UTF-8").to_string(),
            "/w/a.md: not valid UTF-8"
        );
        let at_line = Error::Invalid {
            place: "s.json".into(),
            line: Some(3),
            reason: "not JSON".into(),
        };
        assert_eq!(at_line.to_string(), "s.json:3: not JSON");
        let gone = Error::Unknown {
            what: Named::Session,
            name: "x".into(),
            known: vec!["a".into(), "b".into()],
        };
        assert!(gone.is_unknown_session());
        assert_eq!(gone.to_string(), "no session named 'x' (sessions: a, b)");
        assert!(!Error::option("--workdir", "no").is_unknown_session());
        let past = Error::NoRequest {
            number: 9,
            recorded: 3,
        };
        assert_eq!(past.to_string(), "there is no request #9 (3 recorded)");
    }
}
