//! The sources of fragments: conventional Markdown files, skills, tool
//! definitions and explicit fragment files.

use std::collections::BTreeMap;

use crate::workspace::diag::Diagnostic;
use crate::workspace::expr;
use crate::workspace::reader::{Reader, check_relative};
use crate::workspace::settings::Settings;
use crate::workspace::types::{FragmentDef, FragmentKind};
use crate::workspace::yaml::{self, Lines, Node, key_line, split_frontmatter, unknown_keys};

/// (file, layer, priority, truncate) of the conventional Markdown files.
const CONVENTIONS: &[(&str, u8, i64, bool)] = &[
    ("SOUL.md", 1, 100, false),
    ("IDENTITY.md", 1, 95, false),
    ("AGENTS.md", 1, 90, false),
    ("SAFETY.md", 2, 100, false),
    ("TOOLS.md", 3, 70, false),
    ("USER.md", 4, 90, true),
    ("MEMORY.md", 4, 70, true),
    ("HEARTBEAT.md", 4, 30, true),
];

const MD_KEYS: &[&str] = &[
    "id",
    "layer",
    "priority",
    "summary",
    "truncate",
    "cacheable",
    "enabled_when",
    "prefix",
    "suffix",
];

const FRAGMENT_KEYS: &[&str] = &[
    "id",
    "layer",
    "priority",
    "content",
    "template",
    "file",
    "summary",
    "prefix",
    "suffix",
    "cacheable",
    "enabled_when",
    "source",
    "truncate",
];

fn id_from_file(file: &str) -> String {
    file.trim_end_matches(".md").to_ascii_lowercase()
}

/// A fragment with the defaults every source starts from.
pub(crate) fn base(
    id: String,
    layer: u8,
    priority: i64,
    body: String,
    source: &str,
    line: usize,
    kind: FragmentKind,
) -> FragmentDef {
    FragmentDef {
        id,
        layer,
        priority,
        body,
        interpolate: true,
        summary: None,
        prefix: String::new(),
        suffix: String::new(),
        cacheable: None,
        enabled_when: None,
        condition: None,
        condition_error: None,
        source: source.to_string(),
        source_label: None,
        line,
        body_line: line,
        truncate: false,
        kind,
        preset: None,
        chars: None,
        agent_words: None,
        uncut: None,
        piece: 0,
    }
}

/// Parses `enabled_when` into the fragment; an invalid expression is one
/// diagnostic and leaves the fragment disabled.
pub(crate) fn set_condition(
    f: &mut FragmentDef,
    src: &str,
    line: Option<usize>,
    diags: &mut Vec<Diagnostic>,
) {
    f.enabled_when = Some(src.to_string());
    match expr::parse(src) {
        Ok(e) => f.condition = Some(e),
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    f.source.as_str(),
                    line,
                    format!("invalid enabled_when `{src}`: {e}; the fragment is disabled"),
                )
                .for_fragment(&f.id),
            );
            f.condition_error = Some(e.to_string());
        }
    }
}

/// Applies the common optional keys of a mapping to a fragment.
pub(crate) fn apply_common(
    f: &mut FragmentDef,
    node: &Node,
    text: &Lines,
    from: usize,
    diags: &mut Vec<Diagnostic>,
) {
    let line = |k: &str| text.key_line(k, from).or(Some(from.max(1)));
    if let Some(p) = node.get("priority") {
        match p.as_i64() {
            Some(n) => f.priority = n,
            None => diags.push(
                Diagnostic::error(
                    f.source.as_str(),
                    line("priority"),
                    format!(
                        "priority of '{}' must be a whole number from {} to {}, found {} (default {} kept)",
                        f.id,
                        i64::MIN,
                        i64::MAX,
                        p.scalar_text().unwrap_or_else(|| p.type_name().into()),
                        f.priority
                    ),
                )
                .for_fragment(&f.id),
            ),
        }
    }
    if let Some(s) = node.get("summary").and_then(Node::scalar_text) {
        f.summary = Some(s);
    }
    if let Some(s) = node.get("prefix").and_then(Node::scalar_text) {
        f.prefix = s;
    }
    if let Some(s) = node.get("suffix").and_then(Node::scalar_text) {
        f.suffix = s;
    }
    if let Some(v) = node.get("truncate") {
        match v.as_bool() {
            Some(b) => f.truncate = b,
            None => diags.push(
                Diagnostic::error(
                    f.source.as_str(),
                    line("truncate"),
                    "truncate must be true or false",
                )
                .for_fragment(&f.id),
            ),
        }
    }
    if let Some(v) = node.get("cacheable") {
        f.cacheable = v.as_bool();
    }
    if let Some(e) = node.get("enabled_when") {
        // A non-text value is an empty (hence invalid) expression.
        let src = e.scalar_text().unwrap_or_default();
        set_condition(f, &src, line("enabled_when"), diags);
    }
}

