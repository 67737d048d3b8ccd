//! From declarations to `capabilities.lock`: `decls` (what readers found), `resolve`
//! (the graph of who shadows whom, and the diagnostics of collisions), `model` (the lock's
//! data), `write` (TOML out and back, atomic writes, the stale-lock diff), `secrets`.

pub mod decls;
pub mod emit;
pub mod model;
pub mod read;
pub mod resolve;
pub mod schema;
pub mod secrets;
pub mod view;
pub mod write;
