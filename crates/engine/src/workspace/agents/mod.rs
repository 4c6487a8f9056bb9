//! Real agents' folders, read the way those agents read them (profiles
//! `openclaw` and `claude-code`, see `assets/profiles/`). The result is the
//! same fragments and layers as any workspace, so every view, the budget,
//! the cache prediction and the diff apply unchanged:
//! layer 1 the skills (and subagents) listing, layer 2 the stable files
//! (cached), layer 4 the files below the cache boundary (not cached).

use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::{Caps, PolicyDigest, Profile, js_len, js_prefix, js_suffix};
use crate::workspace::reader::Reader;
use crate::workspace::settings::Settings;
use crate::workspace::sources::base;
use crate::workspace::types::{AgentWords, FragmentDef, FragmentKind, Preset};
use crate::workspace::yaml::split_frontmatter;

pub mod builtin;
mod claude_code;
mod claude_nested;
pub mod claude_settings;
mod codex;
mod cut;
mod expand;
mod extras;
mod gemini;
pub mod gemini_tree;
mod gitignore;
pub mod listing;
pub mod observed;
pub(crate) mod opencode;
pub(crate) mod pi;
pub mod runs;
pub(crate) use codex::on_the_way;
pub use extras::Extras;
pub use {claude_code::load_claude_code, codex::load_codex, gemini::load_gemini};
pub use {opencode::load_opencode, pi::load_pi};

use expand::Expander;
use listing::{listing_fragment, load_skill_listing};

/// A bootstrap file this kind of session does not get: listed, disabled,
/// saying so.
fn not_for_this_kind(
    f: &crate::workspace::profile::ProfileFile,
    kind: &str,
    sk: &crate::workspace::profile::SessionKind,
    r: &mut Reader,
    out: &mut Vec<FragmentDef>,
) {
    let note = sk
        .note
        .as_deref()
        .unwrap_or("not sent in a {kind} session")
        .replace("{kind}", kind)
        .replace("{name}", &f.name);
    not_sent(&f.name, 1000 - f.rank, note, r, out);
}

/// A file of the folder the agent does not send, when there: a row of its
/// own, disabled with why (its tokens, had it been sent).
fn not_sent(name: &str, priority: i64, why: String, r: &mut Reader, out: &mut Vec<FragmentDef>) {
    if !r.exists(name) {
        return;
    }
    let Some(text) = r.read(name) else { return };
    let id = name.trim_end_matches(".md").replace('/', ".");
    let mut frag = base(
        id.to_ascii_lowercase(),
        2,
        priority,
        text.trim_end().to_string(),
        name,
        1,
        FragmentKind::Markdown,
    );
    frag.interpolate = false;
    frag.preset = Some(Preset::Disabled(why));
    out.push(frag);
}

/// OpenClaw's startup-context limits (characters per file, in all).
const STARTUP_FILE_CHARS: usize = 1200;
const STARTUP_TOTAL_CHARS: usize = 2800;

/// Settings an agent profile implies: its separator, the titles of its
/// sections (`{root}` the folder), their footers and placement, the cache
/// boundary after the stable files.
pub fn settings(p: &Profile, root: &str, soul_present: bool) -> Settings {
    let mut s = Settings {
        separator: p.separator.clone(),
        ..Settings::default()
    };
    let with_root =
        |t: &str| expand::expand_capped(t, &[("root", root)], expand::MAX_EXPANSION_BYTES).0;
    let stable_title = p
        .stable
        .title
        .as_deref()
        .map(|t| match &p.stable.soul_hint {
            Some(h) if soul_present => format!("{}\n{h}", with_root(t)),
            _ => with_root(t),
        });
    if !p.one_stable_block {
        s.layers[0].title = p.skills.as_ref().and_then(|k| k.title.clone());
        s.layers[1].title = stable_title;
    }
    s.layers[3].title = p.dynamic.title.as_deref().map(with_root);
    for (i, section) in [(1, &p.stable), (3, &p.dynamic)] {
        s.layers[i].footer = section.footer.as_deref().map(with_root);
        s.layers[i].placement = section.placement;
        s.layers[i].name = section.name.clone();
    }
    for (i, cache) in [true, true, true, false].into_iter().enumerate() {
        s.layers[i].cache = cache;
    }
    if let Some(b) = p.parts.as_deref() {
        builtin_settings(b, &mut s);
    }
    s
}

