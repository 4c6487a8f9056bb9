//! Redaction: every secret, and every fragment of one, out of a text
//! before it is shown, saved or recorded (matched case-insensitively and
//! through percent-encoding, rolled over the text without per-character
//! tables), and strings shaped like a provider's key out of what is
//! recorded whatever header carried it. Callers use it through the guard
//! module, which re-exports it; this module imports nothing of the crate.

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
    let secrets: Vec<Vec<char>> = secrets
        .iter()
        .map(|s| s.chars().map(fold).collect::<Vec<char>>())
        .filter(|s| !s.is_empty())
        .collect();
    if secrets.is_empty() || text.is_empty() {
        return text.to_string();
    }
    // Plain ASCII text with no `%` and ASCII secrets (a request body, most
    // of the time): each byte is one folded character, nothing to decode.
    if text.is_ascii() && !text.contains('%') && secrets.iter().flatten().all(char::is_ascii) {
        let secrets: Vec<Vec<u8>> = secrets
            .iter()
            .map(|s| s.iter().map(|&c| c as u8).collect())
            .collect();
        return replace_spans(text, mark_ascii(text.as_bytes(), &secrets));
    }
    // Decoded, case-folded characters of `text`, rolled through once per
    // secret without being stored: memory is the output and the spans found.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for secret in &secrets {
        mark_spans(text, secret, &mut spans);
    }
    replace_spans(text, spans)
}

/// The byte spans of ASCII `text` that are a window of a secret (ASCII,
/// folded): a window of up to 8 bytes is itself a u64 (no hash, no
/// collision); 8-byte windows are looked up at every 4th position
/// ([`mark_strided`]), shorter ones rolled one byte at a time and tested
/// against a bitmap of the secret's windows before the exact set.
fn mark_ascii(text: &[u8], secrets: &[Vec<u8>]) -> Vec<(usize, usize)> {
    const _: () = assert!(MIN_FRAGMENT <= 8);
    let mut marked = Vec::new();
    let pack = |win: &[u8]| win.iter().fold(0u64, |h, &b| (h << 8) | u64::from(b));
    for secret in secrets {
        let w = secret.len().min(MIN_FRAGMENT);
        if text.len() < w {
            continue;
        }
        let windows: HashSet<u64> = secret.windows(w).map(pack).collect();
        if w == 8 {
            mark_strided(text, secret, &windows, &mut marked);
            continue;
        }
        let mut filter = vec![0u64; FILTER_WORDS];
        for &x in &windows {
            let k = filter_bit(x);
            filter[k >> 6] |= 1 << (k & 63);
        }
        let mask = if w == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * w)) - 1
        };
        let mut h = 0u64;
        for (i, &b) in text.iter().enumerate() {
            h = ((h << 8) | u64::from(b.to_ascii_lowercase())) & mask;
            if i + 1 >= w {
                let k = filter_bit(h);
                if filter[k >> 6] & (1 << (k & 63)) != 0 && windows.contains(&h) {
                    marked.push((i + 1 - w, i + 1));
                }
            }
        }
    }
    marked
}

/// Bytes of a gram looked up at every [`GRAM`]-th position.
const GRAM: usize = 4;

