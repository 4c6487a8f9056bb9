//! What a new user types first (issue 40): the proxy's `--listen` in the
//! forms people write (a port, `localhost:PORT`, an address), and a clear
//! sentence for one it cannot use.

use crate::common;
use common::*;

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
