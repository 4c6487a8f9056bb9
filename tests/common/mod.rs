#![allow(dead_code)]
//! Helpers shared by the integration tests: the real binary, real files.

pub mod agent_home;
pub mod generate;
pub mod http;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_prompt-inspector"))
}

pub fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-workspace")
}

pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        // No agent parts learned by whoever runs the tests.
        .env("XDG_DATA_HOME", "/nonexistent/prompt-inspector-tests")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("binary runs")
}

/// The binary with `home` as the user's home and nothing learned.
pub fn run_home(home: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("HOME", home)
        .env("XDG_DATA_HOME", "/nonexistent/prompt-inspector-tests")
        .output()
        .expect("binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

pub fn write_ws(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Copies sample-workspace into a temp folder (to edit it freely).
pub fn copy_sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&sample(), dir.path());
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            if e.file_name() == ".prompt-inspector" {
                continue;
            }
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every file under `dir` (to search what a run or a snapshot wrote).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Reads one HTTP/1.1 request from a test server's connection: its path and
/// its JSON body (`Null` when it is not JSON).
pub fn read_request(s: &std::net::TcpStream) -> Option<(String, serde_json::Value)> {
    use std::io::{BufRead, BufReader, Read};
    let mut r = BufReader::new(s.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut len = 0;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    Some((
        path,
        serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    ))
}

/// The real binary's recording proxy, on loopback port 0, recording into a
/// capture in its own temporary folder; killed when dropped.
pub struct Proxy {
    pub child: std::process::Child,
    pub url: String,
    pub capture: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn proxy(anthropic: &str, openai: &str, extra: &[&str]) -> Proxy {
    proxy_on("127.0.0.1:0", anthropic, openai, extra)
}

/// The proxy on `listen` (its first line of output names the address).
pub fn proxy_on(listen: &str, anthropic: &str, openai: &str, extra: &[&str]) -> Proxy {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.jsonl");
    let mut child = Command::new(bin())
        .args([
            "proxy",
            "--listen",
            listen,
            "--anthropic-upstream",
            anthropic,
            "--openai-upstream",
            openai,
            "-o",
            capture.to_str().unwrap(),
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .trim_end_matches(',')
        .to_string();
    Proxy {
        child,
        url,
        capture,
        _dir: dir,
    }
}

/// The labels of a `traffic --format json` request's parts.
pub fn part_labels(r: &serde_json::Value) -> Vec<&str> {
    r["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect()
}

/// A bound on memory or time that a loaded machine may pass by chance:
/// checked only in the stress run (`scripts/stress.sh`, which sets
/// `PROMPT_INSPECTOR_STRESS=1`); in `cargo test` it is printed (with
/// `--nocapture`), not asserted, so a busy CI machine neither fails on it
/// nor hides what was measured.
pub fn stress_bound(holds: bool, what: &str) {
    if std::env::var_os("PROMPT_INSPECTOR_STRESS").is_some() {
        assert!(holds, "stress bound passed: {what}");
    } else {
        eprintln!(
            "stress bound {} (asserted by scripts/stress.sh): {what}",
            if holds { "held" } else { "PASSED" }
        );
    }
}

/// scripts/agent-upstream.py (the loopback stand-in for the providers, with
/// their cache accounting) on a free port, logging to `log`: its base URL
/// and its process (kill it when done).
pub fn agent_upstream(log: &Path) -> (String, std::process::Child) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/agent-upstream.py");
    let mut child = Command::new("python3")
        .arg(script)
        .args(["--port", "0", "--log", log.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs");
    let mut port = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut port)
        .unwrap();
    (format!("http://127.0.0.1:{}", port.trim()), child)
}

/// Runs `cmd` (its standard error captured, nothing on its input) and
/// waits for it at most `secs` seconds, failing loudly if it still runs
/// then (a read that blocks on a FIFO would hang the test otherwise): its
/// exit status and standard error.
pub fn run_within(cmd: &mut Command, secs: u64) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still runs after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}

/// This machine's system and kernel release (`uname -sr`), which the
/// binary puts where an agent's recorded text names the recording's.
pub fn this_machine() -> String {
    let o = Command::new("uname").arg("-sr").output().unwrap();
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// A recorded request as the agent would have sent it from this machine:
/// the recording machines' system names (the bundled recordings'
/// `recorded_os`) replaced by [`this_machine`]'s.
pub fn on_this_machine(sent: &serde_json::Value) -> serde_json::Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/profiles");
    let mut text = sent.to_string();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().ends_with(".builtin.json") {
            continue;
        }
        let b: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if let Some(os) = b["recorded_os"].as_str() {
            text = text.replace(os, &this_machine());
        }
    }
    serde_json::from_str(&text).unwrap()
}
