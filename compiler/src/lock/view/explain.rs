//! `capc explain NAME`: every candidate for a name, winner first, and why, as a command, an
//! agent, an MCP server, a tool and a permission rule.

use super::{origin_word, put};
use crate::builtins::builtin_agent;
use crate::lock::resolve::{rule_text, Reason, Resolution, Row};
use crate::plural::count;

/// `capc explain NAME`: every candidate for the name, winner first, and why. `None` when
/// nothing answers to it.
pub fn explain(r: &Resolution, name: &str) -> Option<String> {
    let bare = name.trim_start_matches('/');
    let mut out = String::new();
    command_candidates(r, bare, &mut out);
    command_notes(r, bare, &mut out);
    agent_candidates(r, bare, &mut out);
    server_candidates(r, bare, &mut out);
    tool_and_rules(r, bare, &mut out);
    (!out.is_empty()).then_some(out)
}

/// Every entry of the command table that answers to the name, in lookup order (`$s`): exact
/// names first, then display names and aliases in table order; the first runs unless hidden,
/// each other says by which rule it is not used.
fn command_candidates(r: &Resolution, bare: &str, out: &mut String) {
    let how = |row: &Row| {
        if row.name == bare {
            Some((0, "its name"))
        } else if row.display_name.as_deref() == Some(bare) {
            Some((1, "its display name"))
        } else if row.aliases.iter().any(|a| a == bare) {
            Some((1, "its alias"))
        } else {
            None
        }
    };
    let mut rows: Vec<(usize, &Row, &str)> = r
        .table
        .iter()
        .enumerate()
        .filter_map(|(i, row)| how(row).map(|(rank, via)| (rank, i, row, via)))
        .map(|(_, i, row, via)| (i, row, via))
        .collect();
    rows.sort_by_key(|(i, row, _)| (how(row).map_or(2, |(rank, _)| rank), *i));
    if rows.is_empty() {
        return;
    }
    put(
        out,
        format_args!(
            "/{bare}: {}, in lookup order (an exact name anywhere in the table first, then the first display name or alias)",
            count(rows.len(), "candidate")
        ),
    );
    for (n, (i, row, via)) in rows.iter().enumerate() {
        let shown = match &row.display_name {
            Some(d) => format!("`/{}` (shown as `{d}`)", row.name),
            None => format!("`/{}`", row.name),
        };
        let via = if row.name != bare { format!(" — by {via}") } else { String::new() };
        let place = row.path.clone().unwrap_or_else(|| format!("Claude Code {}", crate::model::CLAUDE_CODE_VERSION));
        let verdict = if n == 0 && row.shadowed_by.is_none() { "  ← runs" } else { "" };
        put(
            out,
            format_args!(
                "  {}. {} {shown}{via}, {} scope, table position {}: {place}{verdict}",
                n + 1,
                origin_word(row),
                row.scope.as_str(),
                i + 1
            ),
        );
        if n > 0 {
            let rule = row
                .shadowed_by
                .as_ref()
                .filter(|b| b.name == bare)
                .map(|b| b.rule.as_str())
                .unwrap_or(if row.name == bare { Reason::SameScope.id() } else { Reason::LookupOrder.id() });
            put(out, format_args!("     not used: {} [{rule}]", rule_text(rule)));
        }
        if let Some(d) = &row.dynamic {
            put(out, format_args!("     nested skill: joins the table once a file under {d}/ is touched"));
        }
    }
}

/// Where else the name was a command: aliases Claude Code drops, entries of plugins that do
/// not load here, and nested skills renamed because the name is taken.
fn command_notes(r: &Resolution, bare: &str, out: &mut String) {
    for c in r.lock.commands.iter().filter(|c| c.shed_aliases.iter().any(|a| a == bare)) {
        put(
            out,
            format_args!(
                "  dropped: `/{bare}` was an alias of `/{}` ({}); Claude Code drops it because the name is taken",
                c.name, c.path
            ),
        );
    }
    for p in r.lock.plugins.iter().filter(|p| !p.loaded) {
        for e in p.inventory.commands.iter().filter(|e| {
            e.name == bare || e.display_name.as_deref() == Some(bare) || e.aliases.iter().any(|a| a == bare)
        }) {
            put(
                out,
                format_args!(
                    "  not loaded: `/{}` of plugin `{}` ({}) — {}",
                    e.name,
                    p.name,
                    if p.root.is_empty() { "." } else { &p.root },
                    p.reason
                ),
            );
        }
    }
    let renamed: Vec<&Row> = r
        .table
        .iter()
        .filter(|row| row.dynamic.as_deref().is_some_and(|d| row.name == format!("{d}:{bare}")))
        .collect();
    for row in renamed {
        put(out, format_args!("  also: nested skill `/{}` ({}), renamed because `/{bare}` is taken; it joins the table once a file under {}/ is touched",
            row.name,
            row.path.as_deref().unwrap_or(""),
            row.dynamic.as_deref().unwrap_or("")
        ));
    }
}

