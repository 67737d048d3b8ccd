//! What a permission rule means: [`PermissionRule::matches`] for one rule and [`decide`] for a list.
//!
//! Claude Code's pipeline (`hasPermissionsToUseToolInner`) checks whole-tool deny and ask rules
//! before the tool's own content rules; the permissions docs (https://code.claude.com/docs/en/permissions)
//! state the simpler rule this module follows: **deny → ask → allow, the first match decides,
//! specificity doesn't matter**.
//! Within one behaviour the first matching rule in the caller's order wins (Claude Code reads sources in
//! `PERMISSION_RULE_SOURCES` order: user, project, local, flag, policy, cliArg, command, session).
//! Modes (`bypassPermissions`, `dontAsk`, …), hooks, sandboxing, read-only auto-allows and the safety
//! checks on `.git`/`.claude` are outside this crate: when no rule matches the answer is
//! a [`Decision`] with no behaviour (passthrough). The exception is a Bash command, which [`crate::decide`] hands to
//! [`crate::decide_bash`] (Claude Code's whole Bash check, in the default mode): it
//! never passes through. [`PermissionRule::matches`] stays the reading of one rule against one
//! command (used for PowerShell, and for questions about a single rule).

mod path;
pub(crate) mod shell;
mod wildcard;

#[cfg(test)]
mod tests;

use crate::permission::mcp_parts;
use crate::tools::{canonical_tool_name, is_edit_family, is_read_family, primary_field};
use crate::{PermissionRule, RuleContent, SkillPattern, ToolKind, ToolName};

use self::wildcard::star_match;

// The one permission behaviour of the workspace: the list a rule was written in, what `decide`
// and `decide_bash` answer, and (with the `serde` feature, which the compiler turns on) the
// `behavior` of a rule in `capabilities.lock`. Its doc comment is the lock schema's description.
/// What a permission rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum Behavior {
    #[default]
    Allow,
    Ask,
    Deny,
}

impl Behavior {
    /// The word of the lists and of the lock: `allow`, `ask`, `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Behavior::Allow => "allow",
            Behavior::Ask => "ask",
            Behavior::Deny => "deny",
        }
    }
}

/// One tool call, as far as permission rules can see it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolCall<'a> {
    /// The name Claude Code checks: `mcp__<server>__<tool>` for MCP tools, legacy names allowed.
    pub tool: &'a str,
    /// The input field a specifier is about: Bash/PowerShell `command`, Read/Edit/Write `file_path`,
    /// Glob/Grep `path`, NotebookEdit `notebook_path`, WebFetch `url`, Skill `skill`, Agent `subagent_type`.
    pub primary: Option<&'a str>,
    /// The other top-level scalar input fields, rendered as strings, for `Tool(param:value)` rules.
    pub params: &'a [(&'a str, &'a str)],
}

impl<'a> ToolCall<'a> {
    pub fn new(tool: &'a str) -> ToolCall<'a> {
        ToolCall { tool, primary: None, params: &[] }
    }
    pub fn with_primary(self, primary: &'a str) -> ToolCall<'a> {
        ToolCall { primary: Some(primary), ..self }
    }
    pub fn with_params(self, params: &'a [(&'a str, &'a str)]) -> ToolCall<'a> {
        ToolCall { params, ..self }
    }
}

/// The directories path rules are resolved against. All are absolute, `/`-separated paths.
#[derive(Debug, Clone, Copy, Default)]
pub struct MatchContext<'a> {
    /// The session's original working directory: relative globs, and `/x` rules from the CLI.
    pub cwd: &'a str,
    /// The home directory, for `~/x` rules and `~` in paths.
    pub home: &'a str,
    /// Where `/x` rules anchor: the rule's settings root (project settings → project root, user
    /// settings → `~/.claude`, …). `None` means the cwd, as for CLI and session rules.
    pub settings_dir: Option<&'a str>,
}

/// A rule together with where it came from, as the caller read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedRule {
    pub rule: PermissionRule,
    pub behavior: Behavior,
    /// A label for reports, such as `projectSettings` or `.claude/settings.json`.
    pub source: String,
    /// The directory `/x` path rules of this source anchor at (see [`MatchContext::settings_dir`]).
    pub settings_dir: Option<String>,
}

/// What [`decide`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// `None`: no rule matched (Claude Code's `passthrough`); Claude Code goes on to the tool's
    /// own checks and the permission mode.
    pub behavior: Option<Behavior>,
    /// The index in the caller's rule list of the rule that decided.
    pub rule: Option<usize>,
    /// That rule's source label.
    pub source: Option<String>,
}

