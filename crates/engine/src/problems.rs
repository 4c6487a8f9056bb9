//! One list of what is wrong, for every view: errors first, then warnings
//! (the budget's overflows among them), then content that silently breaks
//! caching in a cached layer; each with its file, line and the fragment it
//! is about, resolved to a fragment that exists (the one declared at or
//! before that line of that file).

use serde::Serialize;

use crate::Inspection;
use crate::workspace::diag::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Error,
    Warning,
    /// A cache breaker: a timestamp, id or unordered JSON in a cached layer.
    CacheBreaker,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Error, Kind::Warning, Kind::CacheBreaker];
    /// `error`, `warning`, `cache breaker`.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Warning => "warning",
            Kind::CacheBreaker => "cache breaker",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    pub kind: Kind,
    /// Relative to the workspace ("" for the workspace itself).
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
    /// The fragment it is about, one that exists in the assembly.
    pub fragment: Option<String>,
}

impl Problem {
    /// `file:line`, or the file alone.
    pub fn location(&self) -> String {
        match (self.file.is_empty(), self.line) {
            (true, _) => "workspace".into(),
            (false, Some(l)) => format!("{}:{l}", self.file),
            (false, None) => self.file.clone(),
        }
    }
}

/// Every problem of the inspection, errors first, then warnings, then
/// cache breakers, each group in the order found.
pub fn problems(ins: &Inspection) -> Vec<Problem> {
    problems_with(ins, &mut None)
}

/// What the cache breakers of one prepared session depend on: each
/// fragment's id, status and the length of its kept text (re-assembly
/// changes a text only by trimming it), and which layers are cached.
fn breakers_key(ins: &Inspection) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for f in &ins.assembly.fragments {
        h.update(f.id.as_bytes());
        h.update(&[f.status as u8, f.layer]);
        h.update(&(f.text.len() as u64).to_le_bytes());
    }
    for l in &ins.assembly.layers {
        h.update(&[l.cache as u8]);
    }
    h.digest()
}

/// [`problems`], the cache breakers taken from `cache` while what they
/// depend on is unchanged (a slider moved without changing a fragment's
/// status or kept text): the window calls this at every re-assembly.
pub fn problems_with(ins: &Inspection, cache: &mut Option<(u64, Vec<Problem>)>) -> Vec<Problem> {
    let key = breakers_key(ins);
    let breakers = match cache {
        Some((k, list)) if *k == key => list.clone(),
        _ => {
            let list = breakers(ins);
            *cache = Some((key, list.clone()));
            list
        }
    };
    let mut out: Vec<Problem> = ins
        .diagnostics()
        .into_iter()
        .map(|d| Problem {
            kind: match d.severity {
                Severity::Error => Kind::Error,
                Severity::Warning => Kind::Warning,
            },
            fragment: fragment_at(ins, &d.file, d.line, d.fragment.as_deref()),
            file: d.file,
            line: d.line,
            message: d.message,
        })
        .collect();
    out.extend(breakers);
    // Stable: the order found is kept within each kind.
    out.sort_by_key(|p| p.kind);
    out
}

/// Content that silently breaks caching in a cached layer.
fn breakers(ins: &Inspection) -> Vec<Problem> {
    crate::cache::lint::lint(&ins.assembly, &ins.prepared)
        .into_iter()
        .map(|w| Problem {
            kind: Kind::CacheBreaker,
            fragment: fragment_at(ins, &w.file, Some(w.line), Some(&w.fragment)),
            file: w.file,
            line: Some(w.line),
            message: w.message,
        })
        .collect()
}

/// The fragment a problem at `file:line` is about: the one it names when
/// that fragment comes from that file (none when it names one the file's
/// fragments do not include: it was skipped); a problem naming none, the
/// last fragment of the file declared at or before the line, else the
/// file's first; none when no fragment comes from the file (it could not
/// be read).
pub fn fragment_at(
    ins: &Inspection,
    file: &str,
    line: Option<usize>,
    named: Option<&str>,
) -> Option<String> {
    let mine: Vec<_> = ins
        .assembly
        .fragments
        .iter()
        .filter(|f| f.source == file)
        .collect();
    if let Some(n) = named {
        return mine.iter().find(|f| f.id == n).map(|f| f.id.clone());
    }
    let at = line.unwrap_or(0);
    mine.iter()
        .filter(|f| f.line <= at)
        .max_by_key(|f| f.line)
        .or(mine.first())
        .map(|f| f.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_first_and_a_location_resolves_to_its_own_files_fragment() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let f = dir.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        };
        w("SOUL.md", "# Soul\n");
        // A fragment that reuses SOUL.md's id, at line 1, then a bad key at
        // line 4; a file that cannot be parsed at all.
        w(
            "fragments/bad.yaml",
            "- id: soul\n  layer: 2\n  content: dup\n- id: other\n  layer: 9\n  content: x\n",
        );
        w("fragments/broken.yaml", "- id: b\n  content: [unclosed\n");
        w(
            "fragments/time.yaml",
            "- id: stamp\n  layer: 1\n  content: 'at 2026-11-29T09:30:00Z'\n",
        );
        let table = crate::ModelTable::bundled();
        let counter = crate::TokenCounter::new();
        let ins = crate::inspect(dir.path(), &crate::Options::default(), &table, &counter).unwrap();
        let p = problems(&ins);
        let kinds: Vec<Kind> = p.iter().map(|x| x.kind).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted, "errors, then warnings, then cache breakers");
        assert!(kinds.contains(&Kind::CacheBreaker), "{p:?}");
        // Nothing points at a fragment of another file.
        for x in &p {
            if let Some(f) = &x.fragment {
                let src = &ins
                    .assembly
                    .fragments
                    .iter()
                    .find(|g| &g.id == f)
                    .unwrap()
                    .source;
                assert_eq!(src, &x.file, "{x:?}");
            }
        }
        let broken = p
            .iter()
            .find(|x| x.file == "fragments/broken.yaml")
            .unwrap();
        assert_eq!(
            broken.fragment, None,
            "no fragment came from a file that could not be read"
        );
        assert_eq!(
            fragment_at(&ins, "fragments/time.yaml", Some(3), None).as_deref(),
            Some("stamp")
        );
        // The window's cached breakers give the same list as a fresh one,
        // budget after budget (a dropped fragment's breaker goes, and
        // comes back with it).
        let mut cache = None;
        let mut ins = ins;
        for total in [5000, 40, 5000, 41] {
            let mut b = ins.assembly.budget;
            b.total = total;
            ins.reassemble(&b, false, &counter);
            assert_eq!(
                problems_with(&ins, &mut cache),
                problems(&ins),
                "total {total}"
            );
        }
    }
}
