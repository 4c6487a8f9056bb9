//! A client as plain as can be for the proxy's tests: one HTTP/1.1 POST
//! over a socket, and a chunked body decoded.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One HTTP/1.1 POST; returns (status line, headers, raw body bytes).
pub fn post(
    base: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (String, String, Vec<u8>) {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    req += "\r\n";
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, _) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or("").to_string();
    let body_start = text.find("\r\n\r\n").map_or(raw.len(), |i| i + 4);
    (status, head.to_lowercase(), raw[body_start..].to_vec())
}

/// Decodes a chunked body.
pub fn dechunk(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = b;
    while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..i]).unwrap_or("0").trim();
        let n = usize::from_str_radix(size, 16).unwrap_or(0);
        if n == 0 || rest.len() < i + 2 + n {
            break;
        }
        out.extend_from_slice(&rest[i + 2..i + 2 + n]);
        rest = &rest[i + 2 + n + 2..];
    }
    out
}
