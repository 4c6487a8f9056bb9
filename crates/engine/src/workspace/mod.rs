//! Loading a workspace folder: every file is read through one guarded reader
//! (no path or link may leave the workspace; size, binary and UTF-8 checks),
//! and every problem becomes one diagnostic while loading goes on.

pub mod agent;
mod agent_home;
pub mod agents;
pub mod diag;
pub mod expr;
pub mod line_file;
mod memory_above;
pub mod profile;
mod profile_bounds;
#[cfg(test)]
mod profile_tests;
pub mod profiles;
pub mod reader;
pub mod refused;
pub mod session;
pub mod settings;
pub mod skills;
pub mod sources;
pub mod store;
pub mod tooldefs;
pub mod types;
mod workdir;
pub mod yaml;

use workdir::check_workdir;
pub use workdir::workdir_as_given;

use std::path::Path;

use crate::error::{Error, Named};

pub use reader::{MAX_FILE_BYTES, Reader};
pub use types::{FragmentDef, HomeMemoryLeftOut, LeftOut, Workspace};

use crate::workspace::diag::{Diagnostic, FileDiags};
use crate::workspace::session::{Session, parse_session};
use crate::workspace::settings::{Settings, parse_settings};

/// Loads a workspace with the profile its files suggest. `Err` only when
/// the folder itself cannot be read; every other problem is a diagnostic in
/// the result.
pub fn load(root: &Path) -> Result<Workspace, Error> {
    load_as(
        root,
        None,
        &profiles::Profiles::bundled(),
        &agents::Extras::default(),
    )
}

/// Loads a workspace with the profile named (else `profile:` in
/// workspace.yaml, else the detected one).
pub fn load_as(
    root: &Path,
    profile_name: Option<&str>,
    profiles: &profiles::Profiles,
    extras: &agents::Extras,
) -> Result<Workspace, Error> {
    let mut r = Reader::new(root)?;
    if let Some(why) = agent_home::agents_own_folder(r.root(), extras.home.as_deref()) {
        return Err(Error::file(r.root().display(), why));
    }
    let mut diags = Vec::new();

    let settings = read_settings(&mut r, &mut diags);

    let chosen = choose_profile(profile_name, &settings, profiles, &r)?;
    let mut settings = settings;
    let mut fragments = Vec::new();
    let mut tools = Vec::new();
    let mut builtin = None;
    let mut agent_run = None;
    let mut home_memory_left_out = None;
    match profiles
        .get(&chosen.id())
        .filter(|p| p.kind.is_real_agent())
    {
        Some(p) => {
            let inside = agent_home::home_memory_inside(p, extras, r.root());
            let extras = &*agent_home::extras_for(extras, inside);
            builtin = load_agent(p, &mut r, extras, &mut settings, &mut fragments, &mut diags)?;
            home_memory_left_out = agent_home::left_out(p, extras, inside, &mut diags);
            if let (Some(b), Some(home)) = (&builtin, &extras.home) {
                agent_run = agents::runs::newest(p.kind, r.root(), home);
                if let Some(run) = &agent_run
                    && run.version != b.release
                {
                    diags.push(release_differs(run, b, profiles));
                }
            }
        }
        None => {
            sources::load_markdown_files(&mut r, &settings, &mut fragments, &mut diags);
            skills::load_skills(&mut r, &mut fragments, &mut diags);
            tooldefs::load_tools(&mut r, &mut fragments, &mut tools, &mut diags);
            sources::load_fragment_files(&mut r, &mut fragments, &mut diags);
        }
    }
    let fragments = dedupe(fragments, &mut diags);
    if fragments.is_empty() && builtin.is_none() {
        diags.push(nothing_here(&mut r, profiles));
    }

    let sessions = sessions_or_default(&mut r, &mut diags);
    // Reader diagnostics (refused paths, bad encodings) first, by file.
    let mut all = std::mem::take(&mut r.diags);
    all.extend(diags);
    Ok(Workspace {
        root: r.root().to_path_buf(),
        builtin,
        settings,
        fragments,
        tools,
        sessions,
        diagnostics: all,
        files: r.files,
        agent_files: r.agent_files,
        agent_run,
        home_memory_left_out,
        calibration: Default::default(),
        caps: profiles
            .get(&chosen.id())
            .and_then(|p| p.caps.as_ref())
            .map(|c| (c.per_file_chars, c.total_chars)),
        profile: chosen,
    })
}

