//! A JSON text measured before it is parsed: how many values it holds, how
//! deep it nests and how long its longest string is, by one byte scan that
//! builds nothing. A text over any bound is refused before a tree is built
//! (a tree of tiny values costs tens of times its text). A leaf: imports
//! nothing of the crate.

/// What a text may hold at most.
#[derive(Debug, Clone, Copy)]
pub struct JsonBounds {
    pub max_values: usize,
    pub max_depth: usize,
    pub max_string_bytes: usize,
}

/// A bound a text passed, and the line where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBound {
    pub line: usize,
    pub bound: Bound,
}

/// Which bound, with the figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// A string of `bytes` where at most `max` are read.
    String { bytes: usize, max: usize },
    /// Nested `depth` deep where at most `max` levels are read.
    Depth { depth: usize, max: usize },
    /// More than `max` values.
    Values { max: usize },
}

impl std::fmt::Display for OverBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = self.line;
        match self.bound {
            Bound::String { bytes, max } => {
                write!(
                    f,
                    "line {line}: a string of {bytes} bytes (at most {max} are read)"
                )
            }
            Bound::Depth { depth, max } => {
                write!(
                    f,
                    "line {line}: nested {depth} deep (at most {max} levels are read)"
                )
            }
            Bound::Values { max } => write!(
                f,
                "line {line}: more than {max} values (at most that many are read)"
            ),
        }
    }
}

impl std::error::Error for OverBound {}

impl From<OverBound> for String {
    fn from(e: OverBound) -> String {
        e.to_string()
    }
}

/// `Ok` when `text` keeps within `b`; else the bound passed and the line
/// where.
pub fn check(text: &str, b: JsonBounds) -> Result<(), OverBound> {
    let bytes = text.as_bytes();
    let (mut values, mut depth, mut line) = (1usize, 0usize, 1usize);
    let mut last = 0u8;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match c {
            b'"' => {
                let start = i;
                loop {
                    match memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..]) {
                        Some(j) if bytes[i + j] == b'\\' => i = (i + j + 2).min(bytes.len()),
                        Some(j) if bytes[i + j] == b'\n' => {
                            line += 1;
                            i += j + 1;
                        }
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
                if i - start > b.max_string_bytes {
                    return Err(OverBound {
                        line,
                        bound: Bound::String {
                            bytes: i - start,
                            max: b.max_string_bytes,
                        },
                    });
                }
                last = b'"';
                continue;
            }
            b'\n' => line += 1,
            b'{' | b'[' => {
                depth += 1;
                if depth > b.max_depth {
                    return Err(OverBound {
                        line,
                        bound: Bound::Depth {
                            depth,
                            max: b.max_depth,
                        },
                    });
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if last != b'{' && last != b'[' {
                    values += 1;
                }
            }
            b',' | b':' => values += 1,
            _ => {}
        }
        if values > b.max_values {
            return Err(OverBound {
                line,
                bound: Bound::Values { max: b.max_values },
            });
        }
        if !c.is_ascii_whitespace() {
            last = c;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: JsonBounds = JsonBounds {
        max_values: 100,
        max_depth: 4,
        max_string_bytes: 16,
    };

    #[test]
    fn within_and_over_each_bound() {
        assert!(check(r#"{"a": [1, 2, {"b": "short"}]}"#, B).is_ok());
        let many = format!("[{}]", vec!["0"; 200].join(","));
        assert_eq!(
            check(&many, B).unwrap_err().bound,
            Bound::Values { max: 100 }
        );
        let deep = format!("{}{}", "[".repeat(5), "]".repeat(5));
        assert_eq!(
            check(&deep, B).unwrap_err().bound,
            Bound::Depth { depth: 5, max: 4 }
        );
        let long = format!("{{\n\"a\": \"{}\"}}", "x".repeat(40));
        let e = check(&long, B).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("line 2: a string of"), "{e}");
        // Brackets and escaped quotes inside strings are text.
        assert!(check(r#"["[[[[[[\"]]]]"]"#, B).is_ok());
    }
}
