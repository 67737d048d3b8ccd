//! Helpers shared by the test binaries `tests/it` and `tests/trials` (each includes this folder
//! by path; each uses only some of it); `runtime/tests` includes `golden.rs` and `harness.rs`
//! by path too.
#![allow(dead_code)]

pub(crate) mod git;
pub(crate) mod golden;
pub(crate) mod harness;
pub(crate) mod serve;
pub(crate) mod session;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `capc` binary run in `dir` with `args` as on a terminal `columns` wide, so reports are
/// cut where the test expects: colour off, nothing on stdin.
pub(crate) fn capc_in(dir: &Path, args: &[&str], columns: u16) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", columns.to_string())
        .stdin(Stdio::null())
        .output()
        .expect("capc runs")
}

/// The `capc` binary run in `dir` with `input` on its stdin, closed after it, colour off.
/// capc may refuse and exit before it reads its input (a missing lock, a bad flag): the write
/// then meets a closed pipe, which is not the test's failure. Its output is drained while it
/// runs, so a full pipe cannot stall it; it is killed, and the test fails, if it has not ended
/// within a minute.
pub(crate) fn capc_fed(dir: &Path, args: &[&str], input: impl AsRef<[u8]>) -> Output {
    use std::io::{Read as _, Write as _};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capc runs");
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let mut stdin = child.stdin.take().expect("stdin");
    if let Err(e) = stdin.write_all(input.as_ref()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write to capc's stdin: {e}");
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("capc {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
}

/// What a run wrote on stdout, as text.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a run wrote on stderr, as text.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `[[array]]` entries of an allowlist of known differences from Claude Code,
/// `tests/oracle/<file>`; each must say why in a non-empty `reason`.
pub(crate) fn oracle_allowlist<T: serde::de::DeserializeOwned>(file: &str, array: &str) -> Vec<T> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let table: toml::Table = text.parse().unwrap_or_else(|e| panic!("{file} parses: {e}"));
    let Some(entries) = table.get(array) else { return Vec::new() };
    let entries = entries.as_array().unwrap_or_else(|| panic!("{file}: `{array}` is an array of tables"));
    entries
        .iter()
        .map(|entry| {
            let reason = entry.get("reason").and_then(toml::Value::as_str).unwrap_or_default();
            assert!(!reason.trim().is_empty(), "{file}: a [[{array}]] entry has no reason: {entry}");
            entry.clone().try_into().unwrap_or_else(|e| panic!("{file}: a [[{array}]] entry: {e}"))
        })
        .collect()
}

/// The shared corpora: `../shared/corpora` beside the repository, or the folder `CAPC_CORPORA`
/// names (another copy of them), whether or not it is there.
pub(crate) fn corpora_path() -> PathBuf {
    match std::env::var_os("CAPC_CORPORA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"),
    }
}

/// The corpora in `dir` (its folders), sorted; none when it cannot be read.
pub(crate) fn corpus_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Writes `text` to `rel` under `root`, making the folders on the way.
pub(crate) fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Copies the files and folders under `from` into `to` (created).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder").filter_map(Result::ok) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// How the README's snippets pin capc: the tag of this version once CHANGELOG.md has its
/// `## vX.Y.Z` section (the release was made), else `<commit>`, the placeholder for a commit's
/// SHA that a reader fills in (no release yet).
pub(crate) fn readme_pin() -> Pin {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let changelog = std::fs::read_to_string(root.join("CHANGELOG.md")).expect("CHANGELOG.md");
    if changelog.lines().any(|l| l == format!("## {tag}")) {
        Pin::Tag(tag)
    } else {
        Pin::Commit
    }
}

/// See [`readme_pin`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pin {
    Tag(String),
    Commit,
}
