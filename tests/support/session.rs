//! Running `capc session` against live MCP servers.

use std::process::{Child, Command, Stdio};

/// A project whose `.mcp.json` declares `servers` (all approved), locked, with `capc session
/// --connect --trust` running on its lock in `mode` (`--json` or `--repl`), stdin and stdout piped.
pub(crate) fn connected_session(servers: serde_json::Value, mode: &str) -> (tempfile::TempDir, Child) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mcp = serde_json::json!({ "mcpServers": servers });
    std::fs::write(dir.path().join(".mcp.json"), mcp.to_string()).expect("write .mcp.json");
    std::fs::create_dir_all(dir.path().join(".claude")).expect("mkdir");
    std::fs::write(dir.path().join(".claude/settings.json"), r#"{"enableAllProjectMcpServers": true}"#)
        .expect("settings");
    let locked = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["lock", dir.path().to_str().expect("utf-8")])
        .output()
        .expect("capc runs");
    assert_eq!(locked.status.code(), Some(0), "{}", String::from_utf8_lossy(&locked.stderr));
    let lock = dir.path().join("capabilities.lock");
    let child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["session", mode, "--connect", "--trust", "--lock", lock.to_str().expect("utf-8")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("capc runs");
    (dir, child)
}
