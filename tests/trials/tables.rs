//! Claude Code's tables as data: `scripts/claude-code-tables`, run on the installed Claude Code
//! binary of the version capc follows, writes exactly the files committed under
//! `compiler/data/claude-code/` (the settings schema, frontmatter keys, hook events, commands,
//! bundled skills, tools, the read-only Bash flag table, and where each was found; not the
//! measured files of `measured/`, which it only reads). A data file
//! edited by hand, or a change to the script that changes what it extracts, fails here until
//! the data is regenerated (CONTRIBUTING.md, "Moving to a new Claude Code version").
//!
//! It needs the binary (`CLAUDE_BIN`, else `tests/oracle/claude`, which `.ci/run` installs) and
//! `python3`; without one the trial is reported as ignored (failed under `CI`).

use crate::support::harness::{self, Missing};
use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Claude Code binary: `CLAUDE_BIN`, else the one `.ci/run` installs under `tests/oracle/claude`.
fn claude_bin() -> PathBuf {
    match std::env::var_os("CLAUDE_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => repo().join("tests/oracle/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    let mut missing = Vec::new();
    if !claude_bin().is_file() {
        missing.push(Missing {
            label: "claude",
            why: format!(
                "{} is not installed (npm ci --prefix tests/oracle/claude, or set CLAUDE_BIN)",
                claude_bin().display()
            ),
        });
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("python3").is_file()));
    if !on_path {
        missing.push(Missing { label: "python3", why: "`python3` is not on PATH".to_string() });
    }
    for m in &missing {
        harness::note(m);
    }
    vec![harness::trial(
        "tables::regenerating_from_claude_code_gives_the_committed_data",
        &missing,
        regenerating_gives_the_committed_data,
    )]
}

fn regenerating_gives_the_committed_data() {
    let data = repo().join("compiler/data/claude-code");
    let scratch = tempfile::tempdir().expect("tempdir");
    // The report of a move between releases is not a table; where-found.json keeps the rows of
    // earlier releases, so the script starts from the committed copy.
    let mut committed = Vec::new();
    for entry in std::fs::read_dir(&data).expect("the data folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a name").to_string_lossy().to_string();
        // `measured/` holds what only a session shows: the script reads it and writes nothing there.
        if name.starts_with("changes-") || path.is_dir() {
            continue;
        }
        std::fs::copy(&path, scratch.path().join(&name)).expect("copy a data file");
        committed.push(name);
    }
    committed.sort();
    let version = capc_compiler::model::CLAUDE_CODE_VERSION;
    let out = Command::new("python3")
        .arg(repo().join("scripts/claude-code-tables"))
        .arg(version)
        .arg("--bin")
        .arg(claude_bin())
        .arg("--out")
        .arg(scratch.path())
        .output()
        .expect("python3 runs scripts/claude-code-tables");
    assert!(
        out.status.success(),
        "scripts/claude-code-tables {version} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut written: Vec<String> = std::fs::read_dir(scratch.path())
        .expect("the scratch folder")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().to_string())
        .collect();
    written.sort();
    assert_eq!(written, committed, "the script writes the files committed under compiler/data/claude-code/");
    let mut differ = Vec::new();
    for name in &committed {
        let before = std::fs::read(data.join(name)).expect("a committed file");
        let after = std::fs::read(scratch.path().join(name)).expect("a written file");
        if before != after {
            differ.push(name.clone());
        }
    }
    assert!(
        differ.is_empty(),
        "regenerated from Claude Code {version}, these differ from the committed data: {differ:?}\n\
         (run scripts/claude-code-tables {version} and commit the result)"
    );
}
