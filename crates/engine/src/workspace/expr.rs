//! `enabled_when`: a small, safe expression language evaluated against the
//! session. Nothing is ever executed; the grammar is
//!
//! ```text
//! expr    := and ("or" and)*
//! and     := unary ("and" unary)*
//! unary   := "not" unary | primary
//! primary := "(" expr ")" | "true" | "false"
//!          | NAME "in" "session.tools" | NAME "not" "in" "session.tools"
//!          | "session.flags." NAME
//! NAME    := [A-Za-z0-9_.-]+ | "quoted" | 'quoted'
//! ```

use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Bool(bool),
    InTools(String),
    Flag(String),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub message: String,
    /// 1-based character column in the expression.
    pub column: usize,
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (column {})", self.message, self.column)
    }
}

/// What an expression can see of the session.
#[derive(Debug, Clone, Default)]
pub struct SessionFacts {
    pub tools: BTreeSet<String>,
    pub flags: BTreeMap<String, bool>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    LParen,
    RParen,
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push((Tok::LParen, col));
            i += 1;
        } else if c == ')' {
            out.push((Tok::RParen, col));
            i += 1;
        } else if c == '"' || c == '\'' {
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && chars[j] != c {
                j += 1;
            }
            if j >= chars.len() {
                return Err(ExprError {
                    message: "unterminated string".into(),
                    column: col,
                });
            }
            out.push((Tok::Quoted(chars[start..j].iter().collect()), col));
            i = j + 1;
        } else if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | '-'))
            {
                i += 1;
            }
            out.push((Tok::Word(chars[start..i].iter().collect()), col));
        } else {
            return Err(ExprError {
                message: format!("unexpected character '{c}'"),
                column: col,
            });
        }
    }
    Ok(out)
}

/// Deepest nesting of parentheses and `not` an expression may have.
pub const MAX_DEPTH: usize = 64;
/// Most tokens an expression may have (bounds the tree, its evaluation and
/// its drop, which are recursive).
pub const MAX_TOKENS: usize = 1024;

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end_col: usize,
    depth: usize,
}

impl Parser {
    fn peek_word(&self) -> Option<&str> {
        match self.toks.get(self.pos) {
            Some((Tok::Word(w), _)) => Some(w.as_str()),
            _ => None,
        }
    }

