//! Golden transcripts of `capc serve`, in process: each `tests/transcripts/serve/*.txt` (the
//! format is in `rpc.rs`) is replayed against the real server over `tokio::io::duplex` pipes,
//! through `serve::stdio::serve_on`, the stdio transport `capc serve` runs on stdin and stdout
//! (its line filter, rmcp's server, the shared session). No subprocess, no MCP SDK.
//!
//! The session is the one `capc lock` then `capc serve` would start in the tree's scratch copy
//! (the lock compiled in memory), untrusted unless the transcript says `# trust` (as
//! `--trust`). `# save: PATH TEXT` (TEXT a JSON string) writes the file in the scratch copy
//! and does what `capc serve --watch` does after a save (`serve::watch::saved`, then
//! `list_changed` for what changed), before the next line is sent.
//!
//! To accept new output: `CAPC_BLESS=1 cargo test -p capc-runtime --test runtime -- serve_transcripts::`.

use crate::golden::Goldens;
use crate::rpc::{self, Received, Scratch, Sent, HANG};
use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::serve::{stdio, watch, Shared};
use capc_runtime::session::Session;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// The session `capc serve` would serve from the tree's lock.
fn session(scratch: &Scratch, trusted: bool) -> Session {
    let options = capc_compiler::Options { root: scratch.root.clone(), ..Default::default() };
    let lock = capc_compiler::check(&options).expect("the tree exists").lock();
    let roots = Roots { root: scratch.root.clone(), ..Roots::default() };
    let mut session = Session::new(Loaded::new(lock, roots));
    session.trusted = trusted;
    session
}

/// The next line the server wrote, or `None` once it ended; a hang fails the test.
async fn next(lines: &mut Lines<BufReader<DuplexStream>>, name: &str) -> Option<String> {
    match tokio::time::timeout(HANG, lines.next_line()).await {
        Ok(line) => line.expect("the pipe reads"),
        Err(_) => panic!("{name}: the server sent nothing for {HANG:?}"),
    }
}

/// Replays a transcript; returns it with every `←` line recomputed.
async fn replay(name: &str, text: &str) -> String {
    let scratch = Scratch::of(text);
    let trusted = text.lines().any(|l| l.trim() == "# trust");
    let shared = Shared::starting(session(&scratch, trusted));
    let (mut client, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, client_input) = tokio::io::duplex(64 * 1024);
    let served = tokio::spawn(stdio::serve_on(shared.clone(), server_input, server_output));
    let mut lines = BufReader::new(client_input).lines();
    let mut current = shared.rederive();
    let mut out = String::new();
    // The request whose response the runner waits for; it outlives an answer to the server.
    let mut pending: Option<serde_json::Value> = None;
    for line in text.lines() {
        if line.starts_with("← ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(save) = line.strip_prefix("# save: ") {
            let (path, content) = save.split_once(' ').expect("`# save: PATH TEXT`");
            let content: String = serde_json::from_str(content).expect("the saved text is a JSON string");
            let file = scratch.root.join(path);
            std::fs::create_dir_all(file.parent().expect("in the tree")).expect("its folder");
            std::fs::write(&file, content).expect("the file is written");
            // `notifications/initialized` is handled on a task of its own: the save waits
            // until the client it announces to is there.
            let connected = async {
                while shared.clients() == 0 {
                    tokio::task::yield_now().await;
                }
            };
            tokio::time::timeout(HANG, connected).await.unwrap_or_else(|_| panic!("{name}: no client connected"));
            let reloaded = shared.clone();
            let mut loaded = current.clone();
            let (changed, loaded) = tokio::task::spawn_blocking(move || {
                let changed = watch::saved(&reloaded, &mut loaded);
                (changed, loaded)
            })
            .await
            .expect("the reload ran");
            current = loaded;
            shared.notify(&changed).await;
            continue;
        }
        let Some(message) = line.strip_prefix("→ ") else { continue };
        let message = scratch.fill(message);
        client.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        match rpc::sent(&message) {
            Sent::Request(id) => pending = Some(id),
            Sent::Garbage => pending = Some(serde_json::Value::Null),
            Sent::Other => {}
        }
        let Some(id) = pending.clone() else { continue };
        while let Some(received) = next(&mut lines, name).await {
            out.push_str(&format!("← {}\n", scratch.shown(&received)));
            match rpc::received(&received, &id) {
                Received::Response => {
                    pending = None;
                    break;
                }
                Received::Request => break,
                Received::Other => {}
            }
        }
    }
    // The end of the input ends the server: what it still sends is recorded.
    drop(client);
    while let Some(received) = next(&mut lines, name).await {
        out.push_str(&format!("← {}\n", scratch.shown(&received)));
    }
    tokio::time::timeout(HANG, served)
        .await
        .unwrap_or_else(|_| panic!("{name}: the server did not end with its input"))
        .expect("the server task ran")
        .unwrap_or_else(|e| panic!("{name}: the server failed: {e}"));
    out
}

#[test]
fn serve_transcripts_replay_as_recorded() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio");
    let names = rpc::transcripts("serve");
    assert!(!names.is_empty(), "no serve transcripts");
    let mut goldens = Goldens::default();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read transcript");
        let name = path.file_name().expect("a file").to_string_lossy().into_owned();
        let replayed = runtime.block_on(replay(&name, &text));
        // A `!` command inside an argument is text, never run: `id` would print `uid=`.
        assert!(!replayed.contains("uid="), "{name}: an argument's `!` command ran");
        goldens.check(&path, &replayed);
    }
    goldens.finish();
}
