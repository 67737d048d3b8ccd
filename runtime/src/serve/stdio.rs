//! `capc serve` over stdio, with a line filter in front of rmcp: rmcp's stdio transport drops a
//! line that is not JSON, or is longer than its cap, without a word, so the client waits for an
//! answer that never comes. The filter reads stdin line by line (never holding more than
//! [`MAX_MESSAGE_BYTES`] of one line), answers such a line itself with a JSON-RPC parse error
//! (`-32700`, id `null`), and a request whose parameters rmcp cannot read with "invalid params"
//! (`super::params`), skips blank lines, and passes every other line on to rmcp. One writer
//! puts rmcp's lines and the filter's answers on stdout, each line whole.

use super::{Server, Shared, MAX_MESSAGE_BYTES};
use rmcp::ServiceExt;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// How much of a pipe sits between the filter, rmcp and the writer.
const PIPE_BYTES: usize = 64 * 1024;

/// The JSON-RPC code for input that is not JSON.
pub(crate) const PARSE_ERROR: i32 = -32700;

/// The deepest nesting of arrays and objects rmcp reads (serde_json refuses a 128th level): a
/// deeper message is dropped by rmcp without an answer, so the filter answers it.
pub const MAX_DEPTH: usize = 127;

/// How deeply `json`'s arrays and objects nest, counted outside strings (stops counting past
/// `MAX_DEPTH + 1`).
fn depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in json {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if deepest > MAX_DEPTH {
                    return deepest;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Serves `shared` on stdin and stdout until stdin closes.
pub async fn serve(shared: Arc<Shared>) -> std::io::Result<()> {
    serve_on(shared, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `shared` on `input` and `output` as on stdin and stdout, until `input` ends: the
/// stdio transport whole, line filter included, over any byte streams (the in-process
/// transcripts of `runtime/tests/runtime/serve_transcripts.rs` give it `tokio::io::duplex` pipes).
pub async fn serve_on(
    shared: Arc<Shared>,
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (lines, out) = mpsc::unbounded_channel();
    tokio::spawn(filter(input, to_rmcp, lines.clone()));
    tokio::spawn(relay(from_rmcp, lines));
    let writer = tokio::spawn(write(out, output));
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(rmcp_in, rmcp_out)
        .with_max_line_length(MAX_MESSAGE_BYTES);
    let running = Server { shared }.serve(transport).await.map_err(std::io::Error::other)?;
    let ended = running.waiting().await.map_err(std::io::Error::other);
    // rmcp's end of the pipe is closed now: the writer ends once the last lines are out.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
    ended.map(|_| ())
}

/// What the filter does with one line.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Pass,
    Skip,
    /// The line to answer with.
    Answer(String),
}

fn parse_error(message: &str) -> Verdict {
    let error = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": PARSE_ERROR, "message": message}});
    Verdict::Answer(error.to_string())
}

/// A line's fate: `over` says it was longer than the cap (and was not kept).
fn judge(line: &[u8], over: bool) -> Verdict {
    if over {
        return parse_error(&format!(
            "Parse error: a message is at most {MAX_MESSAGE_BYTES} bytes; this one was not read"
        ));
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    // Too deep a line is not read as a value (serde_json refuses a 128th level, as rmcp does):
    // only whether it is JSON at all, for which error to give.
    if depth(line) > MAX_DEPTH {
        return match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
            Ok(_) => parse_error(&format!(
                "Parse error: the message nests arrays and objects more than {MAX_DEPTH} levels deep"
            )),
            Err(e) => parse_error(&format!("Parse error: {e}")),
        };
    }
    match serde_json::from_slice::<serde_json::Value>(line) {
        Ok(message) => super::params::invalid(&message).map_or(Verdict::Pass, Verdict::Answer),
        // JSON a value cannot hold (a lone surrogate) is rmcp's to refuse.
        Err(_) => match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
            Ok(_) => Verdict::Pass,
            Err(e) => parse_error(&format!("Parse error: {e}")),
        },
    }
}

/// Reads `input` a line at a time into rmcp's pipe, answering the lines rmcp would drop.
async fn filter(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    out: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut reader = BufReader::with_capacity(PIPE_BYTES, input);
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let (used, complete) = {
            let Ok(buf) = reader.fill_buf().await else { break };
            if buf.is_empty() {
                break;
            }
            let end = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..end.unwrap_or(buf.len())];
            if !over && line.len() + chunk.len() > MAX_MESSAGE_BYTES {
                // The rest of the line is read and thrown away.
                over = true;
                line = Vec::new();
            }
            if !over {
                line.extend_from_slice(chunk);
            }
            (end.map_or(buf.len(), |i| i + 1), end.is_some())
        };
        reader.consume(used);
        if complete && !take(&mut line, &mut over, &mut to_rmcp, &out).await {
            return;
        }
    }
    // The last line, without its newline.
    if !line.is_empty() || over {
        take(&mut line, &mut over, &mut to_rmcp, &out).await;
    }
}

/// Passes on or answers one whole line; `false` once rmcp no longer reads.
async fn take(
    line: &mut Vec<u8>,
    over: &mut bool,
    to_rmcp: &mut (impl AsyncWrite + Unpin),
    out: &mpsc::UnboundedSender<Vec<u8>>,
) -> bool {
    let verdict = judge(line, *over);
    let mut open = true;
    match verdict {
        Verdict::Pass => {
            line.push(b'\n');
            open = to_rmcp.write_all(line).await.is_ok();
        }
        Verdict::Skip => {}
        Verdict::Answer(text) => {
            let _ = out.send(format!("{text}\n").into_bytes());
        }
    }
    line.clear();
    *over = false;
    open
}

/// rmcp's output, a whole line at a time, to the writer.
async fn relay(from_rmcp: impl AsyncRead + Unpin, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut reader = BufReader::with_capacity(PIPE_BYTES, from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if out.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes each line as it comes; ends when the filter and rmcp are both done.
async fn write(mut lines: mpsc::UnboundedReceiver<Vec<u8>>, mut output: impl AsyncWrite + Unpin) {
    while let Some(line) = lines.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_rmcp_would_drop_are_answered() {
        assert_eq!(judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, false), Verdict::Pass);
        assert_eq!(judge(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r", false), Verdict::Pass);
        assert_eq!(judge(b"   ", false), Verdict::Skip);
        let Verdict::Answer(text) = judge(b"{this is not json", false) else { panic!("answered") };
        let error: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(error["error"]["code"], PARSE_ERROR);
        assert_eq!(error["id"], serde_json::Value::Null);
        assert!(matches!(judge(b"", true), Verdict::Answer(t) if t.contains("at most")));
        assert!(matches!(judge(&[0xff, 0xfe], false), Verdict::Answer(_)), "not UTF-8");
        let nested = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n - 1), "]".repeat(n - 1)).into_bytes();
        assert_eq!(judge(&nested(MAX_DEPTH), false), Verdict::Pass);
        assert!(matches!(judge(&nested(MAX_DEPTH + 1), false), Verdict::Answer(t) if t.contains("127 levels")));
        assert_eq!(judge(format!("{{\"x\":\"{}\"}}", "[".repeat(500)).as_bytes(), false), Verdict::Pass, "in a string");
    }
}
