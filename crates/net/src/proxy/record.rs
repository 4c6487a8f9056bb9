//! One exchange being recorded: the capture line (the engine's
//! `CaptureLine`, the request verbatim, keys redacted everywhere), written
//! once, also when the client or the proxy goes away first, and handed to
//! whoever follows the capture (`ProxyConfig::recorded`).

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use serde_json::Value;

use crate::engine::traffic::{CaptureLine, Headers};

use super::Shared;
use crate::guard;

#[path = "record_body.rs"]
mod body;
pub(super) use body::{recorded_request, tree_is_small};
use body::{redact_text, redact_value};

/// How an exchange ended: its status, usage and error, when, and after how
/// long.
pub(super) struct Outcome {
    pub(super) status: Option<u16>,
    pub(super) usage: Value,
    pub(super) error: Option<String>,
    pub(super) ts_end: String,
    pub(super) latency_ms: u64,
}

/// One exchange being recorded.
pub(super) struct Record {
    pub(super) shared: Arc<Shared>,
    /// The client's keys and the upstream URL's credentials: redacted
    /// from everything recorded and said.
    pub(super) secrets: Vec<String>,
    pub(super) upstream: String,
    /// The client's credentials, for counting on the same upstream; never
    /// recorded.
    pub(super) auth: reqwest::header::HeaderMap,
    /// The answer, once known.
    pub(super) outcome: Option<Outcome>,
    /// The parts as a llama.cpp upstream counted them.
    pub(super) counted: Option<Value>,
    /// The response's cache diagnostics (Anthropic's `diagnostics`).
    pub(super) diagnostics: Value,
    pub(super) ts_start: String,
    pub(super) endpoint: String,
    /// The request body as it came (parsed only off the client's path).
    pub(super) request: Bytes,
    pub(super) started: Instant,
    pub(super) stream: bool,
    /// Its line is in the capture.
    pub(super) written: std::sync::atomic::AtomicBool,
    /// Its share of the in-flight budget (the request body, the copy of
    /// the answer), given back once it is recorded.
    pub(super) held: super::intake::Reservation,
    /// The client's name and release from its headers (no key).
    pub(super) client: Option<Value>,
    /// The request's and the answer's headers as recorded
    /// ([`super::headers::recorded`]), redacted again when written.
    pub(super) headers: Headers,
    /// The answer's body as it came, at most `MAX_RESPONSE_BYTES`, cut with
    /// a line saying so (redacted when written).
    pub(super) response: Option<String>,
}

/// A client that leaves before the answer drops the exchange's future (and
/// with it the upstream request): the exchange is still recorded.
impl Drop for Record {
    fn drop(&mut self) {
        if self.outcome.is_some() {
            // Answered; the proxy stopped while the parts were counted.
            self.finish();
        } else if !self.written.load(std::sync::atomic::Ordering::Relaxed) {
            self.write(self.outcome(
                None,
                Value::Null,
                Some(
                    "the client disconnected before the answer: the upstream request was cancelled"
                        .into(),
                ),
            ));
        }
    }
}

impl Record {
    /// Records the outcome once it is known.
    pub(super) fn finish(&mut self) {
        if let Some(o) = self.outcome.take() {
            self.write(o);
        }
    }

    /// The outcome now.
    pub(super) fn outcome(
        &self,
        status: Option<u16>,
        usage: Value,
        error: Option<String>,
    ) -> Outcome {
        Outcome {
            status,
            usage,
            error,
            ts_end: crate::clock::now_rfc3339(),
            latency_ms: self.started.elapsed().as_millis() as u64,
        }
    }

    /// The redactor of this exchange's keys (the last one made, when the
    /// keys are the same).
    fn redactor(&self) -> Arc<guard::Redactor> {
        let mut last = self
            .shared
            .redactor
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((keys, r)) = &*last
            && *keys == self.secrets
        {
            return r.clone();
        }
        let refs: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        let r = Arc::new(guard::Redactor::new(&refs));
        *last = Some((self.secrets.clone(), r.clone()));
        r
    }