/// What an agent's recorded parts imply: its listing as layer 1 (title,
/// footer, placement, one line per entry), its model, its breakpoint on
/// the latest message, the output and autocompact buffer it keeps free.
fn builtin_settings(b: &builtin::Builtin, s: &mut Settings) {
    if let Some(l) = b.listing.as_ref().filter(|l| l.agent_line.is_some()) {
        let l1 = &mut s.layers[0];
        l1.title = l.title.clone();
        l1.footer = l.footer.clone();
        l1.placement = l.placement;
        l1.separator = l.separator.clone();
        l1.name = Some("Subagents and skills".into());
    }
    if s.model.is_none() {
        s.model = b.model.clone();
    }
    s.history.message_breakpoint = b.message_breakpoint;
    s.cache_tools = b.cache_tools;
    s.history.reserved_output = b.reserved_output;
    s.history.autocompact_buffer = b.autocompact_buffer;
}

/// Strips a leading frontmatter block (the agents' templates carry one of
/// their own metadata, which the agent removes; it is never content).
pub(crate) fn strip_frontmatter(text: &str) -> &str {
    match split_frontmatter(text) {
        (Some(_), body, _) => body.trim_start(),
        _ => text,
    }
}

/// OpenClaw's per-file head/tail cut: `max` characters at most, with the
/// marker naming the file. Returns the text and (head, tail) kept.
fn cut_file(
    text: &str,
    name: &str,
    max: usize,
    caps: &Caps,
    ex: &mut Expander,
) -> (String, usize, usize) {
    let total = js_len(text);
    let head = (max as f64 * caps.head).floor() as usize;
    let tail = (max as f64 * caps.tail).floor() as usize;
    let h = js_prefix(text, head);
    let t = js_suffix(text, tail);
    let marker = ex.expand(
        "caps.marker",
        &caps.marker,
        &[
            ("name", name),
            ("head", &head.to_string()),
            ("tail", &tail.to_string()),
            ("total", &total.to_string()),
        ],
    );
    (format!("{h}\n{marker}\n{t}"), js_len(h), js_len(t))
}

/// A file's fragment as OpenClaw sends it: its heading, then what is kept
/// of its text (the heading alone for a file dropped); a file its caps cut
/// keeps its `whole` text under the same heading, what it would cost.
fn with_heading(frag: &mut FragmentDef, heading: String, (kept, whole): (&str, &str)) {
    if matches!(frag.preset, Some(Preset::Truncated(_))) {
        frag.uncut = Some(format!("{heading}\n{whole}"));
    }
    frag.body = if matches!(frag.preset, Some(Preset::Dropped(_))) {
        frag.agent_words = AgentWords::heading(heading.len());
        heading
    } else {
        frag.agent_words = AgentWords::heading(heading.len() + 1);
        format!("{heading}\n{kept}")
    };
}

/// What OpenClaw sends of one of its files: the file's text (its
/// frontmatter stripped unless the profile keeps it) and its length in
/// JavaScript characters, or its missing marker and 0; None when the file
/// cannot be read.
fn openclaw_text(
    p: &Profile,
    r: &mut Reader,
    (name, exists): (&str, bool),
    root: &str,
    ex: &mut Expander,
) -> Option<(String, usize)> {
    if exists {
        let raw = r.read(name)?;
        let strip = p.strip_frontmatter.unwrap_or(true);
        let body = if strip { strip_frontmatter(&raw) } else { &raw };
        let body = body.trim_end().to_string();
        let n = js_len(&body);
        Some((body, n))
    } else {
        let template = p.missing_marker.as_deref().unwrap_or("[MISSING] {path}");
        let path = format!("{root}/{name}");
        Some((ex.expand("missing_marker", template, &[("path", &path)]), 0))
    }
}

