//! Exact token counting, cached by content.
//!
//! Counts come from `bpe-openai` (linear in the text, even for one long piece
//! with no pre-token break, and the same counts as tiktoken: tested on a
//! corpus against tiktoken-rs); token ids (to truncate on a token boundary)
//! from tiktoken-rs. The tables are loaded once, lazily (first use of an
//! encoding), and every count is remembered under a 128-bit hash of the
//! text, so re-assembling after a budget change re-tokenizes nothing that
//! did not change. Many texts at once ([`TokenCounter::count_many`]) are
//! counted on every core.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub use super::encoding::Encoding;

/// The cores counting may use (kept in the workspace room, below this one,
/// which reads big fragment files on every core too).
pub use crate::workspace::cores;

/// A text's count and its last pre-token (start, count).
type Measured = (usize, (usize, usize));

use crate::usage::Tokens;

use super::pretoken::measure;

/// Uncounted bytes below which threads cost more than they save.
const PARALLEL_BYTES: usize = 256 * 1024;

type Key = (Encoding, u128);

fn key(enc: Encoding, text: &str) -> Key {
    (enc, xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// A truncated text: a prefix of the original cut on a token boundary (and a
/// UTF-8 character boundary) followed by a visible marker.
#[derive(Debug, Clone, PartialEq)]
pub struct Truncation {
    pub text: String,
    /// Exact token count of `text` (prefix and marker).
    pub tokens: Tokens,
    /// Tokens of the original that were cut.
    pub cut: Tokens,
    /// Byte length of the kept prefix of the original.
    pub kept_bytes: usize,
}

/// Counts tokens, remembering every count by content hash. Shared between
/// threads (`Arc<TokenCounter>`); all methods take `&self`.
#[derive(Default)]
pub struct TokenCounter {
    counts: Mutex<HashMap<Key, Tokens>>,
    /// Of a text counted: where its last pre-token starts and what that
    /// pre-token counts (see [`TokenCounter::count_joined`]).
    tails: Mutex<HashMap<Key, (usize, usize)>>,
    ids: Mutex<HashMap<Key, Arc<[u32]>>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("hits", &self.hits())
            .field("misses", &self.misses())
            .finish()
    }
}

impl TokenCounter {
    pub fn new() -> TokenCounter {
        TokenCounter::default()
    }

    /// Loads the BPE tables of `enc` now (call it from a background thread).
    pub fn warm(enc: Encoding) {
        let _ = enc.counter().count("warm");
    }

    /// Exact token count of `text`.
    pub fn count(&self, enc: Encoding, text: &str) -> Tokens {
        if text.is_empty() {
            return 0;
        }
        let k = key(enc, text);
        if let Some(n) = self.counts.lock().unwrap().get(&k) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return *n;
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let (n, tail) = measure(enc, text);
        let n = n as Tokens;
        self.counts.lock().unwrap().insert(k, n);
        self.tails.lock().unwrap().insert(k, tail);
        n
    }

    /// Exact token count of `a` followed by `b`, from `a`'s remembered
    /// count when there is one: the pre-tokenizer splits `a + b` as it
    /// splits `a` up to `a`'s last pre-token, unless `a` ends in white
    /// space (a run that `b` may continue, or that `\s+$` or `\s+(?!\S)`
    /// judge by what follows). So only that last pre-token and `b` are
    /// tokenized again: a block costs its separators, not its fragments
    /// twice.
    pub fn count_joined(&self, enc: Encoding, a: &str, b: &str) -> Option<Tokens> {
        if a.is_empty() || a.ends_with(char::is_whitespace) {
            return None;
        }
        let k = key(enc, a);
        let n = *self.counts.lock().unwrap().get(&k)?;
        let (start, last) = *self.tails.lock().unwrap().get(&k)?;
        let rest = format!("{}{b}", &a[start..]);
        Some(n - last as Tokens + self.count(enc, &rest))
    }

    /// Exact token counts of many texts, in order: those not yet counted
    /// are counted on every core (`threads`, at least 1) when there are
    /// enough of them to pay for the threads.
    pub fn count_many(&self, enc: Encoding, texts: &[&str], threads: usize) -> Vec<Tokens> {
        let mut out = vec![0; texts.len()];
        let mut todo: Vec<(usize, Key)> = Vec::new();
        {
            let counts = self.counts.lock().unwrap();
            for (i, t) in texts.iter().enumerate() {
                if t.is_empty() {
                    continue;
                }
                let k = key(enc, t);
                match counts.get(&k) {
                    Some(n) => out[i] = *n,
                    None => todo.push((i, k)),
                }
            }
        }
        self.hits
            .fetch_add((texts.len() - todo.len()) as u64, Ordering::Relaxed);
        self.misses.fetch_add(todo.len() as u64, Ordering::Relaxed);
        let bytes: usize = todo.iter().map(|(i, _)| texts[*i].len()).sum();
        let threads = threads.clamp(1, 64);
        let counted: Vec<Measured> = if threads == 1 || bytes < PARALLEL_BYTES {
            todo.iter().map(|(i, _)| measure(enc, texts[*i])).collect()
        } else {
            // Contiguous runs of about equal bytes, one per thread.
            let share = bytes.div_ceil(threads);
            let mut runs: Vec<&[(usize, Key)]> = Vec::new();
            let (mut start, mut acc) = (0, 0);
            for (j, (i, _)) in todo.iter().enumerate() {
                acc += texts[*i].len();
                if acc >= share {
                    runs.push(&todo[start..=j]);
                    (start, acc) = (j + 1, 0);
                }
            }
            runs.push(&todo[start..]);
            std::thread::scope(|s| {
                let handles: Vec<_> = runs
                    .iter()
                    .map(|run| {
                        s.spawn(move || {
                            run.iter()
                                .map(|(i, _)| measure(enc, texts[*i]))
                                .collect::<Vec<Measured>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("a counting thread panicked"))
                    .collect()
            })
        };
        let mut counts = self.counts.lock().unwrap();
        let mut tails = self.tails.lock().unwrap();
        for ((i, k), (n, tail)) in todo.into_iter().zip(counted) {
            let n = n as Tokens;
            out[i] = n;
            counts.insert(k, n);
            tails.insert(k, tail);
        }
        out
    }

    /// Token ids of `text`, cached.
    pub fn encode(&self, enc: Encoding, text: &str) -> Arc<[u32]> {
        let k = key(enc, text);
        if let Some(ids) = self.ids.lock().unwrap().get(&k) {
            return ids.clone();
        }
        // The linear-time encoder (tiktoken's ids; its tables load in a
        // fraction of tiktoken's, which the app no longer builds at run time).
        let ids: Arc<[u32]> = super::pretoken::encode(enc, text).into();
        self.counts.lock().unwrap().insert(k, ids.len() as Tokens);
        self.ids.lock().unwrap().insert(k, ids.clone());
        ids
    }

    /// Number of counts answered from the cache so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Number of texts actually tokenized so far.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Cuts `text` so that the kept prefix plus a marker saying how many tokens
    /// were cut fits in `budget` tokens. `None` when not even one token of the
    /// text fits beside the marker (the caller drops the fragment), or when the
    /// text already fits.
    pub fn truncate(&self, enc: Encoding, text: &str, budget: Tokens) -> Option<Truncation> {
        let ids = self.encode(enc, text);
        let total = ids.len() as Tokens;
        if total <= budget {
            return None;
        }
        let marker_guess = self.count(enc, &marker(total));
        // An index into the ids: the budget is below their count here.
        let mut k = budget.saturating_sub(marker_guess) as usize;
        while k > 0 {
            let bytes = enc.counter().bpe.decode_tokens(&ids[..k]);
            // Token bytes concatenate to the original bytes, so this is a byte
            // prefix of `text`; back off to the last whole UTF-8 character.
            let valid = match std::str::from_utf8(&bytes) {
                Ok(s) => s.len(),
                Err(e) => e.valid_up_to(),
            };
            let prefix = &text[..valid];
            if prefix.is_empty() {
                k -= 1;
                continue;
            }
            let cut = total.saturating_sub(self.count(enc, prefix));
            let out = format!("{prefix}{}", marker(cut));
            let n = self.count(enc, &out);
            if n <= budget {
                return Some(Truncation {
                    text: out,
                    tokens: n,
                    cut,
                    kept_bytes: valid,
                });
            }
            k = k.saturating_sub((n - budget).max(1) as usize);
        }
        None
    }

    /// Byte ranges of `text`, one per token (a token that ends inside a UTF-8
    /// character is merged with the next, so every range is valid text).
    pub fn token_spans(&self, enc: Encoding, text: &str) -> Vec<Range<usize>> {
        let ids = self.encode(enc, text);
        let bpe = &enc.counter().bpe;
        let mut spans = Vec::with_capacity(ids.len());
        let mut start = 0;
        let mut end = 0;
        for id in ids.iter() {
            end += bpe.token_bytes(*id).len();
            if end <= text.len() && text.is_char_boundary(end) {
                spans.push(start..end);
                start = end;
            }
        }
        if start < text.len() {
            spans.push(start..text.len());
        }
        spans
    }
}

/// The visible marker appended to a truncated fragment.
pub fn marker(cut: Tokens) -> String {
    format!("\n…[truncated {cut} tokens]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linear_counter_counts_as_tiktoken_on_a_hard_corpus() {
        let mut corpus: Vec<String> = [
            "",
            " ",
            "   leading and trailing   ",
            "\n\n\n",
            "\r\n\r\n  \t\t\n",
            "tabs\tand\t\ttabs",
            "中文文本，混合English words和数字12345678。",
            "日本語のテキストとカタカナ、ひらがな。",
            "한국어 텍스트도 있습니다.",
            "emoji 😀🎉👍🏽 and 👨‍👩‍👧‍👦 family, flags 🇫🇷🇯🇵",
            "combining e\u{301}\u{301} marks and ñ vs n\u{303}",
            "I'm sure it's THEY'LL WE'VE you'd",
            "path/to/file.rs:12:34 //comment /// doc\n/* block */",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "1234567890123456789012345678901234567890",
            "{\"json\": [1, 2.5, -3e10, null, true], \"k\": \"v\"}",
            "    fn main() {\n        println!(\"hi\");\n    }\n",
            "\u{0}\u{1}\u{7f}control\u{1b}[31m",
            "Ωmega ΑΒΓ кириллица ĞÜŞ",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        corpus.push("x".repeat(20_000));
        corpus.push(" ".repeat(5_000) + "end");
        corpus.push("字".repeat(3_000));
        corpus.push("😀".repeat(1_000));
        // Pseudo-random mixtures over a pool of the hard characters.
        let pool: Vec<char> = "a Z 9 ' s\n\r\t/中語한😀👍🏽\u{301}-_.,:;!?(){}[]\"ll'VE  Ωк"
            .chars()
            .collect();
        for (i, len) in [10usize, 100, 1_000, 10_000].into_iter().enumerate() {
            let seed = 0x9E37_79B9_7F4A_7C15 + i as u64;
            corpus.extend(crate::test_support::random_texts(&pool, seed, len, 20));
        }
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for t in &corpus {
                let ids = enc.bpe().encode_ordinary(t);
                let exact = ids.len();
                assert_eq!(enc.counter().count(t.as_str()), exact);
                // The ids the app encodes with (truncation, token spans):
                // tiktoken's, token for token.
                assert_eq!(
                    super::super::pretoken::encode(enc, t),
                    ids,
                    "{} on {:?}",
                    enc.as_str(),
                    &t[..t.len().min(80)]
                );
                // Ours, cold and then with the thread's pieces remembered.
                assert_eq!(measure(enc, t).0, exact, "cold");
                assert_eq!(
                    measure(enc, t).0,
                    exact,
                    "{} on {:?}",
                    enc.as_str(),
                    &t[..t.len().min(80)]
                );
            }
            // Many at once, on threads, count the same, in order.
            let texts: Vec<&str> = corpus.iter().map(String::as_str).collect();
            let c = TokenCounter::new();
            let many = c.count_many(enc, &texts, 4);
            let exact: Vec<Tokens> = texts
                .iter()
                .map(|t| enc.bpe().encode_ordinary(t).len() as Tokens)
                .collect();
            assert_eq!(many, exact);
            // Remembered: counting them again tokenizes nothing.
            let misses = c.misses();
            assert_eq!(c.count_many(enc, &texts, 4), exact);
            assert_eq!(c.misses(), misses);
            joined_counts_as_the_whole(&c, enc, &texts);
        }
    }

    /// A counted text joined with what follows it in a block counts as the
    /// whole would, whatever the two are.
    fn joined_counts_as_the_whole(c: &TokenCounter, enc: Encoding, texts: &[&str]) {
        let seps = [
            "\n\n",
            "\n",
            " ",
            "",
            "\n\n## Title\n",
            "'s",
            "/x",
            "\r\n",
            "123",
            "字",
        ];
        for (i, a) in texts.iter().enumerate().filter(|(_, a)| a.len() < 2_000) {
            for b in seps.iter().copied().chain(texts.get(i + 1).copied()) {
                let whole = format!("{a}{b}");
                match c.count_joined(enc, a, b) {
                    Some(n) => assert_eq!(
                        n,
                        enc.bpe().encode_ordinary(&whole).len() as Tokens,
                        "{} on {:?} + {:?}",
                        enc.as_str(),
                        &a[..a.len().min(60)],
                        &b[..b.len().min(20)]
                    ),
                    None => assert!(a.is_empty() || a.ends_with(char::is_whitespace)),
                }
            }
        }
    }

    #[test]
    fn counts_are_exact_and_cached() {
        let c = TokenCounter::new();
        let n = c.count(Encoding::O200kBase, "Hello, world!");
        assert_eq!(n, 4);
        assert_eq!(c.misses(), 1);
        assert_eq!(c.count(Encoding::O200kBase, "Hello, world!"), 4);
        assert_eq!(c.hits(), 1);
        assert_eq!(c.misses(), 1);
        // The same text under another encoding is another entry.
        c.count(Encoding::Cl100kBase, "Hello, world!");
        assert_eq!(c.misses(), 2);
    }

    #[test]
    fn truncation_of_chinese_is_a_valid_prefix_with_marker() {
        let c = TokenCounter::new();
        let text = "你是一个严谨、务实的技术助手。回答问题时优先给出可操作的方案，避免空泛描述。"
            .repeat(20);
        let total = c.count(Encoding::O200kBase, &text);
        let t = c
            .truncate(Encoding::O200kBase, &text, 40)
            .expect("fits partly");
        assert!(t.tokens <= 40, "{} > 40", t.tokens);
        assert_eq!(t.tokens, c.count(Encoding::O200kBase, &t.text));
        let prefix = &t.text[..t.kept_bytes];
        assert!(text.starts_with(prefix));
        assert!(!prefix.is_empty());
        assert!(t.text.ends_with(&marker(t.cut)));
        assert!(t.cut > 0 && t.cut < total);
    }

    #[test]
    fn truncation_gives_up_when_nothing_fits() {
        let c = TokenCounter::new();
        let text = "word ".repeat(100);
        assert!(c.truncate(Encoding::O200kBase, &text, 3).is_none());
        assert!(c.truncate(Encoding::O200kBase, "short", 10).is_none());
    }

    #[test]
    fn token_spans_cover_text_on_char_boundaries() {
        let c = TokenCounter::new();
        let text = "SuxiongBot 是苏雄的助手 🚀 ok";
        let spans = c.token_spans(Encoding::O200kBase, text);
        let joined: String = spans.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(joined, text);
        assert!(spans.len() > 3);
    }
}
