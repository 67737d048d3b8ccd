//! A turn's permission rules, assembled and decided in one place. Everything that
//! asks "may this happen?" — the tool pool's whole-tool denies, the agent listing's
//! `Agent(type)` denies, `!` injections, the Skill tool, MCP tool calls — asks a
//! [`Permissions`] built for the turn:
//!
//! 1. the lock's rules that hold in this folder: in a folder whose trust dialog was not
//!    accepted, Claude Code drops the project's and the local settings'
//!    `permissions.allow` entries (and says so on stderr); every other rule still applies;
//! 2. `--disallowedTools` (deny) and `--allowedTools` (allow), as command-line rules;
//! 3. the session's rules;
//! 4. the current skill's `allowed-tools`, as always-allow rules for the turn.
//!
//! Matching is the grammar crate's [`capc_grammar::decide`] (deny → ask → allow, the first
//! match decides); what no rule decides is settled by the permission mode here.

use crate::context::{PermissionMode, TurnContext};
use crate::loaded::Loaded;
use capc_grammar::{
    decide, parse_permission_rule, Behavior, MatchContext, PermissionRule, RuleContent, SourcedRule, ToolCall,
};
use std::sync::Arc;

/// Where the rules a turn adds come from, as decisions name them.
pub(crate) const DISALLOWED_TOOLS: &str = "--disallowedTools";
pub(crate) const ALLOWED_TOOLS: &str = "--allowedTools";
pub(crate) const SESSION: &str = "session";
pub(crate) const SKILL_GRANT: &str = "the skill's allowed-tools";

/// The rules of one turn.
#[derive(Debug, Clone)]
pub struct Permissions {
    /// The lock's rules that hold (see the module docs), in lock order.
    lock: Arc<[SourcedRule]>,
    /// Command-line, session and grant rules, in that order.
    extra: Vec<SourcedRule>,
    /// The lock's whole-tool deny rules (they hold trusted or not).
    lock_denies: Arc<[PermissionRule]>,
    mode: PermissionMode,
    /// Lines Claude Code prints on stderr about rules it ignores.
    notices: Arc<[String]>,
}

/// `Skill(…)` rule contents, each with the file it is written in.
pub type SkillRules = Vec<(String, String)>;

/// What a decision says: `allow`, `ask` or `deny`, and the rule that decided with its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub behavior: &'static str,
    pub rule: Option<String>,
}

impl Permissions {
    /// The rules of a turn in context `cx`, with `grant` (a skill's `allowed-tools`).
    pub fn assemble(loaded: &Loaded, cx: &TurnContext, grant: &[String]) -> Permissions {
        let held = loaded.held_rules(cx.trusted);
        let mut extra = Vec::new();
        let mut add = |texts: &mut dyn Iterator<Item = &str>, behavior: Behavior, source: &str| {
            for text in texts {
                if let Ok(rule) = parse_permission_rule(text) {
                    extra.push(SourcedRule { rule, behavior, source: source.to_string(), settings_dir: None });
                }
            }
        };
        let split = |list: &[String]| -> Vec<String> {
            list.iter()
                .flat_map(|l| {
                    capc_compiler::decl::permissions::split_rule_list(l).into_iter().map(|(_, r)| r.to_string())
                })
                .collect()
        };
        add(&mut split(&cx.disallowed_tools).iter().map(String::as_str), Behavior::Deny, DISALLOWED_TOOLS);
        add(&mut split(&cx.allowed_tools).iter().map(String::as_str), Behavior::Allow, ALLOWED_TOOLS);
        let session = &cx.session_rules;
        add(&mut session.deny.iter().map(String::as_str), Behavior::Deny, SESSION);
        add(&mut session.ask.iter().map(String::as_str), Behavior::Ask, SESSION);
        add(&mut session.allow.iter().map(String::as_str), Behavior::Allow, SESSION);
        add(&mut grant.iter().map(String::as_str), Behavior::Allow, SKILL_GRANT);
        Permissions {
            lock: held.rules,
            extra,
            lock_denies: loaded.whole_denies.clone(),
            mode: cx.permission_mode,
            notices: held.notices,
        }
    }

    /// Every rule, lock's first.
    fn all(&self) -> impl Iterator<Item = &SourcedRule> {
        self.lock.iter().chain(&self.extra)
    }

