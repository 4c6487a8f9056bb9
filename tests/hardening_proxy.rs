//! Hardening, second round: the recording proxy and the writers and readers
//! around it under attack, one test per class (issue 17). Every server here
//! is on loopback; the "remote" hosts are names that do not resolve, never
//! reached. Memory is read from `/proc/<pid>/status` of the real binary.

use crate::common;
use crate::procfs;
use crate::upstream;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const KEY: &str = "sk-ant-api03-PROXY-HARDENING-Zq8xW3vB7nM2kL9pR4tY6uI1oE5aS0dF";

/// The peak resident memory of a process, in MiB.
fn peak_mib(pid: u32) -> u64 {
    procfs::peak_kib(pid).unwrap() / 1024
}

/// CPU time a process has used, in seconds.
fn cpu_secs(pid: u32) -> f64 {
    procfs::cpu_secs(pid).unwrap()
}

fn host_port(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches('/')
}

/// One HTTP/1.1 request over a new connection; the status and the body.
fn request(url: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(host_port(url)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head += &format!("{k}: {v}\r\n");
    }
    head += "\r\n";
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |x| x.1).to_string();
    (status, body)
}

/// A loopback upstream that reads each request whole and answers with a
/// small Messages reply (no tree of the body is built here either).
/// `tokenize` answers `/tokenize` as llama.cpp does, with `big` MiB of
/// tokens for anything but "hi".
fn sink(tokenize: Option<usize>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || answer(s, tokenize));
        }
    });
    url
}

fn answer(mut s: TcpStream, tokenize: Option<usize>) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut len = 0usize;
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
    let reply = if path == "/tokenize" {
        match tokenize {
            None => return upstream::respond_with(&mut s, "404 Not Found", "text/plain", "no"),
            Some(_) if body.windows(4).any(|w| w == b"\"hi\"") => r#"{"tokens":[1]}"#.to_string(),
            Some(mib) => {
                let mut t = String::with_capacity(mib << 20);
                t.push_str(r#"{"tokens":["#);
                while t.len() < mib << 20 {
                    t.push_str("1,");
                }
                t.push_str("1]}");
                t
            }
        }
    } else {
        r#"{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}"#.to_string()
    };
    upstream::respond_with(&mut s, "200 OK", "application/json", &reply);
}

/// The capture's lines once it has `n` (waiting up to 60 s: a debug build
/// redacts a 16 MiB body slowly).
fn lines(capture: &std::path::Path, n: usize) -> Vec<String> {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(capture).unwrap_or_default();
        let v: Vec<String> = text.lines().map(str::to_string).collect();
        if v.len() >= n || started.elapsed() > Duration::from_secs(60) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Starts `cmd` (a `proxy` command line, maybe behind a wrapper) and reads
/// its first line: the child and the URL it listens on.
fn spawn_proxy(cmd: &mut Command) -> (std::process::Child, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
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
    (child, url)
}

/// The arguments of a proxy on a free loopback port in front of `up`.
fn proxy_args<'a>(up: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["proxy", "--listen", "127.0.0.1:0"];
    v.extend_from_slice(more);
    v.extend(["--anthropic-upstream", up, "--openai-upstream", up]);
    v
}

/// The real proxy appending to `capture`; its URL.
fn proxy_to(capture: &std::path::Path, up: &str) -> (std::process::Child, String) {
    spawn_proxy(Command::new(bin()).args(proxy_args(up, &["-o", capture.to_str().unwrap()])))
}

