//! Counting one text: the encoding's pre-tokenizer, then the linear-time
//! byte-pair count of each piece, with what repeats remembered per thread.
//!
//! The pre-tokenizer is tiktoken's pattern with its negative look-ahead
//! `\s+(?!\S)` written as a second pattern `\s+\s` whose last character is
//! given back (and `\s+$` for the end of the text), as `bpe-openai` does;
//! here each thread keeps its own regex cache instead of borrowing one from
//! a shared pool for every piece, and remembers the count of every short
//! piece it has seen (words repeat: most pieces of a prompt are counted
//! once per thread, then looked up). Counts are held to tiktoken's on a
//! corpus of hard texts (tests in `tokens.rs`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};

use super::encoding::Encoding;

/// Pieces longer than this are counted each time (long pieces are rare,
/// and rarely repeat).
const MAX_REMEMBERED_PIECE: usize = 48;
/// Remembered pieces per thread and encoding before the memory is emptied
/// (bounds it to a few MB, whatever the texts).
const MAX_REMEMBERED: usize = 1 << 16;

/// An encoding's pre-tokenizer: the patterns, and for each whether its
/// last character is a look-ahead to give back.
struct Pretokenizer {
    regex: Regex,
    lookahead: [bool; 3],
}

fn build(first: &str) -> Pretokenizer {
    let regex = Regex::new_many(&[first, "\\s+\\s", "\\s+"]).expect("valid pre-token patterns");
    Pretokenizer {
        regex,
        lookahead: [false, true, false],
    }
}

static O200K: LazyLock<Pretokenizer> = LazyLock::new(|| {
    build(
        &[
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "\\p{N}{1,3}",
            " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
            "\\s*[\\r\\n]+",
            "\\s+$",
        ]
        .join("|"),
    )
});

static CL100K: LazyLock<Pretokenizer> = LazyLock::new(|| {
    build(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$",
    )
});

fn pretokenizer(enc: Encoding) -> &'static Pretokenizer {
    match enc {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    }
}

fn slot(enc: Encoding) -> usize {
    match enc {
        Encoding::O200kBase => 0,
        Encoding::Cl100kBase => 1,
    }
}

/// What one thread keeps between texts, per encoding.
#[derive(Default)]
struct ThreadState {
    caches: [Option<Cache>; 2],
    pieces: [HashMap<Box<[u8]>, u32, PieceHash>; 2],
}

/// xxh3 under a seed drawn per thread from std's random keys: several
/// times faster than SipHash on short pieces, and no text can be written
/// to collide without knowing the seed.
#[derive(Clone)]
struct PieceHash(u64);

impl Default for PieceHash {
    fn default() -> Self {
        use std::hash::BuildHasher;
        PieceHash(std::collections::hash_map::RandomState::new().hash_one(0u64))
    }
}

impl std::hash::BuildHasher for PieceHash {
    type Hasher = PieceHasher;
    fn build_hasher(&self) -> PieceHasher {
        PieceHasher(self.0)
    }
}

struct PieceHasher(u64);

impl std::hash::Hasher for PieceHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.0);
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(29) ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

thread_local! {
    static STATE: RefCell<ThreadState> = RefCell::new(ThreadState::default());
}

/// A text's count, and where its last pre-token starts with that
/// pre-token's count (one pass of the pre-tokenizer).
pub fn measure(enc: Encoding, text: &str) -> (usize, (usize, usize)) {
    let bpe = &enc.counter().bpe;
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        let ThreadState { caches, pieces } = &mut *state;
        let cache = caches[slot(enc)].get_or_insert_with(|| pretokenizer(enc).regex.create_cache());
        let pieces = &mut pieces[slot(enc)];
        let (mut n, mut tail) = (0, (0, 0));
        each_piece(enc, text, cache, |at, end| {
            let piece = &text.as_bytes()[at..end];
            let c = if piece.len() > MAX_REMEMBERED_PIECE {
                bpe.count(piece)
            } else if let Some(c) = pieces.get(piece) {
                *c as usize
            } else {
                let c = bpe.count(piece);
                if pieces.len() >= MAX_REMEMBERED {
                    pieces.clear();
                }
                pieces.insert(piece.into(), c as u32);
                c
            };
            n += c;
            tail = (at, c);
        });
        (n, tail)
    })
}

