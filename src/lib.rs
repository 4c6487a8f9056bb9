//! prompt-inspector: see, tune and test how an LLM agent's layered system
//! prompt is assembled, trimmed and cached.

//!
//! Three crates of one workspace, so the compiler keeps the rooms apart:
//! the engine (`crates/engine`, pure), the network floor (`crates/net`),
//! and this one, the app (`ui/`, `cli/`, `main.rs`). See ARCHITECTURE.md.

pub mod cli;
pub mod examples;
pub mod learn;
pub mod opencode_db;
pub mod sample;
pub mod ui;

/// The files of `sample-workspace/` and `examples/`, embedded by `build.rs`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

pub use prompt_inspector_engine as engine;
pub use prompt_inspector_net as net;
pub use prompt_inspector_net::clock::unix_now;

use std::path::PathBuf;

/// A path from an environment variable (unset or empty: none).
fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// What the engine is given from the surroundings, read here at the edge:
/// the user's home (for Claude Code's user memory) and the folder of extra
/// profiles (`PROMPT_INSPECTOR_PROFILES`), set on the engine's options.
pub fn with_surroundings(mut opts: engine::Options) -> engine::Options {
    opts.home = home();
    opts.profiles_dir = env_path("PROMPT_INSPECTOR_PROFILES");
    opts.observed_dir = observed_dir();
    opts.today = Some(local_date(unix_now()));
    opts.os_version = os_version();
    opts
}

/// This machine's system name and kernel release as Node's `os.type()`
/// and `os.release()` give them (`Linux 6.18.44`): what Claude Code writes
/// after `OS Version:`.
pub fn os_version() -> Option<String> {
    // SAFETY: uname writes only into `u`, which outlives the call.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    let field = |f: &[libc::c_char]| -> String {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some(format!("{} {}", field(&u.sysname), field(&u.release)))
}

/// The user's home (`HOME`; unset or empty: none).
pub fn home() -> Option<PathBuf> {
    env_path("HOME")
}

/// Where the agents' parts learned from this user's requests are kept
/// (`agents learn`): `$XDG_DATA_HOME/prompt-inspector/agents/`, else
/// `~/.local/share/prompt-inspector/agents/`.
pub fn observed_dir() -> Option<PathBuf> {
    data_dir().map(|d| d.join("agents"))
}

/// This user's data folder: `$XDG_DATA_HOME/prompt-inspector/`, else
/// `~/.local/share/prompt-inspector/`.
pub fn data_dir() -> Option<PathBuf> {
    env_path("XDG_DATA_HOME")
        .or_else(|| env_path("HOME").map(|h| h.join(".local").join("share")))
        .map(|base| base.join("prompt-inspector"))
}

/// The extra profiles folder (`PROMPT_INSPECTOR_PROFILES`), for the views
/// that list the profiles.
pub fn profiles() -> Result<engine::workspace::profiles::Profiles, String> {
    Ok(engine::workspace::profiles::Profiles::load_with(
        profiles_dir().as_deref(),
        observed_dir().as_deref(),
    )?)
}

/// What the folder views assume of each agent's own parts (the user's
/// observations included), for the traffic views to say where a request's
/// release differs; empty (the bundled recordings) when the profiles
/// cannot be read.
pub fn assumed_releases() -> Vec<engine::traffic::release::Assumed> {
    profiles()
        .map(|p| engine::traffic::release::assumed(&p))
        .unwrap_or_default()
}

/// The extra profiles folder (`PROMPT_INSPECTOR_PROFILES`), when set.
pub fn profiles_dir() -> Option<PathBuf> {
    env_path("PROMPT_INSPECTOR_PROFILES")
}

/// Where `models --update` saves a refreshed LiteLLM snapshot for this user
/// (`$XDG_CONFIG_HOME/prompt-inspector/`, else `~/.config/prompt-inspector/`).
pub fn user_snapshot_path() -> Option<PathBuf> {
    env_path("XDG_CONFIG_HOME")
        .or_else(|| env_path("HOME").map(|h| h.join(".config")))
        .map(|base| base.join("prompt-inspector").join("model_prices.json"))
}

/// The model table every view prices with: this tool's rows
/// (`PROMPT_INSPECTOR_MODELS`, else the bundled ones) over the user's
/// refreshed LiteLLM snapshot when there is one, else the bundled one.
///
/// A user's snapshot that cannot be used (over its bound, a price out of
/// range, not JSON) is said on standard error, naming the file, and the
/// bundled prices are used: every command keeps working.
pub fn model_table() -> Result<engine::ModelTable, String> {
    let snapshot = user_snapshot_path().filter(|p| p.exists());
    let ours = env_path("PROMPT_INSPECTOR_MODELS");
    match engine::ModelTable::from_files(ours.as_deref(), snapshot.as_deref()) {
        Err(e) if snapshot.is_some() => {
            let table = engine::ModelTable::from_files(ours.as_deref(), None)?;
            net::guard::say(&format!(
                "prompt-inspector: {e}; the bundled prices are used (refresh them with `prompt-inspector models --update URL`)"
            ));
            Ok(table)
        }
        r => Ok(r?),
    }
}

/// Today's and yesterday's dates (UTC, YYYY-MM-DD), for OpenClaw's startup
/// context.
pub fn today_and_yesterday() -> Vec<String> {
    let now = unix_now();
    [now, now.saturating_sub(86_400)]
        .iter()
        .map(|&t| local_date(t))
        .collect()
}

/// The date (YYYY-MM-DD) of Unix time `t` in the host's time zone (`TZ`,
/// else /etc/localtime), as OpenClaw dates its daily memory by default;
/// UTC if the zone cannot be read.
pub fn local_date(t: u64) -> String {
    let offset = local_offset(t).unwrap_or(0);
    engine::traffic::format_rfc3339(t as f64 + offset as f64)[..10].to_string()
}

/// The host time zone's offset from UTC at `t`, in seconds.
fn local_offset(t: u64) -> Option<i64> {
    let t = libc::time_t::try_from(t).ok()?;
    // SAFETY: localtime_r writes only into `tm`, which outlives the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    (!r.is_null()).then_some(tm.tm_gmtoff as i64)
}

/// A snapshot of `ins` now, carrying the saved test runs of its session:
/// the clock and the runs are read here, at the edge, for the engine.
pub fn snapshot_now(
    ins: &engine::Inspection,
    counter: &engine::TokenCounter,
) -> engine::compare::snapshot::Snapshot {
    let runs = engine::cache::test_run::load_runs(&ins.workspace.root, Some(&ins.session().name));
    engine::compare::snapshot::Snapshot::take(ins, counter, unix_now(), runs)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_local_date_is_the_utc_date_moved_by_the_zone_offset() {
        // 2026-11-30T23:30:00Z: already 1 December east of UTC+1, still
        // 30 November in UTC and west of it.
        let t = 1_795_996_800 + 23 * 3600 + 1800;
        let offset = super::local_offset(t).unwrap();
        let expected = if offset >= 1800 {
            "2026-12-01"
        } else {
            "2026-11-30"
        };
        assert_eq!(super::local_date(t), expected);
    }
}
