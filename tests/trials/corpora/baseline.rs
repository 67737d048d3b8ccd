//! `capc check --baseline`, `--write-baseline` and `--new-since` on a real corpus, through the
//! CLI: a copy of a shared corpus in a scratch git repository. Unchanged → exit 0; a line
//! inserted above a finding → still known; a fixed finding → reported as gone; one new error
//! → exit 1 with only it listed. Included by `corpora.rs` (its harness marks these tests
//! ignored when the corpora or git are absent).

use crate::support::git::git;
use crate::support::stdout;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The corpus copied: a marketplace with findings of several rules in JSON and Markdown.
pub(crate) const CORPUS: &str = "anthropics__claude-plugins-official";

/// The finding the tests fix: an agent's tool list names a tool older Claude Code had.
const FIXED_FILE: &str = "plugins/feature-dev/agents/code-architect.md";
const FIXED_TEXT: &str = "NotebookRead, ";

/// The error the tests add: a plugin's `.mcp.json` that is not JSON.
const NEW_FILE: &str = "plugins/feature-dev/.mcp.json";

fn capc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capc")).args(args).current_dir(dir).output().expect("capc runs")
}

fn json(run: &Output) -> Value {
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| panic!("JSON ({e}): {}", stdout(run)))
}

/// A scratch repository holding a copy of the corpus (links kept as they are), committed.
fn repository(corpora: &Path) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let repo = scratch.path().join("repo");
    let copy = Command::new("cp").arg("-a").arg(corpora.join(CORPUS)).arg(&repo).output().expect("cp runs");
    assert!(copy.status.success(), "cp: {}", String::from_utf8_lossy(&copy.stderr));
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "the corpus"]);
    (scratch, repo)
}