/// Whether the other side has closed `s` (within 5 s).
fn is_closed(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut b = [0u8; 4096];
    loop {
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// A body of many tiny JSON objects (the worst shape for a parsed tree).
fn tiny_objects(mib: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(mib << 20);
    b.extend_from_slice(
        br#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"metadata":{"x":["#,
    );
    while b.len() < (mib << 20) - 64 {
        b.extend_from_slice(b"{},");
    }
    b.extend_from_slice(b"{}]}}");
    b
}

// 1. Capture files are never written through a planted link or into a FIFO.
#[test]
fn captures_are_created_exclusively_and_never_through_a_link_or_fifo() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(ws.path(), &[("SOUL.md", "# Soul\n")]);
    let up = sink(None);
    // The default capture: a new 0600 file under a name with a random part.
    let (mut p, first) =
        spawn_proxy(Command::new(bin()).args(proxy_args(&up, &[ws.path().to_str().unwrap()])));
    let _ = p.kill();
    let _ = p.wait();
    let dir = ws.path().join(".prompt-inspector/captures");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{first}");
    let name = files[0].file_name().to_string_lossy().into_owned();
    // capture-YYYYMMDD-HHMMSS-RANDOM.jsonl
    assert_eq!(
        name.len(),
        "capture-20261201-000000-0123abcd.jsonl".len(),
        "{name}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        files[0].metadata().unwrap().permissions().mode() & 0o777,
        0o600
    );

    // A link or a FIFO given with -o: one clear error at start, at once.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("stolen.jsonl");
    std::fs::write(&target, "").unwrap();
    let link = ws.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = ws.path().join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (bad, said) in [(&link, "symbolic link"), (&fifo, "refused")] {
        let started = Instant::now();
        let o = Command::new(bin())
            .args([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "-o",
                bad.to_str().unwrap(),
            ])
            .args(["--anthropic-upstream", &up])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(said), "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        let took = started.elapsed();
        stress_bound(
            took < Duration::from_secs(20),
            &format!("refused at start in {took:?} (under 20 s)"),
        );
    }
    assert_eq!(
        std::fs::read(&target).unwrap(),
        b"",
        "nothing written outside"
    );
}

// 2. Two proxies appending to one capture never produce the same id.
#[test]
fn two_proxies_on_one_capture_write_distinct_ids() {
    let up = sink(None);
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("shared.jsonl");
    let (mut a, ua) = proxy_to(&cap, &up);
    let (mut b, ub) = proxy_to(&cap, &up);
    let body = br#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#;
    for _ in 0..3 {
        for u in [&ua, &ub] {
            assert_eq!(request(u, "/v1/messages", &[], body).0, 200);
        }
    }
    let ids: Vec<String> = lines(&cap, 6)
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    for c in [&mut a, &mut b] {
        let _ = c.kill();
        let _ = c.wait();
    }
    assert_eq!(ids.len(), 6, "{ids:?}");
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 6, "{ids:?}");
}

// 3. --to-session never deletes a file it did not create.
#[test]
fn adopting_a_session_deletes_nothing_it_did_not_create() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(ws.path(), &[("SOUL.md", "# Soul\n")]);
    let sessions = ws.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let planted = sessions.join(".adopted.yaml.tmp-999999-0");
    std::fs::write(&planted, "the user's").unwrap();
    let planted2 = sessions.join(".adopted.yaml.tmp-999999-00000000deadbeef");
    std::fs::write(&planted2, "the user's").unwrap();
    let o = run(&[
        "traffic",
        "examples/traffic/capture.jsonl",
        "--to-session",
        sessions.join("adopted.yaml").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&planted).unwrap(), "the user's");
    assert_eq!(std::fs::read_to_string(&planted2).unwrap(), "the user's");
}

