//! Helpers shared by the test binaries `tests/it` and `tests/trials` (each includes this folder
//! by path; each uses only some of it); `runtime/tests` includes `golden.rs` and `harness.rs`
//! by path too.
#![allow(dead_code)]

pub(crate) mod git;
pub(crate) mod golden;
pub(crate) mod harness;
pub(crate) mod session;

use std::path::{Path, PathBuf};

/// The shared corpora: `../shared/corpora` beside the repository, or the folder `CAPC_CORPORA`
/// names (another copy of them), whether or not it is there.
pub(crate) fn corpora_path() -> PathBuf {
    match std::env::var_os("CAPC_CORPORA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"),
    }
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
