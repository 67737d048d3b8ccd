//! capc-runtime: runs Claude Code sessions turn by turn from `capabilities.lock`.
//!
//! The lock fixes what exists; the runtime redoes only what changes per turn. Map:
//! - `loaded`: the lock, its parsed permission rules, lazy prompt bodies checked against
//!   the lock's SHA-256, and `verify` (re-hash every source).
//! - `turn`: the per-turn view, recomputed from scratch, and `TurnContext`, what besides the
//!   lock and the MCP state changes Claude Code's answer.
//! - `permissions`: a turn's permission rules (the lock's, filtered by trust; command-line,
//!   session and skill rules), assembled and decided in one place.
//! - `pool`: the tool pool as Claude Code sends it (built-ins per context, deferral,
//!   ToolSearch, the placeholder); `collate`: its `localeCompare` order.
//! - `listing`: the Skill listing (entries, lines, budget) and the Skill tool's decision;
//!   `agents`: the agent listing.
//! - `request`: what a turn sends (the shape `tests/oracle` records), slash-command blocks, the
//!   unknown-command reminder.
//! - `search`: ToolSearch (`select:` and keyword scoring).
//! - `mcp`: the MCP servers' state, changed only by explicit updates.
//! - `batch`: updates within a 16 ms window applied as one state change (for connections).
//! - `launch`: a lock entry made ready to start (`${VAR}` expanded at run time, hashed
//!   secrets and legacy transports refused), a stderr tail for failure reports, and what the
//!   binary has done before the first process of the user's starts.
//! - `connect`: a stdio server over rmcp, its listing kept live as updates to the batcher.
//! - `session`: slash input, prompt expansion, the Skill tool, and the one thing that
//!   outlives a turn on purpose: a skill turn's grant.
//! - `shell`: `!` injections, decided by `capc_grammar::decide_bash` and run in process
//!   groups of their own, with a timeout and an output cap.
//! - `outcome`: what a turn, the Skill tool and an MCP tool call come to, as types.
//! - `protocol`: the newline-delimited JSON of `capc session`, its request and response types
//!   and their JSON Schema.
//! - `serve`: `capc serve`, the session's prompts, Skill tool and skill files over MCP (stdio
//!   or Streamable HTTP), reloaded live with `--watch`.
//! - `lsp`: `capc lsp`, the language server: findings, fixes, hover, completion and
//!   navigation in the editor, from checks of the workspace with its unsaved buffers.

pub mod agents;
pub mod batch;
pub mod budget;
pub mod collate;
pub mod commands;
pub mod connect;
pub(crate) mod context;
pub mod cost;
pub mod launch;
pub mod listing;
pub mod loaded;
pub mod lsp;
pub mod mcp;
pub(crate) mod mentions;
pub(crate) mod outcome;
pub mod permissions;
pub mod pool;
pub mod protocol;
pub mod repl;
pub(crate) mod request;
pub(crate) mod search;
pub mod serve;
pub mod session;
pub(crate) mod shell;
pub(crate) mod text;
pub mod trust;
pub mod turn;
