//! A generated workspace (shared by the tests and the benchmarks): many
//! fragments of deterministic mixed Chinese and English text, with
//! summaries and truncation, under a budget that trims.
#![allow(dead_code)]

use std::path::Path;

/// Deterministic mixed Chinese/English text of about `bytes` bytes.
pub fn mixed_text(bytes: usize, seed: u64) -> String {
    let en = [
        "the",
        "prompt",
        "cache",
        "layer",
        "budget",
        "fragment",
        "token",
        "agent",
        "tool",
        "memory",
        "session",
        "breakpoint",
        "assemble",
        "trim",
        "summary",
        "report",
    ];
    let zh = [
        "系统提示词",
        "动态构造",
        "缓存命中",
        "预算",
        "片段",
        "裁剪",
        "记忆摘要",
        "工具描述",
        "会话",
        "分层",
        "优先级",
        "构造报告",
    ];
    let mut s = String::with_capacity(bytes + 64);
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    while s.len() < bytes {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        if r.is_multiple_of(3) {
            s.push_str(zh[r % zh.len()]);
            s.push(if r.is_multiple_of(7) { '。' } else { '，' });
        } else {
            s.push_str(en[r % en.len()]);
            s.push(if r.is_multiple_of(11) { '.' } else { ' ' });
        }
        if r.is_multiple_of(41) {
            s.push('\n');
        }
    }
    s
}

/// Writes a workspace of `n` fragments with about `tokens_each` tokens.
pub fn generate_workspace(dir: &Path, n: usize, tokens_each: usize) {
    std::fs::create_dir_all(dir.join("fragments")).unwrap();
    let mut yaml = String::new();
    for i in 0..n {
        let layer = match i % 20 {
            0 => 1,
            1 => 2,
            2..=11 => 3,
            _ => 4,
        };
        let body = mixed_text(tokens_each * 9 / 2, i as u64).replace('\n', " ");
        yaml += &format!(
            "- id: frag.{i:04}\n  layer: {layer}\n  priority: {}\n  content: \"{body}\"\n",
            (i * 37) % 100
        );
        if i.is_multiple_of(3) {
            yaml += &format!("  summary: \"summary of fragment {i}\"\n");
        }
        if i.is_multiple_of(4) {
            yaml += "  truncate: true\n";
        }
    }
    std::fs::write(dir.join("fragments/generated.yaml"), yaml).unwrap();
    std::fs::write(
        dir.join("workspace.yaml"),
        "budget: {total: 200000, fixed: {1: 60000, 2: 60000}, layer3_ratio: 0.5}\n",
    )
    .unwrap();
}
