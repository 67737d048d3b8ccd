//! `capc lsp`: capc's findings and Claude Code's resolution in the editor, over the Language
//! Server Protocol on stdio.
//!
//! Shaped as rust-analyzer's and ruff's servers are: a main loop (`server`) selects over the
//! client's messages and the checker's results on crossbeam channels; document changes are
//! applied in the order they arrive; every change starts a new *generation*, checked on the
//! checker thread (`analysis`), which skips generations already superseded, and only the
//! newest generation's findings are published. A check reads the open buffers over a cache of
//! texts read from disk (`text`), so an edit re-reads nothing but what changed. `actions`
//! turns `capc check --fix`'s fixes into code actions; `features` answers hover, completion,
//! definition, links and symbols, a module each (what a key means is the text of the compiler's field tables,
//! `decl::fields`), `references` every place a name is declared or named. `transport` frames
//! messages and survives malformed input.

mod actions;
mod analysis;
mod features;
mod references;
mod rules;
mod server;
mod shown;
mod text;
mod transport;

/// Serves one client on stdin and stdout until it sends `exit` or closes the input.
pub fn run_stdio() -> std::io::Result<()> {
    let (out, incoming, io) = transport::stdio();
    server::run(out, incoming);
    io.join()
}

/// Serves one client on `input` and `output` as [`run_stdio`] serves it on stdin and stdout
/// (the same framing, main loop and checker), until it sends `exit` or closes `input`: the
/// in-process transcripts of `runtime/tests/runtime/lsp_transcripts.rs` run it on pipes.
pub fn run_on(
    input: impl std::io::Read + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> std::io::Result<()> {
    let (out, incoming, io) = transport::threads(move || std::io::BufReader::new(input), move || output);
    server::run(out, incoming);
    io.join()
}