    pub(super) fn clean(&self, text: &str) -> String {
        // Shapes first: a key in the text is redacted whole before the
        // header's keys' fragments could cut it where they share a prefix.
        // Cleaned first: a control character inside a key would hide its
        // shape from the patterns, and `clean` would then join it again.
        let whole = guard::clean(text, usize::MAX >> 1);
        let shaped = guard::redact_shapes(&whole);
        guard::clean(&self.redactor().redact(&shaped), guard::MAX_MESSAGE_CHARS)
    }

    /// The path as recorded (a client may put a key where Gemini's model
    /// goes: redacted as the body is) and the model: the body's, else the
    /// one Gemini names in the path.
    fn endpoint_and_model(&self, body_model: Value, redactor: &guard::Redactor) -> (String, Value) {
        let endpoint = redact_text(&self.endpoint, redactor).into_owned();
        let model = match crate::engine::request::gemini::model_of_path(&endpoint) {
            Some(m) if body_model.is_null() => Value::String(m),
            _ => body_model,
        };
        (endpoint, model)
    }

    /// Keeps the answer's body (`copy`) to record: as text, at most
    /// `MAX_RESPONSE_BYTES`, cut at a character with a line saying how much
    /// more there was.
    pub(super) fn keep_response(&mut self, copy: &[u8]) {
        use crate::engine::traffic::MAX_RESPONSE_BYTES;
        if copy.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&copy[..copy.len().min(MAX_RESPONSE_BYTES)]);
        let mut text = text.trim_end_matches('\u{FFFD}').to_string();
        if copy.len() > MAX_RESPONSE_BYTES {
            let more = copy.len() - text.len();
            text.push_str(&format!("\n… {more} bytes more, not recorded"));
        }
        self.response = Some(text);
    }

    /// The headers as the line records them, any key redacted from their
    /// names and values; None when there are none.
    fn recorded_headers(&self, redactor: &guard::Redactor) -> Option<Headers> {
        if self.headers.request.is_empty() && self.headers.response.is_empty() {
            return None;
        }
        let mut v = serde_json::to_value(&self.headers).ok()?;
        redact_value(&mut v, redactor);
        serde_json::from_value(v).ok()
    }

    /// The exchange's line, every field redacted, its id not yet given,
    /// and the request body as it goes in (redacted, on one line).
    fn line_of(&self, o: Outcome) -> (CaptureLine, std::borrow::Cow<'_, str>) {
        let redactor = self.redactor();
        let (request, model) = recorded_request(&self.request, &redactor);
        let (endpoint, model) = self.endpoint_and_model(model, &redactor);
        // What the upstream sent (usage, diagnostics, error) is redacted too.
        let redacted = |mut v: Value| {
            redact_value(&mut v, &redactor);
            v
        };
        let line = CaptureLine {
            schema: 1,
            // Numbered under the capture's lock: in the file's order.
            id: String::new(),
            ts_start: self.ts_start.clone(),
            ts_end: o.ts_end,
            endpoint,
            model,
            status: o.status,
            stream: self.stream,
            usage: redacted(o.usage),
            latency_ms: o.latency_ms,
            error: o.error,
            counted: self.counted.clone(),
            diagnostics: (!self.diagnostics.is_null()).then(|| redacted(self.diagnostics.clone())),
            request: None,
            client: self.client.clone().map(redacted),
            headers: self.recorded_headers(&redactor),
            // One copy, redacted in it when a key is there.
            response: self
                .response
                .as_deref()
                .map(|r| redact_text(r, &redactor).into_owned()),
        };
        (line, request)
    }

    /// Appends the exchange's line in one write (a crash loses at most the
    /// exchange in flight).
    pub(super) fn write(&self, o: Outcome) {
        if self
            .written
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        let (mut line, request) = self.line_of(o);
        // Whoever follows the capture gets the exchange with its request
        // parsed (here, before the capture is locked).
        let parsed = self
            .shared
            .cfg
            .recorded
            .is_some()
            .then(|| serde_json::from_str(&request).unwrap_or(Value::Null));
        let mut f = self
            .shared
            .capture
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // Its number is taken with the capture locked: lines are numbered
        // 1, 2, 3… in the file's order (a follower sees a gap as lines it
        // missed).
        let id = {
            let mut s = self.shared.seq.lock().unwrap_or_else(|e| e.into_inner());
            *s += 1;
            *s
        };
        line.id = format!("{}-{:08x}-{id}", self.ts_start, self.shared.instance);
        // The request goes in as it came (redacted, on one line), not
        // parsed and printed again, nor copied into the line.
        let head = line.line_head();
        line.request = parsed;
        match write_line(&mut f, &[head.as_bytes(), request.as_bytes(), b"}\n"]) {
            // Handed over while the capture is locked: in the file's order.
            Ok(()) => self.hand_over(line, &request),
            Err(e)
                if !self
                    .shared
                    .write_failed
                    .swap(true, std::sync::atomic::Ordering::Relaxed) =>
            {
                crate::guard::say(&format!(
                    "prompt-inspector proxy: cannot write the capture {}: {e}; exchanges are forwarded but not recorded",
                    self.shared.cfg.capture.display()
                ));
            }
            Err(_) => {}
        }
    }

    /// The line written: to the OTLP feed, the exchange log and whoever
    /// follows the capture.
    fn hand_over(&self, line: CaptureLine, request: &str) {
        if let Some(feed) = &self.shared.cfg.otlp {
            feed.send(&line, request, &self.upstream);
        }
        if self.shared.cfg.log_exchanges {
            crate::guard::say(&exchange_line(&line));
        }
        // Never waited for: a follower that falls behind misses lines (the
        // capture has them all), the proxy goes on.
        if let Some(tx) = &self.shared.cfg.recorded {
            let _ = tx.try_send(line);
        }
    }
}

