//! The generated flag-form variants of every command in Claude Code's read-only table
//! (`data/bash-variants-2.1.332.json`, written by `tests/oracle/bash-variants.py`, each decided
//! by the real Claude Code with no permission rule in a trusted folder) go through
//! `decide_bash` with the same project and home. capc must run exactly what Claude Code runs
//! without asking; where capc asks and Claude Code does not, the command is listed in
//! `data/bash-variants-allowlist.toml` under the reason. A listed command that matches fails
//! too, so the list only shrinks; capc allowing what Claude Code refused is never listable.

use capc_grammar::{decide_bash, BashContext, Behavior};
use serde_json::Value;
use std::collections::BTreeMap;

/// Each command listed under `section` and the reason given for its group.
fn listed(section: &str) -> BTreeMap<String, String> {
    let text = include_str!("../data/bash-variants-allowlist.toml");
    let table: toml::Table = toml::from_str(text).expect("bash-variants-allowlist.toml parses");
    let groups = table.get(section).and_then(toml::Value::as_array).cloned().unwrap_or_default();
    let mut out = BTreeMap::new();
    for group in &groups {
        let reason = group.get("reason").and_then(toml::Value::as_str).expect("a group has a reason");
        assert!(!reason.trim().is_empty(), "an allowlist group has an empty reason");
        let commands = group.get("commands").and_then(toml::Value::as_array).expect("a group lists commands");
        for command in commands {
            let command = command.as_str().expect("a command is a string");
            assert!(out.insert(command.to_owned(), reason.to_owned()).is_none(), "{command:?} is listed twice");
        }
    }
    out
}

#[test]
fn every_generated_variant_is_decided_as_claude_code_decides_it_or_stricter() {
    let cases: Vec<Value> = serde_json::from_str(include_str!("../data/bash-variants-2.1.332.json"))
        .expect("bash-variants-2.1.332.json parses");
    assert!(cases.len() >= 3000, "the generated variants: {}", cases.len());
    let stricter = listed("stricter");
    // Commands a tool call asks about (the variants are measured as tool calls with reads outside
    // the working directories blocked) that Claude Code runs as a `!` injection, as the measured
    // injections in bash-2.1.332.json show: capc decides them as the injections are decided.
    let injection = listed("injection");
    let (mut equal, mut listed) = (0, 0);
    let mut looser = Vec::new();
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    for case in &cases {
        let command = case["command"].as_str().expect("a case has a command");
        let chunk = case["chunk"].as_str().expect("a case has its chunk");
        let project = format!("/tmp/bv/{chunk}/proj");
        let home = format!("/tmp/bv/{chunk}/home");
        let cx = BashContext::new(&project, &home);
        let capc = decide_bash(&[], command, &cx).behavior == Behavior::Allow;
        let claude = match case["decision"].as_str() {
            Some("allow") => true,
            Some("ask") => false,
            other => panic!("{command:?}: unmeasured decision {other:?}"),
        };
        if injection.contains_key(command) {
            match (capc, claude) {
                (true, false) => listed += 1,
                _ => stale.push(command),
            }
            continue;
        }
        match (capc, claude, stricter.contains_key(command)) {
            (true, true, false) | (false, false, false) => equal += 1,
            (false, true, true) => listed += 1,
            (true, false, _) => looser.push(command),
            (false, true, false) => unlisted.push(command),
            (_, _, true) => stale.push(command),
        }
    }
    let measured: std::collections::BTreeSet<&str> = cases.iter().filter_map(|case| case["command"].as_str()).collect();
    stale.extend(
        stricter.keys().chain(injection.keys()).map(String::as_str).filter(|command| !measured.contains(command)),
    );
    eprintln!(
        "{} variants: {equal} decided as Claude Code decides them, {listed} listed (stricter, or as measured injections decide)",
        cases.len()
    );
    let mut report = String::new();
    for (title, list) in [
        ("capc runs without asking what Claude Code asks about", &looser),
        ("capc asks, Claude Code runs; not listed in bash-variants-allowlist.toml", &unlisted),
        ("listed in bash-variants-allowlist.toml but decided as Claude Code does (or not measured)", &stale),
    ] {
        if !list.is_empty() {
            report.push_str(&format!("{title} ({}):\n", list.len()));
            for command in list.iter() {
                report.push_str(&format!("  {command:?}\n"));
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}
