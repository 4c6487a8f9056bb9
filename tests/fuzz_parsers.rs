//! Fuzz-style property tests over every parser of user input (`enabled_when`,
//! templates, frontmatter, YAML fragments, sessions, tool JSON): random and
//! adversarial inputs never panic, and outputs stay within their bounds.

use prompt_inspector::engine::workspace::session::Session;
use prompt_inspector::engine::{
    self, ModelTable, Options, TokenCounter, assembly::template, workspace::expr, workspace::yaml,
};
use proptest::prelude::*;

/// Pieces that hit the grammars' edges, glued at random.
const PIECES: &[&str] = &[
    "(",
    ")",
    "not ",
    " and ",
    " or ",
    "in",
    " session.tools",
    "session.flags.x",
    "\"",
    "'",
    "{{",
    "}}",
    "session.",
    "workspaceDir",
    "---\n",
    "\n",
    "\r\n",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "!!binary ",
    "界",
    "\u{feff}",
    "\0",
    "\u{1b}[2J",
    "1e309",
    "-9223372036854775809",
    ".nan",
    "id: x",
    "layer: 3",
    "priority: ",
    "content: ",
    "enabled_when: ",
    "template: ",
    "turns:\n",
    "  - user: hi\n",
    "gap: 99999999999999999999h\n",
    "vars:\n  a: ",
    "\t",
    "#",
    "|",
    ">",
    "%",
    "@",
    "`",
    "\\",
    "true",
    "false",
    "~",
    "null",
];

fn adversarial() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(PIECES).prop_map(str::to_string),
            1 => "\\PC{0,12}",
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

fn facts() -> expr::SessionFacts {
    expr::SessionFacts::default()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn enabled_when_never_panics(src in adversarial(), depth in 0usize..300) {
        let nested = format!("{}{src}{}", "(".repeat(depth), ")".repeat(depth));
        for s in [&src, &nested] {
            if let Ok(e) = expr::parse(s) {
                let _ = e.eval(&facts());
                let _ = e.explain_false(&facts());
            }
        }
    }

    #[test]
    fn templates_never_exceed_their_cap(src in adversarial(), var in "\\PC{0,64}", reps in 0usize..200) {
        let mut s = Session::default();
        s.vars.insert("a".into(), var.repeat(reps));
        let text = format!("{src}{}", "{{session.a}}".repeat(reps));
        let r = template::interpolate_capped(&text, "/w", &s, 4096);
        prop_assert!(r.text.len() <= 4096);
        prop_assert!(r.unknown.len() <= 100);
    }

    #[test]
    fn yaml_and_frontmatter_never_panic(src in adversarial()) {
        let _ = yaml::parse(&src);
        let (fm, body, line) = yaml::split_frontmatter(&src);
        prop_assert!(line >= 1);
        prop_assert!(body.len() <= src.len());
        if let Some(fm) = fm {
            let _ = yaml::parse(fm);
        }
    }

    #[test]
    fn whole_workspaces_of_noise_load(
        soul in adversarial(),
        frags in adversarial(),
        session in adversarial(),
        tool in adversarial(),
        settings in adversarial(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("SOUL.md", soul),
            ("fragments/f.yaml", frags),
            ("sessions/s.yaml", session),
            ("tools/t.json", tool),
            ("workspace.yaml", settings),
        ];
        for (p, text) in &files {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let table = ModelTable::bundled();
        let counter = TokenCounter::new();
        let ins = engine::inspect(dir.path(), &Options::default(), &table, &counter).unwrap();
        for d in ins.diagnostics() {
            prop_assert!(!d.file.is_empty());
        }
        let _ = engine::assembly::report::to_text(&ins);
    }
}