/// The folder's sessions; none: the default one (every tool, no flags).
fn sessions_or_default(r: &mut Reader, diags: &mut Vec<Diagnostic>) -> Vec<Session> {
    let mut sessions = load_sessions(r, diags);
    if sessions.is_empty() {
        sessions.push(Session {
            name: "default".into(),
            description: "every tool enabled, no flags".into(),
            ..Session::default()
        });
    }
    sessions
}

/// The warning that the agent's newest session in the folder ran another
/// release than the one whose own parts are shown, with both, and the
/// profile that holds that release's parts when one does.
fn release_differs(
    run: &agents::runs::Run,
    b: &agents::builtin::Builtin,
    profiles: &profiles::Profiles,
) -> Diagnostic {
    let when = run
        .date
        .as_deref()
        .map_or(String::new(), |d| format!(", {d}"));
    let whose = match &b.observed {
        Some(_) => b.provenance(),
        None => "the bundled recording".to_string(),
    };
    let how = match profiles.with_parts_of(&b.agent, &run.version) {
        Some(p) => format!("`--profile {}` shows {}'s", p.id(), run.version),
        None => format!(
            "`prompt-inspector agents learn CAPTURE` learns {}'s from a capture of its requests through the proxy",
            run.version
        ),
    };
    Diagnostic::warning(
        run.file.clone(),
        Some(run.line),
        format!(
            "{} {} ran in this folder (its newest session here{when}); the agent's own parts shown are {}'s ({whose}): {how}",
            run.agent,
            run.version,
            b.source(),
        ),
    )
    .about(diag::About::OtherRelease)
}

/// An agent's folder read as that agent reads it (`p` its profile): the
/// working folder and session kind checked, the settings its profile
/// implies, then its own loader. Returns the agent's own parts.
/// An option the folder's agent has no use for is said, not silently
/// dropped: `--workdir` where the agent does not start in a subfolder,
/// `--new-session` where it has no startup context (OpenClaw's /new).
fn unused_options(p: &profile::Profile, extras: &agents::Extras, diags: &mut Vec<Diagnostic>) {
    if extras.workdir.is_some() && !p.kind.runs_in_a_subfolder() {
        diags.push(Diagnostic::warning(
            "--workdir",
            None,
            format!(
                "the folder {} runs in is not modelled for it: not used",
                p.agent
            ),
        ));
    }
    if !extras.startup_days.is_empty() && p.memory.is_none() {
        diags.push(Diagnostic::warning(
            "--new-session",
            None,
            format!(
                "{} loads no startup context on a new session: not used",
                p.agent
            ),
        ));
    }
}