/// [`mark_ascii`] for 8-byte windows, looked up at every 4th position
/// only: an 8-byte window of the text that is one of the secret's holds, at
/// the first multiple of 4 within its first 4 bytes, 4 consecutive bytes of
/// the secret. Where those 4 bytes are one of the secret's 4-byte grams (a
/// bitmap, then nothing more if the bit is clear), the 4 windows whose
/// first multiple of 4 that is are compared exactly with the secret's
/// windows. The same windows are marked as by testing every position.
fn mark_strided(
    text: &[u8],
    secret: &[u8],
    windows: &HashSet<u64>,
    marked: &mut Vec<(usize, usize)>,
) {
    const _: () = assert!(MIN_FRAGMENT == 2 * GRAM);
    let pack = |win: &[u8]| {
        win.iter()
            .fold(0u64, |h, &b| (h << 8) | u64::from(b.to_ascii_lowercase()))
    };
    let mut grams = vec![0u64; FILTER_WORDS];
    for g in secret.windows(GRAM) {
        let k = filter_bit(pack(g));
        grams[k >> 6] |= 1 << (k & 63);
    }
    for (n, g) in text.chunks_exact(GRAM).enumerate() {
        let k = filter_bit(u64::from(lower4(g)));
        if grams[k >> 6] & (1 << (k & 63)) == 0 {
            continue;
        }
        let q = n * GRAM;
        for p in q.saturating_sub(GRAM - 1)..=q {
            if p + MIN_FRAGMENT <= text.len() && windows.contains(&pack(&text[p..p + MIN_FRAGMENT]))
            {
                marked.push((p, p + MIN_FRAGMENT));
            }
        }
    }
}

