//! capc-runtime: loads `capabilities.lock` and recomputes per-turn state.
//!
//! Not built yet: the session and MCP issues fill this crate. It is the only crate
//! that will depend on tokio and rmcp.
