//! A request's positions as the providers' caches count them: the tools,
//! the system blocks, then each entry's (a message's blocks, tools defined
//! in the conversation where they are), labelled as every view names them
//! (`tool 3 (Bash)`, `system block 2`, `message 5 (user) block 2`).

use std::borrow::Cow;

use super::{Entry, Position, Request, Tool};

impl Request {
    /// Its positions in cache order: the tools, the system blocks, then
    /// each entry's (a message's blocks; tools defined in the conversation
    /// where they are), labelled as every view names them.
    pub fn positions(&self) -> Vec<Position<'_>> {
        self.each_position().collect()
    }

    /// [`Request::positions`] one at a time, so that comparing two requests
    /// stops at their first difference without making the rest.
    pub fn each_position(&self) -> impl Iterator<Item = Position<'_>> + '_ {
        let name = |n: &str| crate::text::clean(n, 64);
        let tools = self.tools.iter().enumerate().map(move |(i, t)| Position {
            label: format!("tool {} ({})", i + 1, name(&t.name)),
            text: tool_text(t),
            breakpoint: t.breakpoint.is_some(),
        });
        let system = self.system.iter().enumerate().map(|(i, b)| Position {
            label: format!("system block {}", i + 1),
            text: Cow::Borrowed(&b.text),
            breakpoint: b.breakpoint.is_some(),
        });
        // Tools defined in the conversation are numbered after those
        // before them.
        let mut before = self.tools.len();
        let numbered: Vec<usize> = self
            .entries
            .iter()
            .map(|e| {
                let at = before;
                if let Entry::Tools { tools, .. } = e {
                    before += tools.len();
                }
                at
            })
            .collect();
        let entries = self.entries.iter().zip(numbered).enumerate().flat_map(
            move |(i, (e, first))| -> Box<dyn Iterator<Item = Position<'_>> + '_> {
                match e {
                    Entry::Raw(_) => Box::new(std::iter::empty()),
                    Entry::Tools { tools, .. } => {
                        Box::new(tools.iter().enumerate().map(move |(j, t)| Position {
                            label: format!(
                                "tool {} ({}, additional_tools)",
                                first + j + 1,
                                name(&t.name)
                            ),
                            text: tool_text(t),
                            breakpoint: t.breakpoint.is_some(),
                        }))
                    }
                    Entry::Message(m) => {
                        let role = crate::text::clean(m.role.as_str(), 24);
                        let one = m.blocks.len() == 1;
                        Box::new(m.blocks.iter().enumerate().map(move |(j, b)| Position {
                            label: if one {
                                format!("message {} ({role})", i + 1)
                            } else {
                                format!("message {} ({role}) block {}", i + 1, j + 1)
                            },
                            text: Cow::Borrowed(&b.text),
                            breakpoint: b.breakpoint.is_some(),
                        }))
                    }
                }
            },
        );
        tools.chain(system).chain(entries)
    }
}

/// A tool's text as a cache counts it: its definition's JSON.
fn tool_text(t: &Tool) -> Cow<'_, str> {
    Cow::Owned(t.definition.to_string())
}