// 4. Proxy memory per exchange stays a small multiple of the bytes in
// flight, and a global budget answers 503 instead of dying.
#[test]
fn a_huge_body_of_tiny_objects_keeps_the_proxy_small() {
    let up = sink(None);
    let p = proxy(&up, &up, &[]);
    let pid = p.child.id();
    let base = peak_mib(pid);
    let body = tiny_objects(16);
    let (status, said) = request(&p.url, "/v1/messages", &[("x-api-key", KEY)], &body);
    assert_eq!(status, 200, "{said}");
    let recorded = lines(&p.capture, 1);
    let peak = peak_mib(pid);
    // Target: ≤ 3 × body + a constant.
    stress_bound(
        peak <= base + 3 * 16 + 40,
        &format!("{base} MiB at start, {peak} MiB at peak (at most +88)"),
    );
    assert_eq!(recorded.len(), 1);
    assert!(!recorded[0].contains("PROXY-HARDENING"), "no key recorded");

    // Three at once within a 40 MiB budget: one or more get a 503 in the
    // provider's shape; the proxy lives and answers the next one.
    let q = proxy(&up, &up, &["--max-in-flight-mib", "40"]);
    let body = std::sync::Arc::new(tiny_objects(16));
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let (url, body) = (q.url.clone(), body.clone());
            std::thread::spawn(move || request(&url, "/v1/messages", &[("x-api-key", KEY)], &body))
        })
        .collect();
    let answers: Vec<(u16, String)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        answers.iter().all(|a| a.0 == 200 || a.0 == 503),
        "{answers:?}"
    );
    let refused = answers.iter().find(|a| a.0 == 503);
    if let Some((_, b)) = refused {
        let v: serde_json::Value = serde_json::from_str(b).unwrap();
        assert_eq!(v["type"], "error");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("in flight"),
            "{b}"
        );
    }
    let peak = peak_mib(q.child.id());
    stress_bound(
        peak <= base + 3 * 40 + 40,
        &format!("{base} MiB at start, {peak} MiB at peak with 40 MiB in flight (at most +160)"),
    );
    let small = br#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#;
    assert_eq!(request(&q.url, "/v1/messages", &[], small).0, 200);
}

