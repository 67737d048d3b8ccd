//! `capc serve` as the tests start it, over HTTP (on a free loopback port) or stdio; killed and
//! waited for when dropped, so a failing test leaves no server behind.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A running `capc serve --http`, killed and waited for when dropped.
pub(crate) struct Serving(pub(crate) Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `capc serve ROOT --http 127.0.0.1:0 EXTRA…` with `envs`: the server, and the URL it listens
/// on (`http://127.0.0.1:PORT/mcp`), read from its stderr, which is drained afterwards so the
/// server never blocks on it.
pub(crate) fn http(root: &Path, extra: &[&str], envs: &[(&str, &str)]) -> (Serving, String) {
    let mut server = Serving(
        Command::new(env!("CARGO_BIN_EXE_capc"))
            .arg("serve")
            .arg(root)
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("capc serve --http"),
    );
    let mut stderr = BufReader::new(server.0.stderr.take().expect("stderr"));
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "capc serve --http ended before listening");
        if let Some(url) = line.trim().strip_prefix("capc: serving MCP on ") {
            let url = url.to_string();
            std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
            return (server, url);
        }
    }
}

/// `capc ARGS` (`serve …`) in a folder, spoken to over stdio as an MCP client speaks: started,
/// initialized, then one request at a time; killed and waited for when dropped.
pub(crate) struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
    id: u64,
    /// How long an answer may take before the test fails as hung.
    wait: Duration,
    /// The answer to `initialize`.
    pub(crate) initialized: serde_json::Value,
}

impl StdioServer {
    /// Starts `capc ARGS` in `root` and initializes it (`initialize`, then
    /// `notifications/initialized`); each answer may take up to `wait`.
    pub(crate) fn start(root: &Path, args: &[&str], wait: Duration) -> StdioServer {
        StdioServer::start_with(root, args, wait, &[])
    }

    /// [`StdioServer::start`] with `env` added to (or, for an empty value, removed from) the
    /// environment.
    pub(crate) fn start_with(root: &Path, args: &[&str], wait: Duration, env: &[(&str, &str)]) -> StdioServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_capc"));
        for (name, value) in env {
            match value.is_empty() {
                true => command.env_remove(name),
                false => command.env(name, value),
            };
        }
        let mut child = command
            .args(args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("capc serve");
        let stdin = child.stdin.take().expect("stdin");
        let out = child.stdout.take().expect("stdout");
        let (send, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let mut server =
            StdioServer { child, stdin: Some(stdin), replies, id: 0, wait, initialized: serde_json::Value::Null };
        let params = serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}});
        server.initialized = server.request("initialize", params);
        server.write(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn write(&mut self, message: &serde_json::Value) {
        writeln!(self.stdin.as_mut().expect("stdin open"), "{message}").expect("write");
    }

    /// The answer to one request (its `result` or its `error`).
    pub(crate) fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.id += 1;
        self.write(&serde_json::json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}));
        loop {
            let line = self.replies.recv_timeout(self.wait).expect("an answer");
            let reply: serde_json::Value = serde_json::from_str(&line).expect("JSON");
            if reply["id"] == self.id {
                return reply;
            }
        }
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the server's input, as a client that leaves does, and waits for it to end.
    pub(crate) fn end(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("capc ends")
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
