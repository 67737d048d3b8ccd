//! The counts the docs' prose gives, computed from the data they count: each figure is a phrase
//! of a document, written here with its numbers computed from what is committed (the recorded
//! verdicts of `tests/oracle/`, the scenarios, the measured Bash cases), so that a recording or a
//! scenario added without its figure fails here. CONTRIBUTING.md ("Snippets in the docs") says
//! which figures other tests check and which are dated measurements.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The document's text with each run of whitespace as one space, so that a phrase may wrap.
fn prose(file: &str) -> String {
    let text = std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `n` with a comma between thousands, as the docs write it (`11,417`).
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` in words, as the docs write a count under thirteen.
fn word(n: usize) -> String {
    let words =
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    words.get(n).map_or_else(|| n.to_string(), |w| w.to_string())
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn files(dir: &str, file: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .flatten()
        .map(|e| if file.is_empty() { e.path() } else { e.path().join(file) })
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Each phrase is in its document; all the stale ones are reported at once.
fn assert_figures(figures: &[(&str, String)]) {
    let stale: Vec<String> = figures
        .iter()
        .filter(|(file, phrase)| !prose(file).contains(phrase.as_str()))
        .map(|(file, phrase)| format!("{file} should say `{phrase}`"))
        .collect();
    assert!(stale.is_empty(), "figures the docs give that the data no longer bear out:\n{}", stale.join("\n"));
}

/// docs/reading.md's "Checked against Claude Code itself": the plugins of the validator's
/// recordings (`tests/oracle/validate/*.json`, one per corpus), what it accepts and rejects, what
/// the allowlist excuses, what loads with `--plugin-dir`; and the real-plugin scenarios with their
/// typed commands.
#[test]
fn reading_md_counts_the_oracles_recordings() {
    let recordings = files("tests/oracle/validate", "");
    let recordings: Vec<Value> =
        recordings.iter().filter(|p| p.extension().is_some_and(|e| e == "json")).map(|p| json(p)).collect();
    let plugins: Vec<&Value> = recordings
        .iter()
        .flat_map(|r| r["targets"].as_array().into_iter().flatten())
        .filter(|t| t["kind"] == "plugin")
        .collect();
    let accepted = plugins
        .iter()
        .filter(|t| t["validate"]["success"] == Value::Bool(true) && !t["validate"]["provides"].is_null())
        .count();
    let rejected = plugins
        .iter()
        .flat_map(|t| t["validate"]["all_errors"].as_array().into_iter().flatten())
        .filter(|e| e["file"].is_string())
        .count();
    let allowlist: toml::Table = std::fs::read_to_string(repo().join("tests/oracle/validate-allowlist.toml"))
        .expect("validate-allowlist.toml")
        .parse()
        .expect("TOML");
    let missed = allowlist["allow"]
        .as_array()
        .expect("[[allow]]")
        .iter()
        .filter(|a| a["kind"].as_str() == Some("missed"))
        .count();
    let loaded = plugins.iter().filter(|t| t["plugin_list"]["loaded"] == Value::Bool(true)).count();

    let real: Vec<toml::Table> = files("tests/oracle/scenarios", "scenario.toml")
        .iter()
        .filter(|p| p.parent().and_then(Path::file_name).is_some_and(|n| n.to_string_lossy().starts_with("real-")))
        .map(|p| std::fs::read_to_string(p).expect("scenario.toml").parse().expect("TOML"))
        .collect();
    let typed = real
        .iter()
        .flat_map(|s| s["inputs"].as_array().into_iter().flatten())
        .filter(|i| i.as_str().is_some_and(|i| i.starts_with('/')))
        .count();

    let (folders, file) = (plugins.len(), "docs/reading.md");
    assert_figures(&[
        (file, format!("on the {} public corpora", word(recordings.len()))),
        (file, format!("{folders} plugin folders. For all {accepted} plugins the validator accepts")),
        (
            file,
            format!(
                "Of the {rejected} files the validator rejects, capc reports an error in {}; the other {missed} are listed",
                rejected - missed
            ),
        ),
        (file, format!("all {folders} plugin folders")),
        (file, format!("({loaded} load, {} do not", folders - loaded)),
        (file, format!("{} plugins of the corpora", real.len())),
        (file, format!("{typed} of their commands and skills typed with arguments")),
    ]);
}

/// docs/session.md: the scenarios `tests/trials/oracle.rs` compares and their inputs, and the
/// Bash cases measured on Claude Code (also in docs/security.md and grammar/GRAMMAR.md).
#[test]
fn session_md_counts_the_scenarios_and_the_bash_cases() {
    let scenarios: Vec<toml::Table> = files("tests/oracle/scenarios", "scenario.toml")
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("scenario.toml").parse().expect("TOML"))
        .collect();
    let inputs: usize =
        scenarios.iter().map(|s| s.get("inputs").and_then(toml::Value::as_array).map_or(0, Vec::len)).sum();
    let cases = json(&repo().join("grammar/tests/data/bash-2.1.332.json")).as_array().expect("cases").len();
    let forms = json(&repo().join("grammar/tests/data/bash-variants-2.1.332.json")).as_array().expect("forms").len();
    assert_figures(&[
        ("docs/session.md", format!("for {inputs} inputs in {} scenario trees", scenarios.len())),
        ("docs/session.md", format!("checked against {cases} cases and {} generated flag forms", grouped(forms))),
        ("docs/security.md", format!("{} flag forms generated", grouped(forms))),
        ("grammar/GRAMMAR.md", format!("measured on {cases} cases")),
        ("CONTRIBUTING.md", format!("the {cases} Bash cases measured on Claude Code")),
        ("CONTRIBUTING.md", format!("{} generated flag forms", grouped(forms))),
    ]);
}