pub(crate) fn parse_frontmatter(fm: Option<&str>, file: &str, diags: &mut Vec<Diagnostic>) -> Node {
    let Some(fm) = fm else { return Node::Null };
    match yaml::parse(fm) {
        Ok(n @ Node::Map(_)) => n,
        Ok(Node::Null) => Node::Null,
        Ok(other) => {
            diags.push(Diagnostic::error(
                file,
                Some(2),
                format!("frontmatter must be a mapping, found {}", other.type_name()),
            ));
            Node::Null
        }
        Err(e) => {
            diags.push(Diagnostic::error(
                file,
                Some(e.line.map(|l| l + 1).unwrap_or(2)),
                format!("invalid YAML frontmatter: {} (ignored)", e.message),
            ));
            Node::Null
        }
    }
}

/// Each Markdown file's layer, priority and truncation, and their order.
type MarkdownPlan = (BTreeMap<String, (u8, i64, bool)>, Vec<String>);

/// The Markdown files to read, in order (the conventional names found,
/// then `workspace.yaml`'s `files:`), each with its layer, priority and
/// whether it may be truncated (a rule overrides a convention's).
fn markdown_plan(r: &mut Reader, settings: &Settings, diags: &mut Vec<Diagnostic>) -> MarkdownPlan {
    let mut plan: BTreeMap<String, (u8, i64, bool)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (file, layer, prio, trunc) in CONVENTIONS {
        if r.exists(file) {
            plan.insert(file.to_string(), (*layer, *prio, *trunc));
            order.push(file.to_string());
        }
    }
    for rule in &settings.files {
        if let Err(m) = check_relative(&rule.path) {
            diags.push(Diagnostic::error(
                "workspace.yaml",
                Some(rule.line),
                format!("files: {m}"),
            ));
            continue;
        }
        let entry = plan
            .entry(rule.path.clone())
            .or_insert((rule.layer, 50, rule.layer >= 4));
        entry.0 = rule.layer;
        if let Some(p) = rule.priority {
            entry.1 = p;
        }
        if let Some(t) = rule.truncate {
            entry.2 = t;
        }
        if !order.contains(&rule.path) {
            order.push(rule.path.clone());
        }
    }
    (plan, order)
}

pub fn load_markdown_files(
    r: &mut Reader,
    settings: &Settings,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let (plan, order) = markdown_plan(r, settings, diags);
    for file in order {
        let (layer, prio, trunc) = plan[&file];
        let Some(text) = r.read(&file) else { continue };
        let (fm, body, body_line) = split_frontmatter(&text);
        let node = parse_frontmatter(fm, &file, diags);
        let body_line = body_line
            + body[..body.len() - body.trim_start().len()]
                .matches('\n')
                .count();
        let id = node
            .get("id")
            .and_then(Node::scalar_text)
            .unwrap_or_else(|| id_from_file(&file));
        for k in unknown_keys(&node, MD_KEYS) {
            diags.push(
                Diagnostic::warning(
                    file.as_str(),
                    key_line(&text, k, 1).or(Some(1)),
                    format!("unknown frontmatter key '{k}' in '{id}' (ignored)"),
                )
                .for_fragment(&id),
            );
        }
        let layer = match node.get("layer").map(|l| l.as_i64()) {
            None => layer as i64,
            Some(l) => l.unwrap_or(0),
        };
        let mut f = base(
            id,
            0,
            prio,
            body.trim().to_string(),
            &file,
            1,
            FragmentKind::Markdown,
        );
        f.truncate = trunc;
        f.body_line = body_line;
        if !(1..=4).contains(&layer) {
            diags.push(
                Diagnostic::error(
                    file.as_str(),
                    key_line(&text, "layer", 1),
                    format!("layer {layer} is outside 1–4 (file skipped)"),
                )
                .for_fragment(&f.id),
            );
            continue;
        }
        f.layer = layer as u8;
        apply_common(&mut f, &node, &Lines::new(&text), 1, diags);
        out.push(f);
    }
}

