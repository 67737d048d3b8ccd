//! Permission rules: what a blanket deny removes from the tool pool, and allow rules a deny or
//! ask rule always decides first.

use super::{Builder, GraphEdge, GraphNodeKind, Tool};
use crate::diagnostic::report_at;
use crate::model::{Agent, Approval, Behavior, McpServer, Origin, Permission, Scope};
use crate::rules;
use crate::span::Span;
use capc_grammar::{BashPattern, PermissionRule, RuleContent, ToolKind, WildcardPiece};

/// `*` in a pattern matches any run of characters.
pub(super) fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// The literal text a shell pattern starts with, and whether it matches only that text.
fn shell_prefix(p: &BashPattern) -> (String, bool) {
    match p {
        BashPattern::Exact(s) => (s.clone(), true),
        BashPattern::Prefix(s) => (s.clone(), false),
        BashPattern::Wildcard(pieces) => match pieces.first() {
            Some(WildcardPiece::Literal(s)) => (s.clone(), false),
            _ => (String::new(), false),
        },
    }
}

/// Whether `deny` (or ask) matches every call `allow` matches.
pub(crate) fn covers(deny: &PermissionRule, allow: &PermissionRule) -> bool {
    let same_tool = deny.tool.canonical == allow.tool.canonical;
    match (&deny.tool.kind, &allow.tool.kind) {
        (ToolKind::Glob, _) if deny.content.is_none() => {
            return glob_match(&deny.tool.canonical, &allow.tool.canonical);
        }
        (ToolKind::Mcp { server: ds, tool: dt }, ToolKind::Mcp { server: as_, tool: at }) if deny.content.is_none() => {
            let server = glob_match(ds, as_);
            return server
                && match (dt.as_deref(), at.as_deref()) {
                    (None | Some("*"), _) => true,
                    (Some(d), Some(a)) => glob_match(d, a),
                    (Some(_), None) => false,
                };
        }
        _ => {}
    }
    if !same_tool {
        return false;
    }
    match (&deny.content, &allow.content) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(d), Some(a)) if d == a => true,
        (Some(RuleContent::Bash(d)), Some(RuleContent::Bash(a))) => {
            let (dp, d_exact) = shell_prefix(d);
            let (ap, _) = shell_prefix(a);
            let only_star = matches!(d, BashPattern::Wildcard(p) if p.len() == 2 && matches!(p[1], WildcardPiece::Star))
                || matches!(d, BashPattern::Prefix(_));
            // `Bash(git *)` / `Bash(git:*)` cover every command that starts with `git `.
            !d_exact
                && only_star
                && (ap.starts_with(&dp)
                    && (dp.ends_with(' ') || ap.len() == dp.len() || ap[dp.len()..].starts_with(' ')))
        }
        (Some(RuleContent::Domain { host: d }), Some(RuleContent::Domain { host: a })) => d == "*" || d == a,
        _ => false,
    }
}

pub(super) fn resolve_permissions(
    rules_in: Vec<(Permission, Option<Span>)>,
    parsed: &[Option<PermissionRule>],
    servers: &[McpServer],
    agents: &[Agent],
    b: &mut Builder,
) -> (Vec<Permission>, Vec<Tool>) {
    let mut out: Vec<Permission> = rules_in.iter().map(|(p, _)| p.clone()).collect();
    // Blanket denies: what they remove from the pool.
    let mut tools: Vec<Tool> = capc_grammar::BUILTIN_TOOLS
        .iter()
        .map(|t| Tool { name: t.to_string(), origin: Origin::Builtin, removed_by: None })
        .collect();
    tools.sort();
    for s in servers
        .iter()
        .filter(|s| s.shadowed_by.is_none() && s.blocked_by.is_none() && s.approval != Some(Approval::Disabled))
    {
        tools.push(Tool {
            name: format!("mcp__{}__*", s.normalized),
            origin: Origin::Mcp,
            removed_by: s.denied_by.clone(),
        });
    }
    for (i, p) in out.iter_mut().enumerate() {
        let Some(rule) = parsed[i].as_ref() else { continue };
        if p.behavior != Behavior::Deny {
            continue;
        }
        if rule.content.is_some() {
            // `Agent(name)` removes that agent (marked on the agent by `resolve_agents`).
            p.removes.extend(
                agents
                    .iter()
                    .filter(|a| a.denied_by.as_deref() == Some(p.rule.as_str()))
                    .map(|a| format!("Agent({})", a.name)),
            );
            continue;
        }
        let from = b.node(GraphNodeKind::Permission, &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
        match &rule.tool.kind {
            ToolKind::Builtin | ToolKind::Glob => {
                for tool in tools.iter_mut().filter(|t| t.origin == Origin::Builtin) {
                    if glob_match(&rule.tool.canonical, &tool.name) {
                        if tool.removed_by.is_none() {
                            tool.removed_by = Some(p.rule.clone());
                        }
                        p.removes.push(tool.name.clone());
                        let to = b.node(GraphNodeKind::Tool, &tool.name, "builtin", Scope::Builtin, None);
                        b.edge(from, to, GraphEdge::Removes);
                    }
                }
                for s in servers.iter().filter(|s| s.denied_by.as_deref() == Some(p.rule.as_str())) {
                    p.removes.push(format!("mcp__{}", s.normalized));
                }
            }
            ToolKind::Mcp { .. } => {
                for s in servers.iter().filter(|s| s.denied_by.as_deref() == Some(p.rule.as_str())) {
                    p.removes.push(format!("mcp__{}", s.normalized));
                }
            }
            ToolKind::Unknown => {}
        }
        for a in agents.iter().filter(|a| a.denied_by.as_deref() == Some(p.rule.as_str())) {
            p.removes.push(format!("Agent({})", a.name));
        }
        p.removes.sort();
        p.removes.dedup();
    }
    // Allow rules that a deny or ask rule always decides first.
    for i in 0..out.len() {
        if out[i].behavior != Behavior::Allow {
            continue;
        }
        let Some(allow) = parsed[i].as_ref() else { continue };
        let blocker = (0..out.len())
            .filter(|&j| out[j].behavior == Behavior::Deny)
            .chain((0..out.len()).filter(|&j| out[j].behavior == Behavior::Ask))
            .find(|&j| parsed[j].as_ref().is_some_and(|d| covers(d, allow)));
        if let Some(j) = blocker {
            let (deny, allow_rule) = (out[j].clone(), out[i].clone());
            out[i].pre_empted_by = Some(format!("{} {} ({})", deny.behavior.as_str(), deny.rule, deny.path));
            let from =
                b.node(GraphNodeKind::Permission, &deny.rule, deny.behavior.as_str(), deny.scope, Some(&deny.path));
            let to = b.node(
                GraphNodeKind::Permission,
                &allow_rule.rule,
                allow_rule.behavior.as_str(),
                allow_rule.scope,
                Some(&allow_rule.path),
            );
            b.edge(from, to, GraphEdge::PreEmpts);
            report_at(&mut b.diagnostics, allow_rule.path.clone(), &rules::pre_empted_allow_rule::RULE, rules_in[i].1, format!("allow rule `{}` never decides: {} rule `{}` matches every call it matches", allow_rule.rule, deny.behavior.as_str(), deny.rule))
                .help(format!("`{}` ({}) is checked first (deny → ask → allow, whatever the scope); remove this rule or narrow the {} rule", deny.rule, deny.path, deny.behavior.as_str()));
        }
    }
    (out, tools)
}
