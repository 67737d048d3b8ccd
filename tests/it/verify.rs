//! `capc verify`: a home recorded from what Claude Code wrote when it installed two
//! plugins (`tests/verify/home`, made by `tests/verify/record.sh`), against two repositories:
//! `repo-matching`, whose lock is what was installed, and `repo-drift`, whose lock pins
//! another commit and version, other plugin files and another marketplace source. Each
//! repository's `capabilities.lock` is pinned and its report is `verify.txt`.
//!
//! To accept new output: `CAPC_BLESS=1 cargo test --test it -- verify::`, then read the diff.

use crate::support::golden::assert as pinned;
use std::path::Path;
use std::process::{Command, Output};

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn capc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).current_dir(repo_root()).output().expect("capc runs")
}

/// The lock `capc lock` writes for a repository, compared with the committed one.
fn fresh_lock(repo: &str) {
    let dir = repo_root().join("tests/verify").join(repo);
    let options = capc_compiler::Options { root: dir.clone(), ..capc_compiler::Options::default() };
    let mut checked = capc_compiler::check(&options).expect("the repository checks");
    assert!(!checked.has_errors(), "{repo} has errors");
    let text = capc_compiler::lock::write::encode(&checked.take_lock());
    pinned(&dir.join("capabilities.lock"), &text);
}

fn verify(repo: &str) -> Output {
    fresh_lock(repo);
    capc(&["verify", &format!("tests/verify/{repo}"), "--user-dir", "tests/verify/home"])
}

#[test]
fn the_fixture_home_is_what_claude_code_wrote() {
    let plugins = repo_root().join("tests/verify/home/.claude/plugins");
    let installed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plugins.join("installed_plugins.json")).expect("recorded"))
            .expect("JSON");
    assert_eq!(installed["version"], 2);
    let linter = &installed["plugins"]["linter@remote-tools"][0];
    assert_eq!(linter["scope"], "user");
    assert!(linter["gitCommitSha"].as_str().is_some_and(|s| s.len() == 40), "{linter}");
    // Recorded under a throwaway home, written as /home/capc-fixture: verify finds the copies
    // under --user-dir instead.
    assert!(linter["installPath"].as_str().is_some_and(|p| p.starts_with("/home/capc-fixture/.claude/plugins/cache/")));
    assert!(plugins.join("cache/acme-tools/tool/1.2.0/skills/hello/SKILL.md").is_file());
    let known: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plugins.join("known_marketplaces.json")).expect("recorded"))
            .expect("JSON");
    assert_eq!(known["acme-tools"]["source"]["source"], "directory");
}

#[test]
fn what_was_installed_from_the_lock_matches_it() {
    let run = verify("repo-matching");
    let out = String::from_utf8_lossy(&run.stdout);
    pinned(&repo_root().join("tests/verify/repo-matching/verify.txt"), &out);
    assert_eq!(run.status.code(), Some(0), "{out}");
}

#[test]
fn another_commit_version_files_or_source_is_drift_file_by_file() {
    let run = verify("repo-drift");
    let out = String::from_utf8_lossy(&run.stdout);
    pinned(&repo_root().join("tests/verify/repo-drift/verify.txt"), &out);
    assert_eq!(run.status.code(), Some(1), "{out}");
    let lock = std::fs::read_to_string(repo_root().join("tests/verify/repo-drift/capabilities.lock")).expect("lock");
    let locked_sha = lock
        .split("[[pin]]")
        .find(|t| t.contains("name = \"linter@remote-tools\""))
        .and_then(|t| t.split("exact = \"").nth(1))
        .and_then(|t| t.split('"').next())
        .expect("the lock pins the linter's commit");
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("commit: installed ") && l.contains(&format!("locked {locked_sha}"))),
        "{out}"
    );
    for line in [
        "version: installed 1.2.0, locked 1.3.0",
        "commands/deploy.md: locked sha256 ",
        "skills/hello/SKILL.md: installed sha256 ",
        "source: installed directory /tmp/capc-verify-record/remote-tools, locked github acme/remote-tools",
    ] {
        assert!(out.contains(line), "missing `{line}`:\n{out}");
    }
}

#[test]
fn a_home_without_plugins_has_nothing_to_drift_and_a_broken_one_exits_2() {
    fresh_lock("repo-matching");
    let empty = tempfile::tempdir().expect("scratch");
    let run = capc(&["verify", "tests/verify/repo-matching", "--user-dir", empty.path().to_str().expect("utf-8")]);
    let out = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(out.contains("not installed here: marketplace `acme-tools`"), "{out}");
    std::fs::create_dir_all(empty.path().join(".claude/plugins")).expect("mkdir");
    std::fs::write(empty.path().join(".claude/plugins/installed_plugins.json"), "{ not json").expect("write");
    let run = capc(&["verify", "tests/verify/repo-matching", "--user-dir", empty.path().to_str().expect("utf-8")]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&run.stderr).lines().count(), 1);
    let run = capc(&["verify", "tests/verify/linter-src", "--user-dir", "tests/verify/home"]);
    assert_eq!(run.status.code(), Some(2), "a folder without a lock");
}

/// A lock that no longer matches its folder (a command added, a locked file edited) fails
/// `verify` even when everything installed matches it, saying so and pointing at `capc lock
/// --check` and `capc lock`: what is installed was compared with an outdated record.
/// `--installed-only` compares only what is installed, as before.
#[test]
fn a_stale_lock_fails_verify_and_installed_only_compares_only_what_is_installed() {
    fresh_lock("repo-matching");
    let scratch = tempfile::tempdir().expect("scratch");
    let repo = scratch.path().join("repo");
    crate::support::copy_tree(&repo_root().join("tests/verify/repo-matching"), &repo);
    let home = repo_root().join("tests/verify/home");
    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", repo.to_str().expect("utf-8"), "--user-dir", home.to_str().expect("utf-8")];
        args.extend_from_slice(extra);
        let run = capc(&args);
        let text = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
        (run.status.code(), text)
    };
    let (code, text) = verify(&[]);
    assert_eq!(code, Some(0), "{text}");
    let changes: [(&str, &str, &str); 2] = [
        (".claude/commands/new.md", "---\ndescription: New\n---\nNew.\n", "`.claude/commands/new.md` is new"),
        ("acme-tools/plugins/tool/commands/ship.md", "---\ndescription: Ship\n---\nShip it now.\n", "changed"),
    ];
    for (file, text, why) in changes {
        crate::support::write_file(&repo, file, text);
        let (code, out) = verify(&[]);
        assert_eq!(code, Some(1), "{file}: {out}");
        assert!(out.contains("no longer matches the declarations of its folder"), "{file}: {out}");
        assert!(out.contains(why), "{file}: {out}");
        assert!(out.contains("`capc lock --check` shows the difference; `capc lock` rewrites the lock"), "{out}");
        // What is installed still matches the lock: that part of the report says so.
        assert!(out.contains("0 of 2 installed plugins and 0 of 2 known marketplaces drift from the lock"), "{out}");
        let (code, out) = verify(&["--installed-only"]);
        assert_eq!(code, Some(0), "{file}: {out}");
        assert!(!out.contains("no longer matches"), "{out}");
        let check = capc(&["lock", "--check", repo.to_str().expect("utf-8")]);
        assert_eq!(check.status.code(), Some(1), "`capc lock --check` agrees");
    }
}
