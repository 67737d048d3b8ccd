//! Hover on a permission rule of a settings file: what it matches and which rule decides.
//!
//! Nothing here matches rules itself. What the rule matches is the grammar crate's reading of
//! it (`parse_permission_rule`) and the check's resolution (the servers, skills and agents it
//! names; what a blanket deny removes from the tool pool); whether it ever decides is the
//! resolution's `pre_empted_by` (deny → ask → allow, whatever the scope: the first match
//! decides); and which rule decides a call it is written for is `capc_grammar::decide`, the
//! decision the runtime's `Permissions` makes, over every rule of the check.

use super::analysis::Analysis;
use capc_compiler::model::{Behavior, Permission};
use capc_grammar::{
    parse_permission_rule, BashPattern, MatchContext, PermissionRule, RuleContent, SkillPattern, SourcedRule, ToolCall,
    ToolKind, WildcardPiece,
};

/// The hover of the rule `text` written in the `behavior` list (`allow`, `ask`, `deny`) of the
/// settings file `shown`.
pub(crate) fn hover(analysis: &Analysis, shown: &str, behavior: &str, text: &str) -> Option<String> {
    let resolution = analysis.checked.as_ref()?.resolution.as_ref()?;
    let permissions = &resolution.lock.permissions;
    let this = permissions.iter().find(|p| p.path == shown && p.rule == text && p.behavior.as_str() == behavior);
    let Ok(rule) = parse_permission_rule(text) else {
        return Some(format!("**{behavior} rule `{text}`**: Claude Code cannot read this rule (see its finding)"));
    };
    let mut out = vec![match this {
        Some(p) => format!("**{behavior} rule `{text}`** ({} scope, {})", p.scope.as_str(), p.path),
        None => format!("**{behavior} rule `{text}`**"),
    }];
    out.push(format!("Matches {}.", matches(analysis, &rule)));
    if let Some(p) = this.filter(|p| !p.removes.is_empty()) {
        out.push(format!("Removes from the tool pool: {}.", list(&p.removes)));
    }
    let Some(this) = this else {
        out.push("The check has no such rule in this file (it is not loaded here).".to_string());
        return Some(out.join("\n\n"));
    };
    out.push(decides(permissions, this));
    if let Some(example) = example_call(&rule) {
        out.push(decided_example(analysis, permissions, this, &example));
    }
    let elsewhere: Vec<String> = permissions
        .iter()
        .filter(|p| p.rule == text && !std::ptr::eq(*p, this))
        .map(|p| format!("{} in {} ({} scope)", p.behavior.as_str(), p.path, p.scope.as_str()))
        .collect();
    if !elsewhere.is_empty() {
        out.push(format!("Also written as: {}.", elsewhere.join("; ")));
    }
    Some(out.join("\n\n"))
}

