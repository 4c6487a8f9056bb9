//! Test runs, the pure part: which requests a run sends (with the predicted
//! usage of each), how real usage compares, and the most likely explanation
//! of every disagreement. The network part lives in `net`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::assembly::assembled::Assembled;
use crate::assembly::models::{ModelInfo, Provider};
use crate::assembly::tokens::TokenCounter;
use crate::cache::predictors::{self, Predicted};
use crate::cache::request;
use crate::cache::shape::{self, RequestShape, SegKind, Strategy};
use crate::request::Api;
use crate::usage::{Input, Usage};

#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The session's requests in order.
    Session,
    /// The current prompt N times (cold, then warm).
    Repeat(usize),
    /// The first request of this session, then of another one.
    ThenSession(String),
}

/// One request of a run: what is sent and what is predicted for it.
#[derive(Debug, Clone)]
pub struct Planned {
    pub label: String,
    pub gap_secs: u64,
    pub body: Value,
    pub shape: RequestShape,
    pub predicted: Predicted,
}

/// A measured request: the usage the provider reported, how long it took
/// and how many times it was retried. Saved in a run's file in the shape
/// of [`SavedActual`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(from = "SavedActual", into = "SavedActual")]
pub struct Actual {
    pub usage: Usage,
    pub latency_ms: u64,
    pub retries: u32,
}

impl Actual {
    pub fn total(&self) -> u64 {
        self.usage.input().total()
    }
}

/// How a measured request is saved (schema 1 of a run's file): the input
/// part of the usage, whether a write figure was reported, the TTL split.
#[derive(Serialize, Deserialize)]
struct SavedActual {
    input_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
    reports_creation: bool,
    ephemeral_5m_input_tokens: Option<u64>,
    ephemeral_1h_input_tokens: Option<u64>,
    latency_ms: u64,
    retries: u32,
}

impl From<SavedActual> for Actual {
    fn from(s: SavedActual) -> Actual {
        Actual {
            usage: Usage {
                input_tokens: s.input_tokens,
                cache_creation_input_tokens: s.cache_creation_input_tokens,
                cache_read_input_tokens: s.cache_read_input_tokens,
                reports_creation: s.reports_creation,
                ephemeral_5m_input_tokens: s.ephemeral_5m_input_tokens,
                ephemeral_1h_input_tokens: s.ephemeral_1h_input_tokens,
                ..Usage::default()
            },
            latency_ms: s.latency_ms,
            retries: s.retries,
        }
    }
}