/// Writes the parts of one line, in one system call when the file takes
/// them all at once (it does unless the disk is full), on a line of its
/// own: after a line torn by a crash (the file not ending in a newline),
/// a newline first, in the same write.
fn write_line(f: &mut std::fs::File, parts: &[&[u8]]) -> std::io::Result<()> {
    let fresh: &[u8] = if crate::engine::workspace::store::ends_a_line(f) {
        b""
    } else {
        b"\n"
    };
    let mut slices: Vec<std::io::IoSlice> = std::iter::once(fresh)
        .chain(parts.iter().copied())
        .filter(|p| !p.is_empty())
        .map(std::io::IoSlice::new)
        .collect();
    let mut slices = &mut slices[..];
    while !slices.is_empty() {
        match f.write_vectored(slices) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => std::io::IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// An exchange in one line, as the command line's proxy says it while it
/// runs: its number, endpoint, model, status, time and the usage's figures
/// (read, written, uncached, in that order), or its error.
fn exchange_line(l: &crate::engine::traffic::CaptureLine) -> String {
    use crate::engine::thousands;
    let n = l.id.rsplit('-').next().unwrap_or("?");
    let model = l.model.as_str().unwrap_or("?");
    let status = l.status.map_or("no answer".to_string(), |s| s.to_string());
    let what = match (&l.error, crate::engine::usage::Usage::parse(&l.usage)) {
        (Some(e), _) => format!("error: {}", crate::engine::clean(e, 160)),
        (None, Some(u)) => format!(
            "read {} · written {} · uncached {} · output {}",
            thousands(u.cache_read_input_tokens),
            thousands(u.cache_creation_input_tokens),
            thousands(u.input_tokens),
            thousands(u.output_tokens)
        ),
        (None, None) => "no usage reported".into(),
    };
    format!(
        "#{n} {} {} → {status} in {} ms · {what}",
        crate::engine::clean(&l.endpoint, 120),
        crate::engine::clean(model, 80),
        thousands(l.latency_ms)
    )
}

#[cfg(test)]
mod tests {
    use super::body::*;
    use super::*;

    const KEY: &str = "sk-ant-api03-RECORDED-never-0123456789";

    #[test]
    fn a_request_is_recorded_verbatim_on_one_line_without_its_key() {
        let body = format!(
            "{{\n  \"model\": \"claude-sonnet-4-6\",\n  \"messages\": [{{\"role\": \"user\", \"content\": \"my key is {KEY}\"}}]\n}}"
        );
        let (line, model) = recorded_request(body.as_bytes(), &guard::Redactor::new(&[KEY]));
        assert_eq!(model, "claude-sonnet-4-6");
        assert!(!line.contains('\n') && !line.contains("RECORDED"), "{line}");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["messages"][0]["content"], "my key is [REDACTED]");
        // Spacing as the client sent it.
        assert!(line.starts_with("{   \"model\": \"claude"), "{line}");
    }

    #[test]
    fn a_key_in_a_body_with_dashes_arrows_and_percents_is_redacted() {
        // Like a real agent's body: non-ASCII punctuation and `%` around
        // the key, its fragments and an escaped copy.
        let body = format!(
            "{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"100% — {KEY} → {} … ?q={}&x=1\"}}]}}",
            &KEY[10..30],
            KEY.replace('-', "%2D")
        );
        let (line, model) = recorded_request(body.as_bytes(), &guard::Redactor::new(&[KEY]));
        assert_eq!(model, "m");
        let v: Value = serde_json::from_str(&line).unwrap();
        let content = v["messages"][0]["content"].as_str().unwrap();
        for w in KEY.as_bytes().windows(crate::redact::MIN_FRAGMENT) {
            let w = std::str::from_utf8(w).unwrap();
            assert!(!content.contains(w), "{w} survives in {content}");
        }
        assert!(
            content.starts_with("100% — [REDACTED] → [REDACTED] … "),
            "{content}"
        );
    }

    #[test]
    fn a_key_hidden_in_json_escapes_is_redacted_too() {
        let escaped: String = KEY
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        let body = format!(
            "{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"{escaped}\"}}]}}"
        );
        assert!(escapes_ascii(&body));
        let (line, _) = recorded_request(body.as_bytes(), &guard::Redactor::new(&[KEY]));
        assert!(
            !line.contains("RECORDED") && line.contains("[REDACTED]"),
            "{line}"
        );
        // Escapes of other characters (what Python's json.dumps writes for
        // any non-ASCII text) keep the body verbatim.
        assert!(!escapes_ascii(
            r#"{"content":"\u4e2d\u6587 \u00e9 \u001b"}"#
        ));
    }

    #[test]
    fn a_key_that_matches_digits_of_a_number_still_leaves_valid_json() {
        let key = "sk-123456789012";
        let body = format!(
            r#"{{"model":"m","max_tokens":1234567890,"messages":[{{"role":"user","content":"{key}"}}]}}"#
        );
        let (line, model) = recorded_request(body.as_bytes(), &guard::Redactor::new(&[key]));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(model, "m");
        assert_eq!(v["max_tokens"], 1234567890);
        assert_eq!(v["messages"][0]["content"], "[REDACTED]");
        let mut usage =
            serde_json::json!({"input_tokens": 5, "note": format!("echo {key}"), key: 1});
        redact_value(&mut usage, &guard::Redactor::new(&[key]));
        assert!(!usage.to_string().contains("3456789"), "{usage}");
    }

    #[test]
    fn ascii_escapes_are_written_plainly_and_nothing_else_changes() {
        let body = r#"{"a":"\u0073k-\u0022q\u0022 \\u0041 \u4e2d \n","b":[1,{}]}"#;
        let plain = unescape_ascii(body);
        assert_eq!(
            plain,
            r#"{"a":"sk-\u0022q\u0022 \\u0041 \u4e2d \n","b":[1,{}]}"#
        );
        let (x, y): (Value, Value) = (
            serde_json::from_str(body).unwrap(),
            serde_json::from_str(&plain).unwrap(),
        );
        assert_eq!(x, y);
        assert!(!tree_is_small(&format!("[{}{{}}]", "{},".repeat(100_000))));
        assert!(tree_is_small(&format!(
            r#"{{"a":"{}"}}"#,
            "x,".repeat(100_000)
        )));
    }

    #[test]
    fn what_is_not_a_json_object_is_recorded_as_null() {
        assert_eq!(
            recorded_request(b"not json", &guard::Redactor::new(&[KEY])).0,
            "null"
        );
        assert_eq!(
            recorded_request(&[0xff, 0xfe], &guard::Redactor::new(&[KEY])).0,
            "null"
        );
        assert_eq!(
            recorded_request(b"[1,2]", &guard::Redactor::new(&[KEY])).0,
            "null"
        );
        assert_eq!(
            recorded_request(br#"["m"]"#, &guard::Redactor::new(&[KEY])).0,
            "null"
        );
    }
}
