//! The adapters on bodies written as each API's documentation shows them
//! (the recorded agents' fixtures are round-tripped in
//! `tests/request_model.rs`).

use serde_json::json;

use super::*;

fn round_trip(api: Api, body: Value) -> Request {
    let r = api.read(&body).unwrap();
    assert_eq!(r.to_wire(), body, "{} writes back what it read", api.name());
    r
}

fn labels(r: &Request) -> Vec<String> {
    r.positions().into_iter().map(|p| p.label).collect()
}

#[test]
fn chat_completions_messages_tool_calls_and_parts() {
    let body = json!({
        "model": "gpt-5.1",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            ]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a harbour"}
        ],
        "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}],
        "prompt_cache_key": "session-1",
        "stream": true
    });
    let r = round_trip(Api::ChatCompletions, body);
    assert_eq!(r.model.as_deref(), Some("gpt-5.1"));
    assert_eq!(
        labels(&r),
        [
            "tool 1 (look)",
            "message 1 (system)",
            "message 2 (user) block 1",
            "message 2 (user) block 2",
            "message 3 (assistant)",
            "message 4 (tool)"
        ]
    );
    let m: Vec<&Message> = r.messages().collect();
    assert_eq!(m[0].role, Role::System);
    assert!(matches!(
        m[1].blocks[1].kind,
        BlockKind::Image { bytes: 34, .. }
    ));
    assert_eq!(r.extra["prompt_cache_key"], "session-1");
}

#[test]
fn gemini_system_instruction_contents_and_tool_groups() {
    let body = json!({
        "systemInstruction": {"role": "user", "parts": [{"text": "You are Gemini CLI."}, {"text": "# GEMINI.md\nBe brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "list the files"}]},
            {"role": "model", "parts": [
                {"text": "thinking about it", "thought": true},
                {"functionCall": {"name": "list_directory", "args": {"path": "."}}}
            ]},
            {"role": "user", "parts": [{"functionResponse": {"name": "list_directory", "response": {"output": "a.md"}}}]}
        ],
        "tools": [
            {"functionDeclarations": [
                {"name": "list_directory", "description": "Lists a folder.", "parameters": {"type": "OBJECT"}},
                {"name": "read_file", "description": "Reads a file."}
            ]},
            {"googleSearch": {}}
        ],
        "generationConfig": {"temperature": 0, "thinkingConfig": {"includeThoughts": true}}
    });
    let r = round_trip(Api::Gemini, body);
    assert_eq!(
        labels(&r),
        [
            "tool 1 (list_directory)",
            "tool 2 (read_file)",
            "tool 3 (googleSearch)",
            "system block 1",
            "system block 2",
            "message 1 (user)",
            "message 2 (model) block 1",
            "message 2 (model) block 2",
            "message 3 (user)"
        ]
    );
    let m: Vec<&Message> = r.messages().collect();
    assert_eq!(m[1].role, Role::Model);
    assert_eq!(m[1].blocks[0].kind, BlockKind::Thinking);
    assert!(
        matches!(&m[1].blocks[1].kind, BlockKind::ToolUse { name, .. } if name == "list_directory")
    );
    assert!(r.positions().iter().all(|p| !p.breakpoint));
    assert_eq!(
        gemini::model_of_path("/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse")
            .as_deref(),
        Some("gemini-3-flash")
    );
    assert_eq!(
        Api::of_path("/v1beta/models/gemini-3-flash:countTokens"),
        Some(Api::Gemini)
    );
}

#[test]
fn a_request_made_here_is_written_in_each_api_s_shape() {
    for api in [
        Api::AnthropicMessages,
        Api::ChatCompletions,
        Api::Responses,
        Api::Gemini,
    ] {
        let mut r = Request::new(api, Some("m".into()));
        r.system_form = SystemForm::Blocks;
        r.system = vec![Block::text(
            "You are terse.",
            Some(Breakpoint::new(CacheTtl::OneHour)),
        )];
        r.entries = vec![Entry::Message(Message::new(
            Role::User,
            vec![Block::text("hi", None)],
        ))];
        let w = r.to_wire();
        let back = api.read(&w).unwrap();
        assert_eq!(back.to_wire(), w, "{}", api.name());
        let p = back.positions();
        assert_eq!(p.last().unwrap().text, "hi", "{}: {w}", api.name());
        if api == Api::AnthropicMessages {
            assert_eq!(
                w["system"][0]["cache_control"],
                json!({"type": "ephemeral", "ttl": "1h"})
            );
            assert_eq!(
                back.system[0].breakpoint.as_ref().unwrap().ttl,
                CacheTtl::OneHour
            );
            assert_eq!(
                w["messages"][0],
                json!({"role": "user", "content": [{"type": "text", "text": "hi"}]})
            );
        }
        if api == Api::Gemini {
            assert_eq!(
                w["contents"][0],
                json!({"role": "user", "parts": [{"text": "hi"}]})
            );
        }
    }
}

#[test]
fn a_field_of_the_wrong_type_is_named() {
    let e = Api::AnthropicMessages
        .read(&json!({"messages": {"role": "user"}}))
        .unwrap_err();
    assert_eq!(e.to_string(), "messages is not an array");
    let e = Api::Gemini
        .read(&json!({"contents": [{"parts": "x"}]}))
        .unwrap_err();
    assert_eq!(e.to_string(), "contents[0].parts is not an array");
    assert_eq!(
        Api::Responses.read(&json!([1])).unwrap_err(),
        ReadError::NotAnObject
    );
}

#[test]
fn gemini_usage_is_read_with_its_cache_and_thoughts() {
    let u = Usage::parse(&json!({
        "promptTokenCount": 9000, "cachedContentTokenCount": 6144,
        "candidatesTokenCount": 40, "thoughtsTokenCount": 200, "totalTokenCount": 9240
    }))
    .unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.cache_read_input_tokens,
            u.cache_creation_input_tokens
        ),
        (2856, 6144, 0)
    );
    assert_eq!((u.output_tokens, u.reasoning_tokens), (240, 200));
    let stream = b"data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":10}}\r\n\r\ndata: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":10,\"cachedContentTokenCount\":4,\"candidatesTokenCount\":3}}\r\n\r\n";
    let u = crate::usage::of_response(stream, true).unwrap();
    assert_eq!(
        (u.input_tokens, u.cache_read_input_tokens, u.output_tokens),
        (6, 4, 3)
    );
    let body =
        br#"{"candidates":[],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":1}}"#;
    assert_eq!(
        crate::usage::of_response(body, false).unwrap().input_tokens,
        7
    );
}
