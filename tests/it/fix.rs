//! `capc check --fix` on fixture trees: `tests/fix/<rule>/before/` is copied to a scratch
//! folder and fixed; the result must equal `tests/fix/<rule>/after/` byte for byte (so every
//! byte outside the edits is untouched), the findings of that rule left afterwards must be
//! exactly `tests/fix/<rule>/remaining.txt` (cases the fixture keeps on purpose because their
//! fix would not be certain), and a second `--fix` must change nothing. `--diff` previews
//! without writing.
//!
//! To accept new results, run `CAPC_BLESS=1 cargo test --test it -- fix::` and read the diff.

use crate::support::copy_tree;
use crate::support::golden::{self, read_tree as tree, Goldens};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fix_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fix")
}

fn capc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).env("NO_COLOR", "1").output().expect("capc runs")
}

/// The findings of `rule` in `--format short`, one per line.
fn findings(dir: &Path, rule: &str) -> String {
    let out = capc(&["check", "--format", "short", dir.to_str().expect("utf-8")]);
    let marker = format!("[{rule}]");
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.contains(&marker)).map(|l| format!("{l}\n")).collect()
}

fn rules_with_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fix_dir())
        .expect("tests/fix")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("before").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn each_fix_gives_its_after_tree_and_a_second_run_changes_nothing() {
    let mut goldens = Goldens::default();
    for rule in rules_with_fixtures() {
        assert!(capc_compiler::rules::find(&rule).is_some(), "tests/fix/{rule} names no rule");
        let case = fix_dir().join(&rule);
        let scratch = tempfile::tempdir().expect("tempdir");
        copy_tree(&case.join("before"), scratch.path());
        let root = scratch.path().to_str().expect("utf-8");
        let before = findings(scratch.path(), &rule);
        assert!(!before.is_empty(), "{rule}: the before tree has no `{rule}` finding");

        let first = capc(&["check", "--fix", "--format", "short", root]);
        let said = String::from_utf8_lossy(&first.stderr).into_owned();
        assert!(said.starts_with("fixed "), "{rule}: --fix says what it changed: {said}");
        assert!(said.contains(&rule), "{rule}: {said}");
        let fixed = tree(scratch.path());
        assert!(fixed.keys().all(|p| !p.contains(".capc-fix.tmp")), "{rule}: a temporary file was left");
        let remaining = findings(scratch.path(), &rule);
        assert!(remaining.lines().count() < before.lines().count(), "{rule}: nothing was fixed");

        let second = capc(&["check", "--fix", "--format", "short", root]);
        assert!(String::from_utf8_lossy(&second.stderr).is_empty(), "{rule}: the second run fixed something");
        assert_eq!(tree(scratch.path()), fixed, "{rule}: a second --fix changed the files");
        let preview = capc(&["check", "--fix", "--diff", root]);
        assert_eq!(preview.status.code(), Some(0), "{rule}: --diff finds nothing more to fix");

        goldens.push(golden::check_tree(&case.join("after"), &fixed));
        goldens.check(&case.join("remaining.txt"), &remaining);
    }
    goldens.finish();
}

#[test]
fn diff_previews_and_writes_nothing() {
    let scratch = tempfile::tempdir().expect("tempdir");
    copy_tree(&fix_dir().join("unknown-field/before"), scratch.path());
    let untouched = tree(scratch.path());
    let out = capc(&["check", "--fix", "--diff", scratch.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "something to fix");
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.contains("--- a/.claude-plugin/plugin.json\n+++ b/.claude-plugin/plugin.json\n"), "{diff}");
    for line in [
        "-  \"mcp_servers\": {",
        "+  \"mcpServers\": {",
        "-argument_hint: \"<issue number>\"",
        "+argument-hint: \"<issue number>\"",
    ] {
        assert!(diff.lines().any(|l| l == line), "`{line}` in\n{diff}");
    }
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("would fix 5 findings in 3 files"), "{:?}", out.stderr);
    assert_eq!(tree(scratch.path()), untouched, "--diff wrote");
    assert_eq!(capc(&["check", "--diff", "."]).status.code(), Some(2), "--diff needs --fix");
}

/// `--diff` shows the repository's text, so it masks secrets as every other output does, also
/// in the entries a fix moves.
#[test]
fn diff_masks_secrets() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let plugin = scratch.path().join("plugins/notify");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).expect("mkdir");
    std::fs::create_dir_all(plugin.join("hooks")).expect("mkdir");
    std::fs::write(plugin.join(".claude-plugin/plugin.json"), "{ \"name\": \"notify\" }\n").expect("write");
    let token = "ghp_PLANTED0123456789abcdefABCDEF0123456789";
    let hooks = format!(
        "{{\n  \"Stop\": [{{ \"hooks\": [{{ \"type\": \"command\", \"command\": \"curl -H 'Authorization: {token}' https://example.com\" }}] }}]\n}}\n"
    );
    std::fs::write(plugin.join("hooks/hooks.json"), &hooks).expect("write");
    let out = capc(&["check", "--fix", "--diff", scratch.path().to_str().expect("utf-8")]);
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.contains("+  \"hooks\": {"), "{diff}");
    assert!(!diff.contains("PLANTED") && diff.contains("****"), "{diff}");
    // Writing uses the real text.
    capc(&["check", "--fix", scratch.path().to_str().expect("utf-8")]);
    assert_eq!(
        std::fs::read_to_string(plugin.join("hooks/hooks.json")).expect("read"),
        format!(
            "{{\n  \"hooks\": {{\n    \"Stop\": [{{ \"hooks\": [{{ \"type\": \"command\", \"command\": \"curl -H 'Authorization: {token}' https://example.com\" }}] }}]\n  }}\n}}\n"
        ),
        "the events one level deeper, the new object's braces on their own lines"
    );
}

/// A fix is never written through a symbolic link, and the report says so.
#[cfg(unix)]
#[test]
fn links_are_not_written_through() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let real = scratch.path().join("servers.json");
    std::fs::write(&real, "{ \"github\": { \"command\": \"gh-mcp\" } }\n").expect("write");
    std::os::unix::fs::symlink("servers.json", scratch.path().join(".mcp.json")).expect("symlink");
    let out = capc(&["check", "--fix", scratch.path().to_str().expect("utf-8")]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("error: not fixing .mcp.json: the file is a symbolic link"), "{said}");
    assert_eq!(std::fs::read_to_string(&real).expect("read"), "{ \"github\": { \"command\": \"gh-mcp\" } }\n");
    assert_eq!(out.status.code(), Some(1), "the error is still there");
}

/// A file PATH (what pre-commit passes) fixes that file only; the rest of its folder is read
/// for context and left as it was.
#[test]
fn a_file_path_fixes_only_that_file() {
    let scratch = tempfile::tempdir().expect("tempdir");
    copy_tree(&fix_dir().join("unknown-field/before"), scratch.path());
    let before = tree(scratch.path());
    let skill = scratch.path().join("skills/triage/SKILL.md");
    let out = capc(&["check", "--fix", skill.to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("fixed 2 findings in 1 file:"), "{stderr}");
    let after = tree(scratch.path());
    let changed: Vec<&String> = after.keys().filter(|k| after.get(*k) != before.get(*k)).collect();
    assert_eq!(changed, ["skills/triage/SKILL.md"], "only the file given changes");
    let want = std::fs::read(fix_dir().join("unknown-field/after/skills/triage/SKILL.md")).expect("after");
    assert_eq!(after["skills/triage/SKILL.md"], want);
}
