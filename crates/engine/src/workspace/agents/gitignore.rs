//! Ignore rules as Gemini CLI applies them to its folder tree (its
//! `FileDiscoveryService`): in a git repository `.git`, `.git/info/exclude`
//! and the `.gitignore` of each folder from the one it runs in down to the
//! item's, each file's patterns made relative to its folder, then
//! `.geminiignore`'s; outside one `.geminiignore`'s alone. A pattern
//! matches as the `ignore` package it uses matches it (compiled by its
//! own steps, [`compile`]): `*`, `?`, `[…]` (never negated),
//! `**`, `!` to take an item back, a trailing `/` for folders only, a `/`
//! elsewhere to anchor it to its folder; the last pattern that matches
//! decides. Text only: the caller reads the files.

/// Patterns longer than this are left out (a bound on compiling).
const MAX_PATTERN: usize = 1024;
/// Patterns per file at most.
const MAX_PATTERNS: usize = 10_000;

/// One pattern, as the `ignore` package compiles it.
#[derive(Debug, Clone)]
pub struct Rule {
    negate: bool,
    regex: regex::Regex,
}

/// The patterns of an ignore file's text, one per line, as Gemini CLI
/// gives them to the `ignore` package: blank lines and `#` comments left
/// out, and, for a file in folder `base` (relative to the root; `""`: the
/// root's own, or patterns that apply there), each made relative to its
/// folder (one holding no `/` matches at any depth under it, any other
/// under it only; Gemini CLI counts a final `/` as one).
pub fn parse(text: &str, base: &str) -> Vec<Rule> {
    text.split(['\n', '\r'])
        .take(MAX_PATTERNS)
        .map(str::trim_start)
        .filter(|p| !p.is_empty() && !p.starts_with('#') && p.len() <= MAX_PATTERN)
        .filter_map(|p| compile(&relative(p, base.trim_matches('/'))))
        .collect()
}

/// Gemini CLI's own `.git`, always ignored in a repository.
pub fn dot_git() -> Vec<Rule> {
    parse(".git", "")
}

/// A pattern of the file in `base` made relative to the root (Gemini CLI's
/// `processPatterns`).
fn relative(p: &str, base: &str) -> String {
    let (negate, p) = match p.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    let (anchored, p) = match p.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    if p.is_empty() {
        return String::new();
    }
    let mut out = p.to_string();
    if !base.is_empty() {
        if !anchored && !p.contains('/') {
            out = format!("**/{out}");
        }
        out = format!("/{base}/{out}");
    } else if anchored {
        out = format!("/{out}");
    }
    if negate {
        out.insert(0, '!');
    }
    out
}

/// A replacement by `pattern` (first match only unless `all`), the match's
/// groups (all of them, `""` when unmatched) and offset given to `with`.
fn replace(
    text: &str,
    pattern: &str,
    all: bool,
    with: impl Fn(&[&str], usize, &str) -> String,
) -> String {
    let Ok(re) = fancy_regex::Regex::new(pattern) else {
        return text.to_string();
    };
    let f = |c: &fancy_regex::Captures<str>| {
        let groups: Vec<&str> = (0..c.len())
            .map(|i| c.get(i).map_or("", |m| m.as_str()))
            .collect();
        let at = c.get(0).map_or(0, |m| m.start());
        with(&groups, at, text)
    };
    if all {
        re.replace_all(text, f).into_owned()
    } else {
        re.replace(text, f).into_owned()
    }
}