fn load_agent(
    p: &profile::Profile,
    r: &mut Reader,
    extras: &agents::Extras,
    settings: &mut Settings,
    fragments: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) -> Result<Option<std::sync::Arc<agents::builtin::Builtin>>, Error> {
    let root = match &extras.workdir {
        Some(w) => {
            check_workdir(r, w)?;
            format!("{}/{w}", r.root().display())
        }
        None => r.root().display().to_string(),
    };
    if let Some(k) = &extras.session_kind
        && !p.session_kinds.contains_key(k)
    {
        let kinds: Vec<&str> = p.session_kinds.keys().map(String::as_str).collect();
        let option = format!("--session-kind {k}");
        return Err(if kinds.is_empty() {
            Error::option(
                option,
                format!("the {} profile has no kinds of session", p.id()),
            )
        } else {
            Error::option(
                option,
                format!("the {} profile knows {}", p.id(), kinds.join(", ")),
            )
        });
    }
    unused_options(p, extras, diags);
    let p = &with_parts_filled(p, &root, extras, r);
    if p.kind == agent::Agent::ClaudeCode {
        claude_settings(r, extras, settings, diags);
        if p.parts.is_some() && r.in_git_repository(extras.workdir.as_deref().unwrap_or("")) {
            diags.push(Diagnostic::warning(
                ".git",
                None,
                "Claude Code adds this repository's git status (branch, changed files, \
                 recent commits) to its prompt in a git repository: not counted here, \
                 it comes from running git, which this tool does not do",
            ));
        }
    }
    let implied = agents::settings(p, &root, r.exists("SOUL.md"));
    settings.separator = implied.separator;
    settings.layers = implied.layers;
    if p.parts.is_some() {
        if settings.model.is_none() {
            settings.model = implied.model;
        }
        settings.history.message_breakpoint = implied.history.message_breakpoint;
        settings.cache_tools = implied.cache_tools;
        settings.history.reserved_output = implied.history.reserved_output;
        settings.history.autocompact_buffer = implied.history.autocompact_buffer;
    }
    let load = match p.kind {
        agent::Agent::ClaudeCode => agents::load_claude_code,
        agent::Agent::Codex => agents::load_codex,
        agent::Agent::OpenClaw => agents::load_openclaw,
        agent::Agent::Gemini => agents::load_gemini,
        agent::Agent::Pi => agents::load_pi,
        agent::Agent::OpenCode => agents::load_opencode,
        agent::Agent::Layered => unreachable!("the layered design is no agent's folder"),
    };
    load(p, r, extras, fragments, diags);
    diags.extend(memory_above::said(
        p,
        r,
        extras.workdir.as_deref(),
        extras.home.as_deref(),
    ));
    Ok(p.parts.clone())
}

/// Claude Code's settings files: the model they set (unless workspace.yaml
/// sets one), and an output style, which this view does not render, said.
fn claude_settings(
    r: &mut Reader,
    extras: &agents::Extras,
    settings: &mut Settings,
    diags: &mut Vec<Diagnostic>,
) {
    let cs = agents::claude_settings::read(r, extras.user_memory_home.as_deref(), diags);
    if settings.model.is_none()
        && let Some((model, file)) = cs.model
    {
        settings.model = Some(model);
        settings.model_from = Some(file);
    }
    if let Some((style, file)) = cs.output_style
        && !style.eq_ignore_ascii_case("default")
    {
        diags.push(Diagnostic::warning(
            file,
            None,
            format!(
                "outputStyle \"{}\": Claude Code changes its system prompt for an output style; shown here is its default prompt",
                crate::clean(&style, 80)
            ),
        ));
    }
}

/// The profile with its recorded parts' run values filled in: the folder,
/// the home folder and today's date the caller gave.
fn with_parts_filled(
    p: &profile::Profile,
    root: &str,
    extras: &agents::Extras,
    r: &mut Reader,
) -> profile::Profile {
    let mut p = p.clone();
    if let Some(b) = &p.parts {
        let home = extras.home.as_ref().map(|h| h.display().to_string());
        let today = extras
            .today
            .as_deref()
            .or(extras.startup_days.first().map(String::as_str));
        let mut filled = b.filled(root, home.as_deref(), today);
        // The folder opened and whether it is a git repository (OpenCode's
        // `Workspace root folder`, `Is directory a git repo`).
        if filled.wants("folder") {
            filled = filled.with_var("folder", &r.root().display().to_string());
        }
        let git = r.in_git_repository(extras.workdir.as_deref().unwrap_or(""));
        if filled.wants("is_git") {
            filled = filled.with_var("is_git", if git { "yes" } else { "no" });
        }
        if filled.wants("is_git_bool") {
            filled = filled.with_var("is_git_bool", if git { "true" } else { "false" });
        }
        // The machine it runs on (Claude Code's `OS Version:`).
        if let (Some(rec), Some(os)) = (b.recorded_os.as_deref(), extras.os_version.as_deref()) {
            filled = filled.replaced(rec, os);
        }
        let memory = || matches!(extras.user_memory(&p), Some((_, Ok(t))) if !t.trim().is_empty());
        for s in b.sometimes.iter() {
            let holds = match s.when {
                agents::builtin::Condition::GitRepository => git,
                agents::builtin::Condition::UserMemory => memory(),
            };
            if !holds {
                filled = filled.without(&s.text);
            }
        }
        // The folder's tree, as the agent draws it (Gemini CLI).
        if filled.wants("directory_tree") {
            let start = extras.workdir.as_deref().unwrap_or("");
            let (tree, cut) = agents::gemini_tree::directory_tree(r, root, start);
            filled = filled.with_var("directory_tree", &tree);
            if !cut {
                filled = filled.without(agents::gemini_tree::CUT_NOTE);
            }
        }
        p.parts = Some(std::sync::Arc::new(filled));
    }
    p
}

