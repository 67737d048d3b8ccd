//! `capc ls` as text: the command table in lookup order, then plugins, agents, MCP servers,
//! what plugins run and offer, tools and the policy, one section each.

use super::{origin_word, put, shadow_line};
use crate::builtins::builtin_agents;
use crate::lock::resolve::{Resolution, Row};
use crate::model::{Lock, Origin};
use crate::plural::count;
use std::fmt::Write as _;

/// `capc ls`: the command table in lookup order, then agents, MCP servers and tools.
/// Built-ins nothing hides or is hidden by are summarised unless `all`.
pub fn ls_text(r: &Resolution, all: bool) -> String {
    let mut out = String::new();
    commands_text(r, all, &mut out);
    plugins_text(&r.lock, &mut out);
    agents_text(&r.lock, &mut out);
    servers_text(&r.lock, &mut out);
    offered_text(&r.lock, &mut out);
    tools_text(r, &mut out);
    policy_text(&r.lock, &mut out);
    out
}

/// The command table in lookup order; unless `all`, the built-ins nothing here touches are
/// counted instead of listed.
fn commands_text(r: &Resolution, all: bool, out: &mut String) {
    let involved = |row: &Row| {
        row.shadowed_by.is_some()
            || r.table.iter().any(|o| o.shadowed_by.as_ref().is_some_and(|b| b.name == row.name && o.name != row.name))
            || r.lock
                .commands
                .iter()
                .any(|c| c.shadows.iter().any(|s| s.name == row.name || row.aliases.contains(&s.name)))
            || row.display_name.is_some()
            || (row.decl.is_some() && !row.aliases.is_empty())
    };
    let shown: Vec<(usize, &Row)> =
        r.table.iter().enumerate().filter(|(_, row)| all || row.path.is_some() || involved(row)).collect();
    let hidden = r.table.len() - shown.len();
    let width = shown.iter().map(|(_, row)| row.name.len() + 1).max().unwrap_or(8).clamp(8, 40);
    put(out, format_args!("Commands, in lookup order ({}):", count(r.table.len(), "entry")));
    for (i, row) in &shown {
        put(out, format_args!("{}", command_line(r, *i, row, width).trim_end()));
        if let Some(by) = &row.shadowed_by {
            put(out, format_args!("  {:>4}  {:width$}  ↳ {}", "", "", shadow_line(by)));
        }
    }
    if hidden > 0 {
        put(
            out,
            format_args!(
                "  …and {hidden} built-in commands and bundled skills nothing here hides (`capc ls --all` lists them)"
            ),
        );
    }
}

/// The line of row `i` of the command table: its position, name, origin, scope and place,
/// then what it is shown as, its aliases, and when a nested or conditional skill joins.
fn command_line(r: &Resolution, i: usize, row: &Row, width: usize) -> String {
    let place = row.path.clone().unwrap_or_else(|| row.kind.as_str().to_string());
    let mut line = format!(
        "  {:>4}  {:width$}  {:8}  {:8}  {place}",
        i + 1,
        format!("/{}", row.name),
        origin_word(row),
        row.scope.as_str()
    );
    if let Some(d) = &row.display_name {
        let _ = write!(line, "  shown as: {d}");
    }
    if !row.aliases.is_empty() {
        let aliases: Vec<String> = row
            .aliases
            .iter()
            .map(|a| match r.table.iter().position(|o| o.name == *a) {
                Some(taker) => format!("/{a} (taken by row {})", taker + 1),
                None => format!("/{a}"),
            })
            .collect();
        let _ = write!(line, "  aliases: {}", aliases.join(", "));
    }
    if let Some(d) = &row.dynamic {
        let _ = write!(line, "  (nested: active once a file under {d}/ is touched)");
    } else if row.conditional {
        line.push_str("  (conditional: active once a file matching its `paths` is touched)");
    }
    line
}

/// The plugins in load order, each with whether and why it loads and what it holds.
fn plugins_text(lock: &Lock, out: &mut String) {
    if lock.plugins.is_empty() {
        return;
    }
    out.push_str("\nPlugins, in load order:\n");
    for p in &lock.plugins {
        let root = if p.root.is_empty() { "." } else { p.root.as_str() };
        let state = match (p.loaded, p.requires_trust) {
            (true, false) => "loaded",
            (true, true) => "loaded in a trusted folder",
            (false, _) => "not loaded",
        };
        let n = p.inventory.commands.len();
        put(out, format_args!("  {:24}  {state}: {}", p.id, p.reason));
        put(
            out,
            format_args!(
                "  {:24}  {root}: {}, {}",
                "",
                count(n, "skill or command name"),
                count(p.inventory.agents.len(), "agent")
            ),
        );
        let inv = &p.inventory;
        for (what, names) in [
            ("LSP servers", &inv.lsp_servers),
            ("monitors", &inv.monitors),
            ("output styles", &inv.output_styles),
            ("themes", &inv.themes),
            ("workflows", &inv.workflows),
            ("bin", &inv.bin),
            ("modules", &inv.modules),
        ] {
            if !names.is_empty() {
                put(out, format_args!("  {:24}  {what}: {}", "", names.join(", ")));
            }
        }
    }
}

