//! prompt-inspector: see, tune and test how an LLM agent's layered system
//! prompt is assembled, trimmed and cached.

pub mod cli;
pub mod cli_send;
pub mod engine;
pub mod net;
pub mod ui;
