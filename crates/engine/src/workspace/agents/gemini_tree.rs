//! Gemini CLI's folder tree in its session context, drawn as it draws it
//! (its `getFolderStructure`): the folder read breadth first, each folder's
//! files then its subfolders, up to 200 items in all; `node_modules`,
//! `.git`, `dist` and `__pycache__` shown as `NAME/...`, not opened; links
//! left out; names sorted as Node's `localeCompare` sorts them ([`collate`]);
//! what its ignore files ignore left out, or, for a folder, shown as
//! `NAME/...` ([`super::gitignore`]). Names only: nothing in it is read but
//! those ignore files.

use std::cmp::Ordering;

use super::gitignore::{self, Rule};
use crate::workspace::reader::Reader;

/// What Gemini CLI adds to the line above the tree when anything in it is
/// cut or not opened.
pub const CUT_NOTE: &str = " Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (200 items) was reached.";

/// Items of the tree at most (Gemini CLI's limit).
const MAX_ITEMS: usize = 200;
/// Folders Gemini CLI shows but does not open.
const NOT_OPENED: [&str; 4] = ["node_modules", ".git", "dist", "__pycache__"];
/// Folders read at most (a bound on a tree of empty folders).
const MAX_FOLDERS: usize = 10_000;

/// A folder as read: its files and subfolders, and what was left out.
#[derive(Default)]
struct Folder {
    name: String,
    /// Where it is (its parent's index), none for the root.
    parent: Option<usize>,
    /// Its own `.gitignore`'s patterns (in a git repository).
    rules: Vec<Rule>,
    files: Vec<String>,
    subfolders: Vec<usize>,
    ignored: bool,
    more_files: bool,
    more_subfolders: bool,
}

/// The ignore files' patterns that apply everywhere: in a git repository
/// `.git` and `.git/info/exclude`'s (before the folders' `.gitignore`),
/// and `.geminiignore`'s (after them).
struct Ignores {
    git: bool,
    before: Vec<Rule>,
    after: Vec<Rule>,
}

impl Ignores {
    /// Those of the folder `start` it runs in (`""`: the root), as Gemini
    /// CLI takes them with that folder as its project's root: the ignore
    /// files of the folders above it are not read.
    fn of(r: &mut Reader, start: &str) -> Ignores {
        let git = r.in_git_repository(start);
        let mut before = Vec::new();
        if git {
            before = gitignore::dot_git();
            before.extend(read_rules(r, &under(start, ".git/info/exclude"), ""));
        }
        let after = read_rules(r, &under(start, ".geminiignore"), "");
        Ignores { git, before, after }
    }

    /// Whether an item of folder `i` (`path`, relative to the root, a
    /// folder's with a final `/`) is ignored.
    fn ignore(&self, folders: &[Folder], i: usize, path: &str) -> bool {
        let mut chain = Vec::new();
        let mut at = Some(i);
        while let Some(k) = at {
            chain.push(&folders[k].rules);
            at = folders[k].parent;
        }
        let rules = self
            .before
            .iter()
            .chain(chain.into_iter().rev().flatten())
            .chain(self.after.iter());
        gitignore::ignored(rules, path)
    }
}

/// An ignore file's patterns, none when it is not there or unreadable.
fn read_rules(r: &mut Reader, rel: &str, base: &str) -> Vec<Rule> {
    if !r.exists(rel) {
        return Vec::new();
    }
    r.read(rel)
        .map(|t| gitignore::parse(&t, base))
        .unwrap_or_default()
}

/// The tree (`ROOT/` then its items), and whether anything in it is cut
/// or not opened (Gemini CLI then says so in the line above the tree).
/// `start`: the folder of the workspace it runs in (`""`: the root), the
/// tree's top; `root`: its path as the agent writes it.
pub fn directory_tree(r: &mut Reader, root: &str, start: &str) -> (String, bool) {
    let folders = read(r, start);
    let mut lines = vec![format!("{}/", root.trim_end_matches('/'))];
    draw(&folders, 0, ("", true, true), &mut lines);
    let cut = folders
        .iter()
        .any(|f| f.ignored || f.more_files || f.more_subfolders);
    (lines.join("\n"), cut)
}

/// `rel` of the folder `start` as a path of the workspace.
fn under(start: &str, rel: &str) -> String {
    match (start.is_empty(), rel.is_empty()) {
        (true, _) => rel.to_string(),
        (false, true) => start.to_string(),
        (false, false) => format!("{start}/{rel}"),
    }
}

