//! Unit tests of the guard: transport checks, URL masking and secrets,
//! retry-after, credential headers.

use super::*;

#[test]
fn server_text_is_cleaned() {
    let t = "line one\n\u{1b}[31mprompt-inspector: fake\u{1b}[0m\r\n\u{7}x";
    assert_eq!(clean(t, 100), "line one prompt-inspector: fake x");
    assert_eq!(clean(&"a".repeat(500), 10), format!("{}…", "a".repeat(10)));
}

#[test]
fn urls_are_masked() {
    assert_eq!(
        mask_url("https://bob:hunter2hunter2@proxy.example:8443/v1?key=abc&x=1"),
        "https://***@proxy.example:8443/v1?key=***&x=***"
    );
    assert_eq!(mask_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
    assert!(url_secrets("https://u:p4ss@h/?k=v").contains(&"p4ss".to_string()));
    assert_eq!(base64(b"alice:hunter2"), "YWxpY2U6aHVudGVyMg==");
    assert!(url_secrets("https://alice:hunter2@h/").contains(&"YWxpY2U6aHVudGVyMg==".to_string()));
}

#[test]
fn credential_headers_are_known_by_name() {
    for name in [
        "x-api-key",
        "authorization",
        "proxy-authorization",
        "set-cookie",
        "x-portkey-api-key",
        "x-amz-security-token",
        "x-auth-token",
        "apikey",
    ] {
        assert!(credential_header(name), "{name}");
    }
    for name in [
        "anthropic-ratelimit-tokens-remaining",
        "x-ratelimit-remaining-tokens",
        "www-authenticate",
        "anthropic-version",
        "keep-alive",
        "openai-organization",
    ] {
        assert!(!credential_header(name), "{name}");
    }
}

#[test]
fn transport_rules() {
    assert!(check_transport("https://api.anthropic.com", true, false).is_ok());
    assert!(check_transport("http://127.0.0.5:1", true, false).is_ok());
    assert!(check_transport("http://[::1]:1", true, false).is_ok());
    assert!(check_transport("http://localhost:1", true, false).is_ok());
    let e = check_transport("http://api.example.com", true, false).unwrap_err();
    assert!(matches!(e, Refused::PlainHttp { .. }), "{e:?}");
    assert!(e.to_string().contains("--allow-insecure-http"), "{e}");
    assert!(check_transport("http://api.example.com", true, true).is_ok());
    assert!(check_transport("http://api.example.com", false, false).is_ok());
    assert!(check_transport("ftp://x", true, false).is_err());
    // Loopback is an address, not a name: a name that does not resolve
    // (or resolves elsewhere) is refused, a loopback one is pinned.
    let e = check_transport("http://api.localhost.invalid:1", true, false).unwrap_err();
    assert!(e.to_string().contains("does not resolve"), "{e}");
    let pin = check_transport("http://localhost:1", true, false)
        .unwrap()
        .unwrap();
    assert!(pin.1.iter().all(|a| a.ip().is_loopback()), "{pin:?}");
    assert!(check_transport("http://[::ffff:127.0.0.1]:1", true, false).is_ok());
    assert!(check_transport("http://[::ffff:10.0.0.1]:1", true, false).is_err());
    // Credentials in the URL are carried, key or not.
    for url in [
        "http://user:s3cr3tpw@192.0.2.7/x.json",
        "http://user@192.0.2.7/x.json",
        "http://192.0.2.7/x.json?key=abc",
        "http://192.0.2.7/x.json?%6Bey=abc",
        "http://192.0.2.7/x.json?api%5Fkey=abc",
    ] {
        let e = check_transport(url, false, false).unwrap_err().to_string();
        assert!(e.contains("credentials in the URL"), "{url}: {e}");
        assert!(!e.contains("abc") && !e.contains("s3cr3tpw"), "{e}");
    }
    assert!(check_transport("http://user:pass@127.0.0.1:9/x", false, false).is_ok());
    assert!(check_transport("https://user:pass@192.0.2.7/x", false, false).is_ok());
    assert!(check_transport("http://192.0.2.7/x.json?alt=sse", false, false).is_ok());
}

#[test]
fn query_names_are_decoded_before_they_are_checked() {
    assert_eq!(percent_decode("%6Bey"), "key");
    assert_eq!(percent_decode("api%5Fkey"), "api_key");
    assert_eq!(percent_decode("a+b%"), "a b%");
    assert_eq!(percent_decode("%zz%4"), "%zz%4");
    for q in [
        "%6Bey=SECRETVALUE",
        "api%5Fkey=SECRETVALUE",
        "x=1&%4B%45%59=SECRETVALUE",
        "api_token=SECRETVALUE",
        "client_secret=SECRETVALUE",
        "X-Amz-Security-Token=SECRETVALUE",
        "v=1;key=SECRETVALUE",
        "db_password=SECRETVALUE",
    ] {
        let c = credentials_outside_headers(Some(q), &[]);
        assert!(c.contains(&"SECRETVALUE".to_string()), "{q}: {c:?}");
    }
}

#[test]
fn key_shapes_and_credential_parameters_are_redacted() {
    let t = r#"{"a":"use sk-ant-api03-abcDEF123_xyz-987 or sk-proj-ABCdef1234567 or sk-abcdefghijklmnopqrstuvwx","api_key": "hunter2-secret","g":"AIzaSyA1234567890abcdefghijklmnopqrstu","u":"https://x/v1?alt=sse&key=s3cr3t&b=1","ok":"sk-short and task-list"}"#;
    let r = redact_shapes(t);
    for gone in [
        "abcDEF123",
        "ABCdef1234567",
        "abcdefghijklmnop",
        "hunter2",
        "SyA12345",
        "s3cr3t",
    ] {
        assert!(!r.contains(gone), "{gone} in {r}");
    }
    assert!(r.contains(r#""api_key": "[REDACTED]""#), "{r}");
    assert!(r.contains("&key=[REDACTED]&b=1"), "{r}");
    assert!(r.contains("sk-short and task-list"), "{r}");
    serde_json::from_str::<serde_json::Value>(&r).expect("still JSON");
    let c = credentials_outside_headers(
        Some("alt=sse&key=abc%2Bdef&x=1"),
        &["session=tok123; theme=dark"],
    );
    assert!(
        c.contains(&"abc%2Bdef".to_string()) && c.contains(&"abc+def".to_string()),
        "{c:?}"
    );
    assert!(
        c.contains(&"tok123".to_string()) && !c.contains(&"1".to_string()),
        "{c:?}"
    );
}

#[test]
fn retry_after_never_panics() {
    let cap = Duration::from_secs(60);
    for v in ["inf", "1e20", "-5", "NaN", "garbage", "", "1e400", "-inf"] {
        let _ = retry_after(v, 0, cap);
    }
    assert_eq!(retry_after("inf", 0, cap).unwrap().wait, cap);
    assert!(retry_after("1e20", 0, cap).unwrap().capped);
    assert_eq!(retry_after("-5", 0, cap).unwrap().wait, Duration::ZERO);
    assert_eq!(retry_after("garbage", 0, cap), None);
    assert_eq!(
        retry_after("2.5", 0, cap).unwrap().wait,
        Duration::from_millis(2500)
    );
    let r = retry_after("Wed, 21 Oct 2015 07:28:30 GMT", 1_445_412_480, cap).unwrap();
    assert_eq!(r.wait, Duration::from_secs(30));
}
