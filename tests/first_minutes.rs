//! What a new user types first (issue 40): the proxy's `--listen` in the
//! forms people write (a port, `localhost:PORT`, an address), and a clear
//! sentence for one it cannot use.

use crate::common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn the_proxy_listens_on_a_port_alone_or_localhost_and_names_a_bad_one() {
    for listen in ["0", "localhost:0", "127.0.0.1:0"] {
        let up = crate::otlp::upstream();
        let p = proxy_on(listen, &up, &up, &[]);
        assert!(
            p.url.starts_with("http://127.0.0.1:"),
            "{listen}: {}",
            p.url
        );
        assert!(!p.url.ends_with(":0"), "{}", p.url);
    }
    let o = run(&["proxy", "--listen", "the-harbour"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("give PORT, localhost:PORT or ADDRESS:PORT"),
        "{err}"
    );
}

/// A proxy that could not listen, or that recorded nothing, leaves no empty
/// capture behind; a taken port is one sentence saying what to pass.
#[test]
fn a_taken_port_is_one_sentence_and_no_empty_capture_is_left() {
    let cwd = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let o = std::process::Command::new(bin())
        .args(["proxy", "--listen", &port])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("is taken") && err.contains("--listen 0"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        0,
        "nothing left"
    );
    // Started and stopped with no exchange: said, and no file kept.
    let mut child = std::process::Command::new(bin())
        .args(["proxy", "--listen", "0"])
        .current_dir(cwd.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut first,
    )
    .unwrap();
    assert!(first.contains("recording to"), "{first}");
    // SAFETY: the pid is our child's.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no exchange recorded"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        0,
        "nothing left"
    );
}

