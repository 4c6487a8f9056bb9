//! Tool definitions (`tools/*.json`, Anthropic format): each becomes the
//! layer-3 fragment `tool.NAME` and, when enabled, an entry of the request's
//! `tools`.

use serde_json::Value;

use crate::workspace::diag::Diagnostic;
use crate::workspace::reader::Reader;
use crate::workspace::sources::{base, set_condition};
use crate::workspace::types::{FragmentDef, FragmentKind, ToolDef};
use crate::workspace::yaml::text_line;

const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "input_schema",
    "enabled_when",
    "priority",
    "summary",
    "cache_control",
    "type",
];

fn json_tool(
    v: &Value,
    rel: &str,
    text: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<(ToolDef, FragmentDef)> {
    let Some(obj) = v.as_object() else {
        diags.push(Diagnostic::error(
            rel,
            Some(1),
            "a tool definition must be a JSON object",
        ));
        return None;
    };
    let Some(name) = obj
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
    else {
        diags.push(Diagnostic::error(
            rel,
            Some(1),
            "tool definition is missing required field 'name' (skipped)",
        ));
        return None;
    };
    let line = text_line(text, &format!("\"{name}\""), 1).unwrap_or(1);
    for k in obj.keys().filter(|k| !TOOL_KEYS.contains(&k.as_str())) {
        diags.push(
            Diagnostic::warning(
                rel,
                text_line(text, &format!("\"{k}\""), 1).or(Some(line)),
                format!("unknown key '{k}' in tool '{name}' (ignored)"),
            )
            .for_fragment(&format!("tool.{name}")),
        );
    }
    let description = obj
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let schema = input_schema(obj.get("input_schema"), name, (rel, line), diags);
    let text_out = describe_tool(name, &description, &schema);
    let id = format!("tool.{name}");
    let mut f = base(
        id.clone(),
        3,
        60,
        text_out,
        rel,
        line,
        FragmentKind::Tool {
            name: name.to_string(),
        },
    );
    f.interpolate = false;
    tool_priority(obj.get("priority"), &mut f, rel, text, line, diags);
    f.summary = obj
        .get("summary")
        .and_then(Value::as_str)
        .map(str::to_string);
    let cond = match obj.get("enabled_when") {
        None => format!("{name} in session.tools"),
        // A non-text value is an empty (hence invalid) expression.
        Some(v) => v.as_str().unwrap_or_default().to_string(),
    };
    let cond_line = text_line(text, "\"enabled_when\"", 1).or(Some(line));
    set_condition(&mut f, &cond, cond_line, diags);
    let definition =
        serde_json::json!({"name": name, "description": description, "input_schema": schema});
    Some((
        ToolDef {
            name: name.to_string(),
            definition,
            fragment_id: id,
            source: rel.to_string(),
        },
        f,
    ))
}

/// A tool's `input_schema`: an object, else a diagnostic at the tool's
/// line and an empty schema.
fn input_schema(
    schema: Option<&Value>,
    name: &str,
    (rel, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Value {
    match schema {
        Some(s) if s.is_object() => s.clone(),
        _ => {
            diags.push(
                Diagnostic::error(
                    rel,
                    Some(line),
                    format!("tool '{name}' is missing required field 'input_schema' (an object); an empty schema is used"),
                )
                .for_fragment(&format!("tool.{name}")),
            );
            serde_json::json!({"type": "object", "properties": {}})
        }
    }
}

/// A tool's `priority`: a whole number in i64's range, else a diagnostic
/// and the default kept.
fn tool_priority(
    p: Option<&Value>,
    f: &mut FragmentDef,
    rel: &str,
    text: &str,
    line: usize,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(p) = p else { return };
    let id = f.id.clone();
    match p.as_i64() {
        Some(n) => f.priority = n,
        None => diags.push(
            Diagnostic::error(
                rel,
                text_line(text, "\"priority\"", 1).or(Some(line)),
                format!(
                    "priority of '{id}' must be a whole number from {} to {}, found {p} (default {} kept)",
                    i64::MIN,
                    i64::MAX,
                    f.priority
                ),
            )
            .for_fragment(&id),
        ),
    }
}

/// How a tool appears in the prompt's capability layer: its name, its
/// description and its parameters (type, required, description).
fn describe_tool(name: &str, description: &str, schema: &Value) -> String {
    let mut text_out = format!("### Tool: {name}\n{description}");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema
        .get("properties")
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty())
    {
        text_out.push_str("\nParameters:");
        for (p, spec) in props {
            let ty = spec.get("type").and_then(Value::as_str).unwrap_or("any");
            let req = if required.contains(&p.as_str()) {
                ", required"
            } else {
                ""
            };
            let desc = spec
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            text_out.push_str(&format!("\n- {p} ({ty}{req}): {desc}"));
        }
    }
    text_out
}

pub fn load_tools(
    r: &mut Reader,
    out: &mut Vec<FragmentDef>,
    tools: &mut Vec<ToolDef>,
    diags: &mut Vec<Diagnostic>,
) {
    for (name, is_dir) in r.list("tools") {
        if is_dir || !name.ends_with(".json") {
            continue;
        }
        let rel = format!("tools/{name}");
        let Some(text) = r.read(&rel) else { continue };
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                diags.push(Diagnostic::error(
                    rel.as_str(),
                    Some(e.line()),
                    format!("invalid JSON: {e}"),
                ));
                continue;
            }
        };
        let items = match v {
            Value::Array(a) => a,
            other => vec![other],
        };
        for item in &items {
            if let Some((t, f)) = json_tool(item, &rel, &text, diags) {
                if tools.iter().any(|o: &ToolDef| o.name == t.name) {
                    diags.push(Diagnostic::error(
                        rel.as_str(),
                        Some(f.line),
                        format!("duplicate tool '{}' (the first wins)", t.name),
                    ));
                    continue;
                }
                tools.push(t);
                out.push(f);
            }
        }
    }
}
