//! Text from outside (a server, a capture, a transcript) made safe to
//! show: the one cleaner every view and the network layer use.

/// Text from outside made safe to show: ANSI escape sequences and control
/// characters removed, line breaks folded into spaces, cut to `max` chars.
pub fn clean(text: &str, max: usize) -> String {
    // Most texts (a role, a model, a tool's name) have nothing to clean.
    let b = text.as_bytes();
    if b.len() <= max
        && b.iter().all(|c| (b' '..=b'~').contains(c))
        && b.first() != Some(&b' ')
        && b.last() != Some(&b' ')
        && memchr::memmem::find(b, b"  ").is_none()
    {
        return text.to_string();
    }
    clean_chars(text, max)
}

/// [`clean`], a character at a time.
fn clean_chars(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut n = 0;
    let mut last_space = false;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI `ESC [ … final` or OSC `ESC ] … BEL/ST`, or a 2-char escape.
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    for d in chars.by_ref() {
                        if ('@'..='~').contains(&d) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(d) = chars.next() {
                        if d == '\u{7}' || (d == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            }
            continue;
        }
        let c = if matches!(c, '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}') {
            ' '
        } else if c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            continue;
        } else {
            c
        };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if n == max {
            out.push('…');
            break;
        }
        out.push(c);
        n += 1;
    }
    out.trim().to_string()
}

/// `text` with every character that could drive a terminal shown instead:
/// C0 controls (but tab and line breaks) as their control pictures (ESC is
/// `␛`), DEL as `␡`, C1 controls and bidirectional overrides as `�`.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\t' | '\n' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => out.push(c),
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
            '\u{7f}' => out.push('\u{2421}'),
            '\u{80}'..='\u{9f}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => out.push('\u{FFFD}'),
            _ => out.push(c),
        }
    }
    out
}