/// Loads OpenClaw's bootstrap files under its caps, its skills and the
/// daily memory files (read on demand, listed as such). With
/// `one_stable_block` (2026.9), the skills, the truncation notice, the
/// context's title with the intro lines of the files in it, and the files
/// are one stable block.
pub fn load_openclaw(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = r.root().display().to_string();
    let mut ex = Expander::new(p);
    let caps = p.caps.clone();
    let mut remaining = caps.as_ref().map_or(usize::MAX, |c| c.total_chars);
    let mut sent: Vec<&str> = Vec::new();
    let mut any_cut = false;
    let kind = extras
        .session_kind
        .as_deref()
        .and_then(|k| Some((k, p.session_kinds.get(k)?)));
    for f in &p.files {
        if let Some((k, sk)) = kind.filter(|(_, sk)| !sk.sends(&f.name)) {
            not_for_this_kind(f, k, sk, r, out);
            continue;
        }
        // MEMORY.md only with that exact case (a lowercase memory.md is not
        // injected): the listing is case-sensitive.
        let exists = r.exists(&f.name);
        if !exists && f.optional {
            continue;
        }
        let id = f.name.trim_end_matches(".md").to_ascii_lowercase();
        let layer = if f.dynamic { 4 } else { 2 };
        let Some((text, full_len)) = openclaw_text(p, r, (&f.name, exists), &root, &mut ex) else {
            continue;
        };
        let mut frag = base(
            id,
            layer,
            1000 - f.rank,
            String::new(),
            &f.name,
            1,
            FragmentKind::Markdown,
        );
        frag.interpolate = false;
        let kept = match &caps {
            None => text.clone(),
            Some(c) => {
                let mut file = FileCut {
                    name: &f.name,
                    exists,
                    own_max: f.max_chars,
                    digest: f.policy_digest.as_ref(),
                    diags,
                };
                let (kept, preset) = apply_caps(&text, &mut file, c, &mut remaining, &mut ex);
                frag.preset = preset;
                kept
            }
        };
        if exists {
            frag.chars = Some((full_len, js_len(&kept)));
        }
        any_cut |= matches!(frag.preset, Some(Preset::Truncated(_)));
        if !matches!(frag.preset, Some(Preset::Dropped(_))) {
            sent.push(f.name.as_str());
        }
        with_heading(&mut frag, ex.heading(&root, &f.name, ""), (&kept, &text));
        out.push(frag);
    }
    for f in &p.not_loaded {
        not_sent(&f.name, 0, f.note.clone(), r, out);
    }
    let skills_from = out.len();
    load_skill_listing(p, r, (extras.home.as_deref(), None), out, diags);
    if p.one_stable_block {
        one_stable_block(p, out, skills_from, &sent, any_cut);
    }
    list_daily_memory(p, r, &extras.startup_days, out, &mut ex);
    ex.finish(diags);
}

/// OpenClaw 2026.9's stable prefix as one block: the skills section (its
/// title, then the listing), the truncation notice when a file was cut,
/// the context's title with the intro lines of the files in it (in the
/// profile's order), the files.
fn one_stable_block(
    p: &Profile,
    out: &mut Vec<FragmentDef>,
    skills_from: usize,
    sent: &[&str],
    any_cut: bool,
) {
    let mut extra = Vec::new();
    for f in &mut out[skills_from..] {
        f.layer = 2;
        f.priority += 4000;
    }
    if out.len() > skills_from
        && let Some(t) = p.skills.as_ref().and_then(|k| k.title.as_deref())
    {
        extra.push(listing_fragment("skills.title", 5000, t, "skills"));
    }
    if any_cut && let Some(n) = &p.stable.notice {
        extra.push(listing_fragment("context.notice", 3000, n, "profile"));
    }
    if let Some(t) = &p.stable.title {
        let mut title = t.clone();
        for i in p
            .stable
            .intros
            .iter()
            .filter(|i| sent.contains(&i.file.as_str()))
        {
            title.push('\n');
            title.push_str(&i.line);
        }
        extra.push(listing_fragment("context.title", 2000, &title, "profile"));
    }
    for mut f in extra {
        f.layer = 2;
        out.push(f);
    }
}

