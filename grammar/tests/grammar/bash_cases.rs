//! Every Bash case measured against Claude Code (`data/bash-2.1.332.json`, recorded
//! offline by `tests/oracle/bash-probe.py`) goes through `decide_bash` the way `capc session`
//! runs a `!` injection: the probe's skill body is parsed as a template, its one injection
//! is decided with the probe's rules and mode, and the decision must be Claude Code's, with
//! Claude Code's message when it refused. Cases where capc knowingly differs are listed, with
//! the reason, in `data/bash-allowlist.toml`; a listed case that matches fails too.

use capc_grammar::{
    decide_bash, parse_permission_rule, parse_template, BashContext, Behavior, LinkResolver, PermissionMode,
    SourcedRule,
};
use serde_json::Value;
use std::collections::BTreeMap;

fn strings(case: &Value, key: &str) -> Vec<String> {
    case.get(key)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The probe's rules, in Claude Code's source order, each anchored where its source is.
fn rules_of(case: &Value, project: &str, home: &str) -> Vec<SourcedRule> {
    let mut rules = Vec::new();
    let mut add = |behavior: Behavior, text: &str, source: &str, settings_dir: Option<String>| {
        let rule = parse_permission_rule(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        rules.push(SourcedRule { rule, behavior, source: source.to_owned(), settings_dir });
    };
    let user_dir = Some(format!("{home}/.claude"));
    for (key, behavior) in [("deny", Behavior::Deny), ("ask", Behavior::Ask), ("allow", Behavior::Allow)] {
        for text in strings(case, key) {
            add(behavior, &text, "userSettings", user_dir.clone());
        }
    }
    for text in strings(case, "project_allow") {
        add(Behavior::Allow, &text, "projectSettings", Some(project.to_owned()));
    }
    let args = strings(case, "args");
    for pair in args.chunks(2) {
        match pair {
            [flag, text] if flag == "--allowedTools" => add(Behavior::Allow, text, "cliArg", None),
            [flag, text] if flag == "--disallowedTools" => add(Behavior::Deny, text, "cliArg", None),
            other => panic!("unknown probe arguments {other:?}"),
        }
    }
    for text in strings(case, "allowed_tools") {
        add(Behavior::Allow, &text, "the skill's allowed-tools", None);
    }
    rules
}

/// The probe's skill body (`skill_text` in bash-probe.py), without its frontmatter.
fn body_of(case: &Value) -> String {
    let command = case["command"].as_str().unwrap_or_default();
    match case["form"].as_str() {
        Some("inline") => format!("Result: !`{command}`\nEND\n"),
        _ => format!("Result:\n```!\n{command}\n```\nEND\n"),
    }
}

fn allowlist() -> BTreeMap<String, String> {
    let text = include_str!("../data/bash-allowlist.toml");
    let table: toml::Table = toml::from_str(text).expect("bash-allowlist.toml parses");
    let cases = table.get("case").and_then(toml::Value::as_array).cloned().unwrap_or_default();
    cases
        .iter()
        .map(|case| {
            let id = case.get("id").and_then(toml::Value::as_str).expect("an allowlisted case has an id");
            let reason = case.get("reason").and_then(toml::Value::as_str).expect("an allowlisted case has a reason");
            assert!(!reason.trim().is_empty(), "{id}: the reason is empty");
            (id.to_owned(), reason.to_owned())
        })
        .collect()
}

/// The probe's folder as `capc session` sees it on disk (bash-probe.py's `run`): the skill, the
/// case's `links` (project path → target), and `/tmp/bp/outside/secret.txt` they point to.
/// Links are followed where they stand (`lnk/..` is the target's parent); the rest is as written.
#[derive(Debug)]
struct ProbeFolder {
    links: BTreeMap<String, String>,
    files: Vec<String>,
}

impl ProbeFolder {
    fn of(case: &Value, project: &str) -> ProbeFolder {
        let links: BTreeMap<String, String> = case
            .get("links")
            .and_then(Value::as_object)
            .map(|links| {
                links
                    .iter()
                    .map(|(at, to)| (format!("{project}/{at}"), to.as_str().unwrap_or_default().to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let mut files = vec![format!("{project}/.claude/skills/t/SKILL.md"), "/tmp/bp/outside/secret.txt".to_owned()];
        files.extend(links.keys().cloned());
        ProbeFolder { links, files }
    }
}

impl LinkResolver for ProbeFolder {
    fn real_path(&self, path: &str) -> Option<String> {
        let mut pending: Vec<String> = path.split('/').rev().map(str::to_owned).collect();
        let mut real: Vec<String> = Vec::new();
        let mut hops = 0;
        while let Some(segment) = pending.pop() {
            match segment.as_str() {
                "" | "." => {}
                ".." => {
                    real.pop();
                }
                _ => {
                    real.push(segment);
                    if let Some(target) = self.links.get(&format!("/{}", real.join("/"))) {
                        hops += 1;
                        if hops > 40 {
                            return None;
                        }
                        real.pop();
                        if target.starts_with('/') {
                            real.clear();
                        }
                        pending.extend(target.split('/').rev().map(str::to_owned));
                    }
                }
            }
        }
        Some(format!("/{}", real.join("/")))
    }

    fn entries(&self, dir: &str, _limit: usize) -> Option<Vec<String>> {
        let dir = self.real_path(dir)?;
        let mut names: Vec<String> = self
            .files
            .iter()
            .filter_map(|file| file.strip_prefix(&format!("{}/", dir.trim_end_matches('/'))))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_owned())
            .collect();
        names.dedup();
        (!names.is_empty()).then_some(names)
    }
}

/// What capc answers for one case: the decision, and the line that replaces the expansion when
/// the injection is refused.
fn capc_answer(case: &Value) -> (String, Option<String>) {
    let id = case["id"].as_str().unwrap_or_default();
    let project = format!("/tmp/bp/run/{id}/proj");
    let home = format!("/tmp/bp/run/{id}/home");
    let rules = rules_of(case, &project, &home);
    let mode = match case["mode"].as_str() {
        Some(mode) => PermissionMode::parse(mode).unwrap_or_else(|| panic!("{id}: unknown mode {mode}")),
        None => PermissionMode::Default,
    };
    let folder = ProbeFolder::of(case, &project);
    let cx = BashContext { mode, links: Some(&folder), ..BashContext::new(&project, &home) };
    let (template, errors) = parse_template(&body_of(case));
    assert!(errors.is_empty(), "{id}: {errors:?}");
    let [shell] = template.shell_commands.as_slice() else {
        panic!("{id}: expected one injection, found {}", template.shell_commands.len())
    };
    let decision = decide_bash(&rules, template.command(shell), &cx);
    let failure = (decision.behavior != Behavior::Allow).then(|| {
        format!(
            "Shell command permission check failed for pattern \"{}\": {}",
            template.text(shell.span),
            decision.message.as_deref().unwrap_or("Permission denied")
        )
    });
    (decision.behavior.as_str().to_owned(), failure)
}

#[test]
fn every_measured_case_is_decided_as_claude_code_decides_it() {
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("../data/bash-2.1.332.json")).expect("bash-2.1.332.json parses");
    assert_eq!(cases.len(), 380, "the measured cases");
    let allowlist = allowlist();
    let (mut matched, mut listed) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or_default();
        let expected = case["decision"].as_str().unwrap_or_default();
        let (decision, failure) = capc_answer(case);
        let mut differs = Vec::new();
        if decision != expected {
            differs.push(format!("decision {decision}, Claude Code {expected}"));
        }
        if let Some(failure) = &failure {
            let message = case["message"].as_str().unwrap_or_default();
            if decision == expected && failure != message {
                differs.push(format!("message\n    capc:        {failure:?}\n    Claude Code: {message:?}"));
            }
        }
        match (differs.is_empty(), allowlist.contains_key(id)) {
            (true, false) => matched += 1,
            (false, true) => listed += 1,
            (true, true) => failures.push(format!("{id}: matches now; remove it from bash-allowlist.toml")),
            (false, false) => failures.push(format!("{id} `{}`: {}", case["command"], differs.join("; "))),
        }
    }
    for id in allowlist.keys() {
        if !cases.iter().any(|case| case["id"] == id.as_str()) {
            failures.push(format!("{id}: allowlisted but not a measured case"));
        }
    }
    eprintln!("{matched} cases match Claude Code, {listed} differ as bash-allowlist.toml says");
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