    /// The whole-tool deny rules (`Tool`, `Tool(*)`, `mcp__server`, `mcp__server__*`, `*`):
    /// each removes what it matches from the pool.
    pub(crate) fn whole_denies(&self) -> impl Iterator<Item = &PermissionRule> {
        let extra =
            self.extra.iter().filter(|r| r.behavior == Behavior::Deny && r.rule.is_whole_tool()).map(|r| &r.rule);
        self.lock_denies.iter().chain(extra)
    }

    /// Whether a whole-tool deny removes the tool `name`.
    pub fn removes(&self, name: &str) -> bool {
        let cx = MatchContext::default();
        self.whole_denies().any(|rule| rule.matches(Behavior::Deny, &ToolCall::new(name), &cx))
    }

    /// Whether an `Agent(type)` deny rule removes the agent `name` from the listing.
    pub(crate) fn denies_agent(&self, name: &str) -> bool {
        let cx = MatchContext::default();
        let call = ToolCall::new("Agent").with_primary(name);
        self.all().any(|r| {
            r.behavior == Behavior::Deny
                && matches!(r.rule.content, Some(RuleContent::AgentType(_)))
                && r.rule.matches(Behavior::Deny, &call, &cx)
        })
    }

    /// The decision for a call: deny → ask → allow by the rules; with no rule, the mode
    /// decides (`bypassPermissions` allows, `dontAsk` denies, every other mode asks).
    pub fn decide(&self, call: &ToolCall<'_>, cx: &MatchContext<'_>) -> Verdict {
        let rules: Vec<SourcedRule> = self.all().cloned().collect();
        // A Bash command is decided as Claude Code decides one, the mode included
        // (read-only commands need no rule; `bypassPermissions` and `dontAsk` settle the rest).
        if let (Some(command), "Bash") = (call.primary, call.tool) {
            let links = crate::shell::FileSystemLinks;
            let bash = capc_grammar::BashContext {
                mode: self.mode,
                links: Some(&links),
                bare_repository: crate::shell::bare_repository(std::path::Path::new(cx.cwd), false),
                ..capc_grammar::BashContext::new(cx.cwd, cx.home)
            };
            let decision = capc_grammar::decide_bash(&rules, command, &bash);
            let rule =
                decision.rule.and_then(|i| rules.get(i)).map(|r| format!("{} ({})", rule_text(&r.rule), r.source));
            return Verdict { behavior: decision.behavior.as_str(), rule };
        }
        let decision = decide(&rules, call, cx);
        let rule = decision.rule.and_then(|i| rules.get(i)).map(|r| format!("{} ({})", rule_text(&r.rule), r.source));
        let behavior = match decision.behavior {
            Some(Behavior::Ask) if self.mode == PermissionMode::DontAsk => "deny",
            Some(behavior) => behavior.as_str(),
            None => match self.mode {
                PermissionMode::BypassPermissions => "allow",
                PermissionMode::DontAsk => "deny",
                _ => "ask",
            },
        };
        Verdict { behavior, rule }
    }

    /// The contents of `Skill(…)` deny and allow rules, each with its file, for the Skill
    /// tool's own decision.
    pub fn skill_rules(&self) -> (SkillRules, SkillRules) {
        let (mut deny, mut allow) = (Vec::new(), Vec::new());
        for rule in self.all() {
            if rule.rule.tool.canonical != "Skill" {
                continue;
            }
            let Some(spec) = &rule.rule.specifier else { continue };
            let entry = (spec.text.clone(), rule.source.clone());
            match rule.behavior {
                Behavior::Deny => deny.push(entry),
                Behavior::Allow => allow.push(entry),
                Behavior::Ask => {}
            }
        }
        (deny, allow)
    }

    /// Every rule of the turn, in the order the decision reads them.
    pub fn rules(&self) -> Vec<SourcedRule> {
        self.all().cloned().collect()
    }

    /// What Claude Code prints on stderr about this turn's rules.
    pub(crate) fn notices(&self) -> Vec<String> {
        self.notices.to_vec()
    }
}

