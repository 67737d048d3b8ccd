//! What the JSON-RPC transcripts of `capc serve` (`serve_transcripts`) and `capc lsp`
//! (`lsp_transcripts`) share: their file format, the scratch copy of the tree they run on, and
//! how a message the server sent is written down.
//!
//! A transcript is `runtime/tests/transcripts/<server>/<feature>.txt`:
//!
//! - `# ` lines are comments, kept as they are; `# tree: PATH` (relative to the repository)
//!   names the tree, copied to a scratch folder first, so a transcript may change its files;
//! - `→ ` lines are what the client sends, one JSON-RPC message each, as written (`<root>`
//!   stands for the scratch copy's absolute path; in LSP transcripts `<text:PATH>` for the
//!   JSON string of that file's text);
//! - `← ` lines are what the server sent, recorded by the runner: after a `→` request, every
//!   message up to its response (or up to a request of the server's own, which the next `→`
//!   line answers); after the last line, everything the server sends until it ends. Each is
//!   one line of JSON with sorted keys, the scratch path written `<root>` and capc's version
//!   `<version>`.
//!
//! Blessing (`CAPC_BLESS=1`) rewrites the `←` lines; every other line is the transcript's own.

use std::path::{Path, PathBuf};

/// The longest a transcript waits for one message: only a bound on a hang, never a measure.
pub(crate) const HANG: std::time::Duration = std::time::Duration::from_secs(120);

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("runtime/ sits in the repository").to_path_buf()
}

/// The transcripts of `runtime/tests/transcripts/<server>/`, in name order.
pub(crate) fn transcripts(server: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts").join(server);
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    names.sort();
    names
}

/// A scratch copy of the tree a transcript names (`# tree: PATH`), and its absolute path.
pub(crate) struct Scratch {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

impl Scratch {
    pub(crate) fn of(text: &str) -> Scratch {
        let tree = text
            .lines()
            .find_map(|l| l.strip_prefix("# tree: "))
            .map(|t| repo().join(t.trim()))
            .expect("a transcript names its tree with `# tree: PATH`");
        let dir = tempfile::tempdir().expect("a scratch folder");
        // Canonical, as a server that resolves paths would show it.
        let root = dir.path().canonicalize().expect("the scratch folder").join("tree");
        copy(&tree, &root);
        Scratch { _dir: dir, root }
    }

    /// `line` with `<root>` replaced by the scratch path.
    pub(crate) fn fill(&self, line: &str) -> String {
        line.replace("<root>", &self.root.to_string_lossy())
    }

    /// A message the server sent, as the transcript records it: JSON with sorted keys, the
    /// scratch path `<root>` (also as `~/…` when it lies in the home folder), capc's version
    /// `<version>`.
    pub(crate) fn shown(&self, message: &str) -> String {
        let mut value: serde_json::Value = match serde_json::from_str(message) {
            Ok(value) => value,
            Err(_) => return format!("(not JSON) {message}"),
        };
        if let Some(info) = value.pointer_mut("/result/serverInfo/version") {
            *info = serde_json::Value::String("<version>".to_string());
        }
        let mut text = serde_json::to_string(&value).expect("JSON prints");
        let root = self.root.to_string_lossy().into_owned();
        text = text.replace(&root, "<root>");
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.as_os_str().len() > 1) {
            if let Ok(rest) = self.root.strip_prefix(&home) {
                text = text.replace(&format!("~/{}", rest.display()), "<root>");
            }
        }
        text
    }
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        }
    }
}

/// What a line the client sends asks of the runner.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// A request: read up to the response with this id (as JSON).
    Request(serde_json::Value),
    /// A notification, or a response to the server's own request: nothing to wait for.
    Other,
    /// Not a JSON-RPC message at all: the server answers with id `null`.
    Garbage,
}

pub(crate) fn sent(line: &str) -> Sent {
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(v) if v.get("method").is_some() && v.get("id").is_some() => Sent::Request(v["id"].clone()),
        Ok(v) if v.is_object() => Sent::Other,
        _ => Sent::Garbage,
    }
}

/// What a message the server sent is to a runner waiting for the response to `id`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Received {
    /// The response to `id`: the wait is over.
    Response,
    /// A request of the server's own: the next `→` line answers it, then the wait goes on.
    Request,
    /// A notification, or another response.
    Other,
}

pub(crate) fn received(message: &str, id: &serde_json::Value) -> Received {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(message) else { return Received::Other };
    match (v.get("method"), v.get("id")) {
        (Some(_), Some(_)) => Received::Request,
        (None, Some(got)) if got == id => Received::Response,
        _ => Received::Other,
    }
}
