//! The integration tests, one binary: each file of `tests/` is a module of
//! it (`cargo test --test integration -- MODULE::` runs one file's tests).
//! One binary, not one per file: each linked what it tests of the app (the
//! tokenizers' tables alone are 56 MB; 7–123 MB a binary), and the 31 of
//! them took 1.3 GB of disk and a link each.

mod common;
mod fake;
#[path = "common/procfs.rs"]
mod procfs;
#[path = "common/upstream.rs"]
mod upstream;
#[path = "common/window.rs"]
mod window;

mod agent_settings;
mod agents_gemini;
mod agents_learn;
mod agents_traffic;
mod architecture;
mod attribution;
mod bad_input;
mod builtin;
mod ccusage;
mod claude_nested;
mod claude_rules;
mod claude_sessions;
mod cli_diff;
mod cli_predict;
mod cli_report;
mod consistency;
mod docs_links;
mod first_minutes;
mod fleet;
mod fuzz_parsers;
mod gemini_folder;
mod gemini_subfolder;
mod gui;
mod gui_contrast;
mod gui_keys;
mod gui_load;
mod gui_truth;
mod hardening_agents;
mod hardening_inputs;
mod hardening_net;
mod hardening_proxy;
mod hardening_round3;
mod hardening_round4;
mod hardening_traffic;
mod html_export;
mod lint_precision;
mod llama_exact;
mod llama_server;
mod memory_above;
mod models;
mod opencode_folder;
mod opencode_sessions;
mod otlp;
mod pi_folder;
mod profiles;
mod properties;
mod proxy;
mod release;
mod request_model;
mod run_agent;
mod sdk_clients;
mod send;
mod sessions;
mod traffic;
mod traffic_headers;
mod traffic_streaming;
