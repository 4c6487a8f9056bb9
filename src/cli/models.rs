//! `prompt-inspector models [--update FILE|URL]`: the model table every
//! figure is priced with (this tool's rows over LiteLLM's prices), and its
//! refresh from LiteLLM's `model_prices_and_context_window.json` (a file,
//! offline, or an http(s) URL).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{Format, fail, out, out_json, say};
use crate::engine::ModelTable;
use crate::engine::assembly::litellm;
use crate::user_snapshot_path;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Refresh the prices from LiteLLM's model_prices_and_context_window.json:
    /// a file, or an http(s) URL.
    #[arg(long, value_name = "FILE|URL")]
    pub update: Option<String>,
    /// With --update: where to write the snapshot (default: this user's,
    /// ~/.config/prompt-inspector/model_prices.json, read at every start).
    #[arg(long, requires = "update")]
    pub output: Option<PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    if let Some(from) = &a.update {
        return update(from, a.output.as_deref());
    }
    let table = match crate::model_table() {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    match a.format {
        Format::Json => {
            let mut v = serde_json::to_value(&table).unwrap_or_default();
            v["schema"] = serde_json::json!(1);
            out_json(&v)
        }
        Format::Text => out(&to_text(&table)),
        Format::Markdown => out(&to_markdown(&table)),
    }
    ExitCode::SUCCESS
}

/// A price per million tokens as the table holds it: two decimals, more
/// where it has them (0.075, not 0.07), up to six.
fn price(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| {
        let long = format!("{p:.6}");
        let trimmed = long.trim_end_matches('0');
        let decimals = trimmed.split_once('.').map_or(0, |(_, d)| d.len()).max(2);
        format!("{p:.decimals$}")
    })
}

/// A model's lifecycle in the tables' words.
fn status_words(m: &crate::engine::ModelInfo) -> &'static str {
    match m.status {
        crate::engine::assembly::models::Lifecycle::Active => "active",
        crate::engine::assembly::models::Lifecycle::Deprecated => "deprecated",
        crate::engine::assembly::models::Lifecycle::Retired => "retired",
    }
}

/// The Markdown view: one row a model, the same figures as [`to_text`].
pub fn to_markdown(t: &ModelTable) -> String {
    use crate::engine::md_cell;
    let mut s = format!(
        "## Models\n\n{} models (default {}); USD per million tokens.\n\n| Model | Provider | Window | Input | Write 5m | Write 1h | Read | Output | Status |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n",
        t.models.len(),
        md_cell(&t.default_model)
    );
    for m in &t.models {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {}{} |\n",
            md_cell(&m.id),
            m.provider.as_str(),
            crate::engine::thousands(m.context_window),
            price(Some(m.input_per_mtok)),
            price(Some(m.write_5m_price())),
            price(Some(m.write_1h_price())),
            price(Some(m.read_price())),
            price(Some(m.output_per_mtok)),
            status_words(m),
            m.retires
                .as_deref()
                .map(|d| format!(" ({})", md_cell(d)))
                .unwrap_or_default()
        );
    }
    s
}

/// One line a model: its id, provider, window, prices per million tokens
/// (input, cache write 5m / 1h, cache read, output) and status.
pub fn to_text(t: &ModelTable) -> String {
    let mut s = format!(
        "{} models (default {}); USD per million tokens\n{:<34} {:<9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}  status\n",
        t.models.len(),
        t.default_model,
        "model",
        "provider",
        "window",
        "input",
        "write5m",
        "write1h",
        "read",
        "output"
    );
    for m in &t.models {
        s += &format!(
            "{:<34} {:<9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}  {}{}\n",
            m.id,
            m.provider.as_str(),
            crate::engine::thousands(m.context_window),
            price(Some(m.input_per_mtok)),
            price(Some(m.write_5m_price())),
            price(Some(m.write_1h_price())),
            price(Some(m.read_price())),
            price(Some(m.output_per_mtok)),
            status_words(m),
            m.retires
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        );
    }
    s
}

