//! YAML reading: a panic-free parser (serde-saphyr) into a small value tree,
//! plus helpers that find the line of a key so every diagnostic can name one.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

/// A YAML value. Map keys of any scalar type are kept as strings (so
/// `layers: {1: …}` and `layers: {"1": …}` read the same).
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A scalar as text (numbers and booleans too).
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            Node::Str(s) => Some(s.clone()),
            Node::Int(i) => Some(i.to_string()),
            Node::Float(f) => Some(f.to_string()),
            Node::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Int(i) => Some(*i),
            // Only a float that is exactly a whole i64 (no saturation of
            // 1e300, 2^64, inf or NaN to i64::MAX / 0).
            Node::Float(f)
                if f.fract() == 0.0 && *f >= -(i64::MAX as f64) && *f < i64::MAX as f64 =>
            {
                Some(*f as i64)
            }
            Node::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Node::Int(i) => Some(*i as f64),
            Node::Float(f) => Some(*f),
            Node::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            Node::Str(s) => match s.as_str() {
                "true" | "yes" | "on" => Some(true),
                "false" | "no" | "off" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn entries(&self) -> &[(String, Node)] {
        match self {
            Node::Map(e) => e,
            _ => &[],
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Int(_) => "an integer",
            Node::Float(_) => "a number",
            Node::Str(_) => "a string",
            Node::List(_) => "a list",
            Node::Map(_) => "a mapping",
        }
    }

    /// Converts to JSON (for tool inputs and the like).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Int(i) => Value::from(*i),
            Node::Float(f) => Value::from(*f),
            Node::Str(s) => Value::String(s.clone()),
            Node::List(l) => Value::Array(l.iter().map(Node::to_json).collect()),
            Node::Map(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(i64::try_from(v)
            .map(Node::Int)
            .unwrap_or(Node::Float(v as f64)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Node>()? {
            out.push(v);
        }
        Ok(Node::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut out: Vec<(String, Node)> = Vec::new();
        while let Some(k) = map.next_key::<Node>()? {
            let v = map.next_value::<Node>()?;
            let key = k.scalar_text().unwrap_or_else(|| format!("{k:?}"));
            out.push((key, v));
        }
        Ok(Node::Map(out))
    }
}

/// A YAML syntax error with its 1-based line.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub line: Option<usize>,
    pub message: String,
}

/// Parses YAML text. Never panics; an empty document is `Node::Null`.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    if text.trim().is_empty() {
        return Ok(Node::Null);
    }
    // Non-finite floats (.nan, .inf) reach the caller, which names the key
    // they are wrong for, instead of failing the whole file. Nesting and
    // alias expansion stay bounded by the library's default budget.
    let parsed = std::panic::catch_unwind(|| {
        let mut options = serde_saphyr::Options::default();
        options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
        serde_saphyr::from_str_with_options::<Node>(text, options)
    });
    match parsed {
        Ok(Ok(node)) => Ok(node),
        Ok(Err(e)) => {
            let line = e.location().map(|l| l.line() as usize).filter(|l| *l > 0);
            let full = e.to_string();
            // The library's message may carry a source snippet; keep the first line.
            // Its "error: " prefix too: the diagnostic says what it is.
            let first = full.lines().next().unwrap_or("invalid YAML").trim();
            let message = first.strip_prefix("error: ").unwrap_or(first);
            // Its budget's words are its own debug text: said in ours.
            let message = match message.find("budget breached") {
                Some(at) => format!(
                    "{}too big to read: past the parser's limits on nodes, aliases and nesting",
                    &message[..at]
                ),
                None => message.to_string(),
            };
            Ok::<Node, YamlError>(Node::Null).and(Err(YamlError { line, message }))
        }
        Err(_) => Err(YamlError {
            line: None,
            message: "the YAML parser failed on this file".into(),
        }),
    }
}

