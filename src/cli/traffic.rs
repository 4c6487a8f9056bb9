//! `prompt-inspector traffic FILE`: an agent's real requests (a capture of
//! the recording proxy, or a Claude Code session transcript) with the usage
//! reported, and the reason for every request that wrote or missed the cache.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{Format, fail, out, out_json, out_report};
use crate::engine::traffic;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A capture (JSON lines), a Claude Code transcript
    /// (~/.claude/projects/PROJECT/SESSION.jsonl, with its subagents), a
    /// Codex session file (~/.codex/sessions/…/rollout-*.jsonl), a Pi or a
    /// Gemini CLI session file (~/.pi/agent/sessions,
    /// ~/.gemini/tmp/PROJECT/chats); or a folder of them (a project folder,
    /// ~/.claude/projects, ~/.codex/sessions).
    pub file: PathBuf,
    /// text to read; json for scripts (with its `schema` number); markdown
    /// for a pull request or an issue; `jsonl`: one flat row per request (a
    /// versioned schema DuckDB, Spark and ClickHouse read as a table; see
    /// examples/fleet/); html: one self-contained page to share
    /// (`--no-content` leaves the prompt text out of it).
    #[arg(long, value_enum, default_value = "text")]
    pub format: TrafficFormat,
    /// Adopt the captured conversation as a session file
    /// (WORKSPACE/sessions/NAME.yaml), for predict, send and diff.
    #[arg(long, conflicts_with_all = ["diff", "parts"])]
    pub to_session: Option<PathBuf>,
    /// With --to-session: replace a session file that exists.
    #[arg(long, requires = "to_session")]
    pub force: bool,
    /// With --to-session: the chain to adopt (`main`, `chain 2`, as listed).
    #[arg(long, requires = "to_session", default_value = "main")]
    pub chain: String,
    /// Compare request N of a capture with the previous request of its
    /// chain, as the window's Diff view does (tools, blocks, messages); or,
    /// after a request named `FILE#N`, that request with `[FILE#]M`, of any
    /// chain or capture (`traffic a.jsonl#3 --diff b.jsonl#5`).
    #[arg(long, value_name = "[FILE#]N")]
    pub diff: Option<String>,
    /// With --diff N: compare request N with this one instead: `M` (of the
    /// same file) or `FILE#M` (of another capture), whatever their chains.
    #[arg(long, value_name = "[FILE#]M", requires = "diff")]
    pub with: Option<String>,
    /// List each recorded request's parts (tools, system blocks, messages)
    /// with their tokens, as the Traffic tab does (JSON always has them).
    #[arg(long)]
    pub parts: bool,
    /// Trace a recorded request back to this workspace's files: where each
    /// file's text is in the request, whole, cut or not sent, with its
    /// tokens, and what comes from no file.
    #[arg(long, value_name = "WORKSPACE", conflicts_with_all = ["to_session", "diff", "parts"])]
    pub against: Option<PathBuf>,
    /// With --against: the request (as numbered in the list; default: the
    /// last one with a recorded body).
    #[arg(long, value_name = "N", requires = "against")]
    pub request: Option<usize>,
    /// With --against: render the workspace with its profile and list every
    /// difference from the real request (files, truncation, placement,
    /// order, headings, frontmatter, breakpoints); exit 1 when they differ.
    #[arg(long, requires = "against")]
    pub check_profile: bool,
    /// With --check-profile: the profile to check (default: the one the
    /// workspace declares or is detected as).
    #[arg(long, requires = "check_profile")]
    pub profile: Option<String>,
    /// With --against: the folder the agent ran in, inside the workspace
    /// (Claude Code, Codex, Gemini CLI, Pi, OpenCode: the memory files on
    /// the way to it are sent).
    #[arg(long, requires = "against")]
    pub workdir: Option<String>,
    /// Export one OpenTelemetry span per request to this OTLP/HTTP
    /// collector (its base, `http://127.0.0.1:4318`, or its `/v1/traces`
    /// URL), as the proxy does live, instead of printing the report.
    #[arg(long, value_name = "URL", conflicts_with_all = ["to_session", "diff", "against"])]
    pub otlp_endpoint: Option<String>,
    /// With --otlp-endpoint: put each request body in its span (redacted
    /// as in captures); without it no prompt text leaves.
    #[arg(long, requires = "otlp_endpoint")]
    pub otlp_content: bool,
    /// With --otlp-endpoint: allow plain HTTP to a collector that is not
    /// this machine.
    #[arg(long, requires = "otlp_endpoint")]
    pub allow_insecure_http: bool,
    /// With --otlp-endpoint: seconds one export to the collector may take;
    /// the whole export stops after six times that (what was not sent is
    /// counted and said).
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600), requires = "otlp_endpoint")]
    pub otlp_timeout: u64,
    /// `--format html`: the figures only, no prompt text (the excerpts the
    /// reasons quote are left out).
    #[arg(long)]
    pub no_content: bool,
}