/// The folders breadth first from the root (index 0), as Gemini CLI reads
/// them: items counted in the order met, a folder met once the count is
/// reached left unread.
fn read(r: &mut Reader, start: &str) -> Vec<Folder> {
    let ignores = Ignores::of(r, start);
    let mut folders = vec![Folder::default()];
    let mut paths = vec![String::new()];
    let mut count = 0;
    let mut next = 0;
    while next < folders.len() && next < MAX_FOLDERS {
        let i = next;
        next += 1;
        if folders[i].ignored || count >= MAX_ITEMS {
            continue;
        }
        let dir = paths[i].clone();
        let at = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        if ignores.git {
            folders[i].rules = read_rules(r, &under(start, &at(".gitignore")), &dir);
        }
        let listed = under(start, &dir);
        let mut entries = r.list_for_tree(if listed.is_empty() { "." } else { &listed });
        entries.sort_by(|a, b| collate(&a.0, &b.0));
        for (name, _) in entries.iter().filter(|(_, d)| !*d) {
            if count >= MAX_ITEMS {
                folders[i].more_files = true;
                break;
            }
            if ignores.ignore(&folders, i, &at(name)) {
                continue;
            }
            folders[i].files.push(name.clone());
            count += 1;
        }
        for (name, _) in entries.iter().filter(|(_, d)| *d) {
            if count >= MAX_ITEMS {
                folders[i].more_subfolders = true;
                break;
            }
            count += 1;
            let ignored = NOT_OPENED.contains(&name.as_str())
                || ignores.ignore(&folders, i, &format!("{}/", at(name)));
            folders.push(Folder {
                name: name.clone(),
                parent: Some(i),
                ignored,
                ..Folder::default()
            });
            paths.push(at(name));
            let child = folders.len() - 1;
            folders[i].subfolders.push(child);
        }
    }
    folders
}

/// Draws folder `i` at `indent` (`last`: the last of its siblings; `root`:
/// the tree's top, which has no line of its own).
fn draw(
    folders: &[Folder],
    i: usize,
    (indent, last, root): (&str, bool, bool),
    lines: &mut Vec<String>,
) {
    let f = &folders[i];
    if !root {
        let branch = if last { "└───" } else { "├───" };
        let more = if f.ignored { "..." } else { "" };
        lines.push(format!("{indent}{branch}{}/{more}", f.name));
    }
    let inner = if root {
        String::new()
    } else {
        format!("{indent}{}", if last { "    " } else { "│   " })
    };
    let no_folders_after = f.subfolders.is_empty() && !f.more_subfolders;
    for (k, name) in f.files.iter().enumerate() {
        // As Gemini CLI draws it: the last file ends its branch even when
        // a `...` for more files follows.
        let end = k + 1 == f.files.len() && no_folders_after;
        lines.push(format!(
            "{inner}{}{name}",
            if end { "└───" } else { "├───" }
        ));
    }
    if f.more_files {
        lines.push(format!(
            "{inner}{}...",
            if no_folders_after {
                "└───"
            } else {
                "├───"
            }
        ));
    }
    for (k, &c) in f.subfolders.iter().enumerate() {
        let end = k + 1 == f.subfolders.len() && !f.more_subfolders;
        draw(folders, c, (&inner, end, false), lines);
    }
    if f.more_subfolders {
        lines.push(format!("{inner}└───..."));
    }
}

/// Two names in the order Node's `localeCompare` gives them (ICU's root
/// collation, as Gemini CLI sorts a folder): white space, then punctuation
/// and symbols in ICU's order, digits (one by one, not as numbers), then
/// letters, accents and case set aside; then accents (none first), then
/// case (lower first); then the characters themselves.
pub fn collate(a: &str, b: &str) -> Ordering {
    let keys = |s: &str| s.chars().flat_map(expanded).collect::<Vec<_>>();
    let (ka, kb) = (keys(a), keys(b));
    let level = |n: usize| {
        let pa = ka.iter().map(|k| k[n]);
        let pb = kb.iter().map(|k| k[n]);
        pa.cmp(pb)
    };
    level(0)
        .then_with(|| level(1))
        .then_with(|| level(2))
        .then_with(|| a.cmp(b))
}

/// A character's weights, a letter ICU sorts as two (`ß` as `ss`, `æ` as
/// `ae`, `œ` as `oe`) as theirs, apart at the tertiary level.
fn expanded(c: char) -> Vec<[u32; 3]> {
    let two = match c {
        'ß' => "ss",
        'æ' => "ae",
        'Æ' => "AE",
        'œ' => "oe",
        'Œ' => "OE",
        _ => return vec![weights(c)],
    };
    two.chars()
        .map(|x| {
            let [p, s, t] = weights(x);
            [p, s, t + 2]
        })
        .collect()
}