fn list(items: &[String]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// Whether the rule ever decides: the resolution's `pre_empted_by`, and for a deny or ask
/// rule, the allow (or ask) rules it decides first.
fn decides(permissions: &[Permission], this: &Permission) -> String {
    if let Some(by) = &this.pre_empted_by {
        return format!(
            "**Never decides**: {by} matches every call it matches and is checked first (deny → ask → allow, \
             whatever the scope; the first match decides)."
        );
    }
    // `pre_empted_by` names the deciding rule as `<behavior> <rule> (<path>)`.
    let me = format!("{} {} ({})", this.behavior.as_str(), this.rule, this.path);
    let pre_empts: Vec<String> = permissions
        .iter()
        .filter(|p| p.pre_empted_by.as_deref() == Some(me.as_str()))
        .map(|p| format!("{} `{}` ({})", p.behavior.as_str(), p.rule, p.path))
        .collect();
    let head = match this.behavior {
        Behavior::Deny => {
            "Deny rules are checked first: a call it matches is denied, whatever an ask or allow rule says."
        }
        Behavior::Ask => "Claude Code asks for a call it matches unless a deny rule matches the call first.",
        Behavior::Allow => {
            "Allows a call it matches unless a deny or ask rule matches the call first; no deny or ask rule here \
             matches every call it matches."
        }
    };
    if pre_empts.is_empty() {
        head.to_string()
    } else {
        format!("{head} It decides first over {}, which never decide.", pre_empts.join(", "))
    }
}

/// What a rule matches, in words, with the declarations it names.
fn matches(analysis: &Analysis, rule: &PermissionRule) -> String {
    let resolution = analysis.checked.as_ref().and_then(|c| c.resolution.as_ref());
    let tool = &rule.tool.canonical;
    if let ToolKind::Mcp { server, tool: mcp_tool } = &rule.tool.kind {
        let declared: Vec<String> = resolution
            .map(|r| {
                r.lock
                    .mcp_servers
                    .iter()
                    .filter(|s| {
                        // The grammar's own matching, on a call of one of the server's tools.
                        let probe = mcp_tool.as_deref().filter(|t| !t.contains('*')).unwrap_or("tool");
                        let name = format!("mcp__{}__{probe}", s.normalized);
                        rule.matches(capc_grammar::Behavior::Deny, &ToolCall::new(&name), &MatchContext::default())
                    })
                    .map(|s| format!("`{}` ({})", s.name, s.path))
                    .collect()
            })
            .unwrap_or_default();
        let which = match mcp_tool.as_deref() {
            None | Some("*") => "every tool".to_string(),
            Some(t) => format!("the tool `{t}`"),
        };
        return if declared.is_empty() {
            format!("{which} of MCP server `{server}`, which no file of this check declares: it matches nothing here")
        } else {
            format!("{which} of MCP server `{server}`: declared as {}", declared.join(", "))
        };
    }
    if rule.tool.kind == ToolKind::Glob {
        return format!("every tool whose name matches `{tool}`");
    }
    if rule.tool.kind == ToolKind::Unknown {
        return format!("calls of `{tool}`, a tool Claude Code does not have: nothing");
    }
    let Some(content) = &rule.content else { return format!("every `{tool}` call") };
    match content {
        RuleContent::Bash(BashPattern::Exact(command)) => format!("the `{tool}` command `{command}` exactly"),
        RuleContent::Bash(BashPattern::Prefix(prefix)) => {
            format!("`{tool}` commands that are `{prefix}` or start with `{prefix} `")
        }
        RuleContent::Bash(BashPattern::Wildcard(_)) => {
            let pattern = rule.specifier.as_ref().map_or("", |s| s.text.as_str());
            format!("`{tool}` commands matching `{pattern}` (`*` is any text)")
        }
        RuleContent::Path { glob, .. } => format!("`{tool}` calls on paths matching `{glob}`"),
        RuleContent::Domain { host } => format!("`{tool}` requests to `{host}`"),
        RuleContent::Skill(pattern) => {
            let (name, how) = match pattern {
                SkillPattern::Exact(n) => (n.as_str(), "the skill"),
                SkillPattern::AnyArgs(n) => (n.as_str(), "the skill, with any arguments,"),
                SkillPattern::LegacyPrefix(n) => (n.as_str(), "every skill whose name starts with"),
                SkillPattern::Wildcard(_) => ("", "skills matching the pattern"),
            };
            let reached = resolution
                .and_then(|r| capc_compiler::names::lookup(&r.table, name).map(|(i, _)| &r.table[i]))
                .map(|row| match &row.path {
                    Some(path) => format!(" (`/{}` reaches {path})", row.name),
                    None => format!(" (`/{}` is built in)", row.name),
                })
                .unwrap_or_default();
            format!("{how} `{name}` when Claude Code invokes it with the Skill tool{reached}")
        }
        RuleContent::AgentType(name) => {
            let declared = resolution
                .and_then(|r| r.lock.agents.iter().find(|a| a.name == *name && a.shadowed_by.is_none()))
                .map(|a| format!(" ({})", a.path))
                .unwrap_or_default();
            format!("starting the agent `{name}`{declared}")
        }
        RuleContent::Param { name, value } => format!("`{tool}` calls whose `{name}` is `{value}`"),
        RuleContent::Raw(raw) => format!("`{tool}` calls with `{raw}`"),
    }
}

/// A call the rule is written for, when the rule names one: a Bash command (its literal text),
/// a whole tool, one MCP tool, a skill or an agent.
struct Example {
    tool: String,
    primary: Option<String>,
}

fn example_call(rule: &PermissionRule) -> Option<Example> {
    let tool = rule.tool.canonical.clone();
    match (&rule.tool.kind, &rule.content) {
        (ToolKind::Mcp { server, tool: Some(t) }, None) if !server.contains('*') && !t.contains('*') => {
            Some(Example { tool: format!("mcp__{server}__{t}"), primary: None })
        }
        (ToolKind::Builtin, None) => Some(Example { tool, primary: None }),
        (ToolKind::Builtin, Some(RuleContent::Bash(pattern))) => {
            let command = match pattern {
                BashPattern::Exact(c) | BashPattern::Prefix(c) => c.clone(),
                BashPattern::Wildcard(pieces) => pieces
                    .iter()
                    .map(|p| match p {
                        WildcardPiece::Literal(s) => s.as_str(),
                        WildcardPiece::Star => "",
                    })
                    .collect::<String>()
                    .trim()
                    .to_string(),
            };
            (!command.is_empty()).then_some(Example { tool, primary: Some(command) })
        }
        (ToolKind::Builtin, Some(RuleContent::Skill(SkillPattern::Exact(n) | SkillPattern::AnyArgs(n)))) => {
            Some(Example { tool, primary: Some(n.clone()) })
        }
        (ToolKind::Builtin, Some(RuleContent::AgentType(n))) => Some(Example { tool, primary: Some(n.clone()) }),
        _ => None,
    }
}

/// Which rule of the check decides the example call, by `capc_grammar::decide`.
fn decided_example(analysis: &Analysis, permissions: &[Permission], this: &Permission, example: &Example) -> String {
    let mut rules = Vec::new();
    let mut origin = Vec::new();
    for p in permissions {
        let Ok(rule) = parse_permission_rule(&p.rule) else { continue };
        rules.push(SourcedRule { rule, behavior: p.behavior, source: p.path.clone(), settings_dir: None });
        origin.push(p);
    }
    let cwd = analysis.options.root.to_string_lossy().into_owned();
    let home = analysis.options.user_dir.as_ref().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    let cx = MatchContext { cwd: &cwd, home: &home, settings_dir: None };
    let mut call = ToolCall::new(&example.tool);
    if let Some(primary) = &example.primary {
        call = call.with_primary(primary);
    }
    let decision = capc_grammar::decide(&rules, &call, &cx);
    let what = match &example.primary {
        Some(primary) if example.tool == "Bash" => format!("`{primary}`"),
        Some(primary) => format!("`{}({primary})`", example.tool),
        None => format!("a `{}` call", example.tool),
    };
    let verb = match decision.behavior {
        Some(Behavior::Deny) => "denied",
        Some(Behavior::Ask) => "asked about",
        Some(Behavior::Allow) => "allowed",
        None => "left to the permission mode",
    };
    match decision.rule.and_then(|i| origin.get(i)) {
        Some(p) if std::ptr::eq(*p, this) => format!("{what} is {verb} by this rule."),
        Some(p) => format!(
            "{what} is {verb} by {} rule `{}` ({}, {} scope).",
            p.behavior.as_str(),
            p.rule,
            p.path,
            p.scope.as_str()
        ),
        None => format!("{what} is {verb}: no rule decides it (Claude Code's own checks and the permission mode do)."),
    }
}
