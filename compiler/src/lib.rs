//! capc-compiler: files → declarations → graph → diagnostics → lock. ARCHITECTURE.md is the
//! map of the whole workspace; this is the crate's own.
//!
//! Map of the crate:
//! - `walk`: the only way declarations are read; a bounded, symlink-safe walk and file reads.
//! - `check`: discovery of roots (marketplaces, plugins, projects, skill collections),
//!   claims of files, parallel reading, cross-file checks.
//! - `json`, `frontmatter`: readers that keep byte spans, into the shared `node` tree.
//! - `schema`: field tables and the one checker of types and unknown fields.
//! - `decl`: a reader per format (Markdown declarations, manifests, MCP, hooks, settings).
//! - `rules`: one file per rule with its docs; `RULES` is the sorted registry.
//! - `runs`: what Claude Code may run from the declarations (`[[run]]`) and the settings
//!   that widen what it may do (`[[setting]]`).
//! - `diagnostic`: diagnostics as data; `report` renders them for people and tools.
//! - `fix`: `check --fix`, the fixes findings carry applied by span.
//! - `printable`: text from a repository escaped for a terminal; `plural`: counted nouns
//!   in human messages.
//! - `config`: capc.toml, found upwards from the checked folder; `suppress`: inline
//!   suppression comments.
//!
//! Nothing here panics on user input, and nothing returns `Err` for a user mistake: those
//! are diagnostics, and every other file is still checked.

pub mod baseline;
pub mod builtins;
pub mod check;
pub(crate) mod compared;
pub mod config;
pub mod decl;
pub mod diagnostic;
pub mod diff;
pub mod fix;
pub mod frontmatter;
pub mod json;
pub mod listed;
pub mod lock;
pub mod model;
pub mod names;
pub mod node;
pub mod plan;
pub mod plural;
pub mod printable;
pub(crate) mod provenance;
pub mod report;
pub mod rules;
pub mod runs;
pub(crate) mod schema;
pub mod secrets;
pub mod span;
pub(crate) mod suppress;
pub mod surface;
pub mod target;
pub mod verify;
pub mod walk;
pub(crate) mod yaml_spans;

pub use check::{check, CheckError, Checked, Options};
pub use diagnostic::{Diagnostic, Severity};
