//! The runtime's integration tests, one binary: `properties` (random sessions against the
//! pool's and the grant's invariants), `transcripts` (golden `capc session` transcripts) and
//! `serve_transcripts`, `lsp_transcripts` (golden JSON-RPC transcripts of `capc serve` and
//! `capc lsp`, in process; their format is `rpc`'s).
//! The live MCP tests are `runtime/tests/mcp_live.rs`, a libtest-mimic binary of their own.

// The root's golden-file helper; the runtime compares files, not trees.
#[path = "../../../tests/support/golden.rs"]
#[allow(dead_code)]
mod golden;

mod lsp_transcripts;
mod properties;
mod rpc;
mod serve_transcripts;
mod transcripts;
