//! Redaction: every secret, and every fragment of one, out of a text
//! before it is shown, saved or recorded (matched case-insensitively and
//! through percent-encoding, rolled over the text without per-character
//! tables), and strings shaped like a provider's key out of what is
//! recorded whatever header carried it. Callers use it through the guard
//! module, which re-exports it; this module imports nothing of the crate.

use std::borrow::Cow;
use std::collections::HashSet;

/// No fragment of a secret this long (or longer) survives redaction.
pub const MIN_FRAGMENT: usize = 8;
/// What a redacted secret becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Replaces every occurrence of any secret in `text`, and every fragment of
/// one that is [`MIN_FRAGMENT`] characters or longer, by `[REDACTED]`:
/// matched case-insensitively and through percent-encoding, so a server that
/// echoes a key upper-cased, split in two or URL-encoded leaks none of it.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    Redactor::new(secrets).redact(text).into_owned()
}

/// The secrets of [`redact`] made ready once, for redacting many texts
/// (every string of a JSON value, a whole request body).
pub struct Redactor {
    chars: Vec<CharTable>,
    /// When every secret is ASCII without `%` (keys): their bytes' tables.
    bytes: Option<Vec<ByteTable>>,
}

impl Redactor {
    pub fn new(secrets: &[&str]) -> Self {
        let folded: Vec<Vec<char>> = secrets
            .iter()
            .map(|s| s.chars().map(fold).collect::<Vec<char>>())
            .filter(|s| !s.is_empty())
            .collect();
        let bytes = folded
            .iter()
            .flatten()
            .all(|&c| c.is_ascii() && c != '%')
            .then(|| {
                folded
                    .iter()
                    .map(|s| ByteTable::new(s.iter().map(|&c| c as u8).collect()))
                    .collect()
            });
        Redactor {
            chars: folded.into_iter().map(CharTable::new).collect(),
            bytes,
        }
    }

    /// `text` with every secret and fragment of one redacted; borrowed
    /// when there is none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.chars.is_empty() || text.is_empty() {
            return Cow::Borrowed(text);
        }
        // ASCII secrets without `%`: a window of the text that is one of
        // theirs is bytes of the text, but where a character is not its own
        // bytes: a `%XX` escape, or one of the two characters that fold to
        // ASCII. The bytes are matched everywhere; around each of those
        // places (further than any window reaches) the decoded characters
        // are.
        if let Some(tables) = &self.bytes {
            let mut spans = Vec::new();
            for t in tables {
                t.mark(text.as_bytes(), &mut spans);
            }
            let regions = decoded_regions(text);
            if !regions.is_empty() {
                // Regions are in order and apart: the one a span may lie
                // in is the last that starts at or before it.
                spans.retain(|&(s, e)| {
                    let i = regions.partition_point(|&(rs, _)| rs <= s);
                    i == 0 || e > regions[i - 1].1
                });
                for &(rs, re) in &regions {
                    let mut local = Vec::new();
                    for t in &self.chars {
                        t.mark(&text[rs..re], &mut local);
                    }
                    spans.extend(local.into_iter().map(|(s, e)| (s + rs, e + rs)));
                }
            }
            return replace_spans(text, spans);
        }
        // Decoded, case-folded characters of `text`, rolled through once
        // per secret without being stored: memory is the output and the
        // spans found.
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for t in &self.chars {
            t.mark(text, &mut spans);
        }
        replace_spans(text, spans)
    }
}

/// Raw bytes a window of [`MIN_FRAGMENT`] decoded characters can span at
/// most (each a `%XX` escape, or the 3 bytes of KELVIN SIGN).
const WINDOW_BYTES: usize = 3 * MIN_FRAGMENT;

