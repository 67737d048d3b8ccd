//! `capc serve --http` as the tests start it: on a free loopback port, killed and waited for
//! when dropped, so a failing test leaves no server behind.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

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
