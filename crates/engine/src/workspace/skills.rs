//! Skills (`skills/NAME/SKILL.md`, `skills/NAME.md`): a one-line entry telling
//! the model to load the file when needed, or, for an `always` skill, its
//! whole body (which degrades to the entry under budget pressure).

use crate::workspace::diag::Diagnostic;
use crate::workspace::reader::Reader;
use crate::workspace::sources::{apply_common, base, parse_frontmatter};
use crate::workspace::types::{FragmentDef, FragmentKind};
use crate::workspace::yaml::{Node, key_line, split_frontmatter, unknown_keys};

const SKILL_KEYS: &[&str] = &[
    "name",
    "description",
    "always",
    "priority",
    "metadata",
    "enabled_when",
    "summary",
    "truncate",
    "version",
    "license",
    "homepage",
    "user-invocable",
    "allowed-tools",
];

/// The skill files of `skills/` (a folder's `SKILL.md`, or a `.md` file)
/// with the name each has when its frontmatter gives none.
fn skill_files(r: &mut Reader) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (name, is_dir) in r.list("skills") {
        if is_dir {
            let rel = format!("skills/{name}/SKILL.md");
            if r.exists(&rel) {
                files.push((rel, name));
            }
        } else if name.ends_with(".md") {
            let stem = name.trim_end_matches(".md").to_string();
            files.push((format!("skills/{name}"), stem));
        }
    }
    files
}

/// A skill's description: its frontmatter's, else (with a warning) the
/// first line of its body.
fn description_of(
    node: &Node,
    body: &str,
    (rel, name, id): (&str, &str, &str),
    diags: &mut Vec<Diagnostic>,
) -> String {
    if let Some(d) = node.get("description").and_then(Node::scalar_text) {
        return d;
    }
    diags.push(
        Diagnostic::warning(
            rel,
            Some(1),
            format!(
                "skill '{name}' has no 'description' in its frontmatter; its first line is used"
            ),
        )
        .for_fragment(id),
    );
    body.lines()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

pub fn load_skills(r: &mut Reader, out: &mut Vec<FragmentDef>, diags: &mut Vec<Diagnostic>) {
    for (rel, default_name) in skill_files(r) {
        let Some(text) = r.read(&rel) else { continue };
        let (fm, body, _) = split_frontmatter(&text);
        let node = parse_frontmatter(fm, &rel, diags);
        let name = node
            .get("name")
            .and_then(Node::scalar_text)
            .unwrap_or(default_name);
        let id = format!("skill.{name}");
        for k in unknown_keys(&node, SKILL_KEYS) {
            diags.push(
                Diagnostic::warning(
                    rel.as_str(),
                    key_line(&text, k, 1).or(Some(1)),
                    format!("unknown skill frontmatter key '{k}' in '{id}' (ignored)"),
                )
                .for_fragment(&id),
            );
        }
        let always = node.get("always").and_then(Node::as_bool).unwrap_or(false)
            || node
                .get("metadata")
                .and_then(|m| m.get("openclaw"))
                .and_then(|o| o.get("always"))
                .and_then(Node::as_bool)
                .unwrap_or(false);
        let description = description_of(&node, body, (&rel, &name, &id), diags);
        let entry =
            format!("- **{name}**: {description} _(load via `read_file(\"{rel}\")` when needed)_");
        let kind = FragmentKind::Skill {
            name: name.clone(),
            always,
        };
        let mut f = if always {
            let mut f = base(
                id.clone(),
                3,
                60,
                format!("## {name} (always loaded)\n\n{}", body.trim()),
                &rel,
                1,
                kind,
            );
            f.summary = Some(entry);
            f
        } else {
            base(id.clone(), 3, 40, entry, &rel, 1, kind)
        };
        apply_common(
            &mut f,
            &node,
            &crate::workspace::yaml::Lines::new(&text),
            1,
            diags,
        );
        out.push(f);
    }
}