fn yaml_fragment(
    node: &Node,
    rel: &str,
    text: &Lines,
    from: usize,
    r: &mut Reader,
    diags: &mut Vec<Diagnostic>,
) -> Option<FragmentDef> {
    if !matches!(node, Node::Map(_)) {
        diags.push(Diagnostic::error(
            rel,
            Some(from),
            format!("a fragment must be a mapping, found {}", node.type_name()),
        ));
        return None;
    }
    let Some(id) = node
        .get("id")
        .and_then(Node::scalar_text)
        .filter(|s| !s.is_empty())
    else {
        diags.push(Diagnostic::error(
            rel,
            Some(from),
            "fragment is missing required field 'id' (skipped)",
        ));
        return None;
    };
    let line = text.key_line("id", from).unwrap_or(from);
    for k in unknown_keys(node, FRAGMENT_KEYS) {
        diags.push(
            Diagnostic::warning(
                rel,
                text.key_line(k, line),
                format!("unknown key '{k}' in fragment '{id}' (ignored)"),
            )
            .for_fragment(&id),
        );
    }
    let layer = fragment_layer(node, &id, rel, text, line, diags)?;
    let (body, interpolate) = fragment_body(node, &id, rel, text, line, r, diags)?;
    let mut f = base(
        id,
        layer,
        50,
        body.trim_end_matches('\n').to_string(),
        rel,
        line,
        FragmentKind::Yaml,
    );
    if let Some(l) = ["content", "template"]
        .iter()
        .find_map(|k| node.get(k).and(text.key_line(k, line)))
    {
        let block = text
            .get(l)
            .map(|t| t.trim_end().ends_with(['|', '>', '-', '+']))
            .unwrap_or(false);
        f.body_line = if block { l + 1 } else { l };
    }
    f.interpolate = interpolate;
    f.source_label = node.get("source").and_then(Node::scalar_text);
    apply_common(&mut f, node, text, line, diags);
    Some(f)
}

