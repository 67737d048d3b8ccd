//! Helpers shared by the test binaries `tests/it` and `tests/trials` (each includes this folder
//! by path; each uses only some of it); `runtime/tests/mcp_live.rs` includes `harness.rs` by
//! path too.
#![allow(dead_code)]

pub(crate) mod harness;
pub(crate) mod session;
