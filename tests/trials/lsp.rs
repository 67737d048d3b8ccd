//! `capc lsp` driven by real clients: the pytest-lsp suite in `tests/lsp/` (PyPI, every package
//! pinned in `tests/lsp/requirements.txt`, installed by `.ci/run` into `tests/lsp/.venv`), one
//! test here per file of it, so `cargo test` runs it; `test_neovim.py` runs a headless Neovim
//! (the Debian package `neovim`, which `.ci/run` installs).
//!
//! On the libtest-mimic harness of `tests/support/harness.rs`: a test whose client (or corpus) is absent
//! is reported as ignored, with what is missing, and fails under `CI`.

use crate::support::harness;
use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pytest() -> PathBuf {
    repo().join("tests/lsp/.venv/bin/pytest")
}

fn corpora() -> PathBuf {
    repo().join("../shared/corpora")
}

fn missing_client() -> Option<harness::Missing> {
    (!pytest().is_file()).then(|| harness::Missing {
        label: "pytest-lsp",
        why: "pytest-lsp is not installed (python3 -m venv tests/lsp/.venv && tests/lsp/.venv/bin/pip install --no-deps -r tests/lsp/requirements.txt; needs Python 3.10+ with venv)".to_string(),
    })
}

fn missing_neovim() -> Option<harness::Missing> {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("nvim").is_file()));
    (!on_path)
        .then(|| harness::Missing { label: "nvim", why: "`nvim` is not on PATH (apt-get install neovim)".to_string() })
}

fn missing_corpora() -> Option<harness::Missing> {
    (!corpora().is_dir()).then(|| harness::Missing {
        label: "corpora",
        why: format!("the shared corpora are not at {}", corpora().display()),
    })
}

/// Runs one file of the suite; its output is shown when it fails.
fn run_suite(file: &'static str) {
    let out = Command::new(pytest())
        .args(["-q", "-p", "no:cacheprovider", file])
        .current_dir(repo().join("tests/lsp"))
        .env("CAPC_BIN", env!("CARGO_BIN_EXE_capc"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("pytest runs");
    assert!(
        out.status.success(),
        "pytest {file} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn trial(file: &'static str, missing: Vec<harness::Missing>) -> Trial {
    let name = format!("lsp::{}", file.trim_end_matches(".py"));
    harness::trial(name, &missing, move || run_suite(file))
}

/// One trial per pytest-lsp suite.
pub(crate) fn trials() -> Vec<Trial> {
    let client: Vec<_> = missing_client().into_iter().collect();
    let with_corpora: Vec<_> = client.iter().cloned().chain(missing_corpora()).collect();
    let with_neovim: Vec<_> = client.iter().cloned().chain(missing_neovim()).collect();
    with_corpora.iter().chain(&with_neovim).for_each(harness::note);
    vec![
        trial("test_diagnostics.py", client.clone()),
        trial("test_actions.py", client.clone()),
        trial("test_robustness.py", client.clone()),
        // References, hover on permission rules, unsaved new files and capc.toml.
        trial("test_workspace.py", client.clone()),
        // Hover, completion and navigation are tested on real corpus files.
        trial("test_features.py", with_corpora),
        // A real editor: Debian's Neovim, headless.
        trial("test_neovim.py", with_neovim),
    ]
}
