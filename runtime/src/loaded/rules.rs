//! The lock's permission rules, parsed once at load, and which of them hold in a trusted and
//! in an untrusted folder.

use capc_compiler::model::Scope;
use capc_grammar::{parse_permission_rule, Behavior, PermissionRule, SourcedRule};
use std::sync::Arc;

/// A permission rule of the lock, parsed once at load.
#[derive(Debug, Clone)]
pub struct LockRule {
    pub text: String,
    pub behavior: Behavior,
    pub scope: Scope,
    pub source: String,
    pub parsed: PermissionRule,
}

/// The lock's rules that hold in a folder, and what Claude Code says about the others.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    pub rules: Arc<[SourcedRule]>,
    pub(crate) notices: Arc<[String]>,
}

/// The rules that hold trusted (all of them) and untrusted (without the project's and the
/// local settings' allow rules, which Claude Code ignores there and names on stderr).
pub(crate) fn held(rules: &[LockRule], root: &str, home: &str) -> (Held, Held) {
    let sourced = |r: &LockRule| SourcedRule {
        rule: r.parsed.clone(),
        behavior: r.behavior,
        source: r.source.clone(),
        settings_dir: None,
    };
    let ignored_here = |r: &LockRule| r.behavior == Behavior::Allow && matches!(r.scope, Scope::Project | Scope::Local);
    let mut ignored: Vec<(String, usize)> = Vec::new();
    for r in rules.iter().filter(|r| ignored_here(r)) {
        match ignored.iter_mut().find(|(path, _)| *path == r.source) {
            Some((_, n)) => *n += 1,
            None => ignored.push((r.source.clone(), 1)),
        }
    }
    // The project's settings file is named before the local one.
    ignored.sort_by_key(|(path, _)| path.ends_with(".local.json"));
    let notices: Vec<String> = crate::trust::ignored_allow_notice(&ignored, root, home).into_iter().collect();
    let trusted = Held { rules: rules.iter().map(sourced).collect(), notices: Arc::from([]) };
    let untrusted =
        Held { rules: rules.iter().filter(|r| !ignored_here(r)).map(sourced).collect(), notices: notices.into() };
    (trusted, untrusted)
}

/// The lines Claude Code prints on stderr, with text output (`-p`'s default; JSON and
/// stream-JSON output print none), for settings files it does not load, each named by its
/// absolute path (`at`); none when every file loads.
pub(crate) fn settings_notice(
    refused: &[capc_compiler::model::SettingsNotLoaded],
    at: impl Fn(&str) -> String,
) -> Vec<String> {
    if refused.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["These settings did not load, so nothing in them is in effect, including hooks, permission rules and sandbox settings, though environment variables they already set can stay:".to_string()];
    lines.extend(refused.iter().map(|r| match r.key.as_str() {
        "" => format!("  {}: {}", at(&r.path), r.message),
        key => format!("  {} ({key}): {}", at(&r.path), r.message),
    }));
    lines.push("Fix each problem listed, then start Claude Code again. For settings sent with applyFlagSettings, shown as SDK inline settings, send them again instead.".to_string());
    lines
}

/// A lock rule, parsed. A rule whose content the lock keeps only as a hash (it held a
/// secret: `Bash(sha256:…)`) fails closed: as a deny or ask rule it covers its whole tool, as
/// an allow rule it allows nothing.
pub(super) fn parsed_rule(text: &str, behavior: Behavior) -> Option<PermissionRule> {
    match capc_compiler::secrets::hashed_rule_tool(text) {
        Some(_) if behavior == Behavior::Allow => None,
        Some(tool) => parse_permission_rule(tool).ok(),
        None => parse_permission_rule(text).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hashed_rule_fails_closed() {
        let hashed = capc_compiler::secrets::redact_rule("Bash(curl -H sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx)");
        assert!(
            parsed_rule(&hashed, Behavior::Allow).is_none(),
            "an allow rule whose content is hidden allows nothing"
        );
        for behavior in [Behavior::Deny, Behavior::Ask] {
            assert_eq!(parsed_rule(&hashed, behavior), parse_permission_rule("Bash").ok(), "covers all of Bash");
        }
        assert_eq!(parsed_rule("Bash(git status)", Behavior::Allow), parse_permission_rule("Bash(git status)").ok());
    }
}
