//! A cloned repository is untrusted, and so is the lock it carries: these reproduce what an
//! attacker could plant or edit, and check that capc neither reads, runs nor shows anything
//! the user did not allow.
//!
//! Every capc run here is bounded by a hang guard: a run that does not end within a minute is
//! killed and the test fails (a named pipe used to block reads forever).
//!
//! One submodule per class of docs/security.md (or a review's group of them); the helpers a
//! later class reuses are `pub(super)` in the class that introduced them and imported here.

#![cfg(unix)]

use crate::support::{stderr, stdout, write_file};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod basics;
mod claims;
mod files;
mod output;
mod paths;
mod permissions;
mod review;
mod secrets;

use self::basics::*;
use self::claims::*;
use self::files::*;
use self::paths::*;
use self::permissions::*;

/// Runs capc with `input` on stdin (bounded: see `support::capc_fed`).
pub(super) fn capc_in(dir: &Path, args: &[&str], input: &str) -> Output {
    crate::support::capc_fed(dir, args, input)
}

pub(super) fn capc(dir: &Path, args: &[&str]) -> Output {
    capc_in(dir, args, "")
}

pub(super) fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo runs").success());
}

/// A small project with one command and one skill, locked.
pub(super) fn locked_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    write_file(&root, ".claude/commands/deploy.md", "---\ndescription: Deploy\n---\nDeploy it.\n");
    write_file(&root, ".claude/skills/review/SKILL.md", "---\ndescription: Review the diff\n---\nReview it.\n");
    let out = capc(&root, &["lock", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (dir, root)
}

pub(super) fn edit_lock(root: &Path, from: &str, to: &str) {
    let path = root.join("capabilities.lock");
    let text = std::fs::read_to_string(&path).expect("lock");
    assert!(text.contains(from), "`{from}` is not in the lock:\n{text}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("write lock");
}

pub(super) const TURN: &str = "{\"id\":1,\"type\":\"turn\",\"input\":\"/deploy\",\"include\":[]}\n";
