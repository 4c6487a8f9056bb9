//! `prompt-inspector run AGENT`: the program started with its base URL
//! pointed at the recording proxy, its exit code passed on, the capture
//! kept and explained. The program here is python3 speaking the agent's
//! API (what matters is the environment `run` gives it) to the loopback
//! upstream with the providers' cache accounting (scripts/agent-upstream.py).

use crate::common;
use crate::window;
use egui_kittest::kittest::Queryable;

use std::process::Command;

use common::*;

/// A client of the Messages API that reads its base URL where Claude Code
/// does, sends two requests with a breakpoint, and exits 3.
const CLIENT: &str = r#"
import json, os, sys, urllib.request
base = os.environ["ANTHROPIC_BASE_URL"]
system = [{"type": "text", "text": "You are careful. " * 600, "cache_control": {"type": "ephemeral"}}]
for q in ("hello", "and again"):
    body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": system,
            "messages": [{"role": "user", "content": q}]}
    req = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "x-api-key": "sk-ant-FAKE-run-test-key-0123456789"})
    print(json.load(urllib.request.urlopen(req))["usage"])
sys.exit(3)
"#;

#[test]
fn run_points_the_agent_at_the_proxy_keeps_its_exit_code_and_explains_the_capture() {
    let dir = tempfile::tempdir().unwrap();
    let (up, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let capture = dir.path().join("run.jsonl");
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args([
            "run",
            "claude",
            "--program",
            "python3",
            "--anthropic-upstream",
            &up,
        ])
        .args(["-o", capture.to_str().unwrap(), "--", "-c", CLIENT])
        .env_remove("ANTHROPIC_BASE_URL")
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("Claude Code through the recording proxy on http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("2 exchanges recorded to"), "{err}");
    let text = stdout(&o);
    // The client's own output, then the explanation.
    assert!(text.contains("cache_read_input_tokens"), "{text}");
    assert!(
        text.contains("traffic from a capture · 2 requests"),
        "{text}"
    );
    assert!(text.contains("hit ratio"), "{text}");
    let lines = std::fs::read_to_string(&capture).unwrap();
    assert_eq!(lines.lines().count(), 2);
    assert!(!lines.contains("run-test-key"), "the key was recorded");
}

#[test]
fn run_says_what_to_do_when_the_agent_is_not_installed() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args([
            "run",
            "gemini",
            "--program",
            "/nonexistent/gemini",
            "--",
            "-p",
            "hi",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("cannot start /nonexistent/gemini") && err.contains("--program"),
        "{err}"
    );
    // Nothing was sent: no capture left behind, nor the folders made
    // for it; the folder is as it was.
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "{:?}",
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect::<Vec<_>>()
    );
    // A state folder that was there stays, with what it holds.
    std::fs::create_dir_all(dir.path().join(".prompt-inspector/sessions")).unwrap();
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["run", "gemini", "--program", "/nonexistent/gemini"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(dir.path().join(".prompt-inspector/sessions").is_dir());
    assert!(!dir.path().join(".prompt-inspector/captures").exists());
}

/// A stand-in for Pi: it takes its Anthropic base URL only from an
/// extension (`-e FILE`, where Pi takes it), reads the URL the extension
/// registers, sends one request there and exits 0.
const PI: &str = r#"#!/usr/bin/env python3
import json, re, sys, urllib.request
args = sys.argv[1:]
ext = open(args[args.index("-e") + 1]).read()
base = re.search(r'registerProvider\("anthropic", \{ baseUrl: "([^"]+)" \}\)', ext).group(1)
body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": [{"type": "text", "text": "You are Pi. " * 600}],
        "messages": [{"role": "user", "content": "hi"}]}
req = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
                             headers={"content-type": "application/json", "x-api-key": "sk-ant-FAKE-run-test-key-0123456789"})
print(json.load(urllib.request.urlopen(req))["usage"])
print("extension:", args[args.index("-e") + 1])
"#;

#[test]
fn run_pi_points_it_at_the_proxy_through_a_one_run_extension_it_then_removes() {
    let dir = tempfile::tempdir().unwrap();
    let (up, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let script = dir.path().join("pi");
    std::fs::write(&script, PI).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let capture = dir.path().join("run.jsonl");
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["run", "pi", "--program", script.to_str().unwrap()])
        .args(["--anthropic-upstream", &up, "-o", capture.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Pi through the recording proxy"),
        "{}",
        stderr(&o)
    );
    let text = stdout(&o);
    assert!(
        text.contains("traffic from a capture · 1 request"),
        "{text}"
    );
    // The extension was the run's own, and is gone.
    let ext = text
        .lines()
        .find_map(|l| l.strip_prefix("extension: "))
        .unwrap();
    assert!(!std::path::Path::new(ext).exists(), "{ext} left behind");
    let folder = std::path::Path::new(ext).parent().unwrap();
    assert!(!folder.exists(), "{} left behind", folder.display());
}

/// OpenCode's bundled providers read ANTHROPIC_BASE_URL with its `/v1`:
/// a stand-in that reads it there sends one request through the proxy.
#[test]
fn run_opencode_points_its_anthropic_base_url_with_v1_at_the_proxy() {
    const OPENCODE: &str = r#"
import json, os, urllib.request
base = os.environ["ANTHROPIC_BASE_URL"]
assert base.endswith("/v1"), base
body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": [{"type": "text", "text": "You are OpenCode. " * 600}],
        "messages": [{"role": "user", "content": "hi"}]}
req = urllib.request.Request(base + "/messages", data=json.dumps(body).encode(),
                             headers={"content-type": "application/json", "x-api-key": "sk-ant-FAKE-run-test-key-0123456789"})
print(json.load(urllib.request.urlopen(req))["usage"])
"#;
    let dir = tempfile::tempdir().unwrap();
    let (up, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let capture = dir.path().join("run.jsonl");
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["run", "opencode", "--program", "python3"])
        .args(["--anthropic-upstream", &up, "-o", capture.to_str().unwrap()])
        .args(["--", "-c", OPENCODE])
        .env_remove("ANTHROPIC_BASE_URL")
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("OpenCode through the recording proxy"));
    assert!(
        stdout(&o).contains("traffic from a capture · 1 request"),
        "{}",
        stdout(&o)
    );
}