/// ICU's order of ASCII punctuation and symbols.
const PUNCTUATION: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// A character's weights: primary (its class and base), secondary (an
/// accent), tertiary (upper case).
fn weights(c: char) -> [u32; 3] {
    if c.is_whitespace() {
        return [0x100 + c as u32, 0, 0];
    }
    if let Some(i) = PUNCTUATION.find(c) {
        return [0x1000 + i as u32, 0, 0];
    }
    if let Some(d) = c.to_digit(10) {
        return [0x3000 + d, 0, 0];
    }
    if c.is_alphabetic() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        let (base, accent) = unaccented(lower);
        return [
            0x4000 + base as u32,
            accent,
            u32::from(!c.is_lowercase() && c.is_uppercase()),
        ];
    }
    // Other symbols: after ASCII's, before digits, by code point.
    [0x2000 + (c as u32).min(0xFFF), 0, 0]
}

/// A Latin letter without its accent, and which accent (0: none).
fn unaccented(c: char) -> (char, u32) {
    const FOLDS: [(&str, char); 7] = [
        ("àáâãäåā", 'a'),
        ("çćč", 'c'),
        ("èéêëēė", 'e'),
        ("ìíîïī", 'i'),
        ("ñń", 'n'),
        ("òóôõöøō", 'o'),
        ("ùúûüū", 'u'),
    ];
    for (set, base) in FOLDS {
        if let Some(i) = set.chars().position(|x| x == c) {
            return (base, i as u32 + 1);
        }
    }
    (c, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names sorted as Node 20's `"a".localeCompare("b")` sorted them
    /// (recorded with node v20.20.2, ICU, locale en-US).
    #[test]
    fn names_sort_as_node_sorts_them() {
        let sorted = [
            "_",
            "_private",
            "-dash",
            ".env",
            ".gitignore",
            "(paren)",
            "[br]",
            "@scope",
            "#hash",
            "~tilde",
            "$dollar",
            "10file",
            "1file",
            "2file",
            "ä",
            "a b",
            "a_b",
            "a-b",
            "a.b",
            "a+b",
            "a1",
            "a10",
            "a2",
            "ab",
            "alpha",
            "Alpha",
            "b",
            "B",
            "CHANGELOG.md",
            "Dockerfile",
            "docs",
            "eclair",
            "éclair",
            "Ezra",
            "file_a.ts",
            "file-a.ts",
            "file.test.ts",
            "file.ts",
            "fileA.ts",
            "node_modules",
            "package.json",
            "README.md",
            "src",
            "tsconfig.json",
            "z",
            "Zeta",
        ];
        let mut names = sorted.to_vec();
        names.reverse();
        names.sort_by(|a, b| collate(a, b));
        assert_eq!(names, sorted);
    }

    fn tree(files: &[&str], dirs: &[&str]) -> (String, bool) {
        let dir = tempfile::tempdir().unwrap();
        for d in dirs {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        for f in files {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let mut r = Reader::new(dir.path()).unwrap();
        directory_tree(&mut r, "/p", "")
    }

    /// Breadth first: the root's items and its folders' count before any
    /// folder's own; once the 200 items are reached, the rest of a
    /// folder's files and folders are each one `...`.
    #[test]
    fn the_tree_is_read_breadth_first_within_two_hundred_items() {
        let mut files: Vec<String> = vec!["top.txt".into()];
        for d in ["a", "b"] {
            files.extend((0..150).map(|i| format!("{d}/f{i:03}.txt")));
        }
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let (text, cut) = tree(&files, &["a", "b/c"]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(cut);
        assert_eq!(
            lines[..4],
            ["/p/", "├───top.txt", "├───a/", "│   ├───f000.txt"]
        );
        // top.txt, a/, b/, a's 150 files and 47 of b's: 200.
        assert_eq!(lines[3 + 149], "│   └───f149.txt");
        assert_eq!(lines[3 + 150], "└───b/");
        assert_eq!(lines[3 + 151], "    ├───f000.txt");
        assert_eq!(lines[3 + 151 + 46], "    ├───f046.txt");
        assert_eq!(lines[3 + 151 + 47..], ["    ├───...", "    └───..."]);
    }

    /// `.git`, `node_modules` and `dist` are shown, not opened; links are
    /// passed over; a tree with nothing cut says so (no `...` note).
    #[test]
    fn ignored_folders_show_and_links_do_not() {
        let (text, cut) = tree(&["README.md", "dist/x.js", ".git/HEAD"], &[".git", "dist"]);
        assert_eq!(text, "/p/\n├───README.md\n├───.git/...\n└───dist/...");
        assert!(cut);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("a.md", dir.path().join("link.md")).unwrap();
        let mut r = Reader::new(dir.path()).unwrap();
        assert_eq!(
            directory_tree(&mut r, "/p", ""),
            ("/p/\n└───a.md".into(), false)
        );
    }
}