/// The byte ranges of `text`, merged and in order, around each place where
/// a decoded character is not the byte it starts at: a `%` (perhaps an
/// escape), `İ` or `K` (folded to `i` and `k`). Each reaches beyond any
/// window holding such a character, and starts and ends on a character
/// boundary outside any escape (an escape's `%` is such a place: its own
/// range, merged in, reaches further), so decoding it is in step with
/// decoding the whole text and the windows found in it are the text's.
fn decoded_regions(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut regions: Vec<(usize, usize)> = Vec::new();
    // `%` and `İ` (C4 B0) by their first byte; `K` (E2 84 AA) by all
    // three, as E2 also starts every dash, arrow and quote mark of a text.
    let mut kelvin = memchr::memmem::find_iter(b, "\u{212A}".as_bytes()).peekable();
    let mut others = memchr::memchr2_iter(b'%', 0xC4, b)
        .filter(|&p| b[p] == b'%' || b.get(p + 1) == Some(&0xB0))
        .peekable();
    let places = std::iter::from_fn(|| match (others.peek(), kelvin.peek()) {
        (Some(&o), Some(&k)) if k < o => kelvin.next(),
        (Some(_), _) => others.next(),
        (None, _) => kelvin.next(),
    });
    for p in places {
        let mut s = p.saturating_sub(WINDOW_BYTES);
        while !text.is_char_boundary(s) {
            s -= 1;
        }
        let mut e = (p + WINDOW_BYTES + 3).min(b.len());
        while !text.is_char_boundary(e) {
            e += 1;
        }
        match regions.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => regions.push((s, e)),
        }
    }
    regions
}

/// One ASCII secret (folded) for matching bytes: a window of up to 8
/// bytes is itself a u64 (no hash, no collision). 8-byte windows are looked
/// up at every 4th position ([`ByteTable::mark_strided`]); shorter ones
/// are rolled one byte at a time and tested against a bitmap of the
/// secret's windows before the exact set. A byte of a non-ASCII character
/// matches no byte of a secret.
struct ByteTable {
    w: usize,
    windows: HashSet<u64>,
    /// The bitmap: of 4-byte grams when `w` is 8, else of windows.
    filter: Vec<u64>,
}

/// Bytes of a gram looked up at every [`GRAM`]-th position.
const GRAM: usize = 4;

impl ByteTable {
    fn new(secret: Vec<u8>) -> Self {
        const _: () = assert!(MIN_FRAGMENT <= 8);
        let w = secret.len().min(MIN_FRAGMENT);
        let windows: HashSet<u64> = secret.windows(w).map(pack).collect();
        let mut filter = vec![0u64; FILTER_WORDS];
        let mut set = |x: u64| {
            let k = filter_bit(x);
            filter[k >> 6] |= 1 << (k & 63);
        };
        if w == MIN_FRAGMENT {
            secret.windows(GRAM).for_each(|g| set(u64::from(fold4(g))));
        } else {
            windows.iter().for_each(|&x| set(x));
        }
        ByteTable { w, windows, filter }
    }

    fn has(&self, x: u64) -> bool {
        let k = filter_bit(x);
        self.filter[k >> 6] & (1 << (k & 63)) != 0
    }

    /// Adds the byte spans of `text` that are one of the secret's windows.
    fn mark(&self, text: &[u8], marked: &mut Vec<(usize, usize)>) {
        let w = self.w;
        if text.len() < w {
            return;
        }
        if w == MIN_FRAGMENT {
            return self.mark_strided(text, marked);
        }
        let mask = (1u64 << (8 * w)) - 1;
        let mut h = 0u64;
        for (i, &b) in text.iter().enumerate() {
            h = ((h << 8) | u64::from(b.to_ascii_lowercase())) & mask;
            if i + 1 >= w && self.has(h) && self.windows.contains(&h) {
                marked.push((i + 1 - w, i + 1));
            }
        }
    }

    /// 8-byte windows, looked up at every 4th position only: an 8-byte
    /// window of the text that is one of the secret's holds, at the first
    /// multiple of 4 within its first 4 bytes, 4 consecutive bytes of the
    /// secret. Where those 4 bytes are one of the secret's 4-byte grams (a
    /// bitmap, then nothing more if the bit is clear), the 4 windows whose
    /// first multiple of 4 that is are compared exactly with the secret's
    /// windows. The same windows are marked as by testing every position.
    fn mark_strided(&self, text: &[u8], marked: &mut Vec<(usize, usize)>) {
        const _: () = assert!(MIN_FRAGMENT == 2 * GRAM);
        // Four grams are tested together, one branch for 16 bytes (the
        // bit is clear almost everywhere); where one is set, each is.
        const BLOCK: usize = 4 * GRAM;
        let blocks = text.len() / BLOCK;
        for b in 0..blocks {
            let at = b * BLOCK;
            let g = |k: usize| u64::from(fold4(&text[at + k * GRAM..at + (k + 1) * GRAM]));
            let (g0, g1, g2, g3) = (g(0), g(1), g(2), g(3));
            if !(self.has(g0) | self.has(g1) | self.has(g2) | self.has(g3)) {
                continue;
            }
            for k in 0..4 {
                self.check_gram(text, b * 4 + k, marked);
            }
        }
        for n in blocks * 4..text.len() / GRAM {
            self.check_gram(text, n, marked);
        }
    }

