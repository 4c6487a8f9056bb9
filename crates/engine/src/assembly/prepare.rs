//! The first stage of assembly: a session applied to a workspace. Each
//! fragment's condition is evaluated, its template filled in and its tokens
//! counted (through the content cache); fragments are sorted by (layer,
//! priority descending, id). Done once per session and model, not per
//! slider move.

use crate::usage::Tokens;
use std::sync::Arc;

use crate::assembly::models::ModelInfo;
use crate::assembly::template::{MAX_OUTPUT_BYTES, facts, interpolate};
use crate::assembly::tokens::{Encoding, TokenCounter};
use crate::workspace::agents::builtin::{Builtin, Category};
use crate::workspace::diag::Diagnostic;
use crate::workspace::expr::SessionFacts;
use crate::workspace::session::Session;
use crate::workspace::settings::Settings;
use crate::workspace::types::{AgentWords, FragmentKind, Preset};
use crate::workspace::{FragmentDef, Workspace};

/// A fragment with the session applied, in sort order.
#[derive(Debug, Clone)]
pub struct PreparedFragment {
    pub id: String,
    pub layer: u8,
    pub priority: i64,
    pub source: String,
    pub line: usize,
    pub body_line: usize,
    /// `None` when enabled; otherwise why not.
    pub disabled: Option<String>,
    /// The source text before interpolation (for the detail view).
    pub raw: Arc<str>,
    /// prefix + interpolated body + suffix.
    pub full: Arc<str>,
    /// The fragment's tokens before any trimming: for a file the agent's
    /// caps cut, its whole text's.
    pub tokens: Tokens,
    /// The tokens of `full`, what is sent when nothing else trims it
    /// (`tokens` but for a file the agent's caps cut).
    pub sent_tokens: Tokens,
    pub summary: Option<(Arc<str>, Tokens)>,
    pub truncate: bool,
    /// What the agent's own rules did at load time (see `Preset`).
    pub preset: Option<Preset>,
    /// Characters before and after the agent's caps.
    pub chars: Option<(usize, usize)>,
    /// The agent's words around the file's text in `full` (see
    /// `FragmentDef::agent_words`).
    pub agent_words: Option<AgentWords>,
    /// The agent's own text (see `FragmentKind::Builtin`), by category.
    pub builtin: Option<Category>,
    /// See `FragmentDef::piece`.
    pub piece: u32,
}