/// One file going through the caps: its name, whether it exists, its own
/// cap, its digest rule; a digest rule's bad pattern is one diagnostic.
struct FileCut<'a> {
    name: &'a str,
    exists: bool,
    own_max: Option<usize>,
    digest: Option<&'a PolicyDigest>,
    diags: &'a mut Vec<Diagnostic>,
}

/// OpenClaw's budget loop for one file (in load order): the total left,
/// the per-file cap (the file's own when smaller), the cut (head/tail, or
/// head + policy digest + tail), the final clamp.
fn apply_caps(
    text: &str,
    file: &mut FileCut,
    c: &Caps,
    remaining: &mut usize,
    ex: &mut Expander,
) -> (String, Option<Preset>) {
    let name = file.name;
    let n = js_len(text);
    if *remaining < c.min_remaining_chars.max(1) {
        return (
            String::new(),
            Some(Preset::Dropped(format!(
                "{name}: the {} total cap (bootstrapTotalMaxChars) is spent: only {} chars were left, under the {}-char minimum",
                thousands(c.total_chars),
                thousands(*remaining),
                c.min_remaining_chars
            ))),
        );
    }
    let own = file
        .own_max
        .map_or(c.per_file_chars, |m| m.min(c.per_file_chars));
    let file_max = own.min(*remaining).max(1);
    let (mut kept, mut preset) = (text.to_string(), None);
    if file.exists && n > file_max {
        let cap = if file_max < own {
            format!("the {} chars left of the total cap", thousands(file_max))
        } else if own < c.per_file_chars {
            format!("{name}'s own {} cap", thousands(own))
        } else {
            format!(
                "the {} cap (bootstrapMaxChars)",
                thousands(c.per_file_chars)
            )
        };
        let done = cut_to(text, file, file_max, c, ex);
        let digest = done.digest.map_or(String::new(), |d| {
            format!(" + policy digest {}", thousands(d))
        });
        preset = Some(Preset::Truncated(format!(
            "{name}: {} chars over {cap}: kept head {}{digest} + tail {}",
            thousands(n - file_max),
            thousands(done.head),
            thousands(done.tail)
        )));
        kept = done.text;
    }
    if js_len(&kept) > *remaining {
        kept = if *remaining <= 3 {
            js_prefix(&kept, *remaining).to_string()
        } else {
            format!("{}…", js_prefix(&kept, remaining.saturating_sub(1)))
        };
        preset.get_or_insert(Preset::Truncated(format!(
            "{name}: clamped to the {} chars left of the total cap",
            thousands(*remaining)
        )));
    }
    *remaining = remaining.saturating_sub(js_len(&kept));
    (kept, preset)
}

/// `text` cut to `file_max` characters as the profile cuts it: head,
/// policy digest and tail when it has a digest (head and tail, said, when
/// the digest's patterns are refused), else head and tail with the marker
/// inside the cap or around it.
fn cut_to(
    text: &str,
    file: &mut FileCut,
    file_max: usize,
    c: &Caps,
    ex: &mut Expander,
) -> cut::Cut {
    let name = file.name;
    match file.digest.map(|d| (d, cut::Patterns::new(d))) {
        Some((d, Ok(pat))) => cut::cut_with_digest(text, name, file_max, d, &pat, ex),
        Some((_, Err(e))) => {
            file.diags.push(Diagnostic::warning(
                name,
                None,
                format!("the profile's {e}: cut head and tail instead"),
            ));
            cut::cut_in_cap(text, name, file_max, c, ex)
        }
        None if c.marker_in_cap => cut::cut_in_cap(text, name, file_max, c, ex),
        None => {
            let (t, h, tl) = cut_file(text, name, file_max, c, ex);
            cut::Cut {
                text: t,
                head: h,
                tail: tl,
                digest: None,
            }
        }
    }
}

