//! The runtime's integration tests, one binary: `properties` (random sessions against the
//! pool's and the grant's invariants) and `transcripts` (golden `capc session` transcripts).
//! The live MCP tests are `runtime/tests/mcp_live.rs`, a libtest-mimic binary of their own.

// The root's golden-file helper; the runtime compares files, not trees.
#[path = "../../../tests/support/golden.rs"]
#[allow(dead_code)]
mod golden;

mod properties;
mod transcripts;
