//! Comparing prompts: snapshots (the assembled result of one session at one
//! moment, saved as versioned JSON) and the diff between any two of them.

pub mod breakpoints;
pub mod diff;
mod diff_lines;
pub mod diff_report;
pub mod snapshot;

#[cfg(test)]
mod diff_tests;