/// Reads LiteLLM's file from a path or a URL.
fn fetch(from: &str) -> Result<String, String> {
    if from.starts_with("http://") || from.starts_with("https://") {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        return rt
            .block_on(crate::net::fetch_text(
                from,
                litellm::MAX_SOURCE_BYTES as usize,
            ))
            .map_err(String::from);
    }
    Ok(crate::engine::workspace::reader::read_text_file(
        Path::new(from),
        litellm::MAX_SOURCE_BYTES,
    )?)
}

/// Where a snapshot may be written: a new file, or a regular file it
/// replaces (atomically). A FIFO, a device, a folder or a link is refused
/// before anything is read or fetched: nothing is read through it, and it
/// is never replaced.
fn check_target(target: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot write {}: {e}", target.display())),
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else if m.file_type().is_dir() {
                "a folder"
            } else {
                "not a regular file (a FIFO, a socket or a device)"
            };
            Err(format!(
                "{} is {what}: the snapshot is written only to a regular file or a new one",
                target.display()
            ))
        }
    }
}

fn update(from: &str, output: Option<&Path>) -> ExitCode {
    let Some(target) = output.map(Path::to_path_buf).or_else(user_snapshot_path) else {
        return fail("no place for the snapshot: set HOME or XDG_CONFIG_HOME, or pass --output");
    };
    if let Err(e) = check_target(&target) {
        return fail(&e);
    }
    let text = match fetch(from) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    // A URL as masked; a file by its name (no local path in the snapshot).
    let origin = if from.contains("://") {
        crate::net::guard::mask_url(from)
    } else {
        Path::new(from)
            .file_name()
            .map_or(from.to_string(), |n| n.to_string_lossy().into_owned())
    };
    let source = format!("LiteLLM model_prices_and_context_window.json ({origin})");
    let today = crate::engine::workspace::store::stamp(crate::unix_now());
    let as_of = format!("{}-{}-{}", &today[0..4], &today[4..6], &today[6..8]);
    let snapshot = match litellm::snapshot(&text, &source, &as_of) {
        Ok(s) => s,
        Err(e) => return fail(format!("{}: {e}", crate::net::guard::mask_url(from))),
    };
    // The models listed before, read through the guarded reader (a regular
    // file, within the snapshot's bound).
    let before: Vec<String> =
        crate::engine::workspace::reader::read_text_file(&target, litellm::MAX_SNAPSHOT_BYTES)
            .ok()
            .and_then(|t| litellm::rows(&t).ok())
            .unwrap_or_else(|| litellm::rows(litellm::BUNDLED_SNAPSHOT).unwrap_or_default())
            .into_iter()
            .map(|m| m.id)
            .collect();
    let now = match litellm::rows(&snapshot) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if let Err(e) = crate::engine::workspace::store::write_atomic(&target, snapshot.as_bytes()) {
        return fail(format!("cannot write {}: {e}", target.display()));
    }
    let added: Vec<&str> = now
        .iter()
        .map(|m| m.id.as_str())
        .filter(|id| !before.iter().any(|b| b == id))
        .collect();
    let removed = before
        .iter()
        .filter(|b| !now.iter().any(|m| &m.id == *b))
        .count();
    say(&format!(
        "{} models written to {} ({} new{}{})",
        now.len(),
        target.display(),
        added.len(),
        if added.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                added
                    .iter()
                    .take(12)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        if removed > 0 {
            format!("; {removed} no longer listed")
        } else {
            String::new()
        }
    ));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_price_keeps_its_decimals() {
        assert_eq!(super::price(Some(0.075)), "0.075");
        assert_eq!(super::price(Some(0.125)), "0.125");
        assert_eq!(super::price(Some(3.0)), "3.00");
        assert_eq!(super::price(Some(0.3)), "0.30");
        assert_eq!(super::price(None), "-");
    }
}
