//! capc-runtime: runs Claude Code sessions turn by turn from `capabilities.lock`.

pub mod listing;
pub mod search;