impl From<Actual> for SavedActual {
    fn from(a: Actual) -> SavedActual {
        let u = a.usage;
        SavedActual {
            input_tokens: u.input_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
            reports_creation: u.reports_creation,
            ephemeral_5m_input_tokens: u.ephemeral_5m_input_tokens,
            ephemeral_1h_input_tokens: u.ephemeral_1h_input_tokens,
            latency_ms: a.latency_ms,
            retries: a.retries,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestRunRow {
    pub label: String,
    pub predicted: Input,
    pub predicted_cost_usd: f64,
    pub actual: Option<Actual>,
    pub error: Option<String>,
    pub agrees: bool,
    pub explanation: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestRunRecord {
    pub schema: u32,
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub session: String,
    pub plan: String,
    pub started_unix: u64,
    pub rows: Vec<TestRunRow>,
    pub cancelled: bool,
}

impl TestRunRecord {
    /// One line on how the run went, the same in every view: failures are
    /// counted as failures (with the first one's reason), not as
    /// disagreements.
    pub fn verdict(&self) -> String {
        let failed: Vec<&TestRunRow> = self.rows.iter().filter(|r| r.error.is_some()).collect();
        let measured = self.rows.len() - failed.len();
        let agree = self.rows.iter().filter(|r| r.agrees).count();
        let mut s = format!(
            "{}: {agree} of {measured} measured request{} agree with the prediction",
            if self.cancelled {
                "cancelled"
            } else {
                "finished"
            },
            if measured == 1 { "" } else { "s" },
        );
        if let Some(first) = failed.first() {
            s += &format!(
                "; {} of {} failed: {}",
                failed.len(),
                self.rows.len(),
                first.error.as_deref().unwrap_or("")
            );
        }
        s
    }

    pub fn new(
        provider: Provider,
        base_url: &str,
        model: &str,
        session: &str,
        plan: &Plan,
        started_unix: u64,
    ) -> TestRunRecord {
        TestRunRecord {
            schema: 1,
            provider: provider.as_str().into(),
            base_url: base_url.into(),
            model: model.into(),
            session: session.into(),
            plan: format!("{plan:?}"),
            started_unix,
            rows: Vec::new(),
            cancelled: false,
        }
    }
}

/// The body of a planned request in the API `api` (the endpoint's, never
/// the caching rules': a Claude model sent through an OpenAI-compatible
/// API goes as a Chat Completions body).
fn body_for(
    ins: &Assembled,
    api: Api,
    model: &str,
    a: &crate::Assembly,
    shape: &RequestShape,
) -> Value {
    let s = &ins.prepared.settings;
    let messages = messages_of(shape);
    match api {
        Api::AnthropicMessages => request::anthropic_request(
            a,
            model,
            &messages,
            1,
            s.cache_tools,
            s.history.message_breakpoint,
        )
        .to_wire(),
        Api::Gemini => {
            let mut body = request::gemini_request(a, None, &messages).to_wire();
            // The model goes in the path; the client takes it from here.
            body["model"] = model.into();
            body["generationConfig"] = serde_json::json!({"maxOutputTokens": 1});
            body
        }
        Api::ChatCompletions | Api::Responses => {
            request::openai_request(a, model, &messages, 1).to_wire()
        }
    }
}

/// The messages a shape carries (history already truncated and compacted).
pub fn messages_of(shape: &RequestShape) -> Vec<crate::workspace::session::Message> {
    let mut out: Vec<crate::workspace::session::Message> = Vec::new();
    let mut current: Option<(
        usize,
        crate::workspace::session::Role,
        Vec<crate::workspace::session::Block>,
    )> = None;
    for seg in &shape.segments {
        if let SegKind::Message { index, role, .. } = &seg.kind {
            let block = shape_block(seg);
            match &mut current {
                Some((i, _, blocks)) if *i == *index => blocks.push(block),
                _ => {
                    if let Some((_, r, b)) = current.take() {
                        out.push(crate::workspace::session::Message {
                            role: r,
                            content: b,
                        });
                    }
                    current = Some((*index, *role, vec![block]));
                }
            }
        }
    }
    if let Some((_, r, b)) = current {
        out.push(crate::workspace::session::Message {
            role: r,
            content: b,
        });
    }
    out
}

fn shape_block(seg: &shape::Segment) -> crate::workspace::session::Block {
    seg.source_block
        .clone()
        .unwrap_or(crate::workspace::session::Block::Text {
            text: seg.text.clone(),
        })
}

/// The requests of a run with their predictions: predicted with the
/// caching rules asked for (none: the model's own), sent as bodies of the
/// endpoint's `api`.
pub fn plan(
    ins: &Assembled,
    other: Option<&Assembled>,
    plan: &Plan,
    (provider, api): (Option<Provider>, Api),
    model: &ModelInfo,
    counter: &TokenCounter,
) -> Vec<Planned> {
    // The caching rules are the model's (its row in the model table), as
    // `predict` chooses them, unless others are asked for: never the
    // endpoint's, so `send` and the window predict a run alike.
    let provider = provider.unwrap_or(model.provider);
    let s = &ins.prepared.settings;
    let session = ins.session();
    let mut shapes: Vec<(String, RequestShape, &crate::Assembly, &Assembled)> = Vec::new();
    match plan {
        Plan::Session => {
            for r in shape::shapes(&ins.assembly, session, s, Strategy::Layered, counter) {
                shapes.push((
                    format!("request {} · turn {}", r.index + 1, r.turn),
                    r,
                    &ins.assembly,
                    ins,
                ));
            }
        }
        Plan::Repeat(n) => {
            let first =
                shape::shapes(&ins.assembly, session, s, Strategy::Layered, counter).remove(0);
            for i in 0..(*n).max(1) {
                let mut r = first.clone();
                r.index = i;
                r.at_secs = i as u64 * 2;
                shapes.push((format!("repeat {} of {n}", i + 1), r, &ins.assembly, ins));
            }
        }
        Plan::ThenSession(_) => {
            let a = shape::shapes(&ins.assembly, session, s, Strategy::Layered, counter).remove(0);
            shapes.push((format!("session {}", session.name), a, &ins.assembly, ins));
            if let Some(o) = other {
                let os = o.session();
                let mut b = shape::shapes(
                    &o.assembly,
                    os,
                    &o.prepared.settings,
                    Strategy::Layered,
                    counter,
                )
                .remove(0);
                b.index = 1;
                b.at_secs = 2;
                shapes.push((format!("then session {}", os.name), b, &o.assembly, o));
            }
        }
    }
    let only: Vec<RequestShape> = shapes.iter().map(|s| s.1.clone()).collect();
    let predicted = predictors::run(provider, model, &only, counter);
    shapes
        .into_iter()
        .zip(predicted)
        .map(|((label, shape, a, owner), predicted)| Planned {
            label,
            gap_secs: shape.gap_secs,
            body: body_for(owner, api, &model.id, a, &shape),
            shape,
            predicted,
        })
        .collect()
}

/// Compares a prediction with real usage; the most likely explanations of
/// any disagreement.
///
/// `gap_skipped`: an earlier (or this) request's gap, during which the
/// prediction lets entries expire, was not waited for in this run.
pub fn compare(
    p: &Predicted,
    a: &Actual,
    model: &ModelInfo,
    provider: Provider,
    gap_skipped: bool,
) -> (bool, Vec<String>) {
    let pu = &p.usage;
    let (at, a) = (a.total(), &a.usage);
    let agrees = pu.cache_read_input_tokens == a.cache_read_input_tokens
        && pu.cache_creation_input_tokens == a.cache_creation_input_tokens
        && pu.input_tokens == a.input_tokens;
    if agrees {
        return (true, vec!["prediction and real usage agree".into()]);
    }
    let mut why = Vec::new();
    let pt = pu.total();
    if pt != at {
        let pct = (at as f64 - pt as f64) * 100.0 / pt.max(1) as f64;
        why.push(if model.estimate && provider == Provider::Anthropic {
            format!(
                "token counts differ by {pct:+.1}% ({pt} predicted, {at} real): {}'s tokenizer is estimated with {} (calibrate with count_tokens)",
                model.id,
                model.tokenizer.as_str()
            )
        } else {
            format!(
                "token counts differ by {pct:+.1}% ({pt} predicted, {at} real): the server uses its own tokenizer and chat template (the table says {})",
                model.tokenizer.as_str()
            )
        });
    }
    if provider == Provider::Anthropic && !a.reports_creation && pu.cache_creation_input_tokens > 0
    {
        why.push("the server does not report cache writes (cache_creation_input_tokens is absent), as llama.cpp's /v1/messages does".into());
    }
    if a.cache_read_input_tokens < pu.cache_read_input_tokens {
        if a.cache_read_input_tokens == 0
            && a.cache_creation_input_tokens == 0
            && pu.cache_creation_input_tokens == 0
        {
            why.push(format!(
                "nothing was read although a cached prefix was expected: the cache was evicted early, or the real prefix is under the real minimum ({} tokens documented)",
                model.min_cacheable_tokens
            ));
        } else {
            why.push("less was read than predicted: the cache was evicted early, or the request landed on another cache (server, region or slot)".into());
        }
    } else if a.cache_read_input_tokens > pu.cache_read_input_tokens && gap_skipped {
        why.push(
            "the prediction lets cache entries expire during a gap of the session that this run did not wait for, so the server still had them (send with --honour-gaps to measure expiry)"
                .into(),
        );
    } else if a.cache_read_input_tokens > pu.cache_read_input_tokens {
        why.push("more was read than predicted: the server caches prefixes by itself (automatic or prefix caching), beyond the documented breakpoints".into());
    }
    if pu.cache_creation_input_tokens > 0
        && a.reports_creation
        && a.cache_creation_input_tokens == 0
        && a.cache_read_input_tokens == 0
    {
        why.push(format!(
            "no write although one was predicted: the prefix may be under the model's real minimum ({} tokens documented)",
            model.min_cacheable_tokens
        ));
    }
    if why.is_empty() {
        why.push("the split between read, written and uncached tokens differs".into());
    }
    (false, why)
}

/// Saves a run under `WORKSPACE/.prompt-inspector/runs/` (atomically, under
/// a name no other run has). The record holds no key: only the masked base
/// URL and usage.
pub fn save(
    root: &std::path::Path,
    record: &TestRunRecord,
) -> Result<std::path::PathBuf, crate::error::Error> {
    use crate::error::Error;
    let stem = format!(
        "{}-{}",
        crate::workspace::store::stamp(record.started_unix),
        record
            .session
            .replace(|c: char| !c.is_alphanumeric() && c != '-' && c != '_', "_")
    );
    let dir = crate::workspace::store::state_dir(root, &["runs"])?;
    let json =
        serde_json::to_vec_pretty(record).map_err(|e| Error::invalid("a run", e.to_string()))?;
    crate::workspace::store::write_new(&dir, &stem, "json", &json)
        .map_err(|e| Error::file(dir.display(), e.to_string()))
}

/// The most recent saved runs of a workspace (newest first), read through
/// the workspace's guarded reader.
pub fn load_runs(root: &std::path::Path, session: Option<&str>) -> Vec<TestRunRecord> {
    let Ok(mut r) = crate::workspace::Reader::new(root) else {
        return Vec::new();
    };
    let dir = format!("{}/runs", crate::workspace::store::STATE_DIR);
    let mut names: Vec<String> = r
        .list(&dir)
        .into_iter()
        .filter(|(n, is_dir)| !is_dir && n.ends_with(".json"))
        .map(|(n, _)| n)
        .collect();
    names.sort();
    names
        .iter()
        .rev()
        .filter_map(|n| r.read_checked(&format!("{dir}/{n}")).ok())
        .filter_map(|t| serde_json::from_str::<TestRunRecord>(&t).ok())
        .filter(|r| session.is_none_or(|s| r.session == s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A measured request as runs saved before the one usage type.
    const SAVED: &str = r#"{"input_tokens":5,"cache_creation_input_tokens":7,"cache_read_input_tokens":100,"reports_creation":true,"ephemeral_5m_input_tokens":7,"ephemeral_1h_input_tokens":null,"latency_ms":12,"retries":1}"#;

    #[test]
    fn a_saved_measurement_loads_and_saves_in_the_same_shape() {
        let a: Actual = serde_json::from_str(SAVED).unwrap();
        assert_eq!(a.usage.cache_read_input_tokens, 100);
        assert_eq!(a.usage.ephemeral_5m_input_tokens, Some(7));
        assert!(a.usage.reports_creation);
        assert_eq!((a.latency_ms, a.retries, a.total()), (12, 1, 112));
        assert_eq!(serde_json::to_string(&a).unwrap(), SAVED);
        // What a run never saved (output, reasoning) is not written.
        let mut b = a.clone();
        b.usage.output_tokens = 40;
        b.usage.reasoning_tokens = 3;
        assert_eq!(serde_json::to_string(&b).unwrap(), SAVED);
    }
}
