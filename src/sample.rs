//! The sample workspace, inside the binary: an installed binary opens it
//! without the source tree it was built from. `ensure` writes it once into
//! the user's data folder (`$XDG_DATA_HOME/prompt-inspector/sample-workspace`,
//! else `~/.local/share/…`), file by file, and says where; nothing there is
//! overwritten once written (edit it freely).

use std::path::{Path, PathBuf};

/// Every file of `sample-workspace/`, by its path in it (tests/first_minutes.rs
/// checks that this is every file there, each as it is).
pub const FILES: &[(&str, &str)] = &[
    ("AGENTS.md", include_str!("../sample-workspace/AGENTS.md")),
    ("MEMORY.md", include_str!("../sample-workspace/MEMORY.md")),
    ("SAFETY.md", include_str!("../sample-workspace/SAFETY.md")),
    ("SOUL.md", include_str!("../sample-workspace/SOUL.md")),
    ("TOOLS.md", include_str!("../sample-workspace/TOOLS.md")),
    ("USER.md", include_str!("../sample-workspace/USER.md")),
    (
        "fragments/context.yaml",
        include_str!("../sample-workspace/fragments/context.yaml"),
    ),
    (
        "fragments/memory.yaml",
        include_str!("../sample-workspace/fragments/memory.yaml"),
    ),
    (
        "sessions/chat.yaml",
        include_str!("../sample-workspace/sessions/chat.yaml"),
    ),
    (
        "sessions/coding.yaml",
        include_str!("../sample-workspace/sessions/coding.yaml"),
    ),
    (
        "sessions/research.yaml",
        include_str!("../sample-workspace/sessions/research.yaml"),
    ),
    (
        "skills/code-review/SKILL.md",
        include_str!("../sample-workspace/skills/code-review/SKILL.md"),
    ),
    (
        "skills/debugging.md",
        include_str!("../sample-workspace/skills/debugging.md"),
    ),
    (
        "skills/docs-writer.md",
        include_str!("../sample-workspace/skills/docs-writer.md"),
    ),
    (
        "skills/git-workflow/SKILL.md",
        include_str!("../sample-workspace/skills/git-workflow/SKILL.md"),
    ),
    (
        "skills/react.md",
        include_str!("../sample-workspace/skills/react.md"),
    ),
    (
        "skills/rust-egui.md",
        include_str!("../sample-workspace/skills/rust-egui.md"),
    ),
    (
        "skills/sql.md",
        include_str!("../sample-workspace/skills/sql.md"),
    ),
    (
        "skills/testing.md",
        include_str!("../sample-workspace/skills/testing.md"),
    ),
    (
        "skills/typescript.md",
        include_str!("../sample-workspace/skills/typescript.md"),
    ),
    (
        "skills/user-memory/SKILL.md",
        include_str!("../sample-workspace/skills/user-memory/SKILL.md"),
    ),
    (
        "tools/bash.json",
        include_str!("../sample-workspace/tools/bash.json"),
    ),
    (
        "tools/code_exec.json",
        include_str!("../sample-workspace/tools/code_exec.json"),
    ),
    (
        "tools/file_read.json",
        include_str!("../sample-workspace/tools/file_read.json"),
    ),
    (
        "tools/web_search.json",
        include_str!("../sample-workspace/tools/web_search.json"),
    ),
    (
        "transcripts/chat.jsonl",
        include_str!("../sample-workspace/transcripts/chat.jsonl"),
    ),
    (
        "workspace.yaml",
        include_str!("../sample-workspace/workspace.yaml"),
    ),
];

/// The sample as unpacked in the user's data folder: written there when it
/// is not there yet (a folder holding `workspace.yaml` is taken as is).
pub fn ensure() -> Result<PathBuf, String> {
    let dir = crate::data_dir()
        .ok_or("no data folder: set XDG_DATA_HOME or HOME")?
        .join("sample-workspace");
    if dir.join("workspace.yaml").is_file() {
        return Ok(dir);
    }
    write_into(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Writes every file under `dir`, those already there left as they are.
fn write_into(dir: &Path) -> std::io::Result<()> {
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => std::io::Write::write_all(&mut f, text.as_bytes())?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