/// 4 ASCII bytes as a big-endian u32, upper case folded to lower, all four
/// at once: a byte is upper case when adding 0x3f sets its high bit ('A'
/// and above) and adding 0x25 does not ('Z' and below); no byte carries
/// into the next, each being under 0x80.
fn lower4(g: &[u8]) -> u32 {
    let x = u32::from_be_bytes([g[0], g[1], g[2], g[3]]);
    let upper = x.wrapping_add(0x3f3f_3f3f) & !x.wrapping_add(0x2525_2525) & 0x8080_8080;
    x | (upper >> 2)
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

/// Adds to `spans` the byte spans of `text` (decoded, case-folded) that
/// are a window of [`MIN_FRAGMENT`] characters (or a whole shorter secret)
/// found in `secret`; spans are added in order, touching ones merged.
fn mark_spans(text: &str, secret: &[char], spans: &mut Vec<(usize, usize)>) {
    let w = secret.len().min(MIN_FRAGMENT);
    let windows: HashSet<Window> = secret
        .windows(w)
        .map(|x| window_of(x.iter().copied()))
        .collect();
    // A rolling hash of each window of the text, tested against a bitmap
    // of the secret's windows' hashes: one bit test per position, the
    // exact comparison only where the bit is set.
    let mut filter = vec![0u64; FILTER_WORDS];
    for win in secret.windows(w) {
        let k = filter_bit(poly(win));
        filter[k >> 6] |= 1 << (k & 63);
    }
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
        if filter[k >> 6] & (1 << (k & 63)) != 0
            && windows.contains(&window_of(ring.iter().map(|x| x.0)))
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

/// `text` with every span (merged where they overlap or touch) replaced by
/// [`REDACTED`].
fn replace_spans(text: &str, mut spans: Vec<(usize, usize)>) -> String {
    if spans.is_empty() {
        return text.to_string();
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
    out
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
pub fn redact_shapes(text: &str) -> std::borrow::Cow<'_, str> {
    use std::sync::LazyLock;
    static SHAPES: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(concat!(
            r"(?:\b(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-proj-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|AIza[0-9A-Za-z_\-]{30,}))",
            r#"|(?P<f>"(?i:api[_-]?key|x[_-]api[_-]key|x[_-]goog[_-]api[_-]key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password)"\s*:\s*")(?:[^"\\]|\\.)+"#,
            r"|(?P<q>[?&](?i:key|api[_-]?key|access[_-]?token|auth[_-]?token)=)[^&\s#\x22\\]+",
        ))
        .expect("a valid pattern")
    });
    SHAPES.replace_all(text, |c: &regex::Captures| {
        let keep = c.name("f").or(c.name("q")).map_or("", |m| m.as_str());
        format!("{keep}{REDACTED}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition of [`redact`]: every window of the decoded text
    /// compared with every window of the secret.
    fn reference(text: &str, secret: &str) -> String {
        let secret: Vec<char> = secret.chars().map(fold).collect();
        let decoded: Vec<(char, usize, usize)> = Decoded::new(text).collect();
        let w = secret.len().min(MIN_FRAGMENT);
        let mut marked = vec![false; decoded.len()];
        for i in 0..decoded.len().saturating_sub(w - 1) {
            let win: Vec<char> = decoded[i..i + w].iter().map(|d| d.0).collect();
            if secret.windows(w).any(|s| s == win.as_slice()) {
                marked[i..i + w].iter_mut().for_each(|m| *m = true);
            }
        }
        let mut out = String::new();
        let mut i = 0;
        while i < decoded.len() {
            if marked[i] {
                while i < decoded.len() && marked[i] {
                    i += 1;
                }
                out.push_str(REDACTED);
            } else {
                out.push_str(&text[decoded[i].1..decoded[i].2]);
                i += 1;
            }
        }
        out
    }

    /// Pseudo-random texts of up to `most` pieces (a fixed seed: the same
    /// texts every run).
    fn texts<'a>(
        seed: u64,
        pieces: &'a [&'a str],
        most: usize,
    ) -> impl Iterator<Item = String> + 'a {
        let mut seed = seed;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        std::iter::repeat_with(move || {
            let n = next() % most;
            (0..n).map(|_| pieces[next() % pieces.len()]).collect()
        })
    }

    #[test]
    fn the_rolling_filter_finds_what_the_plain_definition_finds() {
        let key = "sk-ant-api03-Zq8_Lm-77xY";
        let pieces = [
            "hello ",
            "sk-ant-",
            "API03-zq8_l",
            "m-77XY",
            "%2D",
            "%41",
            "中文 ",
            "Zq8_Lm-7",
            "7xY\n",
            "api03-Zq",
            "8_Lm",
            " ",
            "-",
            "{\"k\":\"",
        ];
        for text in texts(7, &pieces, 12).take(400) {
            assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
        }
    }

    #[test]
    fn the_strided_lookup_marks_what_every_position_marks() {
        // ASCII only, no `%`: the strided path, at every alignment.
        let key = "sk-ant-api03-Zq8_Lm-77xY-abcdefgh";
        let pieces = [
            "a",
            "hello ",
            "sk-ant-",
            "API03-zq8_l",
            "m-77XY",
            "Zq8_Lm-7",
            "7xY\n",
            "api03-Zq",
            "8_Lm",
            " ",
            "-",
            "{\"k\":\"",
            "-ABCDEFG",
            "h",
            "xY-abcd",
            "efgh",
        ];
        for text in texts(11, &pieces, 16).take(3000) {
            assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
        }
        // The whole key at each of the 4 alignments, and cut at each end.
        for pad in 0..8 {
            let text = format!("{}{key}{}", "x".repeat(pad), "y".repeat(pad));
            assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
            for cut in 8..key.len() {
                let text = format!("{}{}", "x".repeat(pad), &key[..cut]);
                assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
                let text = format!("{}{}", "x".repeat(pad), &key[key.len() - cut..]);
                assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
            }
        }
    }

    const KEY: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    #[test]
    fn redaction_covers_case_splits_and_encoding() {
        for echoed in [
            format!("bad key {KEY}!"),
            format!("bad key {}", KEY.to_uppercase()),
            format!("first {} and then {}", &KEY[..20], &KEY[20..]),
            format!("url ?key={}", KEY.replace('-', "%2D")),
            format!("tail only {}", &KEY[KEY.len() - 9..]),
        ] {
            let r = redact(&echoed, &[KEY]);
            for w in KEY.as_bytes().windows(MIN_FRAGMENT) {
                let w = std::str::from_utf8(w).unwrap();
                assert!(
                    !r.to_lowercase().contains(&w.to_lowercase()),
                    "{w} survives in {r}"
                );
            }
            assert!(r.contains(REDACTED), "{r}");
        }
        assert_eq!(redact("nothing here", &[KEY]), "nothing here");
        assert_eq!(redact("50% off", &[KEY]), "50% off");
    }
}
