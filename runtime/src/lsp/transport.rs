//! The stdio framing of the Language Server Protocol (`Content-Length` headers, JSON bodies),
//! read so that bad input never ends the server: lsp-server's own stdio reader stops at the
//! first malformed payload, so this one reads the frames itself and hands the main loop
//! either a message or what was wrong with a frame, which the main loop answers with a
//! JSON-RPC error. lsp-server's `Message` types and writer are used as they are.

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, RequestId};
use std::io::{self, BufRead, Read, Write};
use std::thread;

/// A frame's body larger than this is skipped unread (a declaration file is at most
/// `walk::MAX_FILE_BYTES`; a client would not send more than a few of them at once).
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// A header line longer than this is not a header (they are a few dozen bytes).
const MAX_HEADER_BYTES: u64 = 4096;

/// What the reader got from one frame.
#[derive(Debug)]
pub(crate) enum Incoming {
    Message(Message),
    /// A frame that is not a JSON-RPC message; `id` when the body names one.
    Malformed {
        id: Option<RequestId>,
        code: i32,
        error: String,
    },
}

/// What the writer sends: a message, an error reply to a request whose id could not be read
/// (JSON-RPC says `"id": null` then, which lsp-server's types cannot express), or messages made
/// one at a time as they are written.
#[derive(Debug)]
pub(crate) enum Outgoing {
    Message(Message),
    NullIdError { code: i32, message: String },
    Each(Each),
}

/// Messages the writer makes one at a time, each as it gets to it, and writes in turn: a check's
/// findings for tens of thousands of files, made all at once, would all be held at once (as JSON
/// values, several times the size of the findings) until the client had read them.
pub(crate) struct Each(pub(crate) Box<dyn Iterator<Item = Message> + Send>);

impl std::fmt::Debug for Each {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Each(..)")
    }
}

/// JSON-RPC's parse error and invalid request codes.
pub(crate) const PARSE_ERROR: i32 = -32700;
pub(crate) const INVALID_REQUEST: i32 = -32600;

pub(crate) struct Io {
    reader: thread::JoinHandle<()>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl Io {
    /// Waits for the writer to flush what the server sent. The reader is left to end with
    /// stdin: it may be blocked on a read the client never completes.
    pub(crate) fn join(self) -> io::Result<()> {
        drop(self.reader);
        self.writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

/// Reader and writer threads on stdin and stdout.
pub(crate) fn stdio() -> (Sender<Outgoing>, Receiver<Incoming>, Io) {
    threads(|| io::stdin().lock(), || io::stdout().lock())
}

/// Reader and writer threads on the streams `input` and `output` open on them (stdin and
/// stdout, or the pipes of an in-process transcript).
pub(crate) fn threads<I: BufRead, O: Write>(
    input: impl FnOnce() -> I + Send + 'static,
    output: impl FnOnce() -> O + Send + 'static,
) -> (Sender<Outgoing>, Receiver<Incoming>, Io) {
    let (to_client, outgoing) = crossbeam_channel::unbounded::<Outgoing>();
    let writer = thread::Builder::new().name("capc-lsp-writer".into()).spawn(move || {
        let mut out = output();
        for message in outgoing {
            write(&mut out, message)?;
        }
        Ok(())
    });
    let (incoming, from_client) = crossbeam_channel::bounded::<Incoming>(0);
    let reader = thread::Builder::new().name("capc-lsp-reader".into()).spawn(move || {
        let mut input = input();
        while let Some(frame) = read(&mut input) {
            let exit = matches!(&frame, Incoming::Message(Message::Notification(n)) if n.method == "exit");
            if incoming.send(frame).is_err() || exit {
                break;
            }
        }
    });
    // Spawning fails only when the system is out of threads; nothing can be served then.
    let (Ok(reader), Ok(writer)) = (reader, writer) else {
        eprintln!("capc lsp: cannot start the I/O threads");
        std::process::exit(2);
    };
    (to_client, from_client, Io { reader, writer })
}

fn write(out: &mut impl Write, message: Outgoing) -> io::Result<()> {
    match message {
        Outgoing::Message(message) => message.write(out),
        Outgoing::Each(Each(messages)) => messages.into_iter().try_for_each(|message| message.write(out)),
        Outgoing::NullIdError { code, message } => {
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": { "code": code, "message": message },
            })
            .to_string();
            write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
            out.flush()
        }
    }
}

/// The next frame, or `None` at the end of the input (or when it cannot be read at all).
pub(crate) fn read(input: &mut impl BufRead) -> Option<Incoming> {
    loop {
        let length = match headers(input)? {
            Ok(length) => length,
            Err(error) => return Some(Incoming::Malformed { id: None, code: PARSE_ERROR, error }),
        };
        if length > MAX_BODY_BYTES {
            // Skipped, so the next frame is read from its start.
            io::copy(&mut input.take(length as u64), &mut io::sink()).ok()?;
            let error = format!("message of {length} bytes is over the {MAX_BODY_BYTES}-byte limit; ignored");
            return Some(Incoming::Malformed { id: None, code: INVALID_REQUEST, error });
        }
        let mut body = vec![0; length];
        input.read_exact(&mut body).ok()?;
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        return Some(parse(&body));
    }
}

/// The `Content-Length` of the next header block; `Err` for a block without one (the block is
/// consumed, so reading goes on after it).
fn headers(input: &mut impl BufRead) -> Option<Result<usize, String>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut seen_any = false;
    loop {
        let mut line = Vec::new();
        let read = input.by_ref().take(MAX_HEADER_BYTES).read_until(b'\n', &mut line).ok()?;
        if read == 0 {
            return None;
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if seen_any {
                return Some(length.unwrap_or_else(|| Err("header block without Content-Length".to_string())));
            }
            continue;
        }
        seen_any = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(value.trim().parse().map_err(|_| format!("bad Content-Length `{}`", value.trim())));
            }
        }
    }
}

