//! `prompt-inspector snapshot`: save the assembled session as versioned JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{Common, fail, inspect, out};
use crate::engine::compare::snapshot::Snapshot;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Where to write it.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    let (ins, counter, _) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let snap = crate::snapshot_now(&ins, &counter);
    let saved = match a.output {
        Some(path) => snap
            .save(&path)
            .map(|()| path.clone())
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => snap.save_new(&ins.workspace.root).map_err(String::from),
    };
    match saved {
        Ok(path) => {
            out(&format!("{}\n", path.display()));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// A side of a diff named on the command line: `WORKSPACE@SESSION` or a
/// folder (assembled live), else a snapshot file.
pub fn side(
    arg: &str,
    workdir: Option<&str>,
    table: &crate::engine::ModelTable,
    counter: &crate::engine::TokenCounter,
) -> Result<Snapshot, String> {
    let (dir, session) = match arg.rsplit_once('@') {
        Some((d, s)) if std::path::Path::new(d).is_dir() => (Some(d), Some(s.to_string())),
        _ if std::path::Path::new(arg).is_dir() => (Some(arg), None),
        _ => (None, None),
    };
    match dir {
        Some(d) => {
            let opts = crate::with_surroundings(crate::engine::Options {
                session,
                workdir: workdir.map(str::to_string),
                ..Default::default()
            });
            let ins = crate::engine::inspect(std::path::Path::new(d), &opts, table, counter)?;
            Ok(crate::snapshot_now(&ins, counter))
        }
        None => Ok(Snapshot::load(std::path::Path::new(arg))?),
    }
}
