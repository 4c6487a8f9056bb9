//! Redaction held to its plain definition.

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
fn texts<'a>(seed: u64, pieces: &'a [&'a str], most: usize) -> impl Iterator<Item = String> + 'a {
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
        // Characters that fold to ASCII, lone and doubled `%`, other
        // non-ASCII text, and filler that puts places far apart.
        "İ",
        "\u{212a}",
        "sk-ant-ap\u{212a}",
        "%",
        "%%",
        "%4",
        "é—✓",
        "ZQ8_lm-77xy",
        "filler text long enough to part two decoded places ",
    ];
    for text in texts(7, &pieces, 12).take(400) {
        assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
    }
    for text in texts(13, &pieces, 40).take(3000) {
        assert_eq!(redact(&text, &[key]), reference(&text, key), "{text:?}");
    }
    // A key whose fragments are spelled with KELVIN SIGN and dotted İ,
    // between long runs of other text on both sides.
    let far = "x".repeat(100);
    let text = format!("{far}sk-ant-api03-Zq8_Lm-77xY{far}%41{far}");
    assert!(!redact(&text, &[key]).contains("Zq8_Lm"));
    let kelvin = "\u{212a}ey-İİİİİİİİ-and-more";
    let text = format!("{far}{kelvin}{far}");
    assert_eq!(
        redact(&text, &["key-iiiiiiii-and-more"]),
        reference(&text, "key-iiiiiiii-and-more")
    );
    assert!(redact(&text, &["key-iiiiiiii-and-more"]).contains(REDACTED));
    // Many places, each with the key beside it: every span checked
    // against the one region it may lie in.
    let text = format!("{key}%").repeat(300);
    assert_eq!(redact(&text, &[key]), reference(&text, key));
    // Nothing to redact: the text itself, not a copy.
    assert!(matches!(
        Redactor::new(&[key]).redact("plain text, 100% of it"),
        Cow::Borrowed(_)
    ));
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
