//! Golden transcripts of `capc lsp`, in process: each `tests/transcripts/lsp/*.txt` (the
//! format is in `rpc.rs`) is replayed against the real server over OS pipes, through
//! `lsp::run_on`, what `capc lsp` runs on stdin and stdout (its framing, main loop and checker
//! thread). No subprocess, no Python. The client's lines are framed with `Content-Length` as
//! they are sent; the server's frames are recorded one per line.
//!
//! The editor's workspace is the tree's scratch copy (`<root>`; a `file://<root>/…` URI names
//! a file in it). Checks run on a thread of their own, so which checks finish before a
//! request arrives is the machine's business; the transcript stays the same because the
//! runner, before each response, writes the last `textDocument/publishDiagnostics` of each
//! file since the previous response (in URI order), and because a transcript asks
//! `textDocument/diagnostic` after each change whose findings it shows: that request waits for
//! the check of the newest text, which publishes first.
//!
//! To accept new output: `CAPC_BLESS=1 cargo test -p capc-runtime --test runtime -- lsp_transcripts::`.

use crate::golden::Goldens;
use crate::rpc::{self, Received, Scratch, Sent, HANG};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc;

/// The client's end of a running server.
struct Client {
    to_server: Option<std::io::PipeWriter>,
    frames: mpsc::Receiver<String>,
    server: std::thread::JoinHandle<std::io::Result<()>>,
    name: String,
}

impl Client {
    fn start(name: &str) -> Client {
        let (server_input, to_server) = std::io::pipe().expect("a pipe");
        let (from_server, server_output) = std::io::pipe().expect("a pipe");
        let server = std::thread::spawn(move || capc_runtime::lsp::run_on(server_input, server_output));
        let (frames_in, frames) = mpsc::channel();
        // Reads frames as they come, so that a server that sends nothing fails at `HANG`.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(from_server);
            while let Some(frame) = read_frame(&mut reader) {
                if frames_in.send(frame).is_err() {
                    return;
                }
            }
        });
        Client { to_server: Some(to_server), frames, server, name: name.to_string() }
    }

    fn send(&mut self, body: &str) {
        let pipe = self.to_server.as_mut().expect("the input is open");
        write!(pipe, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("the server reads");
        pipe.flush().expect("the server reads");
    }

    /// The next frame, or `None` once the server closed its output.
    fn next(&self) -> Option<String> {
        match self.frames.recv_timeout(HANG) {
            Ok(frame) => Some(frame),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("{}: the server sent nothing for {HANG:?}", self.name),
        }
    }

    /// Closes the input and waits for the server to end.
    fn end(mut self) -> Vec<String> {
        self.to_server = None;
        let mut rest = Vec::new();
        while let Some(frame) = self.next() {
            rest.push(frame);
        }
        self.server.join().expect("the server thread ran").expect("the server ended cleanly");
        rest
    }
}

/// One frame's body: headers up to a blank line, then `Content-Length` bytes.
fn read_frame(reader: &mut impl BufRead) -> Option<String> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

/// Frames the server sent before a response, as the transcript writes them: the last
/// diagnostics of each file in URI order, then the other messages in the order they came.
fn settled(frames: Vec<String>) -> Vec<String> {
    let mut diagnostics: BTreeMap<String, String> = BTreeMap::new();
    let mut others = Vec::new();
    for frame in frames {
        let value: serde_json::Value = serde_json::from_str(&frame).unwrap_or_default();
        if value["method"] == "textDocument/publishDiagnostics" {
            diagnostics.insert(value["params"]["uri"].as_str().unwrap_or_default().to_string(), frame);
        } else {
            others.push(frame);
        }
    }
    diagnostics.into_values().chain(others).collect()
}

/// `line` with `<root>` and each `<text:PATH>` filled in.
fn filled(scratch: &Scratch, line: &str) -> String {
    let mut line = scratch.fill(line);
    while let Some(start) = line.find("<text:") {
        let end = start + line[start..].find('>').expect("`<text:PATH>` ends with `>`");
        let path = scratch.root.join(&line[start + "<text:".len()..end]);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        line.replace_range(start..=end, &serde_json::to_string(&text).expect("a JSON string"));
    }
    line
}