/// A text's token ids, piece by piece as [`measure`] counts them (the
/// linear-time encoder on this pre-tokenizer's pieces: tiktoken's ids,
/// without its tables).
pub fn encode(enc: Encoding, text: &str) -> Vec<u32> {
    let bpe = &enc.counter().bpe;
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        let cache =
            state.caches[slot(enc)].get_or_insert_with(|| pretokenizer(enc).regex.create_cache());
        let mut ids = Vec::new();
        each_piece(enc, text, cache, |at, end| {
            ids.extend(bpe.encode_via_backtracking(&text.as_bytes()[at..end]));
        });
        ids
    })
}

/// Each pre-token of `text` (start, end), in order: the ASCII fast path
/// for o200k, else the regex.
fn each_piece(enc: Encoding, text: &str, cache: &mut Cache, mut f: impl FnMut(usize, usize)) {
    let pre = pretokenizer(enc);
    let fast = enc == Encoding::O200kBase;
    let mut at = 0;
    while at < text.len() {
        let end = match fast
            .then(|| o200k_ascii_piece(text.as_bytes(), at))
            .flatten()
        {
            Some(end) => end,
            None => match regex_piece(pre, cache, text, at) {
                Some(end) => end,
                None => break,
            },
        };
        f(at, end);
        at = end;
    }
}