/// A top-level block sequence cut into about `parts` runs of whole items,
/// each a YAML sequence of its own (cut only before a `- ` at the start of a
/// line), so a big fragment file is parsed on every core. One run when the
/// text is not such a sequence or could hold a second document.
///
/// Sound with [`parse_runs`]: a cut inside a quoted scalar or a flow
/// collection leaves the run before it unterminated, and an alias to an
/// anchor of an earlier run is unknown in its own, so either fails that
/// run's parse and the whole text is parsed at once instead.
pub fn split_items(text: &str, parts: usize) -> Vec<&str> {
    let first = text
        .lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    let is_sequence = first.is_some_and(|l| l == "-" || l.starts_with("- "));
    let bytes = text.as_bytes();
    if parts < 2
        || !is_sequence
        || text.starts_with('%')
        || memchr::memmem::find(bytes, b"\n---").is_some()
        || memchr::memmem::find(bytes, b"\n...").is_some()
    {
        return vec![text];
    }
    let mut runs = Vec::with_capacity(parts);
    let mut start = 0;
    for i in 1..parts {
        let target = (text.len() * i / parts).max(start);
        let found = memchr::memmem::find_iter(&bytes[target..], b"\n-")
            .map(|p| target + p + 1)
            .find(|&p| matches!(bytes.get(p + 1), Some(b' ' | b'\n' | b'\r')));
        let Some(cut) = found else { break };
        runs.push(&text[start..cut]);
        start = cut;
    }
    runs.push(&text[start..]);
    runs
}

/// The runs of [`split_items`] parsed (each on its own thread when there
/// are several) and joined into the one list the whole text is; the whole
/// text parsed at once when any run fails (so an error's line and message
/// are the whole file's).
pub fn parse_runs(text: &str, runs: Vec<Result<Node, YamlError>>) -> Result<Node, YamlError> {
    if runs.len() == 1 {
        return runs.into_iter().next().expect("one run");
    }
    let mut items = Vec::new();
    for run in runs {
        match run {
            Ok(Node::List(l)) => items.extend(l),
            _ => return parse(text),
        }
    }
    Ok(Node::List(items))
}

/// Whether a line defines `key:` (optionally as a list item `- key:`,
/// the key optionally quoted).
pub(crate) fn defines(line: &str, key: &str) -> bool {
    let t = line.trim_start().trim_start_matches("- ").trim_start();
    let t = t.trim_start_matches(['"', '\'']);
    t.strip_prefix(key)
        .map(|rest| rest.trim_start_matches(['"', '\'']).starts_with(':'))
        .unwrap_or(false)
}

/// A file's lines, split once: a line by its number and a search from a
/// line cost only what they read, never a rescan from line 1 (so finding
/// every fragment's lines is one pass over the file, not one per fragment).
pub struct Lines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        Lines {
            lines: text.lines().collect(),
        }
    }

    /// How many lines the file has.
    pub fn count(&self) -> usize {
        self.lines.len()
    }

    /// Line `n` (1-based).
    pub fn get(&self, n: usize) -> Option<&'a str> {
        self.lines.get(n.checked_sub(1)?).copied()
    }

    /// 1-based line of the first line at or after `from` (1-based) that
    /// defines `key:`, or `None`.
    pub fn key_line(&self, key: &str, from: usize) -> Option<usize> {
        self.find(from, |l| defines(l, key))
    }

    /// 1-based line of the first line at or after `from` that contains
    /// `needle`.
    pub fn text_line(&self, needle: &str, from: usize) -> Option<usize> {
        self.find(from, |l| l.contains(needle))
    }

    /// 1-based line of the first line at or after `from` that `pred` holds.
    pub fn find(&self, from: usize, pred: impl Fn(&str) -> bool) -> Option<usize> {
        let start = from.saturating_sub(1).min(self.lines.len());
        self.lines[start..]
            .iter()
            .position(|l| pred(l))
            .map(|i| start + i + 1)
    }
}

/// 1-based line of the first line at or after `from` (1-based) that defines
/// `key:` (optionally as a list item `- key:`), or `None`. For one search
/// in a file; many in one file go through [`Lines`].
pub fn key_line(text: &str, key: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| defines(l, key))
        .map(|(i, _)| i + 1)
}

/// 1-based line of the first line at or after `from` that contains `needle`.
pub fn text_line(text: &str, needle: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
}

/// Splits `---` frontmatter from a Markdown file: (frontmatter, body, body's
/// first line). Without frontmatter the whole text is the body.
pub fn split_frontmatter(text: &str) -> (Option<&str>, &str, usize) {
    let rest = match text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    {
        Some(r) => r,
        None => return (None, text, 1),
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let fm = &rest[..offset];
            let body = &rest[offset + line.len()..];
            let body_line = 2 + fm.lines().count() + 1;
            return (Some(fm), body, body_line);
        }
        offset += line.len();
    }
    (None, text, 1)
}

/// Maps of known keys per place, for unknown-key warnings.
pub fn unknown_keys<'a>(node: &'a Node, known: &[&str]) -> Vec<&'a str> {
    node.entries()
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !known.contains(k))
        .collect()
}