/// A rule as written.
pub fn rule_text(rule: &PermissionRule) -> String {
    match &rule.specifier {
        Some(spec) => format!("{}({})", rule.tool.written, spec.text),
        None => rule.tool.written.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loaded::Roots;
    use crate::trust::ignored_allow_notice;
    use capc_compiler::model::{Behavior as B, Permission, Scope};

    fn loaded(rules: &[(&str, B, Scope, &str)]) -> Loaded {
        let mut lock = capc_compiler::lock::resolve::empty_lock();
        lock.permissions = rules
            .iter()
            .map(|(rule, behavior, scope, path)| Permission {
                rule: rule.to_string(),
                behavior: *behavior,
                scope: *scope,
                path: path.to_string(),
                ..Permission::default()
            })
            .collect();
        Loaded::new(lock, Roots { root: "/p".into(), user_dir: Some("/h".into()), ..Roots::default() })
    }

    #[test]
    fn an_untrusted_folder_drops_project_and_local_allow_rules_only() {
        let l = loaded(&[
            ("Bash(make *)", B::Allow, Scope::Project, ".claude/settings.json"),
            ("Bash(npm run *)", B::Allow, Scope::Local, ".claude/settings.local.json"),
            ("Read", B::Allow, Scope::User, "~/.claude/settings.json"),
            ("WebFetch", B::Deny, Scope::Project, ".claude/settings.json"),
        ]);
        let cx = MatchContext { cwd: "/p", home: "/h", settings_dir: None };
        let bash = |p: &Permissions, command| p.decide(&ToolCall::new("Bash").with_primary(command), &cx).behavior;
        let untrusted = Permissions::assemble(&l, &TurnContext::default(), &[]);
        assert_eq!(bash(&untrusted, "make test"), "ask");
        assert_eq!(bash(&untrusted, "npm run build"), "ask");
        assert_eq!(untrusted.decide(&ToolCall::new("Read"), &cx).behavior, "allow");
        assert!(untrusted.removes("WebFetch"), "deny rules hold untrusted");
        assert_eq!(
            untrusted.notices(),
            ["Ignoring 2 permissions.allow entries from .claude/settings.json and .claude/settings.local.json: this workspace has not been trusted. Run Claude Code interactively here once and accept the trust dialog, or set projects[\"/p\"].hasTrustDialogAccepted: true in /h/.claude.json."]
        );
        let trusted = Permissions::assemble(&l, &TurnContext { trusted: true, ..TurnContext::default() }, &[]);
        assert_eq!(bash(&trusted, "make test"), "allow");
        assert_eq!(bash(&trusted, "npm run build"), "allow");
        assert!(trusted.notices().is_empty());
    }

    #[test]
    fn command_line_session_and_grant_rules_join_and_the_mode_settles_the_rest() {
        let l = loaded(&[]);
        let cx = MatchContext { cwd: "/p", home: "/h", settings_dir: None };
        let turn = TurnContext {
            disallowed_tools: vec!["WebFetch Bash(rm:*)".into()],
            allowed_tools: vec!["Bash(git status:*)".into()],
            permission_mode: PermissionMode::DontAsk,
            ..TurnContext::default()
        };
        let p = Permissions::assemble(&l, &turn, &["Bash(make:*)".to_string()]);
        assert!(p.removes("WebFetch") && !p.removes("Bash"));
        let bash = |command| p.decide(&ToolCall::new("Bash").with_primary(command), &cx);
        assert_eq!(bash("rm -rf x").rule.as_deref(), Some("Bash(rm:*) (--disallowedTools)"));
        assert_eq!(bash("git status").behavior, "allow");
        assert_eq!(bash("make all").rule.as_deref(), Some("Bash(make:*) (the skill's allowed-tools)"));
        assert_eq!(bash("curl x").behavior, "deny", "dontAsk denies what no rule allows");
        let bypass = TurnContext { permission_mode: PermissionMode::BypassPermissions, ..TurnContext::default() };
        let p = Permissions::assemble(&l, &bypass, &[]);
        assert_eq!(p.decide(&ToolCall::new("Bash").with_primary("curl x"), &cx).behavior, "allow");
    }

    #[test]
    fn the_untrusted_notice_of_claude_code() {
        let one = [(".claude/settings.json".to_string(), 1)];
        assert_eq!(
            ignored_allow_notice(&one, "/t", "/h").as_deref(),
            Some("Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace has not been trusted. Run Claude Code interactively here once and accept the trust dialog, or set projects[\"/t\"].hasTrustDialogAccepted: true in /h/.claude.json.")
        );
        let two = [(".claude/settings.json".to_string(), 2), (".claude/settings.local.json".to_string(), 1)];
        let notice = ignored_allow_notice(&two, "/t", "/h").unwrap_or_default();
        assert!(notice.starts_with(
            "Ignoring 3 permissions.allow entries from .claude/settings.json and .claude/settings.local.json:"
        ));
        assert_eq!(ignored_allow_notice(&[], "/t", "/h"), None);
    }
}