/// workspace.yaml's settings (defaults when it is missing or invalid, with
/// a diagnostic for what is wrong in it).
fn read_settings(r: &mut Reader, diags: &mut Vec<Diagnostic>) -> Settings {
    if r.exists("workspace.yaml") {
        match r.read("workspace.yaml") {
            Some(text) => {
                let mut d = FileDiags {
                    file: "workspace.yaml",
                    out: diags,
                };
                match yaml::parse(&text) {
                    Ok(node) => parse_settings(&node, &text, &mut d),
                    Err(e) => {
                        d.error(
                            e.line,
                            format!("invalid YAML: {} (defaults used)", e.message),
                        );
                        Settings::default()
                    }
                }
            }
            None => Settings::default(),
        }
    } else {
        Settings::default()
    }
}

/// The profile named (`--profile`, the window), else the one workspace.yaml
/// names, else the one detected; an unknown name is an error.
fn choose_profile(
    profile_name: Option<&str>,
    settings: &Settings,
    profiles: &profiles::Profiles,
    r: &Reader,
) -> Result<profile::Chosen, Error> {
    Ok(match profile_name.or(settings.profile.as_deref()) {
        Some(name) => {
            let why = if profile_name.is_some() {
                "chosen explicitly (--profile, or in the window)"
            } else {
                "profile: in workspace.yaml"
            };
            profiles.chosen(name, why).ok_or_else(|| Error::Unknown {
                what: Named::Profile,
                name: name.to_string(),
                known: profiles.ids(),
            })?
        }
        None => profiles.detect(r),
    })
}

/// The sessions (`sessions/*.yaml`), each one diagnostic per problem.
fn load_sessions(r: &mut Reader, diags: &mut Vec<Diagnostic>) -> Vec<Session> {
    let mut sessions = Vec::new();
    for (name, is_dir) in r.list("sessions") {
        if is_dir || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        let rel = format!("sessions/{name}");
        let Some(text) = r.read(&rel) else { continue };
        let stem = name
            .trim_end_matches(".yaml")
            .trim_end_matches(".yml")
            .to_string();
        let mut d = FileDiags {
            file: &rel,
            out: diags,
        };
        match yaml::parse(&text) {
            Ok(node) => {
                let mut read_transcript = |path: &str, line: usize| match r.read_checked(path) {
                    Ok(t) => Some(t),
                    Err((_, msg)) => {
                        d.out.push(Diagnostic::error(
                            rel.as_str(),
                            Some(line),
                            format!("transcript '{path}': {msg}"),
                        ));
                        None
                    }
                };
                let mut d2 = FileDiags {
                    file: &rel,
                    out: &mut Vec::new(),
                };
                let parsed = parse_session(&node, &text, &stem, &mut d2, &mut read_transcript);
                let extra = std::mem::take(d2.out);
                d.out.extend(extra);
                if let Some(s) = parsed {
                    if sessions.iter().any(|o: &Session| o.name == s.name) {
                        d.error(
                            Some(1),
                            format!("duplicate session name '{}' (ignored)", s.name),
                        );
                    } else {
                        sessions.push(s);
                    }
                }
            }
            Err(e) => d.error(
                e.line,
                format!("invalid YAML: {} (session skipped)", e.message),
            ),
        }
    }
    sessions
}