/// Rules only, in order: the first deny, ask or allow rule matching by [`PermissionRule::matches`].
/// An allow for a compound shell command needs every part allowed, possibly by different rules;
/// the decision then names the first part's rule.
pub(crate) fn decide_by_rules(rules: &[SourcedRule], call: &ToolCall<'_>, cx: &MatchContext<'_>) -> Decision {
    let decided = |index: usize, behavior: Behavior| Decision {
        behavior: Some(behavior),
        rule: Some(index),
        source: rules.get(index).map(|rule| rule.source.clone()),
    };
    for behavior in [Behavior::Deny, Behavior::Ask, Behavior::Allow] {
        let found = rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| rule.behavior == behavior)
            .find(|(_, rule)| rule.rule.matches(behavior, call, &context_for(rule, cx)));
        if let Some((index, _)) = found {
            return decided(index, behavior);
        }
    }
    if let Some(index) = compound_allow(rules, call, cx) {
        return decided(index, Behavior::Allow);
    }
    Decision { behavior: None, rule: None, source: None }
}

/// Every part of a compound shell command allowed by some allow rule: the rule of the first part.
fn compound_allow(rules: &[SourcedRule], call: &ToolCall<'_>, cx: &MatchContext<'_>) -> Option<usize> {
    let tool = canonical_tool_name(call.tool);
    let command = call.primary?;
    if !matches!(tool, "Bash" | "PowerShell") {
        return None;
    }
    let parts = shell::split_compound(command.trim());
    if parts.len() < 2 {
        return None;
    }
    let mut first = None;
    for part in parts {
        let part_call = ToolCall { primary: Some(part), ..*call };
        let (index, _) = rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| rule.behavior == Behavior::Allow)
            .find(|(_, rule)| rule.rule.matches(Behavior::Allow, &part_call, &context_for(rule, cx)))?;
        first.get_or_insert(index);
    }
    first
}

/// The context for one rule: its own settings directory, if it has one.
fn context_for<'a>(rule: &'a SourcedRule, cx: &MatchContext<'a>) -> MatchContext<'a> {
    MatchContext { settings_dir: rule.settings_dir.as_deref().or(cx.settings_dir), ..*cx }
}

impl PermissionRule {
    /// Does this rule, read from the `behavior` list, match `call`? This is the whole meaning of one
    /// rule, including the cases where Claude Code ignores a rule of that list:
    ///
    /// * an allow rule with an unanchored tool-name glob (`*`, `mcp__*`; permissions docs);
    /// * an allow rule on a parameter, or any parameter rule on the tool's primary field (permissions
    ///   docs);
    /// * a `Skill(…)` ask rule (Claude Code's `SkillTool.checkPermissions` never reads them);
    /// * a path rule on `Write`, `NotebookEdit`, `Glob` or `MultiEdit` (v2.1.210+; use `Edit`/`Read`).
    pub fn matches(&self, behavior: Behavior, call: &ToolCall<'_>, cx: &MatchContext<'_>) -> bool {
        if behavior == Behavior::Allow && self.tool.is_glob() && !self.tool.is_anchored_glob() {
            return false;
        }
        let tool = canonical_tool_name(call.tool);
        let Some(content) = &self.content else {
            return tool_name_matches(&self.tool, tool);
        };
        let deny_like = behavior != Behavior::Allow;
        let rule_tool = self.tool.canonical.as_str();
        match content {
            RuleContent::Bash(pattern) => {
                rule_tool == tool
                    && call.primary.is_some_and(|command| {
                        shell::shell_rule_matches(pattern, command, deny_like, tool == "PowerShell")
                    })
            }
            RuleContent::Path { anchor, glob } => {
                // `Read` rules govern every reading tool and, since v2.1.208, a `Read` deny also
                // blocks edits of the path; `Edit` rules govern every editing tool.
                let governs = match rule_tool {
                    "Read" => is_read_family(tool) || (behavior == Behavior::Deny && is_edit_family(tool)),
                    "Edit" => is_edit_family(tool),
                    _ => false,
                };
                governs
                    && call.primary.is_some_and(|file| {
                        path::path_rule_matches(*anchor, glob, file, behavior == Behavior::Allow, cx)
                    })
            }
            RuleContent::Domain { host } => {
                tool == "WebFetch"
                    && call.primary.and_then(url_host).is_some_and(|url_host| domain_matches(host, &url_host))
            }
            RuleContent::Skill(pattern) => {
                tool == "Skill"
                    && behavior != Behavior::Ask
                    && call.primary.is_some_and(|skill| skill_matches(pattern, skill))
            }
            RuleContent::AgentType(agent_type) => tool == "Agent" && call.primary == Some(agent_type.as_str()),
            RuleContent::Param { name, value } => {
                deny_like
                    && primary_field(rule_tool) != Some(name.as_str())
                    && tool_name_matches(&self.tool, tool)
                    && call
                        .params
                        .iter()
                        .any(|(key, actual)| key.trim() == name && star_match(value.trim(), actual, false))
            }
            RuleContent::Raw(_) => false,
        }
    }
}

