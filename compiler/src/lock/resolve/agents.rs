//! Agents by name, in precedence order: managed > project > `--add-dir` > user > plugin >
//! built-in.

use super::{reference, Builder, GraphEdge, GraphNodeKind, Reason};
use crate::diagnostic::report_at;
use crate::model::{Agent, Behavior, Origin, Permission, Scope};
use crate::rules;
use crate::span::Span;
use capc_grammar::{PermissionRule, RuleContent};
use std::collections::HashMap;

/// Agents by name: the first in precedence order wins.
pub(super) fn resolve_agents(
    mut agents: Vec<(Agent, Option<Span>)>,
    permissions: &[(Permission, Option<Span>)],
    parsed: &[Option<PermissionRule>],
    b: &mut Builder,
) -> Vec<Agent> {
    // Claude Code fills one map by agent type, later wins: built-in, plugin, user,
    // `--add-dir` folders, the project's own, managed; within one folder the last file read
    // (in path order) wins.
    let rank = |s: Scope| match s {
        Scope::Managed => 0,
        Scope::Project | Scope::Local => 1,
        Scope::AddDir => 2,
        Scope::User => 3,
        Scope::Plugin => 4,
        Scope::Builtin => 5,
    };
    agents.sort_by(|(a, _), (c, _)| {
        (&a.name, rank(a.scope), std::cmp::Reverse(&a.path)).cmp(&(&c.name, rank(c.scope), std::cmp::Reverse(&c.path)))
    });
    let mut first: HashMap<String, usize> = HashMap::new();
    for i in 0..agents.len() {
        let w = *first.entry(agents[i].0.name.clone()).or_insert(i);
        if w == i {
            continue;
        }
        let same = agents[w].0.scope == agents[i].0.scope;
        let rule = if same { Reason::AgentLastFile } else { Reason::AgentScopeOrder };
        let winner = agents[w].0.clone();
        let loser = agents[i].0.clone();
        agents[i].0.shadowed_by =
            Some(Box::new(reference(&winner.name, Origin::Agent, winner.scope, Some(&winner.path), rule)));
        agents[w].0.shadows.push(reference(&loser.name, Origin::Agent, loser.scope, Some(&loser.path), rule));
        let from = b.node(GraphNodeKind::Agent, &winner.name, "agent", winner.scope, Some(&winner.path));
        let to = b.node(GraphNodeKind::Agent, &loser.name, "agent", loser.scope, Some(&loser.path));
        b.edge(from, to, GraphEdge::Shadows(rule));
        let (def, message) = if same {
            (
                &rules::duplicate_declaration::RULE,
                format!("agent `{}` is defined twice in the {} scope", loser.name, loser.scope.as_str()),
            )
        } else {
            (
                &rules::shadowed_declaration::RULE,
                format!("agent `{}` is hidden by the {} agent of the same name", loser.name, winner.scope.as_str()),
            )
        };
        report_at(&mut b.diagnostics, loser.path.clone(), def, agents[i].1, message).help(format!(
            "Claude Code uses `{}`: {}; rename one of them",
            winner.path,
            rule.text()
        ));
    }
    for (agent, span) in &agents {
        if agent.shadowed_by.is_none() && crate::builtins::builtin_agent(&agent.name).is_some() {
            report_at(
                &mut b.diagnostics,
                agent.path.clone(),
                &rules::shadowed_declaration::RULE,
                *span,
                format!("agent `{}` replaces Claude Code's built-in agent of that name", agent.name),
            )
            .help("every delegation to it now uses this definition; rename it unless that is the point");
            let from = b.node(GraphNodeKind::Agent, &agent.name, "agent", agent.scope, Some(&agent.path));
            let to = b.node(GraphNodeKind::Agent, &agent.name, "builtin", Scope::Builtin, None);
            b.edge(from, to, GraphEdge::Shadows(Reason::AgentScopeOrder));
        }
    }
    let mut out: Vec<Agent> = agents.into_iter().map(|(a, _)| a).collect();
    for agent in &mut out {
        for (i, (p, _)) in permissions.iter().enumerate() {
            let Some(rule) = parsed[i].as_ref().filter(|_| p.behavior == Behavior::Deny) else { continue };
            if let Some(RuleContent::AgentType(t)) = &rule.content {
                if *t == agent.name && agent.denied_by.is_none() {
                    agent.denied_by = Some(p.rule.clone());
                    let from = b.node(GraphNodeKind::Permission, &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
                    let to = b.node(GraphNodeKind::Agent, &agent.name, "agent", agent.scope, Some(&agent.path));
                    b.edge(from, to, GraphEdge::Removes);
                }
            }
        }
    }
    out
}