    /// The `n`-th gram of `text`: when its bit is set, the 4 windows whose
    /// first multiple of [`GRAM`] it is are compared with the secret's.
    fn check_gram(&self, text: &[u8], n: usize, marked: &mut Vec<(usize, usize)>) {
        let q = n * GRAM;
        if !self.has(u64::from(fold4(&text[q..q + GRAM]))) {
            return;
        }
        for p in q.saturating_sub(GRAM - 1)..=q {
            if p + MIN_FRAGMENT <= text.len()
                && self.windows.contains(&pack(&text[p..p + MIN_FRAGMENT]))
            {
                marked.push((p, p + MIN_FRAGMENT));
            }
        }
    }
}

/// Up to 8 bytes, upper case folded to lower, as a big-endian u64.
fn pack(win: &[u8]) -> u64 {
    win.iter()
        .fold(0u64, |h, &b| (h << 8) | u64::from(b.to_ascii_lowercase()))
}

/// 4 bytes as a big-endian u32 with bit 5 of each set: upper and lower
/// case of a letter alike, for the bitmap only (it may let other pairs,
/// `_` and DEL, through to the exact comparison; none is missed).
fn fold4(g: &[u8]) -> u32 {
    u32::from_be_bytes([g[0], g[1], g[2], g[3]]) | 0x2020_2020
}

/// A window of up to [`MIN_FRAGMENT`] characters, padded, as a set key.
type Window = [char; MIN_FRAGMENT];

fn window_of(chars: impl Iterator<Item = char>) -> Window {
    let mut w = ['\0'; MIN_FRAGMENT];
    for (slot, c) in w.iter_mut().zip(chars) {
        *slot = c;
    }
    w
}

/// One secret (folded) for matching decoded characters: its windows of
/// [`MIN_FRAGMENT`] characters (or itself, when shorter), and a bitmap of
/// their rolling hashes.
struct CharTable {
    w: usize,
    windows: HashSet<Window>,
    filter: Vec<u64>,
}

impl CharTable {
    fn new(secret: Vec<char>) -> Self {
        let w = secret.len().min(MIN_FRAGMENT);
        let mut filter = vec![0u64; FILTER_WORDS];
        for win in secret.windows(w) {
            let k = filter_bit(poly(win));
            filter[k >> 6] |= 1 << (k & 63);
        }
        CharTable {
            w,
            windows: secret
                .windows(w)
                .map(|x| window_of(x.iter().copied()))
                .collect(),
            filter,
        }
    }

    /// Adds to `spans` the byte spans of `text` (decoded, case-folded) that
    /// are one of the secret's windows; spans are added in order, touching
    /// ones merged. A rolling hash of each window of the text is tested
    /// against the bitmap: one bit test per position, the exact comparison
    /// only where the bit is set.
    fn mark(&self, text: &str, spans: &mut Vec<(usize, usize)>) {
        let w = self.w;
        let out_weight = HASH_BASE.wrapping_pow(w as u32 - 1);
        let mut ring: std::collections::VecDeque<(char, usize)> =
            std::collections::VecDeque::with_capacity(w);
        let mut h = 0u64;
        let first = spans.len();
        for (c, start, end) in Decoded::new(text) {
            if ring.len() == w
                && let Some((old, _)) = ring.pop_front()
            {
                h = h.wrapping_sub(u64::from(old).wrapping_mul(out_weight));
            }
            h = h.wrapping_mul(HASH_BASE).wrapping_add(u64::from(c));
            ring.push_back((c, start));
            if ring.len() < w {
                continue;
            }
            let k = filter_bit(h);
            if self.filter[k >> 6] & (1 << (k & 63)) != 0
                && self.windows.contains(&window_of(ring.iter().map(|x| x.0)))
            {
                let from = ring[0].1;
                let n = spans.len();
                match spans.last_mut() {
                    Some(last) if n > first && from <= last.1 => last.1 = end,
                    _ => spans.push((from, end)),
                }
            }
        }
    }
}

