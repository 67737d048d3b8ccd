//! Golden transcripts of `capc session`: each `tests/transcripts/*.txt` names a tree
//! (`# tree: PATH`, relative to the repository root; `# plugin-dir: DIR` lines, relative to the
//! tree, load plugins as `--plugin-dir` does), then alternates request lines (`→ `)
//! with the responses they must get (`← `). The lock is compiled from the tree first; the
//! session runs from the lock alone. Absolute paths of the tree show as `<root>`, the home
//! folder as `<home>`.
//!
//! The protocol example of `docs/session.md` (between `<!-- transcript:start -->` and
//! `<!-- transcript:end -->`) is replayed the same way.
//!
//! To accept new output: `CAPC_BLESS=1 cargo test -p capc-runtime --test runtime -- transcripts::`.

use crate::golden::{self, Goldens};
use capc_runtime::loaded::{Loaded, Roots};
use capc_runtime::session::Session;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("runtime/ sits in the repository").to_path_buf()
}

/// A session from the tree's lock; `plugin_dirs` (relative to the tree) load as `--plugin-dir`.
fn session_for(tree: &Path, plugin_dirs: &[PathBuf]) -> Session {
    let options =
        capc_compiler::Options { root: tree.to_path_buf(), plugin_dirs: plugin_dirs.to_vec(), ..Default::default() };
    let lock = capc_compiler::check(&options).expect("the tree exists").lock();
    let roots = Roots { root: tree.to_path_buf(), plugin_dirs: plugin_dirs.to_vec(), ..Roots::default() };
    Session::new(Loaded::new(lock, roots))
}

/// Replays a transcript; returns it with every response recomputed.
fn replay(text: &str) -> String {
    let tree = text
        .lines()
        .find_map(|l| l.strip_prefix("# tree: "))
        .map(|t| repo().join(t.trim()))
        .expect("a transcript names its tree with `# tree: PATH`");
    let plugin_dirs: Vec<PathBuf> =
        text.lines().filter_map(|l| l.strip_prefix("# plugin-dir: ")).map(|d| tree.join(d.trim())).collect();
    let mut session = session_for(&tree, &plugin_dirs);
    let root = tree.to_string_lossy().into_owned();
    // The home folder (`$HOME`: no `--user-dir` here) differs from machine to machine.
    let home = session.loaded.home.to_string_lossy().into_owned();
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("← ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(request) = line.strip_prefix("→ ") {
            let mut response =
                capc_runtime::protocol::handle(&mut session, request).to_string().replace(&root, "<root>");
            if home.len() > 1 {
                response = response.replace(&home, "<home>");
            }
            out.push_str("← ");
            out.push_str(&response);
            out.push('\n');
        }
    }
    out
}

#[test]
fn transcripts_replay_as_recorded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/transcripts exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "one transcript per feature, found {}", names.len());
    let mut goldens = Goldens::default();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read transcript");
        goldens.check(&path, &replay(&text));
    }
    goldens.finish();
}

#[test]
fn the_session_manual_transcript_replays() {
    let manual = std::fs::read_to_string(repo().join("docs/session.md")).expect("docs/session.md");
    let start = manual.find("<!-- transcript:start -->").expect("docs/session.md has a transcript");
    let end = manual.find("<!-- transcript:end -->").expect("its transcript ends");
    let block = &manual[start..end];
    let body: String = block
        .lines()
        .filter(|l| l.starts_with("# tree: ") || l.starts_with("→ ") || l.starts_with("← "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(body.contains("→ "), "the transcript has no requests");
    // The mark tells the docs trial (tests/trials/docs.rs) that this test checks the block.
    let fenced = format!("<!-- check: by runtime/tests/runtime/transcripts.rs -->\n```text\n{}```\n", replay(&body));
    golden::assert_section(
        &repo().join("docs/session.md"),
        "<!-- transcript:start -->",
        "<!-- transcript:end -->",
        &fenced,
    );
}