// 4b. A recording that falls behind (8 clients sending an agent's body as
// fast as an upstream that answers at once takes them) slows the clients:
// the exchanges answered but not yet in the capture stay within the
// backlog bound, memory with them, and none is refused or lost.
#[test]
fn a_recording_that_falls_behind_slows_clients_instead_of_holding_memory() {
    const CLIENTS: usize = 8;
    const EACH: usize = 30;
    let up = sink(None);
    let p = proxy(&up, &up, &["--max-backlog-mib", "1"]);
    let pid = p.child.id();
    // An agent's request: 288 KB of text with dashes and arrows, the key
    // in it once.
    let text = "the tool — reads the file → and the cache ".repeat(6_000);
    let body = std::sync::Arc::new(
        serde_json::json!({"model": "claude-sonnet-4-6", "max_tokens": 1,
            "messages": [{"role": "user", "content": format!("{text} {KEY}")}]})
        .to_string()
        .into_bytes(),
    );
    let base = peak_mib(pid);
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (url, body, answered) = (p.url.clone(), body.clone(), answered.clone());
            std::thread::spawn(move || {
                (0..EACH)
                    .map(|_| {
                        let a = request(&url, "/v1/messages", &[("x-api-key", KEY)], &body);
                        answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        a.0
                    })
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    // How far the capture is behind the answers, while they come: the
    // answers counted first, so the lines read after are at least as many
    // as when they were counted.
    let mut f = std::fs::File::open(&p.capture).unwrap();
    let (mut recorded, mut behind) = (0, 0);
    let mut buf = vec![0u8; 1 << 20];
    while recorded < CLIENTS * EACH {
        let a = answered.load(std::sync::atomic::Ordering::SeqCst);
        loop {
            match f.read(&mut buf).unwrap() {
                0 => break,
                n => recorded += buf[..n].iter().filter(|&&b| b == b'\n').count(),
            }
        }
        behind = behind.max(a.saturating_sub(recorded));
        if recorded < CLIENTS * EACH {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let peak = peak_mib(pid);
    // What was measured (`--nocapture` shows it).
    eprintln!(
        "recording backlog: at most {behind} exchanges answered and not recorded; {base} MiB at start, {peak} MiB at peak"
    );
    let statuses: Vec<u16> = clients
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let lines = lines(&p.capture, CLIENTS * EACH);
    assert_eq!(lines.len(), CLIENTS * EACH);
    assert!(lines.iter().all(|l| !l.contains("PROXY-HARDENING")));
    // 1 MiB holds 4 such exchanges; each client may have one more admitted
    // before the backlog grew past it, and one answered whose recording has
    // not begun.
    assert!(
        behind <= 4 + 2 * CLIENTS,
        "{behind} exchanges answered and not recorded at once"
    );
    // The backlog, the bodies in flight and what the allocator keeps of
    // them (measured here: +13-14 MiB; +46-54 MiB without the bound).
    stress_bound(
        peak <= base + 32,
        &format!("{base} MiB at start, {peak} MiB at peak (at most +32)"),
    );
}

// 5. Slow clients: idle and half-sent connections are closed, a stalled
// upload is cut off, a normal client is answered meanwhile, and running
// out of file descriptors does not spin.
#[test]
fn slow_and_idle_clients_hold_nothing_forever() {
    let up = sink(None);
    let p = proxy(&up, &up, &["--header-timeout", "2", "--body-timeout", "1"]);
    let small = br#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#;
    let mut idle: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut s = TcpStream::connect(host_port(&p.url)).unwrap();
            let _ = s.write_all(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n");
            s
        })
        .collect();
    assert_eq!(
        request(&p.url, "/v1/messages", &[], small).0,
        200,
        "answered meanwhile"
    );
    // A stalled upload: a 408 after the body timeout.
    let mut s = TcpStream::connect(host_port(&p.url)).unwrap();
    s.write_all(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{\"model\"")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut got = String::new();
    let _ = s.read_to_string(&mut got);
    assert!(got.starts_with("HTTP/1.1 408"), "{got:?}");
    // The half-sent requests are closed after the header timeout.
    std::thread::sleep(Duration::from_secs(3));
    let closed = idle.iter_mut().map(is_closed).filter(|c| *c).count();
    assert_eq!(closed, idle.len());
    drop(idle);

    // Out of file descriptors: back off, not spin; answer once they free.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let (mut child, url) = spawn_proxy(
        Command::new("prlimit")
            .args(["--nofile=40:40", "--"])
            .arg(bin())
            .args(proxy_args(&up, &["-o", cap.to_str().unwrap()])),
    );
    let pid = child.id();
    let hog: Vec<TcpStream> = (0..80)
        .filter_map(|_| TcpStream::connect(host_port(&url)).ok())
        .collect();
    let before = cpu_secs(pid);
    std::thread::sleep(Duration::from_secs(2));
    let spent = cpu_secs(pid) - before;
    assert!(
        spent < 0.5,
        "{spent} s of CPU in 2 s with descriptors exhausted"
    );
    drop(hog);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(request(&url, "/v1/messages", &[], small).0, 200);
    let _ = child.kill();
    let _ = child.wait();
}

// 6. Every answer from a server is read within the cap: a llama.cpp
// server whose /tokenize answers 48 MiB costs the proxy nothing, said once.
#[test]
fn a_huge_tokenize_answer_is_not_read() {
    let up = sink(Some(48));
    let p = proxy(&up, &up, &[]);
    let pid = p.child.id();
    let body = br#"{"model":"claude-sonnet-4-6","max_tokens":1,"system":"You are terse.","messages":[{"role":"user","content":"count me"}]}"#;
    assert_eq!(request(&p.url, "/v1/messages", &[], body).0, 200);
    let recorded = lines(&p.capture, 1);
    let peak = peak_mib(pid);
    stress_bound(peak < 100, &format!("{peak} MiB at peak (under 100)"));
    let line: serde_json::Value = serde_json::from_str(&recorded[0]).unwrap();
    assert!(
        line["counted"]["skipped"]
            .as_str()
            .unwrap()
            .contains("over 16 MiB"),
        "{line}"
    );
    drop(p);
}

// 7. send's stated time limit covers all it does, the llama.cpp template
// and tokenizer passes included.
#[test]
fn send_keeps_to_its_stated_limit_with_a_slow_llama_server() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut s = s;
                let Some((path, req)) = read_request(&s) else {
                    return;
                };
                let reply = match path.as_str() {
                    "/tokenize" => r#"{"tokens":[1,2,3]}"#.to_string(),
                    "/apply-template" => {
                        // Detection is quick; every real pass is slow.
                        if req["messages"][0]["content"] != "hi" {
                            std::thread::sleep(Duration::from_millis(1500));
                        }
                        r#"{"prompt":"x"}"#.to_string()
                    }
                    _ => r#"{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11,"prompt_tokens_details":{"cached_tokens":0}}}"#.to_string(),
                };
                upstream::respond_with(&mut s, "200 OK", "application/json", &reply);
            });
        }
    });
    let ws = copy_sample();
    let started = Instant::now();
    let o = Command::new(bin())
        .args(["send", ws.path().to_str().unwrap(), "--provider", "openai"])
        .args([
            "--base-url",
            &url,
            "--timeout",
            "2",
            "--no-save",
            "--repeat",
            "6",
        ])
        .env("OPENAI_API_KEY", "sk-local-test-key-0123456789")
        .output()
        .unwrap();
    let took = started.elapsed();
    let err = stderr(&o);
    let stated: u64 = err
        .split("at most ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no stated limit in {err}"));
    // The passes alone would take 7 × 1.5 s; the run keeps to its word
    // (a second of slack for starting the process).
    assert!(
        took.as_secs_f64() <= stated as f64 + 1.5,
        "stated {stated} s, took {took:?}: {err}"
    );
    assert!(err.contains("not counted exactly"), "{err}");
}