/// A pattern compiled as the `ignore` package compiles it (its replacers
/// in its order, case ignored), none for a pattern it skips.
fn compile(pattern: &str) -> Option<Rule> {
    let blank = pattern.chars().all(char::is_whitespace);
    let bad_end = pattern.ends_with('\\') && !pattern.ends_with("\\\\");
    if pattern.is_empty() || blank || bad_end || pattern.starts_with('#') {
        return None;
    }
    let (negate, body) = match pattern.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let body = match body {
        b if b.starts_with("\\!") || b.starts_with("\\#") => &b[1..],
        b => b,
    };
    let mut r = regex_prefix(body);
    r = replace(&r, r"(^|\\/)?\\\*$", false, |g, _, _| {
        let prefix = if g[1].is_empty() {
            "[^/]*".to_string()
        } else {
            format!("{}[^/]+", g[1])
        };
        format!("{prefix}(?=$|\\/$)")
    });
    // The lookahead only ever ends it: matching `$` or a last `/` there
    // is the same test, in a regex that cannot blow up.
    let r = r.replace("(?=$|\\/$)", "(?:$|/$)");
    // An empty class (`[]`) matches nothing.
    let r = r.replace("[]", "[^\\s\\S]");
    let regex = regex::RegexBuilder::new(&r)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .ok()?;
    Some(Rule { negate, regex })
}

/// The `ignore` package's replacers, in its order: the regular
/// expression of a pattern's body before its trailing `*` is settled.
fn regex_prefix(body: &str) -> String {
    // A `/` before its end anchors it to the root.
    let has_inner_slash = body
        .char_indices()
        .any(|(i, c)| c == '/' && i + 1 < body.len());
    let mut r = body.trim_start_matches('\u{feff}').to_string();
    r = replace(&r, r"((?:\\\\)*?)(\\?\s+)$", false, |g, _, _| {
        format!("{}{}", g[1], if g[2].starts_with('\\') { " " } else { "" })
    });
    r = replace(&r, r"(\\+?)\s", true, |g, _, _| {
        let n = g[1].len();
        format!("{} ", &g[1][..n - n % 2])
    });
    r = replace(&r, r"[\\$.|*+(){^]", true, |g, _, _| format!("\\{}", g[0]));
    r = replace(&r, r"(?!\\)\?", true, |_, _, _| "[^/]".into());
    r = replace(&r, r"^/", false, |_, _, _| "^".into());
    r = replace(&r, r"/", true, |_, _, _| "\\/".into());
    r = replace(&r, r"^\^*\\\*\\\*\\/", false, |_, _, _| {
        "^(?:.*\\/)?".into()
    });
    r = replace(&r, r"^(?=[^^])", false, |_, _, _| {
        if has_inner_slash { "^" } else { "(?:^|\\/)" }.into()
    });
    r = replace(&r, r"\\/\\\*\\\*(?=\\/|$)", true, |_, at, s| {
        if at + 6 < s.len() {
            "(?:\\/[^\\/]+)*"
        } else {
            "\\/.+"
        }
        .into()
    });
    r = replace(&r, r"(^|[^\\]+)(\\\*)+(?=.+)", true, |g, _, _| {
        format!("{}{}", g[1], g[2].replace("\\*", "[^\\/]*"))
    });
    r = replace(&r, r"\\\\\\(?=[$.|*+(){^])", true, |_, _, _| "\\".into());
    r = replace(&r, r"\\\\", true, |_, _, _| "\\".into());
    r = replace(&r, r"(\\)?\[([^\]/]*?)(\\*)($|\])", true, |g, _, _| {
        if g[1] == "\\" {
            let n = g[3].len();
            format!("\\[{}{}{}", g[2], &g[3][..n - n % 2], g[4])
        } else if g[4] == "]" && g[3].len() % 2 == 0 {
            format!("[{}{}]", sanitize_range(g[2]), g[3])
        } else {
            "[]".into()
        }
    });
    r = replace(&r, r"(?:[^*])$", false, |g, _, _| {
        if g[0].ends_with('/') {
            format!("{}$", g[0])
        } else {
            format!("{}(?=$|\\/$)", g[0])
        }
    });
    r
}

/// A class's ranges without those whose ends are backwards.
fn sanitize_range(range: &str) -> String {
    replace(range, r"([0-z])-([0-z])", true, |g, _, _| {
        if g[1] <= g[2] {
            g[0].to_string()
        } else {
            String::new()
        }
    })
}

