//! Assembly: a loaded workspace and a session become layered system blocks
//! under a budget. `prepare` applies the session (conditions, templates,
//! token counts); `assemble` applies the budget (trimming, rendering, exact
//! block counts); `report` renders the result for every view.

pub mod agent_blocks;
pub mod assemble;
pub mod assembled;
pub mod context;
pub mod context_views;
pub mod encoding;
pub mod litellm;
pub mod models;
pub mod prepare;
mod pretoken;
pub mod report;
pub mod results;
mod shared_block;
pub mod template;
pub mod tokens;

#[cfg(test)]
mod assemble_tests;
