//! What a traffic line costs to hold, in JSON values: counted by a byte
//! scan before it is parsed, and counted on a parsed tree (the bounds of a
//! whole read, `MAX_VALUES`).

/// Bytes of a line's text that count as one value while it is parsed (the
/// text and its tree are held together then): a line of [`MAX_FILE_BYTES`]
/// leaves room for 2,000,000 values.
const TEXT_PER_VALUE: usize = 128;

/// The number of JSON values and object keys `line` parses into (exact for
/// valid JSON; for a line that is not, at least what is parsed before the
/// error, but for the containers still open), by a byte scan that skips
/// strings: every value but the first follows a `,` or opens a container
/// that is not empty, and every key is followed by a `:`.
pub fn estimate_values(line: &str) -> usize {
    let (mut n, bytes) = (1usize, line.as_bytes());
    // The last byte outside strings that is not white space.
    let mut last = 0u8;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if b == b'"' {
            // A string: skipped to its closing quote, a run at a time.
            loop {
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    Some(j) if bytes[i + j] == b'\\' => i = (i + j + 2).min(bytes.len()),
                    Some(j) => {
                        i += j + 1;
                        break;
                    }
                    None => {
                        i = bytes.len();
                        break;
                    }
                }
            }
            last = b'"';
            continue;
        }
        match b {
            b',' | b':' => n += 1,
            // An empty container has no first value.
            b'}' | b']' if last != b'{' && last != b'[' => n += 1,
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
    }
    n
}

/// What parsing `line` holds at once, in values: its tree's and its text's
/// (one value per [`TEXT_PER_VALUE`] bytes).
pub(super) fn parse_cost(line: &str) -> usize {
    estimate_values(line).saturating_add(line.len() / TEXT_PER_VALUE)
}
