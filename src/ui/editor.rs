//! A workspace file opened at a line in the user's editor: `$VISUAL`, else
//! `$EDITOR` (with `+LINE`), else the desktop's opener; started on its own
//! thread (the UI never waits), a failure reported to the status bar.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::Sender;

use super::worker::Done;

/// Starts the editor on `path` (at `line`); nothing from the workspace is
/// run: the program is the user's own setting, the file its argument.
pub fn open(path: PathBuf, line: Option<usize>, done: Sender<Done>, ctx: egui::Context) {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()));
    std::thread::spawn(move || {
        let mut cmd = match &editor {
            Some(e) => {
                let mut parts = e.split_whitespace();
                let mut c = Command::new(parts.next().unwrap_or("xdg-open"));
                c.args(parts);
                if let Some(l) = line {
                    c.arg(format!("+{l}"));
                }
                c
            }
            None => Command::new("xdg-open"),
        };
        if let Err(e) = cmd.arg(&path).stdin(Stdio::null()).spawn() {
            let what = editor.as_deref().unwrap_or("xdg-open");
            let _ = done.send(Done::EditorFailed(format!(
                "could not open {} with {what}: {e}",
                path.display()
            )));
            ctx.request_repaint();
        }
    });
}
