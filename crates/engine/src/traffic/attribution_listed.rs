//! A skill or subagent file the agent lists rather than sends: the
//! `description:` of its frontmatter is in the request (Claude Code's
//! skill listing, its Agent tool's list of subagents: `- name: the
//! description`), its body is not. Found by the description's text, not by
//! lines: the listing puts the name before it on the same line.

/// Shortest description looked for (a shorter one could be anything).
const MIN_DESCRIPTION_CHARS: usize = 16;
/// Most files looked for by their description; the search is linear in
/// the request's text for each.
pub const MAX_LISTED: usize = 1_000;
/// Bytes of the description looked for first (at a character's edge): the
/// match then goes on as far as the request goes on with the description
/// (an agent that cuts a long one keeps its start).
const PROBE_BYTES: usize = 40;
/// Lines of a frontmatter read for its description.
const MAX_FRONTMATTER_LINES: usize = 64;

/// A file's description: which file, its line (1-based), its text.
pub(super) struct Probe<'a> {
    pub file: usize,
    pub line: usize,
    pub text: &'a str,
}

/// Where a file's description was found in a part's text (bytes).
pub(super) struct Listing {
    pub file: usize,
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

/// The one-line `description:` of a Markdown file's frontmatter, quotes
/// off, and its line; none when it is shorter than
/// [`MIN_DESCRIPTION_CHARS`] or written as a block (`|`, `>`).
pub(super) fn description_of(text: &str) -> Option<(usize, &str)> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    for (i, line) in lines.take(MAX_FRONTMATTER_LINES).enumerate() {
        let line = line.trim_end();
        if line == "---" || line == "..." {
            return None;
        }
        let Some(v) = line.strip_prefix("description:") else {
            continue;
        };
        let v = v.trim();
        let v = [('"', '"'), ('\'', '\'')]
            .iter()
            .find_map(|(a, b)| v.strip_prefix(*a)?.strip_suffix(*b))
            .unwrap_or(v);
        let plain = !v.starts_with(['|', '>']);
        return (plain && v.chars().count() >= MIN_DESCRIPTION_CHARS).then_some((i + 2, v));
    }
    None
}

/// The descriptions of `files` (at most [`MAX_LISTED`]).
pub(super) fn probes(files: &[super::SourceFile]) -> Vec<Probe<'_>> {
    files
        .iter()
        .enumerate()
        .filter_map(|(file, f)| {
            let (line, text) = description_of(&f.text)?;
            Some(Probe { file, line, text })
        })
        .take(MAX_LISTED)
        .collect()
}

/// The longest prefix of `s` of at most `n` bytes, at a character's edge.
fn head(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Each description of `probes` found in `text` outside the `covered`
/// byte ranges (text already traced to a file's lines: a description
/// inside a file sent whole is that file's), its first place only.
pub(super) fn find(text: &str, probes: &[Probe], covered: &[(usize, usize)]) -> Vec<Listing> {
    let mut out = Vec::new();
    for p in probes {
        // As written, or escaped as an XML listing holds it (OpenClaw's
        // `<available_skills>`: `Sam's` as `Sam&apos;s`).
        let escaped = crate::text::xml_escape(p.text);
        let found = [p.text, escaped.as_str()]
            .into_iter()
            .find_map(|d| first_outside(text, d, covered));
        if let Some((start, end)) = found {
            out.push(Listing {
                file: p.file,
                line: p.line,
                start,
                end,
            });
        }
    }
    out.sort_by_key(|l| l.start);
    out
}

/// Where `description` first starts in `text` outside the `covered`
/// ranges, to as far as the text goes on with it.
fn first_outside(
    text: &str,
    description: &str,
    covered: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let inside = |at: usize| covered.iter().any(|&(s, e)| s <= at && at < e);
    let probe = head(description, PROBE_BYTES);
    let mut from = 0;
    while let Some(i) = text[from..].find(probe) {
        let start = from + i;
        if inside(start) {
            from = start + probe.len();
            continue;
        }
        let same = text[start..]
            .char_indices()
            .zip(description.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, c), _)| i + c.len_utf8());
        return Some((start, start + same));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_read_from_the_frontmatter_only() {
        let skill = "---\nname: notes\ndescription: \"Drafts the release notes from the changes.\"\n---\nBody.\n";
        assert_eq!(
            description_of(skill),
            Some((3, "Drafts the release notes from the changes."))
        );
        assert_eq!(
            description_of("---\nname: x\n---\ndescription: not the frontmatter's\n"),
            None
        );
        assert_eq!(description_of("---\ndescription: short\n---\n"), None);
        assert_eq!(
            description_of("---\ndescription: >\n  folded text here\n---\n"),
            None
        );
        assert_eq!(
            description_of("# No frontmatter\ndescription: a plain line of text\n"),
            None
        );
    }

    #[test]
    fn a_description_is_found_outside_the_traced_text_and_followed_as_far_as_it_goes() {
        let d = "Drafts the release notes from the changes since the last tag.";
        let probes = [Probe {
            file: 0,
            line: 3,
            text: d,
        }];
        let text = format!("- release-notes: {d}\n");
        let found = find(&text, &probes, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].start..found[0].end], d);
        // Escaped in an XML listing: found as escaped.
        let probes_x = [Probe {
            file: 0,
            line: 3,
            text: "Runs Sam's Friday weekly review of the open tasks.",
        }];
        let xml =
            "<description>Runs Sam&apos;s Friday weekly review of the open tasks.</description>";
        let found = find(xml, &probes_x, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            &xml[found[0].start..found[0].end],
            "Runs Sam&apos;s Friday weekly review of the open tasks."
        );
        // Already traced to a file's lines: not a listing.
        assert!(find(&text, &probes, &[(0, text.len())]).is_empty());
        // Cut by the agent: the start that was sent.
        let cut = "- release-notes: Drafts the release notes from the changes since…";
        let found = find(cut, &probes, &[]);
        assert_eq!(
            &cut[found[0].start..found[0].end],
            "Drafts the release notes from the changes since"
        );
    }
}
