//! Unit tests of the request shape's text walks (first difference,
//! excerpts), held to their plain definitions (compiled for tests only).

use super::shape::{excerpt, first_difference};

/// The character-by-character definition the block compare must equal.
fn by_chars(a: &str, b: &str) -> usize {
    let mut offset = 0;
    for (ca, cb) in a.chars().zip(b.chars()) {
        if ca != cb {
            return offset;
        }
        offset += ca.len_utf8();
    }
    offset
}

#[test]
fn the_first_difference_is_at_the_start_of_the_character_that_differs() {
    let long = "x".repeat(200);
    let cases = [
        ("", ""),
        ("abc", "abc"),
        ("abc", "abd"),
        ("abc", "ab"),
        ("é", "è"),
        ("aé", "aê"),
        ("日本語", "日本人"),
        ("🪶a", "🪶b"),
        ("👍🏽", "👍🏿"),
    ];
    for (a, b) in cases {
        for (p, q) in [
            (a.to_string(), b.to_string()),
            (format!("{long}{a}"), format!("{long}{b}")),
        ] {
            assert_eq!(first_difference(&p, &q), by_chars(&p, &q), "{p:?} {q:?}");
            assert_eq!(first_difference(&q, &p), by_chars(&q, &p), "{q:?} {p:?}");
        }
    }
    // A difference in the last byte of a multi-byte character, past a block.
    let (a, b) = (
        format!("{}日", "y".repeat(127)),
        format!("{}旦", "y".repeat(127)),
    );
    assert_eq!(first_difference(&a, &b), 127);
}

/// The definition over every character, that `excerpt` must equal.
fn over_all(text: &str, at: usize, before: bool) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let idx = chars
        .iter()
        .position(|(b, _)| *b >= at)
        .unwrap_or(chars.len());
    let (lo, hi) = if before {
        (idx.saturating_sub(24), idx)
    } else {
        (idx, (idx + 24).min(chars.len()))
    };
    chars[lo..hi]
        .iter()
        .map(|(_, c)| *c)
        .collect::<String>()
        .replace('\n', "¶")
}

#[test]
fn an_excerpt_is_the_24_characters_on_its_side_as_before() {
    let texts = [
        "",
        "short",
        "The quick brown fox jumps over the lazy dog\nand then some more words follow",
        "日本語のテキストがここにあります、そして変更はこの後に来ます。さらに続く",
        "a 🪶 feather and 👍🏽 thumbs in a sentence long enough to be cut somewhere",
    ];
    for t in texts {
        for at in 0..=t.len() + 2 {
            for before in [true, false] {
                assert_eq!(
                    excerpt(t, at, before),
                    over_all(t, at, before),
                    "{t:?} at {at}"
                );
            }
        }
    }
}
