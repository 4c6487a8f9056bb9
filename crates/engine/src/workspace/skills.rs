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

pub fn load_skills(r: &mut Reader, out: &mut Vec<FragmentDef>, diags: &mut Vec<Diagnostic>) {
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
    for (rel, default_name) in files {
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
        let description = match node.get("description").and_then(Node::scalar_text) {
            Some(d) => d,
            None => {
                diags.push(
                    Diagnostic::warning(
                        rel.as_str(),
                        Some(1),
                        format!(
                            "skill '{name}' has no 'description' in its frontmatter; its first line is used"
                        ),
                    )
                    .for_fragment(&id),
                );
                body.lines()
                    .map(|l| l.trim_start_matches('#').trim())
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
                    .to_string()
            }
        };
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