/// OpenClaw takes its Anthropic base URL only from its config: `run`
/// gives it a one-run config (OPENCLAW_CONFIG_PATH) that includes the
/// user's own and sets only the provider's base URL. The stand-in reads it
/// where OpenClaw does, checks the include, sends one request; the user's
/// config is left byte for byte, the one-run folder is gone.
#[test]
fn run_openclaw_includes_the_users_config_and_overrides_only_the_base_url() {
    const OPENCLAW: &str = r#"
import json, os, urllib.request
path = os.environ["OPENCLAW_CONFIG_PATH"]
cfg = json.load(open(path))
user = os.path.join(os.environ["HOME"], ".openclaw", "openclaw.json")
assert cfg["$include"] == user, cfg
assert os.environ["OPENCLAW_INCLUDE_ROOTS"] == os.path.dirname(user)
assert os.environ["OPENCLAW_CONFIG_READONLY"] == "1"
assert oct(os.stat(path).st_mode & 0o777) == "0o600", oct(os.stat(path).st_mode)
base = cfg["models"]["providers"]["anthropic"]["baseUrl"]
body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "system": [{"type": "text", "text": "You are OpenClaw. " * 600}],
        "messages": [{"role": "user", "content": "hi"}]}
req = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
                             headers={"content-type": "application/json", "x-api-key": "sk-ant-FAKE-run-test-key-0123456789"})
print(json.load(urllib.request.urlopen(req))["usage"])
print("config:", path)
"#;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".openclaw")).unwrap();
    let user =
        "{\n  // JSON5, as users write it\n  agents: { defaults: { workspace: \"~/ws\" } },\n}\n";
    std::fs::write(home.join(".openclaw/openclaw.json"), user).unwrap();
    let (up, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let capture = dir.path().join("run.jsonl");
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["run", "openclaw", "--program", "python3"])
        .args(["--anthropic-upstream", &up, "-o", capture.to_str().unwrap()])
        .args(["--", "-c", OPENCLAW])
        .env("HOME", &home)
        .env_remove("OPENCLAW_CONFIG_PATH")
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENCLAW_HOME")
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("OpenClaw through the recording proxy"));
    let text = stdout(&o);
    assert!(
        text.contains("traffic from a capture · 1 request"),
        "{text}"
    );
    let config = text
        .lines()
        .find_map(|l| l.strip_prefix("config: "))
        .unwrap();
    let folder = std::path::Path::new(config).parent().unwrap();
    assert!(!folder.exists(), "{} left behind", folder.display());
    assert_eq!(
        std::fs::read_to_string(home.join(".openclaw/openclaw.json")).unwrap(),
        user
    );
}

/// `run claude --window`: the window's proxy starts, the agent starts once
/// it listens (pointed at it), each exchange shows in the Traffic tab as
/// it finishes, and the tab says how the agent ended. The window here is
/// egui_kittest's; the agent the same stand-in as above (it exits 3).
#[test]
fn run_window_starts_the_agent_when_the_windows_proxy_listens_and_follows_it() {
    use clap::Parser;
    use prompt_inspector::cli::{Cli, Command as Sub};
    let dir = tempfile::tempdir().unwrap();
    let (up, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let capture = dir.path().join("run.jsonl");
    let cli = Cli::try_parse_from([
        "prompt-inspector",
        "run",
        "claude",
        "--window",
        "--program",
        "python3",
        "--anthropic-upstream",
        &up,
        "--",
        "-c",
        CLIENT,
    ])
    .unwrap();
    let Some(Sub::Run(args)) = cli.command else {
        panic!("not run")
    };
    assert!(args.window);
    let cfg = prompt_inspector::cli::run::proxy_config(&args, capture.clone());
    let live = prompt_inspector::cli::run::live_run(args, cfg);
    let ws = copy_sample();
    let mut h = window::harness(ws.path().to_path_buf());
    h.state_mut().as_mut().unwrap().start_live_run(live);
    let requests = |a: &prompt_inspector::ui::App| match &a.traffic_view.result {
        Some(Ok(t)) => t.requests.len(),
        _ => 0,
    };
    window::wait_for(&mut h, "the agent's two exchanges", |a| requests(a) == 2);
    window::wait_for(&mut h, "the agent to end", |a| {
        a.traffic_view
            .proxy
            .agent
            .as_deref()
            .is_some_and(|s| s.contains("exited"))
    });
    let _ = child.kill();
    let _ = child.wait();
    let app = h.state().as_ref().unwrap();
    assert_eq!(app.state.tab, prompt_inspector::ui::state::Tab::Traffic);
    assert_eq!(
        app.traffic_view.proxy.capture.as_deref(),
        Some(capture.as_path())
    );
    h.get_by_label("Claude Code exited with code 3; the proxy still records until you stop it");
    h.get_by_label_contains("2 requests · read");
    assert_eq!(
        std::fs::read_to_string(&capture).unwrap().lines().count(),
        2
    );
}