/// Where the piece starting at `at` ends, by the regex.
fn regex_piece(pre: &Pretokenizer, cache: &mut Cache, text: &str, at: usize) -> Option<usize> {
    let input = Input::new(&text[at..]).anchored(Anchored::Yes);
    let m = pre.regex.search_with(cache, &input)?;
    let mut end = at + m.end();
    if pre.lookahead[m.pattern().as_usize()] {
        end -= text[at..end].chars().next_back().map_or(0, char::len_utf8);
    }
    // Every pattern consumes a character before its look-ahead; never
    // loop on an empty match.
    (end > at).then_some(end)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// An ASCII byte that is neither a letter, a digit nor white space.
fn is_other(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_alphanumeric() && !is_space(b)
}

/// The end of the run of bytes from `i` that `class` holds, or `None` when
/// the run stops at a byte that is not ASCII (a character the regex must
/// judge).
fn run(t: &[u8], mut i: usize, class: impl Fn(u8) -> bool) -> Option<usize> {
    while i < t.len() && class(t[i]) {
        i += 1;
    }
    match t.get(i) {
        Some(b) if !b.is_ascii() => None,
        _ => Some(i),
    }
}

/// The end of o200k's pre-token at `at` when every character it depends on
/// is ASCII, else `None` (the regex decides). The same choice the regex
/// makes, alternative by alternative in its order (tested against it):
/// letters with an optional leading non-letter (`U*l+`, then `U+`) and a
/// contraction; up to three digits; punctuation with an optional leading
/// space and trailing line breaks or slashes; white space up to its last
/// line break, or to the end, or all but its last character, or one.
fn o200k_ascii_piece(t: &[u8], at: usize) -> Option<usize> {
    let c = *t.get(at)?;
    if !c.is_ascii() {
        return None;
    }
    // Letters, after an optional character that is none of \r \n, a letter
    // or a digit.
    let j = if c.is_ascii_alphabetic() {
        at
    } else if c != b'\r' && c != b'\n' && !c.is_ascii_digit() {
        at + 1
    } else {
        usize::MAX
    };
    if j != usize::MAX && j < t.len() {
        if !t[j].is_ascii() {
            return None;
        }
        let upper = run(t, j, |b| b.is_ascii_uppercase())?;
        let lower = run(t, upper, |b| b.is_ascii_lowercase())?;
        let end = if lower > upper {
            Some(lower)
        } else if upper > j {
            Some(upper)
        } else {
            None
        };
        if let Some(end) = end {
            return contraction(t, end);
        }
    }
    if c.is_ascii_digit() {
        let mut end = at;
        while end < t.len() && end - at < 3 && t[end].is_ascii_digit() {
            end += 1;
        }
        if end - at < 3 && t.get(end).is_some_and(|b| !b.is_ascii()) {
            return None;
        }
        return Some(end);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
    let p = if c == b' ' { at + 1 } else { at };
    if t.get(p).is_some_and(|b| !b.is_ascii()) {
        return None;
    }
    if t.get(p).is_some_and(|&b| is_other(b)) {
        let others = run(t, p, is_other)?;
        return run(t, others, |b| matches!(b, b'\r' | b'\n' | b'/'));
    }
    if !is_space(c) {
        return None;
    }
    let spaces = run(t, at, is_space)?;
    if let Some(last) = t[at..spaces]
        .iter()
        .rposition(|b| matches!(b, b'\r' | b'\n'))
    {
        return Some(at + last + 1);
    }
    if spaces == t.len() || spaces - at == 1 {
        return Some(spaces);
    }
    Some(spaces - 1)
}

/// A letters piece ending at `end`, with the contraction that follows it
/// (`'s 't 're 've 'm 'll 'd`, any case), or `None` when a character after
/// the apostrophe is not ASCII.
fn contraction(t: &[u8], end: usize) -> Option<usize> {
    if t.get(end) != Some(&b'\'') {
        return Some(end);
    }
    let at = |i: usize| t.get(end + i).map(u8::to_ascii_lowercase);
    match at(1) {
        Some(b) if !b.is_ascii() => None,
        Some(b's' | b't' | b'm' | b'd') => Some(end + 2),
        Some(b'r' | b'v') => match at(2) {
            Some(b) if !b.is_ascii() => None,
            Some(b'e') => Some(end + 3),
            _ => Some(end),
        },
        Some(b'l') => match at(2) {
            Some(b) if !b.is_ascii() => None,
            Some(b'l') => Some(end + 3),
            _ => Some(end),
        },
        _ => Some(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces of `text` by the regex alone.
    fn by_regex(text: &str) -> Vec<&str> {
        let pre = pretokenizer(Encoding::O200kBase);
        let mut cache = pre.regex.create_cache();
        let (mut out, mut at) = (Vec::new(), 0);
        while let Some(end) = regex_piece(pre, &mut cache, text, at) {
            out.push(&text[at..end]);
            at = end;
        }
        out
    }

    /// Pieces of `text` with the ASCII path first.
    fn by_fast_path(text: &str) -> Vec<&str> {
        let pre = pretokenizer(Encoding::O200kBase);
        let mut cache = pre.regex.create_cache();
        let (mut out, mut at) = (Vec::new(), 0);
        while at < text.len() {
            let end = o200k_ascii_piece(text.as_bytes(), at)
                .or_else(|| regex_piece(pre, &mut cache, text, at))
                .unwrap();
            out.push(&text[at..end]);
            at = end;
        }
        out
    }

    #[test]
    fn the_ascii_path_splits_as_the_regex() {
        let fixed = [
            "Hello world",
            "HELLO world",
            "HELLOworld",
            "  hello",
            "\t\thi",
            "a\n\n  \n b",
            "x  ",
            "x \t",
            "don't THEY'LL we'Re I'm it'S you'd",
            "'s's",
            "end'",
            "end'r",
            "12345 1 22 333 4444",
            "!!\n\n/x",
            " !?/",
            "\t!",
            ".Hello",
            "a/b//c\r\n",
            "\x01\x02abc",
            "caf\u{e9}",
            "na\u{ef}ve",
            "x\u{a0}y",
            "  \u{2028}",
            "it'\u{17f}",
            "12\u{663}",
            "A\u{301}",
            "\r\r\n",
            "(x)",
            "ab'",
        ];
        for t in fixed {
            assert_eq!(by_fast_path(t), by_regex(t), "{t:?}");
        }
        let pool: Vec<char> = "aAzZsStTrReEvVlLmMdD09 '\t\n\r\x0b\x0c!./-_(\x01\u{e9}\u{a0}\u{17f}\u{2028}中\u{301}\u{663}"
            .chars()
            .collect();
        for (i, len) in [1usize, 2, 3, 5, 8, 20, 200].into_iter().enumerate() {
            let seed = 0x2545_F491_4F6C_DD1D + i as u64;
            for t in crate::test_support::random_texts(&pool, seed, len, 3000) {
                assert_eq!(by_fast_path(&t), by_regex(&t), "{t:?}");
            }
        }
    }
}