#[derive(Debug, Clone)]
pub struct Prepared {
    pub encoding: Encoding,
    pub model: ModelInfo,
    pub session: String,
    pub settings: Settings,
    pub fragments: Vec<PreparedFragment>,
    /// Layer titles with their token counts.
    pub titles: [Option<(Arc<str>, Tokens)>; 4],
    /// Tool definitions of the enabled tools, in request order: the
    /// agent's own first (`agent_tools` of them), then the workspace's.
    pub tools: Vec<serde_json::Value>,
    pub tools_tokens: Tokens,
    pub agent_tools: usize,
    /// The agent's own parts (blocks, deferred tools), when its profile
    /// has them.
    pub builtin: Option<Arc<Builtin>>,
    /// The agent's deferred tools, each counted as it would be sent.
    pub deferred_tools: Vec<(String, Tokens)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Every fragment rendered (diagnostics in file order), then counted at
/// once on every core.
fn prepared_fragments(
    ws: &Workspace,
    session: &Session,
    facts: &SessionFacts,
    root: &str,
    enc: Encoding,
    counter: &TokenCounter,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<PreparedFragment> {
    let rendered: Vec<Rendered> =
        ws.fragments
            .iter()
            .map(|f| {
                let mut render = |text: &str| render_text(f, text, root, session, diagnostics);
                let body = render(&f.body);
                let full: Arc<str> = format!("{}{}{}", f.prefix, body, f.suffix).into();
                let summary = f.summary.as_ref().map(|s| -> Arc<str> {
                    format!("{}{}{}", f.prefix, render(s), f.suffix).into()
                });
                // Not interpolated: the agent's caps cut its own files,
                // which it sends as read.
                let uncut = f
                    .uncut
                    .as_ref()
                    .map(|u| -> Arc<str> { format!("{}{u}{}", f.prefix, f.suffix).into() });
                (full, summary, uncut)
            })
            .collect();
    let texts: Vec<&str> = rendered
        .iter()
        .flat_map(|(full, summary, uncut)| {
            std::iter::once(&**full)
                .chain(summary.as_deref())
                .chain(uncut.as_deref())
        })
        .collect();
    let mut counts = counter
        .count_many(enc, &texts, crate::assembly::tokens::cores())
        .into_iter();
    let mut fragments: Vec<PreparedFragment> = Vec::with_capacity(ws.fragments.len());
    for (f, (full, summary, uncut)) in ws.fragments.iter().zip(rendered) {
        let disabled = disabled_reason(f, facts);
        let sent = counts.next().unwrap_or(0);
        let summary = summary.map(|s| (s, counts.next().unwrap_or(0)));
        let tokens = uncut.map_or(sent, |_| counts.next().unwrap_or(sent));
        fragments.push(PreparedFragment {
            id: f.id.clone(),
            layer: f.layer,
            priority: f.priority,
            source: f.source.clone(),
            line: f.line,
            body_line: f.body_line,
            disabled,
            raw: f.body.as_str().into(),
            full,
            tokens,
            sent_tokens: sent,
            summary,
            truncate: f.truncate,
            preset: f.preset.clone(),
            chars: f.chars,
            agent_words: f
                .agent_words
                .map(|w| w.within(f.prefix.len(), f.suffix.len())),
            builtin: match &f.kind {
                FragmentKind::Builtin { category } => Some(*category),
                _ => None,
            },
            piece: f.piece,
        });
    }
    fragments
}

/// A fragment's texts to count: as sent, its summary, its whole text
/// before the agent's caps cut it.
type Rendered = (Arc<str>, Option<Arc<str>>, Option<Arc<str>>);

/// Applies a session to a workspace: evaluates conditions, interpolates and
/// counts every fragment (through the content-keyed cache).
pub fn prepare(
    ws: &Workspace,
    session: &Session,
    settings: &Settings,
    model: &ModelInfo,
    counter: &TokenCounter,
) -> Prepared {
    let enc = model.tokenizer;
    let facts = facts(ws, session);
    let root = ws.root.to_string_lossy().into_owned();
    let mut diagnostics = Vec::new();
    let mut fragments =
        prepared_fragments(ws, session, &facts, &root, enc, counter, &mut diagnostics);
    // Priority descending without negation (-i64::MIN overflows); a
    // file's pieces in the order sent.
    fragments.sort_by(|a, b| {
        (a.layer, std::cmp::Reverse(a.priority), a.piece, &a.id).cmp(&(
            b.layer,
            std::cmp::Reverse(b.priority),
            b.piece,
            &b.id,
        ))
    });
    let titles = std::array::from_fn(|i| {
        settings.layers[i].title.as_ref().map(|t| {
            let t: Arc<str> = t.as_str().into();
            let n = counter.count(enc, &t);
            (t, n)
        })
    });
    let builtin = ws.builtin.clone();
    let mut tools: Vec<serde_json::Value> = builtin
        .iter()
        .flat_map(|b| b.tools.iter().map(|t| t.definition.clone()))
        .collect();
    let agent_tools = tools.len();
    tools.extend(
        ws.tools
            .iter()
            .filter(|t| {
                fragments
                    .iter()
                    .any(|f| f.id == t.fragment_id && f.disabled.is_none())
            })
            .map(|t| t.definition.clone()),
    );
    let deferred_tools = builtin
        .iter()
        .flat_map(|b| b.deferred_texts())
        .map(|(name, text)| (name, counter.count(enc, &text)))
        .collect();
    // Tool-definition tokens: each definition counted as the request sends
    // it (one cache position each; the agent's in their namespaces),
    // summed: the same figure in every view.
    let namespaces = builtin
        .iter()
        .flat_map(|b| b.tools.iter().map(|t| t.namespace.as_ref()))
        .chain(std::iter::repeat(None));
    let tools_tokens = crate::request::openai::namespaced(tools.iter().zip(namespaces))
        .iter()
        .map(|t| counter.count(enc, &t.wire_text()))
        .sum();
    Prepared {
        encoding: enc,
        model: model.clone(),
        session: session.name.clone(),
        settings: settings.clone(),
        fragments,
        titles,
        tools,
        tools_tokens,
        agent_tools,
        builtin,
        deferred_tools,
        diagnostics,
    }
}

/// Why a fragment is disabled for this session, if it is.
fn disabled_reason(f: &FragmentDef, facts: &SessionFacts) -> Option<String> {
    if let Some(Preset::Disabled(why)) = &f.preset {
        return Some(why.clone());
    }
    let src = f.enabled_when.as_deref().unwrap_or("");
    if let Some(err) = &f.condition_error {
        return Some(format!("invalid enabled_when `{src}`: {err}"));
    }
    let c = f.condition.as_ref()?;
    if c.eval(facts) {
        return None;
    }
    let why = c.explain_false(facts).join(", ");
    Some(format!("enabled_when `{src}` is false: {why}"))
}

/// A fragment's text with its template variables filled in; an unknown
/// variable or an expansion past the cap is one diagnostic on its line.
fn render_text(
    f: &FragmentDef,
    text: &str,
    root: &str,
    session: &Session,
    diagnostics: &mut Vec<Diagnostic>,
) -> String {
    if !f.interpolate {
        return text.to_string();
    }
    let r = interpolate(text, root, session);
    if r.cut {
        diagnostics.push(
            Diagnostic::error(
                f.source.as_str(),
                Some(f.body_line),
                format!(
                    "template of '{}' expands past {} MiB: cut there",
                    f.id,
                    MAX_OUTPUT_BYTES / (1024 * 1024)
                ),
            )
            .for_fragment(&f.id),
        );
    }
    for name in r.unknown {
        let offset = text
            .find(&format!("{{{{{name}"))
            .or_else(|| text.find(name.as_str()))
            .unwrap_or(0);
        let line = f.body_line + text[..offset].matches('\n').count();
        diagnostics.push(
            Diagnostic::warning(
                f.source.as_str(),
                Some(line),
                format!(
                    "unknown template variable {{{{{name}}}}} in '{}' (left as is)",
                    f.id
                ),
            )
            .for_fragment(&f.id),
        );
    }
    r.text
}