/// Replays a transcript; returns it with every `←` line recomputed.
fn replay(name: &str, text: &str) -> String {
    let scratch = Scratch::of(text);
    let mut client = Client::start(name);
    let mut out = String::new();
    let record = |frames: Vec<String>, out: &mut String| {
        for frame in settled(frames) {
            out.push_str(&format!("← {}\n", scratch.shown(&frame)));
        }
    };
    let mut pending: Option<serde_json::Value> = None;
    for line in text.lines() {
        if line.starts_with("← ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        let Some(message) = line.strip_prefix("→ ") else { continue };
        let message = filled(&scratch, message);
        client.send(&message);
        match rpc::sent(&message) {
            Sent::Request(id) => pending = Some(id),
            Sent::Garbage => pending = Some(serde_json::Value::Null),
            Sent::Other => {}
        }
        let Some(id) = pending.clone() else { continue };
        let mut frames = Vec::new();
        while let Some(frame) = client.next() {
            let kind = rpc::received(&frame, &id);
            frames.push(frame);
            match kind {
                Received::Response => {
                    pending = None;
                    break;
                }
                Received::Request => break,
                Received::Other => {}
            }
        }
        record(frames, &mut out);
    }
    record(client.end(), &mut out);
    out
}

#[test]
fn lsp_transcripts_replay_as_recorded() {
    let names = rpc::transcripts("lsp");
    assert!(!names.is_empty(), "no lsp transcripts");
    let mut goldens = Goldens::default();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read transcript");
        let name = path.file_name().expect("a file").to_string_lossy().into_owned();
        goldens.check(&path, &replay(&name, &text));
    }
    goldens.finish();
}

/// The editor shows what `capc check` reports: every finding of the tree, on its file, line and
/// column (the tree is ASCII: bytes and UTF-16 units agree), with its rule, message and help,
/// and nothing else.
#[test]
fn published_diagnostics_are_what_capc_check_reports() {
    let scratch = Scratch::of("# tree: runtime/tests/trees/editor\n");
    let mut client = Client::start("published diagnostics");
    let uri = |path: &str| format!("file://{}/{path}", scratch.root.display());
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"processId": null, "rootUri": uri(""), "capabilities": {}}});
    client.send(&initialize.to_string());
    client.send(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
    // Waits for the check of the workspace, which publishes every file's findings first.
    let pull = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "textDocument/diagnostic",
        "params": {"textDocument": {"uri": uri("CLAUDE.md")}}});
    client.send(&pull.to_string());
    type Findings = BTreeMap<String, Vec<((u64, u64), String, String)>>;
    let mut published = Findings::new();
    while let Some(frame) = client.next() {
        let value: serde_json::Value = serde_json::from_str(&frame).expect("JSON");
        if value["id"] == 1 {
            break;
        }
        if value["method"] != "textDocument/publishDiagnostics" {
            continue;
        }
        let file = value["params"]["uri"].as_str().expect("a URI").replace(&uri(""), "");
        let findings = value["params"]["diagnostics"].as_array().expect("diagnostics").iter().map(|d| {
            let start = &d["range"]["start"];
            let at = (start["line"].as_u64().expect("a line"), start["character"].as_u64().expect("a column"));
            (at, d["code"].as_str().unwrap_or_default().to_string(), d["message"].as_str().expect("text").to_string())
        });
        published.insert(file, findings.collect());
    }
    client.send(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#);
    client.send(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    client.end();

    let checked = capc_compiler::check(&capc_compiler::Options { root: scratch.root.clone(), ..Default::default() })
        .expect("the tree checks");
    let mut reported = Findings::new();
    for d in &checked.diagnostics {
        let text = std::fs::read_to_string(scratch.root.join(&d.path)).expect("the file");
        let before = d.span.map_or("", |s| &text[..s.start]);
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let at = (before.matches('\n').count() as u64, (before.len() - line_start) as u64);
        let message = match &d.help {
            Some(help) => format!("{}\nhelp: {help}", d.message),
            None => d.message.to_string(),
        };
        reported.entry(d.path.clone()).or_default().push((at, d.rule.to_string(), message));
    }
    assert!(!reported.is_empty(), "the tree shows at least one finding");
    for findings in published.values_mut().chain(reported.values_mut()) {
        findings.sort();
    }
    published.retain(|_, findings| !findings.is_empty());
    assert_eq!(published, reported);
}
