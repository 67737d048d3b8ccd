//! Running git in scratch repositories: no system or user configuration's identity or signing.

use std::path::Path;
use std::process::Command;

/// Whether `git` runs here (tests that read revisions are ignored, or fail under `CI`, without).
pub(crate) fn available() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `git ARGS` in `repo` as a test identity, asserting it succeeds.
#[track_caller]
pub(crate) fn git(repo: &Path, args: &[&str]) {
    let run = Command::new("git")
        .args(["-c", "user.name=capc tests", "-c", "user.email=capc@example.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(run.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&run.stderr));
}