/// A YAML fragment's `layer` (required, 1–4).
fn fragment_layer(
    node: &Node,
    id: &str,
    rel: &str,
    text: &Lines,
    line: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<u8> {
    match node.get("layer") {
        None => {
            diags.push(
                Diagnostic::error(
                    rel,
                    Some(line),
                    format!("fragment '{id}' is missing required field 'layer' (skipped)"),
                )
                .for_fragment(id),
            );
            None
        }
        Some(l) => match l.as_i64() {
            Some(n @ 1..=4) => Some(n as u8),
            _ => {
                let shown = l.scalar_text().unwrap_or_else(|| l.type_name().into());
                let at = text.key_line("layer", line);
                diags.push(
                    Diagnostic::error(
                        rel,
                        at,
                        format!("fragment '{id}' has layer {shown}, outside 1–4 (this definition skipped)"),
                    )
                    .for_fragment(id),
                );
                None
            }
        },
    }
}

/// A YAML fragment's text: `content` (literal), `template` or `file`
/// (interpolated). Returns (text, interpolate).
fn fragment_body(
    node: &Node,
    id: &str,
    rel: &str,
    text: &Lines,
    line: usize,
    r: &mut Reader,
    diags: &mut Vec<Diagnostic>,
) -> Option<(String, bool)> {
    if let Some(c) = node.get("content").and_then(Node::scalar_text) {
        Some((c, false))
    } else if let Some(t) = node.get("template").and_then(Node::scalar_text) {
        Some((t, true))
    } else if let Some(path) = node.get("file").and_then(Node::scalar_text) {
        match r.read_checked(&path) {
            Ok(t) => Some((t, true)),
            Err((_, m)) => {
                diags.push(
                    Diagnostic::error(
                        rel,
                        text.key_line("file", line),
                        format!("fragment '{id}': file '{path}': {m}"),
                    )
                    .for_fragment(id),
                );
                None
            }
        }
    } else {
        diags.push(
            Diagnostic::error(
                rel,
                Some(line),
                format!("fragment '{id}' is missing required field 'content' (or 'template' or 'file') (skipped)"),
            )
            .for_fragment(id),
        );
        None
    }
}

pub fn load_fragment_files(
    r: &mut Reader,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let names: Vec<String> = r
        .list("fragments")
        .into_iter()
        .filter(|(name, is_dir)| !is_dir && (name.ends_with(".yaml") || name.ends_with(".yml")))
        .map(|(name, _)| format!("fragments/{name}"))
        .collect();
    // Read in order, parsed a batch at a time on every core (a batch holds
    // at most BATCH_BYTES of text), then made into fragments in order.
    let mut names = names.into_iter().peekable();
    while names.peek().is_some() {
        let mut batch: Vec<(String, String)> = Vec::new();
        let mut bytes = 0;
        while bytes < BATCH_BYTES
            && let Some(rel) = names.next()
        {
            if let Some(text) = r.read(&rel) {
                bytes += text.len();
                batch.push((rel, text));
            }
        }
        let parsed = parse_all(&batch);
        fragment_files(r, batch, parsed, out, diags);
    }
}

/// Text of fragment files parsed at once at most.
const BATCH_BYTES: usize = 32 << 20;

/// The files' YAML parsed, in order, on every core when there is enough:
/// a big file's items are cut into runs ([`yaml::split_items`]) so that one
/// file of a thousand fragments is parsed on every core too.
fn parse_all(files: &[(String, String)]) -> Vec<Result<Node, yaml::YamlError>> {
    let cores = super::cores();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    if cores == 1 || bytes < 256 * 1024 {
        return files.iter().map(|(_, t)| yaml::parse(t)).collect();
    }
    // Every file's runs, in order: big files in one run per core.
    let share = bytes.div_ceil(cores);
    let runs: Vec<Vec<&str>> = files
        .iter()
        .map(|(_, t)| yaml::split_items(t, if t.len() >= share / 2 { cores } else { 1 }))
        .collect();
    let all: Vec<&str> = runs.iter().flatten().copied().collect();
    let chunk = all.len().div_ceil(cores);
    let parsed: Vec<Result<Node, yaml::YamlError>> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(chunk)
            .map(|run| s.spawn(move || run.iter().map(|t| yaml::parse(t)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a parsing thread panicked"))
            .collect()
    });
    let mut parsed = parsed.into_iter();
    files
        .iter()
        .zip(&runs)
        .map(|((_, text), r)| yaml::parse_runs(text, parsed.by_ref().take(r.len()).collect()))
        .collect()
}

/// Fragments of parsed fragment files, in file order.
fn fragment_files(
    r: &mut Reader,
    files: Vec<(String, String)>,
    parsed: Vec<Result<Node, yaml::YamlError>>,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    for ((rel, text), node) in files.into_iter().zip(parsed) {
        let node = match node {
            Ok(n) => n,
            Err(e) => {
                diags.push(Diagnostic::error(
                    rel.as_str(),
                    e.line,
                    format!("invalid YAML: {} (file skipped)", e.message),
                ));
                continue;
            }
        };
        let items: Vec<&Node> = match &node {
            Node::List(items) => items.iter().collect(),
            Node::Map(_) if node.get("fragments").is_some() => match node.get("fragments") {
                Some(Node::List(items)) => items.iter().collect(),
                _ => {
                    diags.push(Diagnostic::error(
                        rel.as_str(),
                        key_line(&text, "fragments", 1),
                        "'fragments' must be a list",
                    ));
                    continue;
                }
            },
            Node::Map(_) => vec![&node],
            Node::Null => continue,
            other => {
                diags.push(Diagnostic::error(
                    rel.as_str(),
                    Some(1),
                    format!("expected a list of fragments, found {}", other.type_name()),
                ));
                continue;
            }
        };
        // One pass: each item's `id:` line is looked for after the last.
        let lines = Lines::new(&text);
        let mut cursor = 1;
        for item in items {
            let from = item
                .get("id")
                .and_then(Node::scalar_text)
                .and_then(|id| {
                    lines.find(cursor, |l| {
                        yaml::defines(l, "id") && l.contains(id.as_str())
                    })
                })
                .unwrap_or(cursor);
            if let Some(f) = yaml_fragment(item, &rel, &lines, from, r, diags) {
                out.push(f);
            }
            cursor = from + 1;
        }
    }
}