/// The declared agents, each with what hides or removes it (the built-in ones named when
/// none is declared).
fn agents_text(lock: &Lock, out: &mut String) {
    out.push_str("\nAgents:\n");
    if lock.agents.is_empty() {
        let names: Vec<&str> = builtin_agents().iter().map(|a| a.name).collect();
        put(out, format_args!("  (none declared; built-in: {})", names.join(", ")));
    }
    for a in &lock.agents {
        put(out, format_args!("  {:24}  {:8}  {}", a.name, a.scope.as_str(), a.path));
        if let Some(by) = &a.shadowed_by {
            put(
                out,
                format_args!(
                    "  {:24}  ↳ hidden by {} ({}): {}",
                    "",
                    by.path.as_deref().unwrap_or("built-in"),
                    by.scope.as_str(),
                    by.rule
                ),
            );
        }
        if let Some(rule) = &a.denied_by {
            put(out, format_args!("  {:24}  ↳ removed by deny rule `{rule}`", ""));
        }
    }
}

/// The MCP servers, each with its tool prefix and approval, and what hides, removes or
/// blocks it.
fn servers_text(lock: &Lock, out: &mut String) {
    out.push_str("\nMCP servers:\n");
    if lock.mcp_servers.is_empty() {
        out.push_str("  (none)\n");
    }
    let name_width = lock.mcp_servers.iter().map(|s| s.name.len()).max().unwrap_or(0).max(24);
    let prefix_width = lock.mcp_servers.iter().map(|s| s.normalized.len() + 8).max().unwrap_or(0);
    for s in &lock.mcp_servers {
        let approval = s.approval.map(|a| format!("  approval: {}", a.as_str())).unwrap_or_default();
        let prefix = format!("mcp__{}__*", s.normalized);
        let line = format!(
            "  {:name_width$}  {prefix:prefix_width$}  {:8}  {:5}  {}{approval}",
            s.name,
            s.scope.as_str(),
            s.transport.as_str(),
            s.path
        );
        put(out, format_args!("{}", line.trim_end()));
        if let Some(by) = &s.shadowed_by {
            put(
                out,
                format_args!(
                    "  {:name_width$}  ↳ hidden by `{}` ({} {}): {}",
                    "",
                    by.name,
                    by.scope.as_str(),
                    by.path.as_deref().unwrap_or(""),
                    by.rule
                ),
            );
        }
        if let Some(rule) = &s.denied_by {
            put(out, format_args!("  {:name_width$}  ↳ every tool removed by deny rule `{rule}`", ""));
        }
        if let Some(why) = &s.blocked_by {
            put(out, format_args!("  {:name_width$}  ↳ not loaded: {why}", ""));
        }
    }
}

/// The monitors, LSP servers, plugin `bin/` files and output styles, each section only when
/// there are some.
fn offered_text(lock: &Lock, out: &mut String) {
    if !lock.monitors.is_empty() {
        out.push_str("\nMonitors (run unsandboxed for the session; each line they print reaches the model):\n");
        for m in &lock.monitors {
            put(out, format_args!("  {:24}  {:8}  {}:{}  {}", m.name, m.when, m.path, m.line, m.command));
        }
    }
    if !lock.lsp_servers.is_empty() {
        out.push_str("\nLSP servers:\n");
        for l in &lock.lsp_servers {
            let command =
                std::iter::once(l.command.as_str()).chain(l.args.iter().map(String::as_str)).collect::<Vec<_>>();
            put(
                out,
                format_args!(
                    "  {:24}  {}  {}:{}  {}",
                    l.name,
                    l.extensions.join(" "),
                    l.path,
                    l.line,
                    command.join(" ")
                ),
            );
        }
    }
    if !lock.plugin_bins.is_empty() {
        out.push_str("\nPlugin bin/ files (on the PATH of the commands Claude Code runs):\n");
        for b in &lock.plugin_bins {
            let mode = if b.executable { "" } else { "  (not executable)" };
            put(out, format_args!("  {:24}  {}{mode}", b.name, b.path));
        }
    }
    if !lock.output_styles.is_empty() {
        out.push_str("\nOutput styles:\n");
        for o in &lock.output_styles {
            let keep = match (o.keep_coding_instructions, o.force_for_plugin) {
                (true, true) => "  (keeps the coding instructions; forced while its plugin is enabled)",
                (true, false) => "  (keeps the coding instructions)",
                (false, true) => "  (forced while its plugin is enabled)",
                (false, false) => "",
            };
            put(out, format_args!("  {:24}  {:8}  {}{keep}", o.name, o.scope.as_str(), o.path));
        }
    }
}

/// How many tools are built in and how many MCP prefixes, and what deny rules remove.
fn tools_text(r: &Resolution, out: &mut String) {
    let builtin = r.tools.iter().filter(|t| t.origin == Origin::Builtin).count();
    let removed: Vec<String> =
        r.tools.iter().filter_map(|t| t.removed_by.as_ref().map(|rule| format!("{} (by `{rule}`)", t.name))).collect();
    out.push('\n');
    put(out, format_args!("Tools: {builtin} built-in, {} MCP server prefixes", r.tools.len() - builtin));
    if !removed.is_empty() {
        put(out, format_args!("  removed by deny rules: {}", removed.join(", ")));
    }
}

/// The policy switches in force and what they keep out of the session, with why.
fn policy_text(lock: &Lock, out: &mut String) {
    if lock.policy.is_empty() && lock.removed_by_policy.is_empty() {
        return;
    }
    out.push('\n');
    put(out, format_args!("Policy: {}", count(lock.removed_by_policy.len(), "declaration") + " removed"));
    for s in &lock.policy {
        let why = s.why.as_ref().map(|w| format!(": {w}")).unwrap_or_default();
        put(out, format_args!("  {} = {} ({}){why}", s.key, s.value, s.path));
    }
    for e in &lock.removed_by_policy {
        put(out, format_args!("  ✗ {} {} ({}): removed by {} in {}", e.kind, e.name, e.path, e.key, e.by));
    }
}
