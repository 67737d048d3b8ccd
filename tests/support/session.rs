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

/// A running session's stdout, read on its own thread as it comes, so a test can wait for what
/// it expects instead of sleeping a fixed time.
pub(crate) struct Transcript {
    bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Transcript {
    /// Takes `child`'s piped stdout.
    pub(crate) fn of(child: &mut Child) -> Self {
        use std::io::Read as _;
        let mut out = child.stdout.take().expect("stdout is piped");
        let bytes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = bytes.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = out.read(&mut buf) {
                into.lock().expect("transcript").extend_from_slice(&buf[..n]);
            }
        });
        Transcript { bytes, reader }
    }

    /// What has arrived so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().expect("transcript")).into_owned()
    }

    /// Calls `ask` (a request to the session) and waits for `done` to hold of what has arrived,
    /// asking again every 200 ms; panics naming `what` after 30 s.
    pub(crate) fn wait_for(&self, what: &str, mut ask: impl FnMut(), done: impl Fn(&str) -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            ask();
            let until = std::time::Instant::now() + std::time::Duration::from_millis(200);
            while std::time::Instant::now() < until {
                if done(&self.text()) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            assert!(std::time::Instant::now() < deadline, "waited 30 s for {what}:\n{}", self.text());
        }
    }

    /// Everything the session wrote, once it has closed its stdout.
    pub(crate) fn finish(self) -> String {
        let Transcript { bytes, reader } = self;
        reader.join().expect("the reader");
        let text = String::from_utf8_lossy(&bytes.lock().expect("transcript")).into_owned();
        text
    }
}

/// Asks a `--json` session for its `status` (ids `settle-N`) until none of its MCP servers is
/// `pending`: connecting takes as long as it takes on a loaded machine.
pub(crate) fn settle(stdin: &mut impl std::io::Write, out: &Transcript) {
    let mut n = 0;
    out.wait_for(
        "every MCP server to connect or fail",
        || {
            n += 1;
            writeln!(stdin, "{{\"id\":\"settle-{n}\",\"type\":\"status\"}}").expect("write");
        },
        |text| {
            let last =
                text.lines().rev().find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok().filter(settling));
            last.and_then(|v| v["result"]["mcp_servers"].as_array().map(|s| s.iter().all(|s| s["status"] != "pending")))
                .unwrap_or(false)
        },
    );
}

/// Whether an answer is to one of `settle`'s requests.
fn settling(answer: &serde_json::Value) -> bool {
    answer["id"].as_str().is_some_and(|id| id.starts_with("settle-"))
}

/// The JSON lines of a `--json` session's transcript, without `settle`'s.
pub(crate) fn answers(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|v| !settling(v))
        .collect()
}

/// Waits up to 10 s for no process whose command line matches `pattern` (`pgrep -f`) to run;
/// fails saying `what` was left, with the processes.
pub(crate) fn none_left(pattern: &str, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let out = Command::new("pgrep").args(["-f", pattern]).output().expect("pgrep runs");
        if out.stdout.is_empty() {
            return;
        }
        assert!(std::time::Instant::now() <= deadline, "{what}: {}", String::from_utf8_lossy(&out.stdout));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