// 12. Loopback is an address, not a name; 13. keys outside the
// authentication headers follow the same rules and are never recorded.
#[test]
fn keys_go_off_loopback_in_clear_by_no_road() {
    let up = sink(None);
    // A name that does not resolve to this machine, over plain HTTP.
    let away = "http://api.localhost.invalid:9";
    let p = proxy(away, away, &[]);
    let body = br#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#;
    for headers in [
        vec![("x-api-key", KEY)],
        vec![("cookie", "session=abcdefgh12345678")],
    ] {
        let (status, said) = request(&p.url, "/v1/messages", &headers, body);
        assert_eq!(status, 502, "{said}");
        assert!(
            said.contains("refusing to send an API key over plain HTTP"),
            "{said}"
        );
    }
    let (status, said) = request(
        &p.url,
        "/v1/messages?key=AIzaSyQUERY-key-1234567890abcdefghij",
        &[],
        body,
    );
    assert_eq!(status, 502, "{said}");
    let text = lines(&p.capture, 3).join("\n");
    for secret in ["PROXY-HARDENING", "abcdefgh12345678", "QUERY-key"] {
        assert!(!text.contains(secret), "{secret} recorded: {text}");
    }
    drop(p);

    // A key only in the body, with no authentication header: not recorded.
    let q = proxy(&up, &up, &[]);
    let body = format!(
        r#"{{"model":"claude-sonnet-4-6","max_tokens":1,"metadata":{{"api_key":"hunter2-hunter2"}},"messages":[{{"role":"user","content":"my key is {KEY} and AIzaSyB-0123456789abcdefghijklmnopqrst"}}]}}"#
    );
    assert_eq!(request(&q.url, "/v1/messages", &[], body.as_bytes()).0, 200);
    let text = lines(&q.capture, 1).join("\n");
    for secret in ["PROXY-HARDENING", "hunter2", "0123456789abcdefghij"] {
        assert!(!text.contains(secret), "{secret} recorded: {text}");
    }
    assert!(text.contains("[REDACTED]"));

    // send refuses a key to a name that does not resolve to loopback.
    let ws = copy_sample();
    let o = Command::new(bin())
        .args([
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "anthropic",
        ])
        .args(["--base-url", away, "--no-save"])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("refusing to send an API key"),
        "{}",
        stderr(&o)
    );
}

// 14. Nothing from a file reaches the terminal raw, on stderr either.
#[test]
fn diagnostics_never_drive_the_terminal() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[
            ("SOUL.md", "# Soul\n"),
            (
                "fragments/bad.yaml",
                "id: evil\nlayer: 3\ncontent: x\nenabled_when: \"\\e]52;c;aGVsbG8=\\a and \\e[2J\"\n",
            ),
        ],
    );
    let o = run(&["render", ws.path().to_str().unwrap()]);
    let err = stderr(&o);
    assert!(!err.is_empty(), "a diagnostic is printed");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains('␛'), "shown, not obeyed: {err:?}");
}
