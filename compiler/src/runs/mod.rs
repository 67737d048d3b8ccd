//! What Claude Code may run on this machine from the declarations (`[[run]]`, `capc ls
//! --runs`), and the settings that widen what it may do (`[[setting]]`).
//!
//! Readers declare rows as they read a file (`declared`, `settings`, `frontmatter`): the line
//! of each hook, server and `!` injection another reader declared, the settings helpers and
//! status lines, an agent's own MCP servers and an agent's or skill's frontmatter hooks (which
//! run only while it runs), each with the repository script it runs and that script's hash.
//! `inventory` turns the resolved lock and the rows that reached the session into `[[run]]`:
//! one source per kind (`SOURCES`), each a function of the lock, so a kind the lock records
//! plugs in with one function.
//!
//! What Claude Code asks first (`Gate`): nothing from the folder's own settings,
//! agents, skills or plugins runs before its trust dialog is accepted ("Leaving out the
//! checkout's hooks - workspace trust not accepted", "apiKeyHelper requires workspace
//! trust"); the user's and managed settings' hooks and helpers run in any folder; a status
//! line runs only in a trusted folder, whoever declares it; a `.mcp.json` server also waits
//! for its approval dialog unless settings approve it; a `!` injection passes the Bash
//! permission check. `-p` shows no trust dialog: there, everything the folder declares runs.
//!
//! The steps, a file each: `declare.rs` the rows readers declare (helpers, status lines, the
//! widening settings, frontmatter hooks and servers); `scripts.rs` the repository script a
//! command line runs; `inventory.rs` the `[[run]]` rows of a resolved lock, a source per kind;
//! `widening.rs` how a setting widens what runs (permission modes, redirecting `env`, the
//! sandbox's keys). Tests in `tests.rs`.

mod declare;
mod inventory;
mod scripts;
mod widening;

pub use declare::{declared, frontmatter, settings, At, Helper, TURN_KEYS};
pub(crate) use declare::{helper_command, HELPERS};
pub use inventory::{inventory, Source};
pub(crate) use scripts::{script_path, script_word};
pub use widening::redirects;
pub(crate) use widening::{effective, mode_rank, Loosens, SANDBOX};

#[cfg(test)]
mod tests;