fn thousands(n: usize) -> String {
    crate::text::thousands(n)
}

/// `memory/YYYY-MM-DD.md` files: not injected; listed with how the agent
/// reads them.
fn list_daily_memory(
    p: &Profile,
    r: &mut Reader,
    startup: &[String],
    out: &mut Vec<FragmentDef>,
    ex: &mut Expander,
) {
    let Some(m) = &p.memory else { return };
    let mut startup_left = STARTUP_TOTAL_CHARS;
    // The startup days in their order (today first, as OpenClaw loads
    // them and spends the total on them), then the other notes by name.
    let rank = |n: &str| {
        startup
            .iter()
            .position(|d| n.trim_end_matches(".md").starts_with(d.as_str()))
            .unwrap_or(usize::MAX)
    };
    let mut names: Vec<String> = r
        .list(&m.dir)
        .into_iter()
        .filter(|(n, is_dir)| !is_dir && n.ends_with(".md"))
        .map(|(n, _)| n)
        .collect();
    names.sort_by_key(|n| (rank(n), n.clone()));
    for name in names {
        let rel = format!("{}/{name}", m.dir);
        let Some(text) = r.read(&rel) else { continue };
        let mut f = base(
            format!("memory.{}", name.trim_end_matches(".md")),
            4,
            0,
            text.trim_end().to_string(),
            &rel,
            1,
            FragmentKind::Markdown,
        );
        f.interpolate = false;
        let day = name.trim_end_matches(".md");
        if startup.iter().any(|d| day.starts_with(d.as_str())) && startup_left > 0 {
            // OpenClaw's startup context on /new: today's and yesterday's
            // notes, capped, prepended to the first user message.
            let n = js_len(&f.body);
            let cap = STARTUP_FILE_CHARS.min(startup_left);
            let kept = if n > cap {
                format!("{}\n...[truncated]...", js_prefix(&f.body, cap))
            } else {
                f.body.clone()
            };
            startup_left = startup_left.saturating_sub(js_len(&kept).min(cap));
            f.chars = Some((n, js_len(&kept)));
            f.body = format!(
                "[Untrusted daily memory: {rel}]\nBEGIN_QUOTED_NOTES\n```text\n{}\n```\nEND_QUOTED_NOTES",
                kept.replace("```", "\\`\\`\\`")
            );
            f.priority = 10 + (startup.len() - rank(&name).min(startup.len())) as i64;
            if n > cap {
                f.preset = Some(Preset::Truncated(format!(
                    "startup context on /new: {rel} cut to {} chars (of {}); prepended to the first user message, not the system prompt",
                    crate::text::thousands(cap),
                    crate::text::thousands(n)
                )));
            }
            out.push(f);
            continue;
        }
        f.chars = Some((js_len(&f.body), 0));
        let note = m.note.as_deref().unwrap_or("read on demand, not injected");
        f.preset = Some(Preset::Disabled(ex.expand("memory.note", note, &[])));
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_at_exact_character_counts() {
        let caps = Caps {
            per_file_chars: 100,
            total_chars: 1000,
            min_remaining_chars: 64,
            head: 0.7,
            tail: 0.2,
            marker: "[cut {name}: {head}+{tail} of {total}]".into(),
            marker_in_cap: false,
            compact_marker: None,
            min_content_chars: 0,
        };
        let text: String = ('a'..='z').cycle().take(250).collect();
        let p = Profile::default();
        let mut ex = Expander::new(&p);
        let (cut, h, t) = cut_file(&text, "AGENTS.md", 100, &caps, &mut ex);
        assert_eq!((h, t), (70, 20));
        assert!(cut.starts_with(&text[..70]) && cut.ends_with(&text[230..]));
        assert!(cut.contains("[cut AGENTS.md: 70+20 of 250]"));
    }
}
