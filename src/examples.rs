//! The examples, inside the binary (`build.rs` embeds `examples/` and the
//! sample workspace): `prompt-inspector examples` lists them and
//! `examples --copy DIR` writes them into a folder to open, edit and run,
//! so that an installed binary has them without the source tree.

use std::path::Path;

/// One example: its folder name, what it shows and the command to try it.
pub struct Example {
    pub name: &'static str,
    pub about: &'static str,
    pub try_it: &'static str,
}

/// The examples, in the order they are listed. `sample-workspace` is the
/// sample the window opens; the others are the folders of `examples/`
/// (tests/first_minutes.rs checks that every one of them is here).
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "sample-workspace",
        about: "a layered workspace: persona, rules, skills, tools and memory under budgets, three sessions",
        try_it: "prompt-inspector report DIR/sample-workspace",
    },
    Example {
        name: "claude-code",
        about: "a Claude Code project: CLAUDE.md with imports, CLAUDE.local.md, a skill and a subagent",
        try_it: "prompt-inspector context DIR/claude-code",
    },
    Example {
        name: "openclaw",
        about: "an OpenClaw workspace: SOUL.md, AGENTS.md, skills and daily memory",
        try_it: "prompt-inspector context DIR/openclaw",
    },
    Example {
        name: "traffic",
        about: "a recorded capture of an agent's requests, with cache misses to explain",
        try_it: "prompt-inspector traffic DIR/traffic/capture.jsonl",
    },
    Example {
        name: "fleet",
        about: "DuckDB queries over the fleet export (cost by miss kind, hit ratio by day and model)",
        try_it: "prompt-inspector traffic DIR/traffic/capture.jsonl --format jsonl > rows.jsonl && python3 DIR/fleet/run.py rows.jsonl",
    },
];

/// The files of the example `name`, by their path inside it.
pub fn files(name: &str) -> Vec<(&'static str, &'static str)> {
    if name == "sample-workspace" {
        return crate::sample::FILES.to_vec();
    }
    let prefix = format!("{name}/");
    crate::embedded::EXAMPLE_FILES
        .iter()
        .filter_map(|(path, text)| Some((path.strip_prefix(prefix.as_str())?, *text)))
        .collect()
}

/// The list `prompt-inspector examples` prints.
pub fn list() -> String {
    let mut out = String::from(
        "Examples inside this binary (copy them with `prompt-inspector examples --copy DIR`):\n\n",
    );
    for e in EXAMPLES {
        let n = files(e.name).len();
        out.push_str(&format!(
            "  {:<17} {n:>2} file{}  {}\n  {:<17}           try: {}\n",
            e.name,
            if n == 1 { " " } else { "s" },
            e.about,
            "",
            e.try_it
        ));
    }
    out
}

/// Writes every example into `dir/NAME/`, leaving files already there as
/// they are; returns what it did, one line per example.
pub fn copy_into(dir: &Path) -> Result<String, String> {
    let mut out = String::new();
    for e in EXAMPLES {
        let target = dir.join(e.name);
        let (written, kept) = crate::sample::write_files(&target, files(e.name).into_iter())
            .map_err(|err| {
                format!(
                    "examples --copy {}: {err} (name a folder to write them into)",
                    dir.display()
                )
            })?;
        out.push_str(&format!("{}: {written} written", target.display()));
        if kept > 0 {
            out.push_str(&format!(", {kept} already there (left as they are)"));
        }
        let shown = match dir.display().to_string() {
            d if d.contains(|c: char| c.is_whitespace() || c == '\'') => {
                format!("'{}'", d.replace('\'', "'\\''"))
            }
            d => d,
        };
        out.push_str(&format!("\n    try: {}\n", e.try_it.replace("DIR", &shown)));
    }
    Ok(out)
}