/// `check --format json` of the whole tree, with no comparison: every finding.
fn all_findings(repo: &Path) -> Vec<Value> {
    json(&capc(&["check", "--format", "json"], repo))["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// Inserts an empty line above a finding in a JSON file (not the one fixed); returns the
/// finding's path, rule and line before the edit.
fn insert_line_above_a_finding(repo: &Path) -> (String, String, u64) {
    let findings = all_findings(repo);
    let finding = findings
        .iter()
        .find(|d| {
            d["path"].as_str().is_some_and(|p| p.ends_with(".json") && p != FIXED_FILE)
                && d["line"].as_u64().is_some_and(|l| l >= 2)
        })
        .unwrap_or_else(|| panic!("the corpus has a finding below line 1 of a JSON file: {findings:#?}"));
    let (path, rule, line) = (
        finding["path"].as_str().unwrap_or_default().to_string(),
        finding["rule"].as_str().unwrap_or_default().to_string(),
        finding["line"].as_u64().unwrap_or_default(),
    );
    let file = repo.join(&path);
    let text = std::fs::read_to_string(&file).expect("read");
    let at: usize = text.split_inclusive('\n').take(line as usize - 1).map(str::len).sum();
    std::fs::write(&file, format!("{}\n{}", &text[..at], &text[at..])).expect("write");
    // The finding is still there, one line lower: only its line changed.
    let moved = all_findings(repo)
        .iter()
        .any(|d| d["path"] == path.as_str() && d["rule"] == rule.as_str() && d["line"].as_u64() == Some(line + 1));
    assert!(moved, "{rule} in {path} moved from line {line} to {}", line + 1);
    (path, rule, line)
}

/// Fixes the finding of [`FIXED_FILE`] that names `NotebookRead`.
fn fix_a_finding(repo: &Path) {
    let named =
        |d: &Value| d["path"] == FIXED_FILE && d["message"].as_str().is_some_and(|m| m.contains("NotebookRead"));
    assert!(all_findings(repo).iter().any(named), "the corpus reports `NotebookRead` in {FIXED_FILE}");
    let file = repo.join(FIXED_FILE);
    let text = std::fs::read_to_string(&file).expect("read");
    assert!(text.contains(FIXED_TEXT), "{FIXED_FILE} holds `{FIXED_TEXT}`");
    std::fs::write(&file, text.replacen(FIXED_TEXT, "", 1)).expect("write");
    assert!(!all_findings(repo).iter().any(named), "removing `{FIXED_TEXT}` fixes it");
}

fn add_an_error(repo: &Path) {
    assert!(!repo.join(NEW_FILE).exists(), "{NEW_FILE} is new");
    std::fs::write(repo.join(NEW_FILE), "{\"mcpServers\": {\"x\": \n").expect("write");
}

/// The gone findings of a JSON report, as `(path, rule)`.
fn gone(report: &Value) -> Vec<(String, String)> {
    report["baseline"]["gone"]
        .as_array()
        .map(|g| {
            g.iter()
                .map(|g| (g["path"].as_str().unwrap_or("").to_string(), g["rule"].as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Only the added error is reported, in every format, and the run fails.
fn only_the_new_error_is_reported(repo: &Path, compare: &[&str], baselined: u64) {
    fn args<'a>(compare: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [&["check"], compare, extra].concat()
    }
    let with = |extra: &[&'static str]| args(compare, extra);
    let run = capc(&with(&["--format", "json"]), repo);
    assert_eq!(run.status.code(), Some(1), "{}", stdout(&run));
    let report = json(&run);
    let listed: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .map(|d| d.iter().map(|d| (d["path"].as_str().unwrap_or(""), d["rule"].as_str().unwrap_or(""))).collect())
        .unwrap_or_default();
    assert_eq!(listed, [(NEW_FILE, "invalid-json")], "{report:#}");
    assert_eq!(report["baseline"]["baselined"], baselined, "{report:#}");
    assert_eq!(gone(&report), [(FIXED_FILE.to_string(), "unknown-tool-in-rule".to_string())], "{report:#}");
    // People see the one finding, then what was hidden and what is gone.
    let run = capc(&with(&["--format", "short"]), repo);
    assert_eq!(run.status.code(), Some(1));
    let text = stdout(&run);
    let findings: Vec<&str> = text.lines().filter(|l| l.contains("[") && l.contains(": ")).collect();
    assert_eq!(findings.len(), 2, "the error and the gone finding's line:\n{text}");
    assert!(text.starts_with(&format!("{NEW_FILE}:2:1: error[invalid-json]")), "{text}");
    assert!(text.contains(&format!("{baselined} findings already in ")), "{text}");
    assert!(text.contains(&format!("  {FIXED_FILE}: [unknown-tool-in-rule] `NotebookRead`")), "{text}");
    // SARIF marks it new and carries the counts.
    let run = capc(&with(&["--format", "sarif"]), repo);
    assert_eq!(run.status.code(), Some(1));
    let sarif = json(&run);
    let results = sarif["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 1, "{sarif:#}");
    assert_eq!(results[0]["baselineState"], "new");
    assert_eq!(results[0]["ruleId"], "invalid-json");
    assert_eq!(sarif["runs"][0]["properties"]["capcBaseline"]["baselined"], baselined);
}

pub(crate) fn a_baseline_reports_only_new_findings(corpora: &Path) {
    let (_scratch, repo) = repository(corpora);
    let total = all_findings(&repo).len() as u64;
    assert!(total > 2, "the corpus has findings to baseline");

    let write = capc(&["check", "--write-baseline", "capc-baseline.toml"], &repo);
    assert_eq!(write.status.code(), Some(0), "{}", String::from_utf8_lossy(&write.stderr));
    let written = std::fs::read_to_string(repo.join("capc-baseline.toml")).expect("the baseline is written");
    assert!(written.contains("\nversion = 1\n") && written.contains("[[finding]]"), "{written}");
    assert!(!written.contains(&repo.display().to_string()), "no absolute path:\n{written}");
    // Writing it again changes nothing.
    let again = capc(&["check", "--write-baseline", "capc-baseline.toml"], &repo);
    assert!(String::from_utf8_lossy(&again.stderr).contains("unchanged"));
    assert_eq!(std::fs::read_to_string(repo.join("capc-baseline.toml")).expect("read"), written);

    // Unchanged: nothing is reported, everything is baselined.
    let baseline: &[&str] = &["--baseline", "capc-baseline.toml"];
    let run = capc(&[&["check"], baseline, &["--format", "json"]].concat(), &repo);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    let report = json(&run);
    assert_eq!(report["diagnostics"], Value::Array(Vec::new()), "{report:#}");
    assert_eq!(report["baseline"]["baselined"], total);
    assert!(gone(&report).is_empty());
    // The same from the repository's parent, naming the folder: paths are the baseline's own.
    let parent = repo.parent().expect("a parent");
    let run = capc(&["check", "repo", "--baseline", "repo/capc-baseline.toml", "--format", "json"], parent);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert_eq!(json(&run)["baseline"]["baselined"], total);

    // A line inserted above a finding: still baselined.
    insert_line_above_a_finding(&repo);
    let run = capc(&[&["check"], baseline].concat(), &repo);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(stdout(&run).contains(&format!("{total} findings already in the baseline")), "{}", stdout(&run));

    // A fixed finding is gone; one new error fails the check, alone.
    fix_a_finding(&repo);
    let report = json(&capc(&[&["check"], baseline, &["--format", "json"]].concat(), &repo));
    assert_eq!(gone(&report), [(FIXED_FILE.to_string(), "unknown-tool-in-rule".to_string())], "{report:#}");
    add_an_error(&repo);
    only_the_new_error_is_reported(&repo, baseline, total - 1);

    // Writing the baseline again drops the fixed finding and records the error.
    let write = capc(&["check", "--write-baseline", "capc-baseline.toml"], &repo);
    assert_eq!(write.status.code(), Some(0));
    let report = json(&capc(&[&["check"], baseline, &["--format", "json"]].concat(), &repo));
    assert_eq!(report["diagnostics"], Value::Array(Vec::new()), "{report:#}");
    assert_eq!(report["baseline"]["baselined"], total);
    assert!(gone(&report).is_empty(), "{report:#}");
}

pub(crate) fn new_since_reports_only_what_a_change_adds(corpora: &Path) {
    let (_scratch, repo) = repository(corpora);
    let total = all_findings(&repo).len() as u64;
    let since: &[&str] = &["--new-since", "HEAD"];

    let run = capc(&[&["check"], since, &["--format", "json"]].concat(), &repo);
    assert_eq!(run.status.code(), Some(0), "{}{}", stdout(&run), String::from_utf8_lossy(&run.stderr));
    let report = json(&run);
    assert_eq!(report["diagnostics"], Value::Array(Vec::new()), "{report:#}");
    assert_eq!(report["baseline"]["baselined"], total);

    insert_line_above_a_finding(&repo);
    let run = capc(&[&["check"], since].concat(), &repo);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(stdout(&run).contains(&format!("{total} findings already in `HEAD` (")), "{}", stdout(&run));

    fix_a_finding(&repo);
    add_an_error(&repo);
    only_the_new_error_is_reported(&repo, since, total - 1);

    // Once committed, the change is the revision's: compared with the commit before it, the
    // same error is new; compared with itself, nothing is.
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "the change"]);
    only_the_new_error_is_reported(&repo, &["--new-since", "HEAD~1"], total - 1);
    let run = capc(&[&["check"], since].concat(), &repo);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));

    // A revision that does not exist stops the check with one line.
    let run = capc(&["check", "--new-since", "no-such-branch"], &repo);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.starts_with("error: --new-since: `no-such-branch` is not a git revision"), "{stderr}");
}