/// Whether `path` (relative to the root; a folder's with a final `/`) is
/// ignored, as the `ignore` package decides: a folder it is in that is
/// ignored ignores it; else the last pattern that matches it decides.
/// `rules` in the order they apply.
pub fn ignored<'a>(rules: impl Iterator<Item = &'a Rule> + Clone, path: &str) -> bool {
    let decide = |p: &str| {
        rules
            .clone()
            .filter(|r| r.regex.is_match(p))
            .last()
            .is_some_and(|r| !r.negate)
    };
    let mut at = 0;
    let trimmed = path.trim_end_matches('/');
    while let Some(k) = trimmed[at..].find('/') {
        if decide(&path[..at + k + 1]) {
            return true;
        }
        at += k + 1;
    }
    decide(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `path` a folder's when it ends in `/`.
    fn ig(text: &str, path: &str) -> bool {
        let rules = parse(text, "");
        ignored(rules.iter(), path)
    }

    #[test]
    fn patterns_match_as_the_ignore_package_matches_them() {
        assert!(ig("target", "target/"));
        assert!(ig("target", "a/b/target/"));
        assert!(ig("target/", "a/target/"));
        assert!(!ig("target/", "a/target"));
        assert!(ig("/build", "build/"));
        assert!(!ig("/build", "src/build/"));
        assert!(ig("*.log", "logs/x.log"));
        assert!(!ig("*.log", "x.logs"));
        assert!(ig("doc/*.txt", "doc/a.txt"));
        assert!(!ig("doc/*.txt", "doc/sub/a.txt"));
        assert!(ig("doc/**/*.txt", "doc/sub/deep/a.txt"));
        assert!(ig("doc/**/*.txt", "doc/a.txt"));
        assert!(ig("**/cache", "x/y/cache/"));
        assert!(ig("out/**", "out/a/b"));
        assert!(!ig("out/**", "out/"));
        assert!(ig("lib/**/", "lib/"), "as Gemini CLI's tree has it");
        assert!(ig("file?.md", "file1.md"));
        assert!(ig("[a-c]x", "bx"));
        assert!(ig("[^a-c]x", "bx"), "`^` is one of the class");
        assert!(!ig("[^a-c]x", "dx"));
        assert!(!ig("[!a-c]x", "dx"), "`!` is one of the class");
        assert!(ig("\\#hash", "#hash"));
        assert!(!ig("# comment", "# comment"));
        assert!(ig("trail  ", "trail"));
        assert!(ig("BUILD", "build"), "case is ignored");
    }

    #[test]
    fn the_last_match_decides_and_an_ignored_folder_keeps_its_items() {
        assert!(!ig("*.md\n!keep.md", "keep.md"));
        assert!(ig("*.md\n!keep.md", "other.md"));
        assert!(ig("logs/\n!logs/keep.md", "logs/keep.md"));
    }

    #[test]
    fn a_nested_files_patterns_are_its_folders() {
        let rules = parse("*.tmp\n/local\nsub/x", "pkg");
        let ig = |p: &str| ignored(rules.iter(), p);
        assert!(ig("pkg/a.tmp"));
        assert!(ig("pkg/deep/a.tmp"));
        assert!(!ig("a.tmp"));
        assert!(ig("pkg/local/"));
        assert!(!ig("pkg/deep/local/"));
        assert!(ig("pkg/sub/x"));
        // Gemini CLI's own reading: `build/` in pkg/.gitignore is pkg/build.
        let rules = parse("build/", "pkg");
        assert!(ignored(rules.iter(), "pkg/build/"));
        assert!(!ignored(rules.iter(), "pkg/deep/build/"));
    }

    #[test]
    fn stars_do_not_blow_up() {
        let p = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/**/**/x";
        assert!(!ig(p, &"a/".repeat(1000)));
    }
}