/// `traffic`'s formats: the views' three, flat rows, and one HTML file to
/// share (self-contained: no script, no network).
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum TrafficFormat {
    Text,
    Json,
    Markdown,
    Jsonl,
    Html,
}

impl TrafficFormat {
    /// The view format of the reports that have no rows (`--diff`,
    /// `--against`, which refuse `jsonl` and `html` first).
    fn view(self) -> Format {
        match self {
            TrafficFormat::Markdown => Format::Markdown,
            TrafficFormat::Json | TrafficFormat::Jsonl => Format::Json,
            TrafficFormat::Text | TrafficFormat::Html => Format::Text,
        }
    }
}

pub fn run(a: Args) -> ExitCode {
    // A privacy flag is never dropped silently.
    if a.no_content && a.format != TrafficFormat::Html {
        return fail(
            "--no-content leaves the prompt text out of --format html only: the other formats are for your own machine (add --format html, or leave --no-content out)",
        );
    }
    let table = match crate::model_table() {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if let Some(ws) = &a.against {
        return against(&a, ws, &table);
    }
    match (&a.to_session, a.diff.as_deref()) {
        (Some(target), _) => to_session(&a, target),
        (None, Some(spec)) => match diff_pair(&a, spec) {
            Ok(pair) => diff(&a, pair, &table),
            Err(e) => fail(&e),
        },
        (None, None) => {
            // The parts are counted as the window counts them (one truth);
            // the file is read line by line, as the window reads it.
            let counter = crate::engine::TokenCounter::new();
            let bar = progress_bar();
            let read = crate::opencode_db::read_traffic(&a.file, &table, &counter, &mut |p| {
                bar.show(p);
                std::ops::ControlFlow::Continue(())
            });
            bar.done();
            let mut t = match read {
                Ok(t) => t,
                Err(e) => return fail(format!("{e}{}", where_traffic_is(&a.file))),
            };
            t.assumed = crate::assumed_releases();
            if let Some(url) = a.otlp_endpoint.as_deref() {
                let x = super::otlp::Export {
                    endpoint: crate::net::otlp::traces_url(url),
                    content: a.otlp_content,
                    allow_insecure_http: a.allow_insecure_http,
                    timeout: std::time::Duration::from_secs(a.otlp_timeout),
                    file: &a.file,
                };
                return super::otlp::export_traffic(&t, &x, &table);
            }
            match a.format {
                TrafficFormat::Json => print_json(&t),
                TrafficFormat::Text => out_report(&traffic::to_text(&t, a.parts)),
                TrafficFormat::Markdown => out_report(&traffic::to_markdown(&t)),
                TrafficFormat::Jsonl => print_rows(&t, &a.file, &table),
                // Written as it is (escaped: safe on a terminal too).
                TrafficFormat::Html => out(&traffic::html::to_html(
                    &t,
                    &format!(
                        "Traffic: {}",
                        a.file.file_name().map_or_else(
                            || a.file.display().to_string(),
                            |n| n.to_string_lossy().into_owned()
                        )
                    ),
                    traffic::html::HtmlOptions {
                        content: !a.no_content,
                    },
                )),
            }
            // The process ends here: freeing every request's row one by
            // one (a tenth of a second for 100,000) is left to the exit.
            std::mem::forget(t);
            ExitCode::SUCCESS
        }
    }
}

/// One flat row per request, written as they are made; control
/// characters in text fields are JSON escapes, so the output is safe on a
/// terminal as it is.
fn print_rows(t: &traffic::Traffic, file: &std::path::Path, table: &crate::engine::ModelTable) {
    use std::io::Write;
    let mut w = super::RedactedLines::new(std::io::BufWriter::new(std::io::stdout().lock()));
    let file = crate::engine::clean(&file.display().to_string(), 1000);
    let _ = traffic::rows::write_jsonl(t, &file, table, &mut w).and_then(|()| w.flush());
    // The rows are the requests read: what was not read is said apart.
    if let Some(s) = t.skipped.describe() {
        super::say(&s);
    }
}

/// The JSON view, as `out_json` prints it, but written as it is made
/// (a long capture's JSON is many times its size) unless on a terminal,
/// where `out` makes it safe first.
fn print_json(t: &traffic::Traffic) {
    use std::io::{IsTerminal, Write};
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        return out(&traffic::to_json_text(t));
    }
    let mut w = super::RedactedLines::new(std::io::BufWriter::new(stdout.lock()));
    let _ = traffic::write_json(t, &mut w).and_then(|()| w.flush());
}

