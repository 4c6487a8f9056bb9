//! The engine: pure, synchronous and deterministic. No UI, no network, no
//! clock. File I/O happens only in `workspace::reader` (the guarded reader)
//! and `workspace::store` (the atomic writer of the app's own files). Every
//! view reaches a workspace through one road: [`inspect`] (or
//! [`Inspection::new`] on a loaded workspace). See ARCHITECTURE.md.

pub mod assembly;
pub mod cache;
pub mod compare;
pub mod error;
mod inspection;
pub mod json_bounds;
pub mod problems;
pub mod request;
#[cfg(test)]
mod test_support;
mod text;
pub mod traffic;
pub mod usage;
pub mod workspace;

pub use assembly::assemble::{Assembly, Status, assemble};
pub use assembly::models::{ModelInfo, ModelTable, Provider};
pub use assembly::tokens::{Encoding, TokenCounter};
pub use inspection::{Inspection, Options, against_request, inspect, load_workspace};
pub use text::{
    Count, clean, duration, edit_distance, elapsed, md_cell, md_code, plural, terminal_safe,
    thousands,
};
pub use usage::{Tokens, Usage};
pub use workspace::Workspace;
pub use workspace::diag::{Diagnostic, Severity};
pub use workspace::settings::Budget;
