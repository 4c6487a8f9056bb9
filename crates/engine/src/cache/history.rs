//! The message builder: what of a conversation is sent with each request.
//! Tail truncation to `max_messages` (seed 000), micro-compaction of old tool
//! results (seed 002) and the auto-compaction threshold.

use serde::Serialize;

use crate::workspace::session::{Block, Message, Role};
use crate::workspace::settings::HistorySettings;

/// What replaces an old tool result (as Claude Code's micro-compaction does).
pub const CLEARED: &str = "[Old tool result content cleared]";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BuiltHistory {
    pub messages: Vec<Message>,
    /// Messages of the conversation left out by tail truncation.
    pub truncated: usize,
    /// Indices (in `messages`) of tool results replaced by the placeholder.
    pub compacted: Vec<usize>,
    pub notes: Vec<String>,
}

/// Builds the history sent with a request from the conversation so far.
pub fn build(conversation: &[Message], s: &HistorySettings) -> BuiltHistory {
    let mut notes = Vec::new();
    let mut start = conversation.len().saturating_sub(s.max_messages.max(1));
    // The API wants a user message first, and a tool result needs its tool use:
    // move the cut forward to a user message that is not a tool result.
    while start > 0
        && start < conversation.len()
        && (conversation[start].role != Role::User || conversation[start].is_tool_result())
    {
        start += 1;
    }
    if start >= conversation.len() && !conversation.is_empty() {
        start = conversation.len() - 1;
    }
    if start > 0 {
        notes.push(format!(
            "history truncated to the last {} of {} messages (max_messages {})",
            conversation.len() - start,
            conversation.len(),
            s.max_messages
        ));
    }
    let mut messages: Vec<Message> = conversation[start..].to_vec();
    // Micro-compaction: keep the most recent `keep_recent` tool results.
    let result_positions: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_tool_result())
        .map(|(i, _)| i)
        .collect();
    let old = result_positions.len().saturating_sub(s.keep_recent);
    let mut compacted = Vec::new();
    for &i in &result_positions[..old] {
        let mut changed = false;
        for b in &mut messages[i].content {
            if let Block::ToolResult { content, .. } = b
                && content.chars().count() > s.compact_min_chars
            {
                *content = CLEARED.to_string();
                changed = true;
            }
        }
        if changed {
            compacted.push(i);
        }
    }
    if !compacted.is_empty() {
        notes.push(format!(
            "{} micro-compacted (the {} most recent kept whole)",
            crate::plural(compacted.len(), "old tool result"),
            s.keep_recent
        ));
    }
    BuiltHistory {
        messages,
        truncated: start,
        compacted,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::session::Message;

    fn result(id: &str, len: usize) -> Message {
        Message {
            role: Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: id.into(),
                content: "x".repeat(len),
            }],
        }
    }

    fn call(id: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![Block::ToolUse {
                id: id.into(),
                name: "bash".into(),
                input: serde_json::json!({}),
            }],
        }
    }

    #[test]
    fn tail_truncation_keeps_last_messages_starting_with_user_text() {
        let conv: Vec<Message> = (0..10usize)
            .map(|i| {
                Message::text(
                    if i.is_multiple_of(2) {
                        Role::User
                    } else {
                        Role::Assistant
                    },
                    &format!("m{i}"),
                )
            })
            .collect();
        let s = HistorySettings {
            max_messages: 4,
            ..HistorySettings::default()
        };
        let h = build(&conv, &s);
        assert_eq!(h.messages.len(), 4);
        assert_eq!(h.messages[0].flat_text(), "m6");
        assert_eq!(h.truncated, 6);
        // A cut that would start on an assistant message moves forward.
        let s = HistorySettings {
            max_messages: 5,
            ..HistorySettings::default()
        };
        let h = build(&conv, &s);
        assert_eq!(h.messages[0].role, Role::User);
        assert_eq!(h.messages.len(), 4);
        // A cut never starts on an orphan tool result.
        let conv = vec![
            Message::text(Role::User, "u"),
            call("a"),
            result("a", 5),
            Message::text(Role::User, "next"),
        ];
        let h = build(
            &conv,
            &HistorySettings {
                max_messages: 2,
                ..HistorySettings::default()
            },
        );
        assert_eq!(h.messages.len(), 1);
        assert_eq!(h.messages[0].flat_text(), "next");
    }

    #[test]
    fn micro_compaction_keeps_recent_and_short_results() {
        let mut conv = vec![Message::text(Role::User, "go")];
        for (i, len) in [500, 50, 500, 500, 500].iter().enumerate() {
            conv.push(call(&format!("t{i}")));
            conv.push(result(&format!("t{i}"), *len));
        }
        let s = HistorySettings {
            keep_recent: 2,
            ..HistorySettings::default()
        };
        let h = build(&conv, &s);
        let contents: Vec<String> = h
            .messages
            .iter()
            .filter(|m| m.is_tool_result())
            .map(|m| m.flat_text())
            .collect();
        assert_eq!(contents[0], format!("[tool_result] {CLEARED}"));
        assert_eq!(
            contents[1].len(),
            "[tool_result] ".len() + 50,
            "short results stay"
        );
        assert_eq!(contents[2], format!("[tool_result] {CLEARED}"));
        assert!(contents[3].ends_with(&"x".repeat(500)) && contents[4].ends_with(&"x".repeat(500)));
        assert_eq!(h.compacted.len(), 2);
    }
}