/// A recorded request traced back to a workspace's files, or (with
/// --check-profile) the workspace's profile rendering set against it.
fn against(a: &Args, ws: &std::path::Path, table: &crate::engine::ModelTable) -> ExitCode {
    use crate::engine::traffic::{attribution_text, profile_check};
    if matches!(
        a.format,
        TrafficFormat::Markdown | TrafficFormat::Html | TrafficFormat::Jsonl
    ) {
        return fail(
            "--against writes text or JSON (--format text or json); Markdown, HTML and JSON lines are the views of a whole capture (without --against)",
        );
    }
    let wanted: Vec<usize> = a.request.into_iter().collect();
    let exchanges = match crate::opencode_db::read_exchanges(&a.file, &wanted) {
        Ok((_, x, _)) => x,
        Err(e) => return fail(&e),
    };
    let picked = match profile_check::pick(&exchanges, a.request) {
        Ok(p) => p,
        Err(e) => return fail(format!("{}: {e}", a.file.display())),
    };
    let opts = crate::with_surroundings(crate::engine::Options {
        profile: a.profile.clone(),
        workdir: a.workdir.clone(),
        ..crate::engine::Options::default()
    });
    let counter = crate::engine::TokenCounter::new();
    let first = profile_check::chain_first(&exchanges, picked.0);
    let t = match crate::engine::against_request(ws, &opts, table, &counter, picked, first) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    if let Some(note) = &t.not_this_agent {
        super::say(&format!("note: {note}"));
    }
    if !a.check_profile {
        match a.format.view() {
            Format::Json => out_json(&serde_json::json!({
                "schema": 1,
                "request": t.request,
                "model": t.model,
                "workspace": ws.display().to_string(),
                "attribution": t.attribution,
            })),
            _ => out_report(&attribution_text::to_text(&t.attribution, t.request)),
        }
        return ExitCode::SUCCESS;
    }
    match a.format.view() {
        Format::Json => out_json(&serde_json::json!({
            "schema": 1,
            "request": t.request,
            "profile": t.profile,
            "profile_chosen_because": t.profile_chosen_because,
            "differences": t.differences,
            "read_in_session": t.read_in_session,
            "home_not_sent": t.home_not_sent,
            "not_this_agent": t.not_this_agent,
        })),
        _ => out_report(&crate::engine::traffic::profile_check_text::to_text(
            &t,
            "the agent",
        )),
    }
    if t.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// For a project folder with no traffic of its own: where its traffic is
/// (its proxy captures, Claude Code's transcripts of it), said after the
/// error; empty when neither is there.
fn where_traffic_is(folder: &std::path::Path) -> String {
    let Ok(root) = folder.canonicalize() else {
        return String::new();
    };
    if !root.is_dir() {
        return String::new();
    }
    let mut found = Vec::new();
    let captures = root.join(".prompt-inspector").join("captures");
    if captures.is_dir() {
        found.push(captures.display().to_string());
    }
    if let Some(home) = crate::home() {
        let slug = crate::engine::workspace::agents::runs::claude_project_folder(&root);
        let projects = home.join(".claude/projects").join(&slug);
        if projects.is_dir() {
            found.push(format!("~/.claude/projects/{slug}"));
        }
    }
    if found.is_empty() {
        return String::new();
    }
    format!(
        "; this folder's traffic is in {}: `prompt-inspector traffic {}`",
        found.join(" and "),
        found[0]
    )
}

/// `--to-session TARGET`: the chain asked for, adopted as a session file.
fn to_session(a: &Args, target: &std::path::Path) -> ExitCode {
    if !target
        .extension()
        .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
    {
        let name = target
            .file_name()
            .map_or("NAME".into(), |n| n.to_string_lossy());
        return fail(format!(
            "--to-session {}: the session file's path, ending in .yaml (WORKSPACE/sessions/{name}.yaml)",
            target.display()
        ));
    }
    let exchanges = match crate::opencode_db::read_every_exchange(&a.file) {
        Ok((_, x, _)) => x,
        Err(e) => return fail(&e),
    };
    if target.exists() && !a.force {
        return fail(format!(
            "{} exists: not replaced (--force replaces it)",
            target.display()
        ));
    }
    adopt(&exchanges, target, &a.chain)
}

/// `FILE#N`: a file and a request number in it, when `spec` ends so.
fn file_and_number(spec: &str) -> Option<(std::path::PathBuf, usize)> {
    let (f, n) = spec.rsplit_once('#')?;
    let n = n.trim().parse::<usize>().ok()?;
    (!f.is_empty()).then(|| (std::path::PathBuf::from(f), n))
}

/// The forms `--diff` takes, said when one is misused.
const FORMS: &str = "`traffic a.jsonl --diff 3`, `traffic a.jsonl --diff 3 --with b.jsonl#5` or `traffic b.jsonl#5 --diff a.jsonl#3`";

/// The request `spec` names for `flag`: `FILE#N`, or `N` of `file`; else
/// why not, with the forms it takes (`forms`).
fn request_named(
    (flag, forms): (&str, &str),
    spec: &str,
    file: &std::path::Path,
) -> Result<(std::path::PathBuf, usize), String> {
    match file_and_number(spec) {
        Some(x) => Ok(x),
        None => spec
            .trim()
            .parse::<usize>()
            .map(|n| (file.to_path_buf(), n))
            .map_err(|_| format!("{flag} {spec}: not a request number ({forms}): {FORMS}")),
    }
}

/// What `--diff` compares: the request examined (`FILE`, `N`), and the one
/// it is compared with when the command names it (`--with [FILE#]M`, or
/// the `FILE#M` the command opened with); none: the previous request of
/// its chain, or the nearest earlier one sharing a prefix.
struct DiffPair {
    file: std::path::PathBuf,
    n: usize,
    with: Option<(std::path::PathBuf, usize)>,
}

/// Reads `--diff`'s forms: `FILE --diff N [--with [FILE#]M]`, and
/// `A#N --diff [B#]M` (request M of B, else of A, compared with A's N).
fn diff_pair(a: &Args, spec: &str) -> Result<DiffPair, String> {
    let named = (!a.file.exists())
        .then(|| file_and_number(&a.file.to_string_lossy()))
        .flatten();
    if let Some((base, m)) = named {
        if a.with.is_some() {
            return Err(format!(
                "--with: the request to compare with is already named ({}): {FORMS}",
                a.file.display()
            ));
        }
        let (file, n) = request_named(("--diff", "N or FILE#N"), spec, &base)?;
        return Ok(DiffPair {
            file,
            n,
            with: Some((base, m)),
        });
    }
    let Ok(n) = spec.trim().parse::<usize>() else {
        return Err(if file_and_number(spec).is_some() {
            format!(
                "--diff {spec}: name the request to compare it with as FILE#N before it: {FORMS}"
            )
        } else {
            format!("--diff {spec}: not a request number: {FORMS}")
        });
    };
    let with = match a.with.as_deref() {
        Some(w) => Some(request_named(("--with", "M, or FILE#M"), w, &a.file)?),
        None => None,
    };
    Ok(DiffPair {
        file: a.file.clone(),
        n,
        with,
    })
}

/// Request `n` compared with the previous request of its chain (or, the
/// first of its chain, with the nearest earlier request sharing a prefix),
/// or with the request named, of any chain or capture.
fn diff(a: &Args, p: DiffPair, table: &crate::engine::ModelTable) -> ExitCode {
    if matches!(a.format, TrafficFormat::Jsonl | TrafficFormat::Html) {
        return fail(
            "--diff writes text, JSON or Markdown (--format text, json or markdown); JSON lines and HTML are the views of a whole capture (without --diff)",
        );
    }
    let (file, n) = (&p.file, p.n);
    let counter = crate::engine::TokenCounter::new();
    let d = if let Some((other, m)) = p.with {
        let read = |f: &std::path::Path, k: usize| {
            crate::opencode_db::read_exchanges(f, &[k])
                .map(|(_, x, _)| x)
                .and_then(|x| {
                    let found = k.checked_sub(1).and_then(|i| x.get(i).cloned());
                    found.ok_or_else(|| {
                        crate::engine::error::Error::file(
                            f.display(),
                            crate::engine::error::Error::NoRequest {
                                number: k,
                                recorded: x.len(),
                            }
                            .to_string(),
                        )
                    })
                })
        };
        let (xa, xb) = match (read(&other, m), read(file, n)) {
            (Ok(xa), Ok(xb)) => (xa, xb),
            (Err(e), _) | (_, Err(e)) => return fail(&e),
        };
        let label = |f: &std::path::Path, k: usize| {
            crate::engine::clean(&format!("{}#{k}", f.display()), 300)
        };
        match traffic::diff_across(
            (&xa, m, &label(&other, m)),
            (&xb, n, &label(file, n)),
            &counter,
            table,
        ) {
            Ok(d) => d,
            Err(e) => return fail(&e),
        }
    } else {
        // The request and every earlier one: the first of a chain is
        // compared with the nearest earlier request that shares a prefix.
        let wanted: Vec<usize> = (n.saturating_sub(traffic::NEAREST_SEARCHED).max(1)..=n).collect();
        let exchanges = match crate::opencode_db::read_exchanges(file, &wanted) {
            Ok((_, x, _)) => x,
            Err(e) => return fail(&e),
        };
        match traffic::diff_at(&exchanges, n, &counter, table) {
            Ok(d) => d,
            Err(e) => return fail(format!("{}: {e}", file.display())),
        }
    };
    match a.format.view() {
        Format::Text => out_report(&crate::engine::compare::diff_report::to_text(&d)),
        Format::Json => out_json(&crate::engine::compare::diff_report::to_json(&d)),
        Format::Markdown => out_report(&crate::engine::compare::diff_report::to_markdown(&d)),
    }
    ExitCode::SUCCESS
}

/// Writes the captured conversation as a session file (JSON is YAML).
fn adopt(exchanges: &[traffic::Exchange], target: &std::path::Path, chain: &str) -> ExitCode {
    let name = target
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "adopted".into());
    let session = match traffic::to_session(exchanges, &name, chain) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let body = serde_json::to_string_pretty(&session).unwrap_or_default() + "\n";
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("{}: {e}", dir.display()));
    }
    match crate::engine::workspace::store::write_atomic(target, body.as_bytes()) {
        Ok(()) => {
            out(&format!(
                "{} ({}; {})\n",
                target.display(),
                crate::engine::plural(
                    session["turns"].as_array().map_or(0, Vec::len) as u64,
                    "turn"
                ),
                session["description"].as_str().unwrap_or("")
            ));
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("cannot write {}: {e}", target.display())),
    }
}

/// A progress bar on standard error for a long analysis (reading, then
/// explaining), only when standard error is a terminal; nothing otherwise.
struct Bar(Option<indicatif::ProgressBar>);

fn progress_bar() -> Bar {
    use std::io::IsTerminal;
    Bar(std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::hidden();
        b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        b
    }))
}

impl Bar {
    fn show(&self, p: traffic::Progress) {
        let Some(b) = &self.0 else { return };
        let style = |t: &str| indicatif::ProgressStyle::with_template(t).ok();
        match p {
            traffic::Progress::Reading { bytes, total } => {
                if b.length() != Some(total) {
                    if let Some(s) =
                        style("reading   {bar:40} {binary_bytes}/{binary_total_bytes} {eta}")
                    {
                        b.set_style(s);
                    }
                    b.set_length(total);
                }
                b.set_position(bytes);
            }
            traffic::Progress::Explaining { done, total } => {
                if b.length() != Some(total as u64) {
                    // The style first: the bytes' style never shows a count.
                    if let Some(s) = style("explaining {bar:40} {pos}/{len} requests {eta}") {
                        b.set_style(s);
                    }
                    b.set_position(0);
                    b.set_length(total as u64);
                }
                b.set_position(done as u64);
            }
        }
    }

    fn done(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