/// The cores the engine's work may use (asked once per process): counting,
/// and a big fragment file's list parsed in runs.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The files that make a folder an agent's prompt folder.
const PROMPT_FILES: [&str; 5] = [
    "CLAUDE.md",
    "AGENTS.md",
    "SOUL.md",
    "GEMINI.md",
    "workspace.yaml",
];

/// The folders right inside the root (the first 200 looked at) that hold
/// one of [`PROMPT_FILES`], at most three.
fn prompt_folders_inside(r: &mut Reader) -> Vec<String> {
    let folders: Vec<String> = r
        .list(".")
        .into_iter()
        .filter(|(_, dir)| *dir)
        .take(200)
        .map(|(n, _)| n)
        .collect();
    folders
        .into_iter()
        .filter(|n| PROMPT_FILES.iter().any(|f| r.exists(&format!("{n}/{f}"))))
        .take(3)
        .collect()
}

/// A folder with nothing this tool reads as a prompt: said, with where the
/// agents keep theirs (OpenClaw's state folder holds its workspace one
/// folder down).
fn nothing_here(r: &mut Reader, profiles: &profiles::Profiles) -> Diagnostic {
    let inside = prompt_folders_inside(r);
    // An agent's layout here, which only that agent's profile reads (the
    // layered one was asked for): the one detection picks without it.
    let hint = if let Some((p, seen)) = profiles.agent_of(r) {
        format!(
            "{} here {} {}'s, which the layered profile does not read (it reads workspace.yaml, fragments/ and SOUL.md, AGENTS.md and the like): leave out --profile, or use --profile {}",
            profiles::list(&seen),
            if seen.len() == 1 { "is" } else { "are" },
            p.agent,
            p.name
        )
    } else if r.exists("openclaw.json") && r.exists("workspace") {
        "this is OpenClaw's state folder: its prompt files are in the workspace/ folder inside it (open that one)".to_string()
    } else if r.exists(".claude") && !r.exists("CLAUDE.md") {
        "a .claude/ folder without CLAUDE.md: open the project folder (where CLAUDE.md is), or pass --user-memory for ~/.claude/CLAUDE.md".to_string()
    } else if let Some(first) = inside.first() {
        format!(
            "{} inside it {}: open {}",
            inside
                .iter()
                .map(|n| format!("{n}/"))
                .collect::<Vec<_>>()
                .join(", "),
            if inside.len() == 1 {
                "holds prompt files"
            } else {
                "hold prompt files"
            },
            r.root().join(first).display()
        )
    } else {
        "a prompt folder holds CLAUDE.md (Claude Code), AGENTS.md (Codex, Pi, OpenCode, OpenClaw), GEMINI.md (Gemini CLI), SOUL.md (OpenClaw), or workspace.yaml and fragments/ (the layered design): open the folder that has them".to_string()
    };
    Diagnostic::warning(
        ".",
        None,
        format!("no prompt files found in {}: {hint}", r.root().display()),
    )
    .about(diag::About::NothingToAssemble)
}

/// Keeps the first fragment of each id; each later one is a diagnostic.
fn dedupe(fragments: Vec<FragmentDef>, diags: &mut Vec<Diagnostic>) -> Vec<FragmentDef> {
    let mut seen: std::collections::BTreeMap<String, (String, usize)> = Default::default();
    let mut out = Vec::with_capacity(fragments.len());
    for f in fragments {
        if let Some((file, line)) = seen.get(&f.id) {
            let mut d = diag::FileDiags {
                file: &f.source,
                out: diags,
            };
            d.error(Some(f.line), format!("duplicate fragment id '{}' (first defined at {file}:{line}; this one is ignored)", f.id));
            continue;
        }
        seen.insert(f.id.clone(), (f.source.clone(), f.line));
        out.push(f);
    }
    out
}