/// `text` with every span (merged where they overlap or touch) replaced by
/// [`REDACTED`].
fn replace_spans(text: &str, mut spans: Vec<(usize, usize)>) -> Cow<'_, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let (start, mut end) = spans[i];
        while i + 1 < spans.len() && spans[i + 1].0 <= end {
            end = end.max(spans[i + 1].1);
            i += 1;
        }
        out.push_str(&text[at..start.max(at)]);
        out.push_str(REDACTED);
        at = end.max(at);
        i += 1;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

const HASH_BASE: u64 = 0x0100_0000_01b3;
/// 2^16 bits.
const FILTER_WORDS: usize = 1 << 10;

/// A polynomial hash of a window of characters (rolled in [`redact`]).
fn poly(win: &[char]) -> u64 {
    win.iter().fold(0u64, |h, &c| {
        h.wrapping_mul(HASH_BASE).wrapping_add(u64::from(c))
    })
}

/// The bit of the filter a hash sets (its mixed top 16 bits).
fn filter_bit(h: u64) -> usize {
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as usize
}

fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    c.to_lowercase().next().unwrap_or(c)
}

/// The characters of `text` with `%XX` decoded (ASCII only), case-folded,
/// each with the byte range it came from, one at a time.
struct Decoded<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Decoded<'a> {
    fn new(text: &'a str) -> Self {
        Decoded { text, at: 0 }
    }
}

impl Iterator for Decoded<'_> {
    type Item = (char, usize, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.at;
        let c = self.text[i..].chars().next()?;
        if c == '%' {
            let hex = self.text.get(i + 1..i + 3).unwrap_or("");
            if hex.len() == 2
                && hex.bytes().all(|b| b.is_ascii_hexdigit())
                && let Ok(b) = u8::from_str_radix(hex, 16)
                && b.is_ascii()
            {
                self.at = i + 3;
                return Some((fold(b as char), i, i + 3));
            }
        }
        self.at = i + c.len_utf8();
        Some((fold(c), i, self.at))
    }
}

/// Text with every string shaped like a provider's key (`sk-ant-…`,
/// `sk-proj-…`, `sk-…`, Google's `AIza…`) and every value of a key-style
/// field or parameter (`"api_key": "…"`, `?key=…`) replaced by
/// [`REDACTED`], whatever header the request came with.
pub fn redact_shapes(text: &str) -> Cow<'_, str> {
    use std::sync::LazyLock;
    // Three patterns, each with its own literal prefilter (one alternation
    // of all three ran its automaton at every quote of a JSON body: twice
    // the time). Applied one after the other; what one redacts the next
    // only finds redacted.
    static SHAPES: LazyLock<[regex::Regex; 3]> = LazyLock::new(|| {
        [
            r"(?-u:\b)(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-proj-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,})",
            r#"(?P<f>"(?i:api[_-]?key|x[_-]api[_-]key|x[_-]goog[_-]api[_-]key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password)"\s*:\s*")(?:[^"\\]|\\.)+"#,
            r"(?P<f>[?&](?i:key|api[_-]?key|access[_-]?token|auth[_-]?token)=)[^&\s#\x22\\]+",
        ]
        .map(|p| regex::Regex::new(p).expect("a valid pattern"))
    });
    let mut out = Cow::Borrowed(text);
    // A parameter (the third) follows `?` or `&`, which a body may not have.
    let params = memchr::memchr2(b'?', b'&', text.as_bytes()).is_some();
    for re in &SHAPES[..if params { 3 } else { 2 }] {
        if let Cow::Owned(r) = re.replace_all(&out, |c: &regex::Captures| {
            let keep = c.name("f").map_or("", |m| m.as_str());
            format!("{keep}{REDACTED}")
        }) {
            out = Cow::Owned(r);
        }
    }
    out
}

#[cfg(test)]
mod tests;