/// `1 request`, `2 requests`, `1,200 tokens`: a count and its word.
pub fn plural(n: impl Count, word: &str) -> String {
    let n = n.count();
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// A count of things (lines, files, requests, tokens), whichever unsigned
/// type holds it: what the words for figures take, so that no caller
/// converts.
pub trait Count: Copy {
    fn count(self) -> u64;
}

impl Count for u64 {
    fn count(self) -> u64 {
        self
    }
}

impl Count for u32 {
    fn count(self) -> u64 {
        u64::from(self)
    }
}

impl Count for usize {
    fn count(self) -> u64 {
        // usize is at most 64 bits on every target this builds for.
        u64::try_from(self).unwrap_or(u64::MAX)
    }
}

/// Text from outside (a server's error, a model's name, a file's text) made
/// plain for Markdown, in a table's cell or anywhere: control characters
/// out, line breaks as spaces, and every character that would make it a
/// cell border, HTML, a link or code escaped (`\|`, `\<`, `\[`…).
pub fn md_cell(s: &str) -> String {
    let s = clean(s, 400);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '|' | '<' | '>' | '&' | '[' | ']' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text from outside as the inside of a Markdown code span in a table's
/// cell (the caller adds the backticks): control characters out, a
/// backtick as `'`, `|` escaped (a table's border even in code).
pub fn md_code(s: &str) -> String {
    clean(s, 400).replace('`', "'").replace('|', "\\|")
}

/// A count with thousands separators: `1,979`.
/// `s` on one line (a line break as ` ⏎ `) of at most `n` characters, an
/// ellipsis where it is cut.
pub fn clip(s: &str, n: usize) -> String {
    let one_line = s.replace(['\n', '\r'], " ⏎ ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        one_line
            .chars()
            .take(n.saturating_sub(1))
            .collect::<String>()
            + "…"
    }
}

/// `head` and every name after it, comma-separated, the lines wrapped at
/// 100 characters under the first (no name cut off the line's end).
pub fn wrapped(head: &str, names: &[&str]) -> String {
    let mut o = head.to_string();
    let mut width = head.chars().count();
    for (i, n) in names.iter().enumerate() {
        let comma = if i + 1 < names.len() { "," } else { "" };
        let word = format!(" {}{comma}", clip(n, 60));
        if width + word.chars().count() > 100 {
            o += "\n   ";
            width = 3;
        }
        width += word.chars().count();
        o += &word;
    }
    o + "\n"
}

/// `s` with XML's five special characters as entities (as an agent's XML
/// listing holds a description).
pub fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A change with its sign and separators: `+9,735`, `-12`, `+0`.
pub fn signed(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "+" };
    format!("{sign}{}", thousands(n.unsigned_abs()))
}

/// Ranges of a file's lines in words: `line 5`, `lines 1-3, 5`, `no line`.
pub fn lines(r: &[(usize, usize)]) -> String {
    let list = r
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    match r {
        [] => "no line".into(),
        [(a, b)] if a == b => format!("line {a}"),
        _ => format!("lines {list}"),
    }
}

pub fn thousands(n: impl Count) -> String {
    let s = n.count().to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `42s`, `7m25s`, `2h05m`, `3d04h`: a gap as every view writes it, in
/// its two largest units (a gap of two days is not read in seconds).
pub fn duration(secs: u64) -> String {
    const MIN: u64 = 60;
    const HOUR: u64 = 60 * MIN;
    const DAY: u64 = 24 * HOUR;
    if secs >= DAY {
        format!("{}d{:02}h", secs / DAY, secs % DAY / HOUR)
    } else if secs >= HOUR {
        format!("{}h{:02}m", secs / HOUR, secs % HOUR / MIN)
    } else if secs >= MIN {
        format!("{}m{:02}s", secs / MIN, secs % MIN)
    } else {
        format!("{secs}s")
    }
}

/// A gap between two requests, measured in fractional seconds: `350ms`
/// and `2.4s` under ten seconds (two requests a fraction of a second
/// apart are not "0s" apart), then as [`duration`] writes it.
pub fn elapsed(secs: f64) -> String {
    let s = secs.max(0.0);
    let ms = (s * 1000.0).round() as u64;
    if ms < 1000 {
        format!("{ms}ms")
    } else if s < 9.95 {
        format!("{s:.1}s")
    } else {
        duration(s.round() as u64)
    }
}

/// A text bar of `width` cells for `used` of `of`.
pub fn bar(used: u64, of: u64, width: usize) -> String {
    let filled = if of == 0 {
        if used > 0 { width } else { 0 }
    } else {
        ((used as f64 / of as f64) * width as f64)
            .round()
            .min(width as f64) as usize
    };
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// UTF-16 length, as the JavaScript agents count characters.
pub fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The longest prefix of `s` of at most `units` UTF-16 units.
pub fn js_prefix(s: &str, units: usize) -> &str {
    let mut n = 0;
    for (i, c) in s.char_indices() {
        n += c.len_utf16();
        if n > units {
            return &s[..i];
        }
    }
    s
}

/// The longest suffix of `s` of at most `units` UTF-16 units.
pub fn js_suffix(s: &str, units: usize) -> &str {
    let mut n = 0;
    for (i, c) in s.char_indices().rev() {
        n += c.len_utf16();
        if n > units {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// The Levenshtein distance of two texts, by character (a typo's
/// nearest name: a model, a command).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Thursday, December 3, 2026` for `2026-12-03` (the English long form,
/// as Gemini CLI writes today's date); none for anything else.
pub fn long_date(iso: &str) -> Option<String> {
    let (y, m, d, days) = civil(iso)?;
    const WEEKDAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    Some(format!(
        "{}, {} {d}, {y}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize]
    ))
}

/// `2026-12-03` as JavaScript's `Date.toDateString()` writes it: `Thu Dec
/// 03 2026` (OpenCode's date).
pub fn js_date(iso: &str) -> Option<String> {
    // `Thursday, December 3, 2026`: its weekday's and month's first three
    // letters (ASCII).
    let long = long_date(iso)?;
    let (y, _, d, _) = civil(iso)?;
    let month = long.split(' ').nth(1)?;
    Some(format!("{} {} {d:02} {y}", &long[..3], &month[..3]))
}

/// Year, month, day and days since 1970-01-01 (a Thursday) of an ISO date.
fn civil(iso: &str) -> Option<(i64, i64, i64, i64)> {
    let b = iso.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !iso.is_ascii() {
        return None;
    }
    let y: i64 = iso[..4].parse().ok()?;
    let m: i64 = iso[5..7].parse().ok()?;
    let d: i64 = iso[8..].parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some((y, m, d, days_from_civil(y, m, d)))
}

/// Most bytes one expansion of a profile string may produce.
pub const MAX_EXPANSION_BYTES: usize = 64 * 1024;

/// `template` with its `{name}` placeholders replaced, at most `max` bytes
/// (cut at a character boundary); `true` when it was cut. The work done is
/// bounded by the template and `max`, whatever the values.
pub fn expand_capped(template: &str, vars: &[(&str, &str)], max: usize) -> (String, bool) {
    let mut out = String::with_capacity(template.len().min(max));
    let push = |out: &mut String, s: &str| -> bool {
        let room = max - out.len();
        if s.len() <= room {
            out.push_str(s);
            return true;
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(&s[..end]);
        false
    };
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        if !push(&mut out, &rest[..i]) {
            return (out, true);
        }
        let after = &rest[i + 1..];
        let hit = vars
            .iter()
            .find(|(k, _)| after.starts_with(k) && after[k.len()..].starts_with('}'));
        let (piece, skip) = match hit {
            Some((k, v)) => (*v, k.len() + 2),
            None => ("{", 1),
        };
        if !push(&mut out, piece) {
            return (out, true);
        }
        rest = &rest[i + skip..];
    }
    let fits = push(&mut out, rest);
    (out, !fits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_wrapped_whole_and_a_long_value_clipped() {
        let names: Vec<String> = (0..40).map(|i| format!("tool_{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let o = wrapped("  40 tools:", &names);
        assert!(o.lines().all(|l| l.chars().count() <= 100), "{o}");
        assert!(o.lines().count() > 2, "{o}");
        // Every name, in order, none cut.
        let back: Vec<&str> = o["  40 tools:".len()..]
            .split([',', '\n', ' '])
            .filter(|w| !w.is_empty())
            .collect();
        assert_eq!(back, names);
        assert_eq!(clip("a\nb", 10), "a ⏎ b");
        assert_eq!(lines(&[(5, 5)]), "line 5");
        assert_eq!(lines(&[(1, 3), (5, 5)]), "lines 1-3, 5");
        assert_eq!(lines(&[]), "no line");
        assert_eq!(signed(9735), "+9,735");
        assert_eq!(signed(-12), "-12");
        assert_eq!(clip("abcdef", 4), "abc…");
    }

    #[test]
    fn a_text_with_nothing_to_clean_comes_back_as_cleaning_it_would_make_it() {
        // Every string of up to 4 characters over a small alphabet, at
        // three limits: the plain ones take the quick road.
        let alphabet = ['a', ' ', '~', '\t', 'é', '\u{1b}', '['];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let more: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(more);
        }
        texts.sort();
        texts.dedup();
        for t in &texts {
            for max in [0, 2, 3, 24] {
                assert_eq!(clean(t, max), clean_chars(t, max), "{t:?} at {max}");
            }
        }
        assert_eq!(clean("user", 24), "user");
        assert_eq!(clean("a  b", 24), "a b");
        assert_eq!(clean("abcd", 3), "abc…");
    }

    #[test]
    fn a_gap_is_written_in_its_two_largest_units() {
        assert_eq!(duration(0), "0s");
        assert_eq!(elapsed(0.35), "350ms");
        assert_eq!(elapsed(0.9996), "1.0s");
        assert_eq!(elapsed(9.96), "10s");
        assert_eq!(elapsed(2.44), "2.4s");
        assert_eq!(elapsed(-1.0), "0ms");
        assert_eq!(elapsed(445.4), "7m25s");
        assert_eq!(duration(59), "59s");
        assert_eq!(duration(445), "7m25s");
        assert_eq!(duration(3599), "59m59s");
        assert_eq!(duration(3600), "1h00m");
        assert_eq!(duration(7_500), "2h05m");
        // The gap the walkthrough saw as "3481m40s".
        assert_eq!(duration(208_900), "2d10h");
    }

    #[test]
    fn long_dates_name_the_weekday() {
        assert_eq!(
            long_date("2026-12-03").as_deref(),
            Some("Thursday, December 3, 2026")
        );
        assert_eq!(
            long_date("1970-01-01").as_deref(),
            Some("Thursday, January 1, 1970")
        );
        assert_eq!(
            long_date("2024-02-29").as_deref(),
            Some("Thursday, February 29, 2024")
        );
        assert_eq!(long_date("2026-13-01"), None);
        assert_eq!(long_date("yesterday"), None);
        // As JavaScript's Date.toDateString() writes them.
        assert_eq!(js_date("2026-12-03").as_deref(), Some("Thu Dec 03 2026"));
        assert_eq!(js_date("2025-05-10").as_deref(), Some("Sat May 10 2025"));
        assert_eq!(js_date("2026-1x-03"), None);
    }
}
