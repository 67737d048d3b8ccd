//! The runtime's integration tests, one binary: `properties` (random sessions against the
//! pool's and the grant's invariants) and `transcripts` (golden `capc session` transcripts).
//! The live MCP tests are `runtime/tests/mcp_live.rs`, a libtest-mimic binary of their own.

mod properties;
mod transcripts;
