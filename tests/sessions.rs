//! Misses across sessions (issue 38): the first request of a new
//! conversation that reads a prefix another conversation cached, then
//! writes from where the two part, is named as that change (the position
//! and the text where they first differ), not as a cold start.

use crate::common;
use common::*;
use serde_json::Value;

#[test]
fn a_new_session_with_a_changed_system_block_is_a_prefix_change_not_cold() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/capture.jsonl");
    let first = std::fs::read_to_string(&fixture)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    // `claude -p --append-system-prompt …` a minute later: its second
    // system block changed, tools and the first block as before; the
    // provider read the shared tools and first block, wrote the rest.
    let mut v: Value = serde_json::from_str(&first).unwrap();
    let t = v["request"]["system"][1]["text"]
        .as_str()
        .unwrap()
        .to_string();
    v["request"]["system"][1]["text"] = format!("{t}\nAlways answer in French.").into();
    v["ts_start"] = "2026-12-01T02:36:40.000Z".into();
    v["usage"] = serde_json::json!({"input_tokens": 3, "cache_read_input_tokens": 8632,
        "cache_creation_input_tokens": 2560, "output_tokens": 12});
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("two-sessions.jsonl");
    std::fs::write(&cap, format!("{first}\n{v}\n")).unwrap();
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    let r = &j["requests"][1];
    assert_ne!(r["chain"], j["requests"][0]["chain"], "a new conversation");
    let miss = &r["miss"];
    assert_eq!(miss["kind"], "prefix", "{miss}");
    let detail = miss["detail"].as_str().unwrap();
    assert!(detail.contains("a new conversation"), "{detail}");
    assert!(detail.contains("system block 2"), "{detail}");
    assert!(detail.contains("read 8,632 tokens"), "{detail}");
    assert!(!detail.contains("cold"), "{detail}");
    // The same request reading nothing a minute later: the change lies
    // before the first point the other's prefix was cached at (its
    // breakpoints come after system block 2), so the provider held nothing
    // it could read: still the change, said so (the real recording of this
    // is tests/claude_sessions.rs).
    let mut cold = v.clone();
    cold["usage"] = serde_json::json!({"input_tokens": 3, "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 11192, "output_tokens": 12});
    let kind = |second: &Value| {
        std::fs::write(&cap, format!("{first}\n{second}\n")).unwrap();
        let j = json(&run(&[
            "traffic",
            cap.to_str().unwrap(),
            "--format",
            "json",
        ]));
        j["requests"][1]["miss"].clone()
    };
    let m = kind(&cold);
    assert_eq!(m["kind"], "prefix", "{m}");
    assert!(
        m["detail"]
            .as_str()
            .unwrap()
            .contains("none of it was read"),
        "{m}"
    );
    // An hour later the other's prefix has expired: nothing was cached
    // for it, the first-write story stays.
    cold["ts_start"] = "2026-12-01T03:40:00.000Z".into();
    assert_ne!(kind(&cold)["kind"], "prefix");
}
