//! A profile's strings expanded once per file (its file heading, missing
//! marker, cut marker, memory note), bounded: one expansion is cut at
//! [`MAX_EXPANSION_BYTES`], and all of a profile's expansions in one
//! assembly at [`MAX_PROFILE_OUTPUT_BYTES`], past which the rest is left
//! out. The first cut is one diagnostic naming the profile.

pub use crate::text::{MAX_EXPANSION_BYTES, expand_capped};
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;

/// Most bytes all of a profile's per-file expansions may produce in one
/// assembly.
pub const MAX_PROFILE_OUTPUT_BYTES: usize = 1024 * 1024;

/// Expands one profile's strings for one assembly, within its budget.
pub struct Expander<'p> {
    profile: &'p Profile,
    left: usize,
    max_one: usize,
    max_total: usize,
    /// The assembly's limit was reached (reported, the rest left out).
    spent: bool,
    diag: Option<Diagnostic>,
}

impl<'p> Expander<'p> {
    pub fn new(profile: &'p Profile) -> Self {
        Self::with_limits(profile, MAX_EXPANSION_BYTES, MAX_PROFILE_OUTPUT_BYTES)
    }

    pub fn with_limits(profile: &'p Profile, max_one: usize, max_total: usize) -> Self {
        Expander {
            profile,
            left: max_total,
            max_one,
            max_total,
            spent: false,
            diag: None,
        }
    }

    /// `{name}` placeholders of `template` replaced by `vars` in one pass
    /// (a value is never expanded again; an unknown placeholder stays
    /// verbatim), cut at the limits; `field` names the profile's field in
    /// the diagnostic.
    pub fn expand(&mut self, field: &str, template: &str, vars: &[(&str, &str)]) -> String {
        let spent = self.left < self.max_one;
        let (text, cut) = expand_capped(template, vars, self.max_one.min(self.left));
        self.left -= text.len();
        if cut && !self.spent {
            let why = if spent || self.left == 0 {
                self.spent = true;
                format!(
                    "the text its headings and markers produce reached the {} limit of one assembly at its {field}; the rest is left out",
                    size(self.max_total)
                )
            } else {
                format!(
                    "its {field} expanded past the {} limit for one file and was cut there",
                    size(self.max_one)
                )
            };
            match &mut self.diag {
                // One diagnostic: a later limit is added to the first.
                Some(d) if self.spent => d.message += &format!("; then {why}"),
                Some(_) => {}
                None => self.diag = Some(self.diagnostic(&why)),
            }
        }
        text
    }

    /// On the profile's file (where the fix is), naming the profile.
    fn diagnostic(&self, why: &str) -> Diagnostic {
        let p = self.profile;
        let file = if p.origin.is_empty() {
            &p.name
        } else {
            &p.origin
        };
        Diagnostic::warning(file.as_str(), None, format!("profile '{}': {why}", p.name))
    }

    /// The heading of one file: the profile's `file_heading` (default
    /// `## {name}`) with `{path}` (absolute), `{name}` and `{kind}`.
    pub fn heading(&mut self, root: &str, name: &str, kind: &str) -> String {
        let p = self.profile;
        let template = p.file_heading.as_deref().unwrap_or("## {name}");
        let path = format!("{root}/{name}");
        self.expand(
            "file_heading",
            template,
            &[("path", &path), ("name", name), ("kind", kind)],
        )
    }

    /// Hands the diagnostic of the first cut, if any, to `diags`.
    pub fn finish(self, diags: &mut Vec<Diagnostic>) {
        diags.extend(self.diag);
    }
}

/// `64 KiB`, `1 MiB`, `100 bytes`.
fn size(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_replaced_once_and_cut() {
        let vars = [("path", "/w/{name}"), ("name", "A.md")];
        let (t, cut) = expand_capped("{path} {name} {other} {", &vars, 100);
        assert_eq!((t.as_str(), cut), ("/w/{name} A.md {other} {", false));
        let (t, cut) = expand_capped(&"{path}".repeat(1000), &[("path", "界界")], 10);
        assert_eq!((t.as_str(), cut), ("界界界", true));
    }

    #[test]
    fn one_diagnostic_when_the_assembly_budget_is_spent() {
        let p = Profile {
            name: "big".into(),
            file_heading: Some("{path}{path}".into()),
            ..Profile::default()
        };
        let mut ex = Expander::with_limits(&p, 100, 250);
        let a = ex.heading("/root", "a.md", "");
        assert_eq!(a, "/root/a.md/root/a.md");
        let long = "x".repeat(60);
        assert_eq!(ex.heading("/r", &long, "").len(), 100);
        for _ in 0..10 {
            ex.heading("/r", &long, "");
        }
        assert_eq!(ex.left, 0);
        assert_eq!(ex.heading("/r", "b.md", ""), "");
        let mut d = Vec::new();
        ex.finish(&mut d);
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("profile 'big'"), "{:?}", d[0]);
        assert!(d[0].message.contains("file_heading"), "{:?}", d[0]);
        assert!(d[0].message.contains("limit of one assembly"), "{:?}", d[0]);
    }
}
