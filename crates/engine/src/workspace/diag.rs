//! Diagnostics: one per problem, with the file and line it concerns.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Path relative to the workspace root ("" for the workspace itself).
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
    /// The fragment this is about, when there is one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fragment: Option<String>,
    /// What the problem is, where a view acts on it (not only shows it).
    #[serde(skip)]
    pub about: Option<About>,
}

/// Problems the views act on, told by type, not by their words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum About {
    /// The agent's user-level memory, asked for (`--user-memory`), could
    /// not be read.
    UserMemoryUnread,
    /// The agent's user-level memory is there in the home folder but not
    /// asked for (no `--user-memory`): left out of the picture, and said.
    UserMemoryNotAsked,
    /// The agent's newest session in the folder ran another release than
    /// the one whose own parts are shown.
    OtherRelease,
    /// The folder holds nothing this tool reads as a prompt.
    NothingToAssemble,
}

impl Diagnostic {
    pub fn error(file: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            line,
            message: message.into(),
            fragment: None,
            about: None,
        }
    }

    /// The agent's user-level memory (`path`, as `~/…`), asked for with
    /// `--user-memory`, could not be read: why.
    pub fn user_memory_unread(path: &str, why: impl std::fmt::Display) -> Self {
        Diagnostic::warning(path, None, format!("--user-memory: {why} (not read)"))
            .about(About::UserMemoryUnread)
    }

    pub fn warning(
        file: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, message)
        }
    }

    pub fn for_fragment(mut self, id: &str) -> Self {
        self.fragment = Some(id.to_string());
        self
    }

    /// Told by type as `about`, for the views that act on it.
    pub fn about(mut self, about: About) -> Self {
        self.about = Some(about);
        self
    }

    /// `file:line: severity: message`, as compilers print it.
    pub fn location(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{}", self.file, l),
            None => self.file.clone(),
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}: {sev}: {}", self.location(), self.message)
    }
}

/// Collects diagnostics for one file.
pub struct FileDiags<'a> {
    pub file: &'a str,
    pub out: &'a mut Vec<Diagnostic>,
}

impl FileDiags<'_> {
    pub fn error(&mut self, line: Option<usize>, message: impl Into<String>) {
        self.out.push(Diagnostic::error(self.file, line, message));
    }
    pub fn warning(&mut self, line: Option<usize>, message: impl Into<String>) {
        self.out.push(Diagnostic::warning(self.file, line, message));
    }
}