/// String map from a YAML mapping of scalars.
pub fn string_map(node: Option<&Node>) -> BTreeMap<String, String> {
    node.map(|n| {
        n.entries()
            .iter()
            .filter_map(|(k, v)| v.scalar_text().map(|v| (k.clone(), v)))
            .collect()
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parsed in runs on threads, as [`crate::workspace::sources`] does.
    fn in_runs(text: &str, parts: usize) -> (usize, Result<Node, YamlError>) {
        let runs = split_items(text, parts);
        let parsed = runs.iter().map(|r| parse(r)).collect();
        (runs.len(), parse_runs(text, parsed))
    }

    #[test]
    fn a_sequence_parsed_in_runs_is_the_sequence_parsed_whole() {
        let mut text = String::from("# fragments\n\n");
        for i in 0..40 {
            text += &format!("- id: f{i}\n  priority: {i}\n  content: \"x - y\\n\"\n");
            text += "  tags: [a, b]\n  body: |\n    - not an item\n";
        }
        let (runs, parsed) = in_runs(&text, 4);
        assert_eq!(runs, 4);
        assert_eq!(parsed, parse(&text));
        assert!(matches!(parsed, Ok(Node::List(ref l)) if l.len() == 40));
        // Cuts inside a quoted scalar or a flow list that runs over a line
        // starting with "- ", and an alias to an earlier run's anchor: each
        // run that breaks sends the whole text to one parse, so the result
        // (value or error, with its line) is the whole text's.
        let tricky = [
            format!("{text}- a: \"open\n- b: c\"\n{text}"),
            format!("{text}- a: [1,\n- 2]\n{text}"),
            format!("- &x {{id: a}}\n{text}- *x\n"),
            format!("- a: 'it\n- b'\n{text}"),
            format!("{text}- broken: [\n"),
        ];
        for t in &tricky {
            for parts in [2, 3, 8] {
                assert_eq!(in_runs(t, parts).1, parse(t), "{parts} parts");
            }
        }
        // Not a top-level sequence, or maybe several documents: one run.
        assert_eq!(split_items("fragments:\n- a\n- b\n", 4).len(), 1);
        assert_eq!(split_items("- a\n---\n- b\n", 4).len(), 1);
        assert_eq!(split_items("%YAML 1.2\n---\n- a\n", 4).len(), 1);
    }

    #[test]
    fn parses_int_keys_and_reports_error_lines() {
        let n = parse("layers:\n  1: {title: A}\n  \"2\": {title: B}\n").unwrap();
        let layers = n.get("layers").unwrap();
        assert_eq!(
            layers.get("1").unwrap().get("title").unwrap().as_str(),
            Some("A")
        );
        assert_eq!(
            layers.get("2").unwrap().get("title").unwrap().as_str(),
            Some("B")
        );
        let e = parse("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(e.line.is_some(), "{e:?}");
        // Said once that it is an error (by the diagnostic), not twice.
        assert!(!e.message.starts_with("error"), "{e:?}");
        let e = parse("ok: 1\n  bad: : :\n").unwrap_err();
        assert!(e.line.unwrap() >= 2, "{e:?}");
    }

    #[test]
    fn frontmatter_split() {
        let (fm, body, line) = split_frontmatter("---\nname: x\nalways: true\n---\nBody\n");
        assert_eq!(fm, Some("name: x\nalways: true\n"));
        assert_eq!(body, "Body\n");
        assert_eq!(line, 5);
        let (fm, body, line) = split_frontmatter("# Title\n");
        assert_eq!((fm, body, line), (None, "# Title\n", 1));
    }

    #[test]
    fn key_lines() {
        let t = "- id: a\n  layer: 3\n- id: b\n  layer: 9\n";
        assert_eq!(key_line(t, "layer", 3), Some(4));
        assert_eq!(key_line(t, "id", 2), Some(3));
        // The index answers as the one-shot search does, from any line.
        let lines = Lines::new(t);
        assert_eq!(lines.count(), 4);
        for from in 0..=6 {
            for k in ["id", "layer", "none"] {
                assert_eq!(
                    lines.key_line(k, from),
                    key_line(t, k, from),
                    "{k} from {from}"
                );
            }
            assert_eq!(lines.text_line("b", from), text_line(t, "b", from));
        }
        assert_eq!(lines.get(3), Some("- id: b"));
        assert_eq!((lines.get(0), lines.get(5)), (None, None));
    }
}
