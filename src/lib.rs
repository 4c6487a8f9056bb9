//! prompt-inspector: see, tune and test how an LLM agent's layered system
//! prompt is assembled, trimmed and cached.

pub mod cli;
pub mod engine;
pub mod ui;
