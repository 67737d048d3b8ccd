//! From declarations (`crate::model::Decl`) to `capabilities.lock` (`crate::model::Lock`):
//! `resolve` (the graph of who shadows whom, and the diagnostics of collisions), `emit` and
//! `write` (TOML out, atomic writes, the stale-lock diff), `read` (TOML back), `paths` (where a lock's paths may point), `view`
//! (`ls`, `explain`, `graph`), `schema`.

pub(crate) mod emit;
pub mod paths;
pub mod plugins;
mod range;
pub mod read;
pub mod resolve;
pub mod schema;
pub mod view;
pub mod write;
