//! Adopting capc in a real marketplace repository, through the CLI: a copy of a shared
//! corpus in a scratch git repository, with a `backups/` folder the marketplace does not ship
//! (a copy of its plugins and of its marketplace, and a broken manifest). `exclude`, `.gitignore`
//! and `.ignore` leave it out — the check then reads and reports exactly what it did before the
//! backups were added — and `[per-path-ignores]` with `ALL` suppresses every finding in it.
//! Included by `corpora.rs` (its harness marks this test ignored when the corpora or git are
//! absent).

use crate::support::git::git;
use crate::support::{copy_tree, stdout};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The corpus copied (a marketplace: its root holds `.claude-plugin/`), the baselines' one.
use super::baseline::CORPUS;

fn capc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).current_dir(dir).output().expect("capc runs")
}

/// The summary of `check --format json`, and the paths of its findings.
fn check(dir: &Path) -> (Value, Vec<String>) {
    let out = capc(&["check", "--format", "json"], dir);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("JSON ({e}): {}", stdout(&out)));
    let paths = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["path"].as_str().unwrap_or_default().to_string())
        .collect();
    (report["summary"].clone(), paths)
}

pub(crate) fn exclude_and_ignore_files_leave_out_what_a_marketplace_does_not_ship(corpora: &Path) {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let repo = scratch.path().join("repo");
    let copy = Command::new("cp").arg("-a").arg(corpora.join(CORPUS)).arg(&repo).output().expect("cp runs");
    assert!(copy.status.success(), "cp: {}", String::from_utf8_lossy(&copy.stderr));
    git(&repo, &["init", "-q"]);
    let (shipped, shipped_paths) = check(&repo);
    let shipped_files = stdout(&capc(&["check", "--list-files"], &repo));
    // The backups: every plugin and the marketplace again, and a manifest that does not parse.
    copy_tree(&repo.join("plugins"), &repo.join("backups/plugins"));
    copy_tree(&repo.join(".claude-plugin"), &repo.join("backups/.claude-plugin"));
    std::fs::create_dir_all(repo.join("backups/plugins/old/.claude-plugin")).expect("mkdir");
    std::fs::write(repo.join("backups/plugins/old/.claude-plugin/plugin.json"), "{ \"name\": \"old\", }")
        .expect("write");
    let (all, all_paths) = check(&repo);
    let in_backups = all_paths.iter().filter(|p| p.starts_with("backups/")).count();
    assert!(in_backups > 0, "the backups have findings of their own: {all}");
    for (file, text) in
        [("capc.toml", "exclude = [\"backups/\"]\n"), (".gitignore", "/backups/\n"), (".ignore", "backups\n")]
    {
        std::fs::write(repo.join(file), text).expect("write");
        let (summary, paths) = check(&repo);
        assert_eq!(paths, shipped_paths, "{file} {text:?}: the findings are the marketplace's own");
        assert_eq!(stdout(&capc(&["check", "--list-files"], &repo)), shipped_files, "{file} {text:?}: the files read");
        for key in ["errors", "warnings", "infos"] {
            assert_eq!(summary[key], shipped[key], "{file} {text:?}: `{key}` of {summary} against {shipped}");
        }
        std::fs::remove_file(repo.join(file)).expect("remove");
    }
    std::fs::write(repo.join("capc.toml"), "[per-path-ignores]\n\"backups/**\" = [\"ALL\"]\n").expect("write");
    let (summary, paths) = check(&repo);
    assert_eq!(paths, shipped_paths, "`ALL` suppresses every finding under backups/");
    assert_eq!(summary["suppressed"].as_u64(), Some(in_backups as u64), "{summary}");
}