/// A typo of a command is said as one, with the command meant; a folder
/// of that name still opens.
#[test]
fn a_mistyped_command_names_the_command_meant() {
    let o = run(&["reprot", "sample-workspace"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(
            "'reprot' is no command and no folder here: did you mean `prompt-inspector report`?"
        ),
        "{err}"
    );
    // Far from every command: not guessed (it is taken as a folder).
    let o = run(&["xyzzyplugh", "--help"]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
}

/// `--help` says what the tool is and shows examples; an unknown model is
/// one line with the nearest, not the whole table.
#[test]
fn help_teaches_and_an_unknown_model_names_the_nearest() {
    let o = run(&["--help"]);
    let text = stdout(&o);
    assert!(text.contains("See what your LLM agent sends"), "{text}");
    assert!(
        text.contains("Examples:") && text.contains("prompt-inspector run claude"),
        "{text}"
    );
    let o = run(&["report", "sample-workspace", "--model", "claude-sonet-4-6"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(
            "unknown model 'claude-sonet-4-6': the nearest the table knows is claude-sonnet-4-6"
        ),
        "{err}"
    );
    assert!(err.len() < 300, "{} bytes", err.len());
}

/// A folder with no prompt in it, or OpenClaw's state folder instead of
/// its workspace, says so and where to look; `proxy FILE` says it takes a
/// folder.
#[test]
fn an_empty_folder_or_the_wrong_one_says_where_to_look() {
    // Nothing to assemble is no report: one sentence on standard error,
    // nothing on standard output, a non-zero exit, whatever the format.
    let said_by = |dir: &std::path::Path| {
        let w = dir.to_str().unwrap();
        for args in [
            vec!["report", w, "--format", "json"],
            vec!["report", w],
            vec!["context", w],
            vec!["predict", w],
        ] {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
            assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        }
        stderr(&run(&["report", w]))
    };
    let empty = tempfile::tempdir().unwrap();
    let said = said_by(empty.path());
    assert!(
        said.contains("no prompt files found in")
            && said.contains("CLAUDE.md (Claude Code)")
            && said.contains("GEMINI.md (Gemini CLI)"),
        "{said}"
    );
    // An agent's file the layered profile (asked for) does not read: named
    // as that agent's, with the way out, not "a prompt folder holds
    // CLAUDE.md" of a folder that holds one.
    let claude = tempfile::tempdir().unwrap();
    write_ws(claude.path(), &[("CLAUDE.md", "# Rules\n")]);
    let o = run(&[
        "report",
        claude.path().to_str().unwrap(),
        "--profile",
        "layered",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("CLAUDE.md here is Claude Code's, which the layered profile does not read")
            && stderr(&o).contains("use --profile claude-code"),
        "{}",
        stderr(&o)
    );
    let state = tempfile::tempdir().unwrap();
    write_ws(
        state.path(),
        &[("openclaw.json", "{}"), ("workspace/.keep", "")],
    );
    let said = said_by(state.path());
    assert!(said.contains("OpenClaw's state folder"), "{said}");
    // A folder one level above the prompt folder names the one inside.
    let above = tempfile::tempdir().unwrap();
    write_ws(
        above.path(),
        &[("my-agent/AGENTS.md", "# Rules\n"), ("notes/todo.txt", "x")],
    );
    let said = said_by(above.path());
    assert!(
        said.contains(&format!(
            "my-agent/ inside it holds prompt files: open {}",
            above.path().join("my-agent").display()
        )),
        "{said}"
    );
    // What else the reading found is said with it: a link it refused.
    #[cfg(unix)]
    {
        let linked = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/hostname", linked.path().join("SOUL.md")).unwrap();
        let said = said_by(linked.path());
        assert!(said.contains("no prompt files found in"), "{said}");
        assert!(said.contains("SOUL.md"), "{said}");
    }
    // A folder with prompt files says nothing of the kind.
    let r = json(&run(&["report", "sample-workspace", "--format", "json"]));
    assert!(!r["diagnostics"].to_string().contains("no prompt files"));
    let o = run(&["proxy", "README.md"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("README.md is not a folder: proxy takes a workspace folder"),
        "{}",
        stderr(&o)
    );
    assert!(!std::path::Path::new("README.md/.prompt-inspector").exists());
}

/// The command line's proxy says each exchange as it records it (its
/// number, endpoint, model, status, time and usage, or its error), and when
/// it stops, what the capture holds as `traffic` counts it; `--quiet`
/// keeps it to the stop.
#[test]
fn the_proxy_says_each_exchange_and_sums_up_when_it_stops() {
    let up = crate::otlp::upstream();
    let mut p = proxy(&up, &up, &[]);
    for turn in 0..3 {
        crate::otlp::send(&p, turn);
    }
    crate::otlp::wait_lines(&p.capture, 3);
    let err = crate::otlp::stop(&mut p);
    assert!(
        err.contains("#1 /v1/messages claude-sonnet-4-6 → 200 in ")
            && err.contains("read 0 · written 1,500 · uncached 7 · output 3"),
        "{err}"
    );
    assert!(
        err.contains("#3 /v1/messages") && err.contains("→ 529") && err.contains("error: HTTP 529"),
        "{err}"
    );
    assert!(
        err.contains("prompt-inspector proxy: stopped; 3 requests in "),
        "{err}"
    );
    let up = crate::otlp::upstream();
    let mut p = proxy(&up, &up, &["--quiet"]);
    crate::otlp::send(&p, 0);
    crate::otlp::wait_lines(&p.capture, 1);
    let err = crate::otlp::stop(&mut p);
    assert!(!err.contains("#1 /v1/messages"), "{err}");
    assert!(err.contains("stopped; 1 request in"), "{err}");
}

/// Bash completes the commands and each command's flags and values from
/// the script `completions bash` prints (sourced in a real bash); the
/// other shells get theirs.
#[test]
fn shell_completions_complete_commands_flags_and_values_in_bash() {
    let o = run(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("prompt-inspector.bash");
    std::fs::write(&script, stdout(&o)).unwrap();
    let complete = |words: &str, cword: usize, cur: &str, prev: &str| -> String {
        let prog = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD={cword}; _prompt__inspector prompt-inspector '{cur}' '{prev}'; echo \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let o = std::process::Command::new("bash")
            .args(["-c", &prog])
            .output()
            .expect("bash runs");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).trim().to_string()
    };
    assert_eq!(
        complete("prompt-inspector tr", 1, "tr", "prompt-inspector"),
        "traffic"
    );
    assert_eq!(
        complete("prompt-inspector ag", 1, "ag", "prompt-inspector"),
        "agents"
    );
    assert_eq!(
        complete("prompt-inspector traffic --for", 2, "--for", "traffic"),
        "--format --force"
    );
    assert_eq!(
        complete("prompt-inspector traffic x --format ''", 4, "", "--format"),
        "text json markdown jsonl html"
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        assert!(stdout(&o).contains("traffic"), "{shell}");
    }
}

/// `man` prints a page groff reads without a warning, naming every
/// command; `man COMMAND` one command's page; an unknown one is refused.
#[test]
fn the_manual_page_is_valid_roff_and_names_every_command() {
    let o = run(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH prompt-inspector 1"), "{page}");
    for c in ["report", "traffic", "proxy", "agents", "run", "completions"] {
        assert!(page.contains(c), "{c}");
    }
    let mut groff = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("groff runs (apt install groff-base)");
    use std::io::Write;
    groff
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let g = groff.wait_with_output().unwrap();
    assert!(g.status.success());
    assert_eq!(String::from_utf8_lossy(&g.stderr), "", "groff's warnings");
    let o = run(&["man", "traffic"]);
    assert!(
        stdout(&o).contains(".TH prompt-inspector-traffic 1"),
        "{}",
        stdout(&o)
    );
    let o = run(&["man", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no command 'nope' (commands: report,"));
    // Every page written into a folder, as the README installs them: the
    // tool's and one per command its page refers to.
    let dir = tempfile::tempdir().unwrap();
    let man1 = dir.path().join("man/man1");
    let o = run(&["man", "--dir", man1.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written: std::collections::BTreeSet<String> = std::fs::read_dir(&man1)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(written.contains("prompt-inspector.1"), "{written:?}");
    for c in [
        "report",
        "traffic",
        "proxy",
        "agents",
        "run",
        "completions",
        "man",
    ] {
        let f = format!("prompt-inspector-{c}.1");
        assert!(written.contains(&f), "{f}: {written:?}");
        let text = std::fs::read_to_string(man1.join(&f)).unwrap();
        assert!(text.contains(&format!(".TH prompt-inspector-{c} 1")), "{f}");
        // Its synopsis is the command as typed.
        assert!(
            text.contains(&format!("\\fBprompt\\-inspector {c}\\fR")),
            "{f}: {}",
            text.lines().find(|l| l.contains("fBprompt")).unwrap_or("")
        );
    }
    assert!(!written.contains("prompt-inspector-help.1"));
    // Every page reads in groff without a warning (an ellipsis in a help
    // text made seven of them warn).
    for f in &written {
        let g = std::process::Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(man1.join(f))
            .output()
            .expect("groff runs (apt install groff-base)");
        assert!(g.status.success(), "{f}");
        assert_eq!(
            String::from_utf8_lossy(&g.stderr),
            "",
            "groff's warnings on {f}"
        );
    }
    // A file where the folder should be: said so.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let refused = run(&["man", "--dir", file.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("not a folder (--dir names the folder"),
        "{}",
        stderr(&refused)
    );
    assert!(
        stderr(&o).contains(&format!("{} pages written to", written.len())),
        "{}",
        stderr(&o)
    );
    // A page's file that is a link is refused, not followed.
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, "keep").unwrap();
    std::fs::remove_file(man1.join("prompt-inspector-report.1")).unwrap();
    std::os::unix::fs::symlink(&target, man1.join("prompt-inspector-report.1")).unwrap();
    let o = run(&["man", "--dir", man1.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}

/// Every subcommand's `--format json` names its schema (an integer), so a
/// script can tell when a field changed meaning.
#[test]
fn every_json_output_names_its_schema() {
    let ws = sample();
    let ws = ws.to_str().unwrap();
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/capture.jsonl");
    let capture = capture.to_str().unwrap();
    let (a, b) = (format!("{ws}@chat"), format!("{ws}@coding"));
    let runs: Vec<Vec<&str>> = vec![
        vec!["report", ws],
        vec!["context", ws],
        vec!["predict", ws],
        vec!["diff", &a, &b],
        vec!["models"],
        vec!["traffic", capture],
        vec!["traffic", capture, "--diff", "2"],
        vec!["agents"],
    ];
    for args in runs {
        let mut all = args.clone();
        all.extend(["--format", "json"]);
        let o = run(&all);
        assert!(
            o.status.code().is_some_and(|c| c < 2),
            "{args:?}: {}",
            stderr(&o)
        );
        let v = json(&o);
        assert!(
            v["schema"].is_u64(),
            "{args:?} has no schema: {}",
            &stdout(&o)[..200.min(stdout(&o).len())]
        );
    }
}

/// The sample is inside the binary: `sample` writes it into the user's data
/// folder the first time (every file of sample-workspace/, as it is) and
/// prints where; the views read it as they read the source tree's; a file
/// edited there is never overwritten.
#[test]
fn the_sample_comes_with_the_binary_and_is_unpacked_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-workspace");
    let on_disk = files_under(&root);
    let mut bundled: Vec<String> = prompt_inspector::sample::FILES
        .iter()
        .map(|(p, _)| p.to_string())
        .collect();
    bundled.sort();
    assert_eq!(
        bundled, on_disk,
        "sample.rs lists every file of sample-workspace/"
    );
    for (p, text) in prompt_inspector::sample::FILES {
        assert_eq!(std::fs::read_to_string(root.join(p)).unwrap(), *text, "{p}");
    }
    let data = tempfile::tempdir().unwrap();
    let sample = || {
        let o = Command::new(bin())
            .arg("sample")
            .env("XDG_DATA_HOME", data.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        PathBuf::from(stdout(&o).trim())
    };
    let dir = sample();
    assert!(dir.starts_with(data.path()), "{}", dir.display());
    // The same prompt, its folder's path aside (the sample names it).
    let render = |p: &Path| {
        let p = p.canonicalize().unwrap();
        // (A budget that trims nothing: the path's length moves the cuts.)
        let args = ["render", p.to_str().unwrap(), "--budget", "100000"];
        // Block headers count the path's tokens too: left out.
        stdout(&run(&args))
            .replace(p.to_str().unwrap(), "WS")
            .lines()
            .filter(|l| !l.starts_with("──── block"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(render(&dir), render(&root));
    std::fs::write(dir.join("SOUL.md"), "# Mine\n").unwrap();
    assert_eq!(sample(), dir);
    assert_eq!(
        std::fs::read_to_string(dir.join("SOUL.md")).unwrap(),
        "# Mine\n"
    );
}

/// Every file under `root`, by its path in it, sorted.
fn files_under(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The examples are inside the binary too: `examples` lists every folder of
/// examples/ and the sample, `examples --copy DIR` writes each file as it is
/// in the source tree, and a second copy leaves an edited file alone.
#[test]
fn the_examples_come_with_the_binary_and_copy_without_overwriting() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = stdout(&run(&["examples"]));
    let mut folders: Vec<String> = std::fs::read_dir(source.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.push("sample-workspace".into());
    for name in &folders {
        assert!(
            listed.contains(&format!("  {name} ")),
            "{name} not listed:\n{listed}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let o = run(&["examples", "--copy", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in &folders {
        let from = match name.as_str() {
            "sample-workspace" => source.join(name),
            _ => source.join("examples").join(name),
        };
        let to = dir.path().join(name);
        assert_eq!(files_under(&to), files_under(&from), "{name}");
        for f in files_under(&from) {
            assert_eq!(
                std::fs::read(to.join(&f)).unwrap(),
                std::fs::read(from.join(&f)).unwrap(),
                "{name}/{f}"
            );
        }
    }
    let soul = dir.path().join("sample-workspace/SOUL.md");
    std::fs::write(&soul, "# Mine\n").unwrap();
    let again = stdout(&run(&["examples", "--copy", dir.path().to_str().unwrap()]));
    let sample_files = files_under(&source.join("sample-workspace")).len();
    let kept = format!("0 written, {sample_files} already there");
    assert!(again.contains(&kept), "{again}");
    assert_eq!(std::fs::read_to_string(&soul).unwrap(), "# Mine\n");
    // What it prints to try each one runs.
    let capture = dir.path().join("traffic/capture.jsonl");
    assert!(
        run(&["traffic", capture.to_str().unwrap()])
            .status
            .success()
    );
    // A file named where a folder is wanted: the path and what to do.
    let o = run(&["examples", "--copy", capture.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(capture.to_str().unwrap())
            && err.contains("cannot make this folder")
            && err.contains("name a folder"),
        "{err}"
    );
}

/// The window asked for where there is no desktop, or on a folder that is
/// not there: one sentence each, naming what to run instead, exit 2; not
/// winit's error with its source path.
#[test]
fn no_desktop_or_no_folder_is_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(bin())
        .arg(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_DATA_HOME", "/nonexistent/prompt-inspector-tests")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("no desktop session here"), "{e}");
    assert!(
        e.contains(&format!("prompt-inspector report {}", dir.path().display())),
        "{e}"
    );
    assert!(!e.contains(".cargo") && !e.contains("winit"), "{e}");
    // `run --window` there: the same sentence, the run without the window
    // named, and no empty capture left in the folder.
    let o = std::process::Command::new(bin())
        .args(["run", "claude", "--program", "/bin/true", "--window"])
        .current_dir(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_DATA_HOME", "/nonexistent/prompt-inspector-tests")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("no desktop session here") && e.contains("without --window"),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let missing = dir.path().join("not-here");
    let o = run(&[missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}: no such folder or file", missing.display())),
        "{}",
        stderr(&o)
    );
}

/// An agent's own folder opened as a project (`~/.claude`, a project's
/// `.claude/`, `~/.pi/agent`) is refused in one sentence naming what it is
/// and what to open instead; nothing is reported as if it were a project.
#[test]
fn an_agents_own_folder_is_not_a_project() {
    let home = tempfile::tempdir().unwrap();
    write_ws(
        home.path(),
        &[
            (".claude/CLAUDE.md", "Always answer in British English."),
            (".claude/settings.json", "{}"),
            (".pi/agent/AGENTS.md", "Be brief."),
            ("project/CLAUDE.md", "Use cents."),
            ("project/.claude/settings.json", "{}"),
        ],
    );
    let report_at =
        |dir: &std::path::Path| run_home(home.path(), &["report", dir.to_str().unwrap()]);
    let o = report_at(&home.path().join(".claude"));
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("Claude Code's own folder (its settings, not a project): open the folder you run `claude` in, and add your ~/.claude/CLAUDE.md with --user-memory"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    let o = report_at(&home.path().join("project/.claude"));
    assert_eq!(o.status.code(), Some(2));
    let project = home.path().join("project").canonicalize().unwrap();
    assert!(
        stderr(&o).contains(&format!("({} if this is a project's)", project.display())),
        "{}",
        stderr(&o)
    );
    let o = report_at(&home.path().join(".pi/agent"));
    assert!(stderr(&o).contains("Pi's own folder"), "{}", stderr(&o));
    // The project itself is a project.
    assert!(report_at(&project).status.success());
}

/// A profile or session name near a known one is named ("did you mean").
#[test]
fn a_near_profile_or_session_name_is_named() {
    let s = sample();
    let ws = s.to_str().unwrap();
    let o = run(&["report", ws, "--profile", "claud-code"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown profile 'claud-code': did you mean claude-code? (profiles: "),
        "{}",
        stderr(&o)
    );
    let o = run(&["report", ws, "--session", "codng"]);
    assert!(
        stderr(&o).contains("no session named 'codng': did you mean coding? (sessions: "),
        "{}",
        stderr(&o)
    );
    let o = run(&["report", ws, "--profile", "zzz"]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
    // A name it starts, another case, a session's file named.
    for (flag, typed, meant) in [
        ("--profile", "claude", "claude-code"),
        ("--profile", "CLAUDE-CODE", "claude-code"),
        ("--session", "chat.yaml", "chat"),
    ] {
        let o = run(&["report", ws, flag, typed]);
        assert!(
            stderr(&o).contains(&format!("'{typed}': did you mean {meant}?")),
            "{}",
            stderr(&o)
        );
    }
}

/// The home folder opened as the project: its `.claude/CLAUDE.md` is the
/// folder's own file and the user's memory at once; it is read once, and
/// not said to be left out.
#[test]
fn the_home_opened_as_the_project_reads_its_memory_once() {
    let home = tempfile::tempdir().unwrap();
    write_ws(
        home.path(),
        &[
            (".claude/CLAUDE.md", "Always answer in British English."),
            ("CLAUDE.md", "Project notes here."),
        ],
    );
    let h = home.path().to_str().unwrap();
    for extra in [&[][..], &["--user-memory"][..]] {
        let mut args = vec!["render", h];
        args.extend(extra);
        let o = run_home(home.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stdout(&o)
                .matches("Always answer in British English.")
                .count(),
            1,
            "{extra:?}: {}",
            stdout(&o)
        );
        let mut args = vec!["report", h, "--format", "json"];
        args.extend(extra);
        let r = run_home(home.path(), &args);
        let said = json(&r)["diagnostics"].to_string();
        assert!(!said.contains("the agent sends this file"), "{said}");
    }
}