fn parse(body: &[u8]) -> Incoming {
    match serde_json::from_slice::<Message>(body) {
        Ok(message) => Incoming::Message(message),
        Err(e) => match serde_json::from_slice::<serde_json::Value>(body) {
            // Valid JSON, but not a request, response or notification.
            Ok(value) => {
                let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
                Incoming::Malformed { id, code: INVALID_REQUEST, error: format!("not a JSON-RPC message: {e}") }
            }
            Err(e) => Incoming::Malformed { id: None, code: PARSE_ERROR, error: format!("invalid JSON: {e}") },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<Incoming> {
        let mut input = io::Cursor::new(input.as_bytes().to_vec());
        std::iter::from_fn(|| read(&mut input)).collect()
    }

    #[test]
    fn bad_frames_are_reported_and_reading_goes_on() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: 5\r\n\r\n{{oops\
             X-Other: 1\r\n\r\n\
             Content-Length: 18\r\n\r\n{{\"id\":3,\"error\":5}}\
             Content-Length: {}\r\n\r\n{good}",
            good.len()
        );
        let got = frames(&input);
        assert!(matches!(got[0], Incoming::Malformed { code: PARSE_ERROR, id: None, .. }), "{got:?}");
        assert!(matches!(got[1], Incoming::Malformed { code: PARSE_ERROR, .. }), "{got:?}");
        assert!(
            matches!(&got[2], Incoming::Malformed { code: INVALID_REQUEST, id: Some(id), .. } if *id == RequestId::from(3)),
            "{got:?}"
        );
        assert!(matches!(&got[3], Incoming::Message(Message::Notification(n)) if n.method == "initialized"), "{got:?}");
        assert_eq!(got.len(), 4);
    }

    /// Messages made as they are written go out framed and in order, as if each had been sent
    /// on its own, and each is made only once the one before it is written.
    #[test]
    fn messages_made_one_at_a_time_are_written_in_turn() {
        let note = |n: usize| Message::Notification(lsp_server::Notification::new("n".into(), n));
        let made = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let written = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        struct Out(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Out {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().write(buf)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (counter, seen) = (made.clone(), written.clone());
        let messages = (0..3).map(move |n| {
            // The frames of every message before this one are written already.
            let frames = seen.lock().unwrap().windows(15).filter(|w| w == b"Content-Length:").count();
            assert_eq!(frames, n, "message {n} made before the one before it was written");
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            note(n)
        });
        let mut out = Out(written.clone());
        write(&mut out, Outgoing::Each(Each(Box::new(messages)))).unwrap();
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 3);

        let mut one_by_one = Vec::new();
        for n in 0..3 {
            write(&mut one_by_one, Outgoing::Message(note(n))).unwrap();
        }
        assert_eq!(*written.lock().unwrap(), one_by_one);
    }
}
