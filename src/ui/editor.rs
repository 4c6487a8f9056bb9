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
        let what = editor.as_deref().unwrap_or("xdg-open");
        // The child is waited for on this thread (no defunct process is
        // left), and an opener that fails (xdg-open with no application for
        // the file: exit 3 or 4) is said as a failure to start is.
        let failed = match cmd
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Err(e) => Some(e.to_string()),
            Ok(mut child) => match child.wait() {
                Ok(s) if s.success() => None,
                Ok(s) => Some(match s.code() {
                    Some(c) => format!("it exited with status {c}"),
                    None => "it was stopped by a signal".to_string(),
                }),
                Err(e) => Some(e.to_string()),
            },
        };
        if let Some(why) = failed {
            let _ = done.send(Done::EditorFailed(format!(
                "could not open {} with {what}: {why} (set $VISUAL or $EDITOR to your editor)",
                path.display()
            )));
            ctx.request_repaint();
        }
    });
}
