//! The integration tests, one libtest binary (one link instead of one per file), one module per
//! area; a test is named `module::test` (`cargo test --test it -- lock::` runs one module).
//! The tests built from data or needing outside tools are in `tests/trials`.

#[path = "../support/mod.rs"]
mod support;

mod cache;
mod cli;
mod config;
mod fidelity;
mod fields;
mod figures;
mod fix;
mod formats;
mod instructions;
mod integrations;
mod known_keys;
mod lock;
mod oracle_names;
mod plugin_dir;
mod policy;
mod robustness;
mod runs;
mod schema;
mod security;
mod serve;
mod surface;
mod tidy;
mod verify;
