//! Frontmatter keys through `capc check`, as users run it: every key of Claude Code 2.1.332's
//! own list (its copy, `compiler/src/decl/frontmatter-keys-2.1.332.txt`) is accepted in each
//! kind of file where Claude Code reads frontmatter, and the unknown keys that remain are a
//! warning only when they are probably a typo.

use crate::support::write_file;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const KEYS_FILE: &str = include_str!("../../compiler/src/decl/frontmatter-keys-2.1.332.txt");

fn claude_code_keys() -> Vec<&'static str> {
    KEYS_FILE.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// `capc check DIR --format json`'s findings.
fn findings(dir: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_capc"))
        .args(["check", "--format", "json"])
        .arg(dir)
        .output()
        .expect("run capc");
    let report: Value = serde_json::from_slice(&out.stdout).expect("capc check prints JSON");
    report["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// A frontmatter block holding `keys`, each with a plain string value (wrong types are another
/// rule's business; this is about whether the key is known).
fn frontmatter(keys: &[&str]) -> String {
    let mut text = String::from("---\n");
    for key in keys {
        let value = match *key {
            "name" => "probe",
            _ => "probe value",
        };
        text.push_str(&format!("{key}: {value}\n"));
    }
    text.push_str("---\nDo the thing.\n");
    text
}

const KINDS: [(&str, &str); 3] = [
    ("skill", ".claude/skills/probe/SKILL.md"),
    ("command", ".claude/commands/probe.md"),
    ("agent", ".claude/agents/probe.md"),
];

#[test]
fn the_copy_of_claude_codes_key_list_is_the_one_it_names() {
    let keys = claude_code_keys();
    assert!(KEYS_FILE.contains("Claude Code: 2.1.332"), "the copy names the version it came from");
    assert_eq!(keys.last(), Some(&"hide-from-slash-command-tool"), "the list as the bundle orders it");
    for key in ["author", "homepage", "license", "keywords", "dependencies", "color", "displayName"] {
        assert!(keys.contains(&key), "`{key}` is in Claude Code's list");
    }
}

#[test]
fn every_key_claude_code_knows_is_accepted_in_every_frontmatter_kind() {
    let keys = claude_code_keys();
    let dir = tempfile::tempdir().expect("tempdir");
    for (_, rel) in KINDS {
        write_file(dir.path(), rel, &frontmatter(&keys));
    }
    let unknown: Vec<String> = findings(dir.path())
        .iter()
        .filter(|d| d["rule"] == "unknown-field")
        .map(|d| format!("{}:{}: {}", d["path"].as_str().unwrap_or(""), d["line"], d["message"]))
        .collect();
    assert!(unknown.is_empty(), "keys Claude Code 2.1.332 knows, reported unknown:\n{}", unknown.join("\n"));
}

#[test]
fn a_probable_typo_is_a_warning_and_custom_metadata_an_info() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (_, rel) in KINDS {
        write_file(
            dir.path(),
            rel,
            "---\nname: probe\ndescription: probe\ndesciption: typo\nce_platforms: [claude]\n---\nDo it.\n",
        );
    }
    let found = findings(dir.path());
    for (kind, rel) in KINDS {
        let severity = |key: &str| {
            found
                .iter()
                .find(|d| {
                    d["rule"] == "unknown-field"
                        && d["path"] == rel
                        && d["message"].as_str().unwrap_or("").contains(key)
                })
                .map(|d| d["severity"].as_str().unwrap_or("").to_string())
        };
        assert_eq!(severity("`desciption`").as_deref(), Some("warning"), "a typo in a {kind} stays a warning");
        assert_eq!(severity("`ce_platforms`").as_deref(), Some("info"), "custom metadata in a {kind} is an info");
    }
}