/// The agents of that name, the one used first, then Claude Code's built-in one if it has it.
fn agent_candidates(r: &Resolution, bare: &str, out: &mut String) {
    let agents: Vec<_> = r.lock.agents.iter().filter(|a| a.name == bare).collect();
    if agents.is_empty() && builtin_agent(bare).is_none() {
        return;
    }
    put(out, format_args!("agent `{bare}`:"));
    for (n, a) in agents.iter().enumerate() {
        let verdict = if n == 0 { "  ← used" } else { "" };
        put(out, format_args!("  {}. {} scope: {}{verdict}", n + 1, a.scope.as_str(), a.path));
        if let Some(by) = &a.shadowed_by {
            put(out, format_args!("     not used: {} [{}]", rule_text(&by.rule), by.rule));
        }
        if let Some(rule) = &a.denied_by {
            put(out, format_args!("     removed: deny rule `{rule}`"));
        }
    }
    if builtin_agent(bare).is_some() {
        let verdict = if agents.is_empty() { "  ← used" } else { "" };
        put(out, format_args!("  {}. built-in agent of Claude Code{verdict}", agents.len() + 1));
        if !agents.is_empty() {
            let rule = Reason::AgentScopeOrder;
            put(out, format_args!("     not used: {} [{}]", rule.text(), rule.id()));
        }
    }
}

/// The MCP servers the name (or its `mcp__server` tool prefix) names, each with what hides,
/// removes or blocks it and its approval.
fn server_candidates(r: &Resolution, bare: &str, out: &mut String) {
    let server_name =
        bare.strip_prefix("mcp__").map(|s| s.trim_end_matches("__*").trim_end_matches("__")).unwrap_or(bare);
    let servers: Vec<_> = r
        .lock
        .mcp_servers
        .iter()
        .filter(|s| s.name == bare || s.normalized == server_name || s.name == server_name)
        .collect();
    if servers.is_empty() {
        return;
    }
    put(out, format_args!("MCP server `{server_name}` (tools `mcp__{}__…`):", servers[0].normalized));
    for (n, s) in servers.iter().enumerate() {
        let used = s.shadowed_by.is_none() && s.denied_by.is_none() && s.blocked_by.is_none();
        let verdict = if used { "  ← used" } else { "" };
        put(
            out,
            format_args!(
                "  {}. `{}`, {} scope, {}: {}{verdict}",
                n + 1,
                s.name,
                s.scope.as_str(),
                s.transport.as_str(),
                s.path
            ),
        );
        if let Some(by) = &s.shadowed_by {
            put(out, format_args!("     not used: {} [{}]", rule_text(&by.rule), by.rule));
        }
        if let Some(rule) = &s.denied_by {
            put(out, format_args!("     every tool removed by deny rule `{rule}`"));
        }
        if let Some(why) = &s.blocked_by {
            put(out, format_args!("     not loaded: {why}"));
        }
        if let Some(a) = &s.approval {
            put(out, format_args!("     project-server approval: {}", a.as_str()));
        }
    }
}

/// The tool of that name (in the pool or removed), and the permission rules written so, with
/// what they remove and what pre-empts them.
fn tool_and_rules(r: &Resolution, bare: &str, out: &mut String) {
    if let Some(tool) = r.tools.iter().find(|t| t.name == bare) {
        let removed = &tool.removed_by;
        let tool = &tool.name;
        put(
            out,
            format_args!(
                "tool `{tool}`: {}",
                match removed {
                    Some(rule) => format!("removed from the pool by deny rule `{rule}`"),
                    None => "in the tool pool (built-in)".to_string(),
                }
            ),
        );
    }
    let rules: Vec<_> = r.lock.permissions.iter().filter(|p| p.rule == bare).collect();
    for p in rules {
        put(
            out,
            format_args!("permission rule `{}`: {} in {} ({})", p.rule, p.behavior.as_str(), p.path, p.scope.as_str()),
        );
        if !p.removes.is_empty() {
            put(out, format_args!("  removes from the pool: {}", p.removes.join(", ")));
        }
        if let Some(by) = &p.pre_empted_by {
            put(out, format_args!("  never decides: {by} comes first (deny → ask → allow)"));
        }
    }
}