    fn col(&self) -> usize {
        self.toks.get(self.pos).map(|t| t.1).unwrap_or(self.end_col)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ExprError> {
        Err(ExprError {
            message: message.into(),
            column: self.col(),
        })
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.and()?;
        while self.peek_word() == Some("or") {
            self.pos += 1;
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.unary()?;
        while self.peek_word() == Some("and") {
            self.pos += 1;
            let right = self.unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// Enters one level of nesting, refusing to go deeper than [`MAX_DEPTH`].
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ExprError>,
    ) -> Result<T, ExprError> {
        if self.depth >= MAX_DEPTH {
            return self.err(format!(
                "nested more than {MAX_DEPTH} levels deep (parentheses and 'not')"
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.peek_word() == Some("not") {
            self.pos += 1;
            return self.nested(|p| Ok(Expr::Not(Box::new(p.unary()?))));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        let Some((tok, _)) = self.toks.get(self.pos).cloned() else {
            return self.err("expected a condition, found the end");
        };
        match tok {
            Tok::LParen => {
                self.pos += 1;
                let e = self.nested(Self::expr)?;
                match self.toks.get(self.pos) {
                    Some((Tok::RParen, _)) => {
                        self.pos += 1;
                        Ok(e)
                    }
                    _ => self.err("expected ')'"),
                }
            }
            Tok::RParen => self.err("unexpected ')'"),
            Tok::Word(w) if w == "true" || w == "false" => {
                self.pos += 1;
                Ok(Expr::Bool(w == "true"))
            }
            Tok::Word(w) if matches!(w.as_str(), "and" | "or" | "in") => {
                self.err(format!("expected a condition, found '{w}'"))
            }
            Tok::Word(w) if w.starts_with("session.") => {
                if let Some(flag) = w.strip_prefix("session.flags.")
                    && !flag.is_empty()
                {
                    self.pos += 1;
                    return Ok(Expr::Flag(flag.to_string()));
                }
                self.err(format!(
                    "unknown session value '{w}' (use session.flags.NAME or NAME in session.tools)"
                ))
            }
            Tok::Word(name) | Tok::Quoted(name) => {
                self.pos += 1;
                let negated = if self.peek_word() == Some("not") {
                    self.pos += 1;
                    true
                } else {
                    false
                };
                if self.peek_word() != Some("in") {
                    return self.err(format!("expected 'in session.tools' after '{name}'"));
                }
                self.pos += 1;
                if self.peek_word() != Some("session.tools") {
                    return self.err("expected 'session.tools' after 'in'");
                }
                self.pos += 1;
                let e = Expr::InTools(name);
                Ok(if negated { Expr::Not(Box::new(e)) } else { e })
            }
        }
    }
}

pub fn parse(src: &str) -> Result<Expr, ExprError> {
    let toks = lex(src)?;
    if toks.len() > MAX_TOKENS {
        return Err(ExprError {
            message: format!(
                "too long: {} words and parentheses, at most {MAX_TOKENS}",
                toks.len()
            ),
            column: toks[MAX_TOKENS].1,
        });
    }
    let end_col = src.chars().count() + 1;
    let mut p = Parser {
        toks,
        pos: 0,
        end_col,
        depth: 0,
    };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return p.err("unexpected text after the condition");
    }
    Ok(e)
}

impl Expr {
    pub fn eval(&self, s: &SessionFacts) -> bool {
        match self {
            Expr::Bool(b) => *b,
            Expr::InTools(name) => s.tools.contains(name),
            Expr::Flag(name) => s.flags.get(name).copied().unwrap_or(false),
            Expr::Not(e) => !e.eval(s),
            Expr::And(a, b) => a.eval(s) && b.eval(s),
            Expr::Or(a, b) => a.eval(s) || b.eval(s),
        }
    }

    /// The atoms whose value made the whole expression false, in words.
    pub fn explain_false(&self, s: &SessionFacts) -> Vec<String> {
        let mut out = Vec::new();
        self.collect(s, false, &mut out);
        out
    }

    /// Describes the atoms responsible for this expression evaluating to
    /// `target` (only called where it does).
    fn collect(&self, s: &SessionFacts, target: bool, out: &mut Vec<String>) {
        match self {
            Expr::Bool(b) => out.push(format!("literal {b}")),
            Expr::InTools(name) => out.push(if s.tools.contains(name) {
                format!("'{name}' is in session.tools")
            } else {
                format!("'{name}' is not in session.tools")
            }),
            Expr::Flag(name) => {
                let v = s.flags.get(name).copied().unwrap_or(false);
                out.push(if s.flags.contains_key(name) {
                    format!("session.flags.{name} is {v}")
                } else {
                    format!("session.flags.{name} is not set")
                });
            }
            Expr::Not(e) => e.collect(s, !target, out),
            Expr::And(a, b) | Expr::Or(a, b) => {
                for e in [a, b] {
                    if e.eval(s) == target {
                        e.collect(s, target, out);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(tools: &[&str], flags: &[(&str, bool)]) -> SessionFacts {
        SessionFacts {
            tools: tools.iter().map(|s| s.to_string()).collect(),
            flags: flags.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn grammar_and_precedence() {
        let s = facts(&["file_read", "bash"], &[("beta", true)]);
        let ok = |src: &str| parse(src).unwrap().eval(&s);
        assert!(ok("file_read in session.tools"));
        assert!(!ok("web_search in session.tools"));
        assert!(ok("web_search not in session.tools"));
        assert!(ok("\"file_read\" in session.tools"));
        assert!(ok("session.flags.beta"));
        assert!(!ok("session.flags.missing"));
        assert!(ok("not session.flags.missing"));
        // and binds tighter than or
        assert!(ok(
            "web_search in session.tools or bash in session.tools and session.flags.beta"
        ));
        assert!(!ok(
            "(web_search in session.tools or bash in session.tools) and not session.flags.beta"
        ));
        assert!(ok("true") && !ok("false"));
    }

    #[test]
    fn errors_name_a_column() {
        for (src, col) in [
            ("file_read in", 13),
            ("file_read in session.tool", 14),
            ("(bash in session.tools", 23),
            ("bash in session.tools and", 26),
            ("session.env.HOME", 1),
            ("rm -rf / ; true", 8),
            ("'open", 1),
            ("", 1),
            ("bash in session.tools extra", 23),
        ] {
            let e = parse(src).expect_err(src);
            assert_eq!(e.column, col, "{src}: {e}");
        }
    }

    #[test]
    fn nesting_and_length_are_bounded() {
        let deep = format!("{}true{}", "(".repeat(100_000), ")".repeat(100_000));
        let e = parse(&deep).unwrap_err();
        assert!(e.message.contains("too long"), "{e}");
        let deep = format!("{}true{}", "(".repeat(65), ")".repeat(65));
        assert!(parse(&deep).unwrap_err().message.contains("64 levels"));
        let ok = format!("{}true{}", "(".repeat(64), ")".repeat(64));
        assert!(parse(&ok).unwrap().eval(&SessionFacts::default()));
        let nots = "not ".repeat(70) + "true";
        assert!(parse(&nots).unwrap_err().message.contains("64 levels"));
        let chain = vec!["true"; 600].join(" and ");
        assert!(parse(&chain).unwrap_err().message.contains("too long"));
    }

    #[test]
    fn explains_what_was_false() {
        let s = facts(&["bash"], &[]);
        let e = parse("code_exec in session.tools and not session.flags.safe_mode").unwrap();
        assert!(!e.eval(&s));
        assert_eq!(
            e.explain_false(&s),
            vec!["'code_exec' is not in session.tools"]
        );
    }
}