/// Whole-tool matching (`toolMatchesRule`): equal canonical names; an MCP rule naming the server
/// (`mcp__srv`, `mcp__srv__*`) covers its tools; `*` globs cover any matching name.
fn tool_name_matches(rule: &ToolName, tool: &str) -> bool {
    if rule.canonical == tool {
        return true;
    }
    match &rule.kind {
        ToolKind::Mcp { server, tool: rule_tool } => {
            let Some((call_server, call_tool)) = mcp_parts(tool) else { return false };
            star_match(server, call_server, false)
                && match (rule_tool.as_deref(), call_tool) {
                    (None | Some("*"), _) => true,
                    (Some(pattern), Some(call_tool)) => star_match(pattern, call_tool, false),
                    (Some(_), None) => false,
                }
        }
        ToolKind::Glob => star_match(&rule.canonical, tool, false),
        ToolKind::Builtin | ToolKind::Unknown => false,
    }
}

/// `SkillTool.checkPermissions`: whitespace and one leading `/` are dropped from the name. Rules
/// compare the skill's name only, whatever its arguments.
fn skill_matches(pattern: &SkillPattern, skill: &str) -> bool {
    let skill = skill.trim();
    let skill = skill.strip_prefix('/').unwrap_or(skill);
    match pattern {
        SkillPattern::Exact(name) | SkillPattern::AnyArgs(name) => name == skill,
        SkillPattern::LegacyPrefix(prefix) => skill.starts_with(prefix.as_str()),
        SkillPattern::Wildcard(pieces) => shell::wildcard_matches(pieces, skill, false),
    }
}

/// The host of a URL, lowercased, without userinfo, port or a trailing `.`; `None` without a scheme.
fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = if host_port.starts_with('[') {
        host_port.split_inclusive(']').next().unwrap_or(host_port)
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    };
    let host = host.trim_end_matches('.').to_lowercase();
    (!host.is_empty()).then_some(host)
}

/// `WebFetch(domain:…)` per the permissions docs (older versions, 2.1.88 among them, compared the
/// host for equality only):
/// case-insensitive, trailing `.` ignored; `*` is every host; `*.x.com` is any subdomain at any
/// depth but not `x.com` itself; any other `*` matches within one label.
fn domain_matches(rule: &str, host: &str) -> bool {
    let rule = rule.trim_end_matches('.').to_lowercase();
    if rule == "*" {
        return true;
    }
    let rule_labels: Vec<&str> = rule.split('.').collect();
    let host_labels: Vec<&str> = host.split('.').collect();
    let labels_match = |rule: &[&str], host: &[&str]| {
        rule.len() == host.len() && rule.iter().zip(host).all(|(r, h)| star_match(r, h, false))
    };
    match rule_labels.split_first() {
        Some((&"*", parent)) if !parent.is_empty() => {
            host_labels.len() > parent.len() && labels_match(parent, &host_labels[host_labels.len() - parent.len()..])
        }
        _ => labels_match(&rule_labels, &host_labels),
    }
}
