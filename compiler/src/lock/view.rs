//! Looking inside a resolution: `capc ls` (text and JSON), `capc explain NAME` and
//! `capc graph` (DOT and JSON). Everything here is a pure function of the resolution, so
//! the output is as deterministic as the lock.

use super::resolve::{rule_text, EdgeKind, GraphNodeKind, Reason, Resolution, Row};
use crate::model::{Origin, Ref, Scope};
use crate::plural::count;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn ref_json(r: &Option<Ref>) -> Value {
    match r {
        Some(r) => {
            json!({"name": r.name, "origin": r.origin.as_str(), "scope": r.scope.as_str(), "path": r.path, "rule": r.rule})
        }
        None => Value::Null,
    }
}

use crate::builtins::{builtin_agent, BUILTIN_AGENTS};

/// `capc ls --format json`, version 1.
pub fn ls_json(r: &Resolution) -> String {
    let commands: Vec<Value> = r
        .table
        .iter()
        .map(|row| {
            let mut v = json!({
                "name": row.name,
                "type": row.kind.as_str(),
                "origin": row.origin.as_str(),
                "scope": row.scope.as_str(),
                "path": row.path,
                "shadowed_by": ref_json(&row.shadowed_by),
            });
            if let Some(d) = &row.display_name {
                v["display_name"] = json!(d);
            }
            if !row.aliases.is_empty() {
                v["aliases"] = json!(row.aliases);
            }
            if let Some(d) = &row.dynamic {
                v["dynamic"] = json!(d);
            }
            if row.conditional {
                v["conditional"] = json!(true);
            }
            v
        })
        .collect();
    let mut agents: Vec<Value> = r
        .lock
        .agents
        .iter()
        .map(|a| {
            let origin = if a.plugin.is_some() { Origin::Plugin } else { Origin::Agent };
            json!({"name": a.name, "type": "agent", "origin": origin.as_str(), "scope": a.scope.as_str(), "path": a.path, "shadowed_by": ref_json(&a.shadowed_by), "denied_by": a.denied_by})
        })
        .collect();
    for name in BUILTIN_AGENTS.iter().map(|a| a.name) {
        let by = r.lock.agents.iter().find(|a| a.name == name && a.shadowed_by.is_none());
        let shadowed = by.map(|a| json!({"name": a.name, "origin": "agent", "scope": a.scope.as_str(), "path": a.path, "rule": Reason::AgentScopeOrder.id()}));
        agents.push(json!({"name": name, "type": "agent", "origin": "builtin", "scope": "builtin", "path": null, "shadowed_by": shadowed.unwrap_or(Value::Null)}));
    }
    let servers: Vec<Value> = r
        .lock
        .mcp_servers
        .iter()
        .map(|s| {
            json!({"name": s.name, "normalized": s.normalized, "scope": s.scope.as_str(), "transport": s.transport, "path": s.path, "shadowed_by": ref_json(&s.shadowed_by), "approval": s.approval, "denied_by": s.denied_by, "blocked_by": s.blocked_by})
        })
        .collect();
    let tools: Vec<Value> = r
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "origin": t.origin.as_str(), "removed_by": t.removed_by}))
        .collect();
    let plugins: Vec<Value> = r
        .lock
        .plugins
        .iter()
        .map(|p| json!({"name": p.name, "id": p.id, "root": p.root, "loaded": p.loaded, "reason": p.reason, "requires_trust": p.requires_trust, "inventory": p.inventory}))
        .collect();
    let out = json!({"version": 2, "commands": commands, "agents": agents, "mcp_servers": servers, "tools": tools, "plugins": plugins, "policy": r.lock.policy, "removed_by_policy": r.lock.removed_by_policy, "monitors": r.lock.monitors, "lsp_servers": r.lock.lsp_servers, "plugin_bins": r.lock.plugin_bins, "output_styles": r.lock.output_styles});
    let mut text = crate::printable::escape_json(&serde_json::to_string_pretty(&out).unwrap_or_default()).into_owned();
    text.push('\n');
    text
}

fn origin_word(row: &Row) -> &'static str {
    match row.origin {
        Origin::Builtin => "built-in",
        origin => origin.as_str(),
    }
}

fn shadow_line(by: &Ref) -> String {
    let at = by.path.as_deref().map(|p| format!(" {p}")).unwrap_or_default();
    format!("hidden by /{} ({} {}{at}): {}", by.name, by.origin.as_str(), by.scope.as_str(), by.rule)
}

/// `capc ls`: the command table in lookup order, then agents, MCP servers and tools.
/// Built-ins nothing hides or is hidden by are summarised unless `all`.
pub fn ls_text(r: &Resolution, all: bool) -> String {
    let mut out = String::new();
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
    put(&mut out, format_args!("Commands, in lookup order ({}):", count(r.table.len(), "entry")));
    for (i, row) in &shown {
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
        put(&mut out, format_args!("{}", line.trim_end()));
        if let Some(by) = &row.shadowed_by {
            put(&mut out, format_args!("  {:>4}  {:width$}  ↳ {}", "", "", shadow_line(by)));
        }
    }
    if hidden > 0 {
        put(
            &mut out,
            format_args!(
                "  …and {hidden} built-in commands and bundled skills nothing here hides (`capc ls --all` lists them)"
            ),
        );
    }
    if !r.lock.plugins.is_empty() {
        out.push_str("\nPlugins, in load order:\n");
        for p in &r.lock.plugins {
            let root = if p.root.is_empty() { "." } else { p.root.as_str() };
            let state = match (p.loaded, p.requires_trust) {
                (true, false) => "loaded",
                (true, true) => "loaded in a trusted folder",
                (false, _) => "not loaded",
            };
            let n = p.inventory.commands.len();
            put(&mut out, format_args!("  {:24}  {state}: {}", p.id, p.reason));
            put(
                &mut out,
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
                    put(&mut out, format_args!("  {:24}  {what}: {}", "", names.join(", ")));
                }
            }
        }
    }
    out.push_str("\nAgents:\n");
    if r.lock.agents.is_empty() {
        let names: Vec<&str> = BUILTIN_AGENTS.iter().map(|a| a.name).collect();
        put(&mut out, format_args!("  (none declared; built-in: {})", names.join(", ")));
    }
    for a in &r.lock.agents {
        put(&mut out, format_args!("  {:24}  {:8}  {}", a.name, a.scope.as_str(), a.path));
        if let Some(by) = &a.shadowed_by {
            put(
                &mut out,
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
            put(&mut out, format_args!("  {:24}  ↳ removed by deny rule `{rule}`", ""));
        }
    }
    out.push_str("\nMCP servers:\n");
    if r.lock.mcp_servers.is_empty() {
        out.push_str("  (none)\n");
    }
    let name_width = r.lock.mcp_servers.iter().map(|s| s.name.len()).max().unwrap_or(0).max(24);
    let prefix_width = r.lock.mcp_servers.iter().map(|s| s.normalized.len() + 8).max().unwrap_or(0);
    for s in &r.lock.mcp_servers {
        let approval = s.approval.map(|a| format!("  approval: {}", a.as_str())).unwrap_or_default();
        let prefix = format!("mcp__{}__*", s.normalized);
        let line = format!(
            "  {:name_width$}  {prefix:prefix_width$}  {:8}  {:5}  {}{approval}",
            s.name,
            s.scope.as_str(),
            s.transport.as_str(),
            s.path
        );
        put(&mut out, format_args!("{}", line.trim_end()));
        if let Some(by) = &s.shadowed_by {
            put(
                &mut out,
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
            put(&mut out, format_args!("  {:name_width$}  ↳ every tool removed by deny rule `{rule}`", ""));
        }
        if let Some(why) = &s.blocked_by {
            put(&mut out, format_args!("  {:name_width$}  ↳ not loaded: {why}", ""));
        }
    }
    if !r.lock.monitors.is_empty() {
        out.push_str("\nMonitors (run unsandboxed for the session; each line they print reaches the model):\n");
        for m in &r.lock.monitors {
            put(&mut out, format_args!("  {:24}  {:8}  {}:{}  {}", m.name, m.when, m.path, m.line, m.command));
        }
    }
    if !r.lock.lsp_servers.is_empty() {
        out.push_str("\nLSP servers:\n");
        for l in &r.lock.lsp_servers {
            let command =
                std::iter::once(l.command.as_str()).chain(l.args.iter().map(String::as_str)).collect::<Vec<_>>();
            put(
                &mut out,
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
    if !r.lock.plugin_bins.is_empty() {
        out.push_str("\nPlugin bin/ files (on the PATH of the commands Claude Code runs):\n");
        for b in &r.lock.plugin_bins {
            let mode = if b.executable { "" } else { "  (not executable)" };
            put(&mut out, format_args!("  {:24}  {}{mode}", b.name, b.path));
        }
    }
    if !r.lock.output_styles.is_empty() {
        out.push_str("\nOutput styles:\n");
        for o in &r.lock.output_styles {
            let keep = match (o.keep_coding_instructions, o.force_for_plugin) {
                (true, true) => "  (keeps the coding instructions; forced while its plugin is enabled)",
                (true, false) => "  (keeps the coding instructions)",
                (false, true) => "  (forced while its plugin is enabled)",
                (false, false) => "",
            };
            put(&mut out, format_args!("  {:24}  {:8}  {}{keep}", o.name, o.scope.as_str(), o.path));
        }
    }
    let builtin = r.tools.iter().filter(|t| t.origin == Origin::Builtin).count();
    let removed: Vec<String> =
        r.tools.iter().filter_map(|t| t.removed_by.as_ref().map(|rule| format!("{} (by `{rule}`)", t.name))).collect();
    out.push('\n');
    put(&mut out, format_args!("Tools: {builtin} built-in, {} MCP server prefixes", r.tools.len() - builtin));
    if !removed.is_empty() {
        put(&mut out, format_args!("  removed by deny rules: {}", removed.join(", ")));
    }
    policy_text(&r.lock, &mut out);
    out
}

/// The policy switches in force and what they keep out of the session, with why.
fn policy_text(lock: &crate::model::Lock, out: &mut String) {
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

/// `capc explain NAME`: every candidate for the name, winner first, and why. `None` when
/// nothing answers to it.
pub fn explain(r: &Resolution, name: &str) -> Option<String> {
    let bare = name.trim_start_matches('/');
    let mut out = String::new();
    // Every entry that answers to the name, in lookup order (`$s`): exact names first, then
    // display names and aliases in table order.
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
    if !rows.is_empty() {
        put(
            &mut out,
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
            let place =
                row.path.clone().unwrap_or_else(|| format!("Claude Code {}", crate::model::CLAUDE_CODE_VERSION));
            let verdict = if n == 0 && row.shadowed_by.is_none() { "  ← runs" } else { "" };
            put(
                &mut out,
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
                put(&mut out, format_args!("     not used: {} [{rule}]", rule_text(rule)));
            }
            if let Some(d) = &row.dynamic {
                put(&mut out, format_args!("     nested skill: joins the table once a file under {d}/ is touched"));
            }
        }
    }
    // Aliases Claude Code drops, and plugins that hold the name but do not load here.
    for c in r.lock.commands.iter().filter(|c| c.shed_aliases.iter().any(|a| a == bare)) {
        put(
            &mut out,
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
                &mut out,
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
        put(&mut out, format_args!("  also: nested skill `/{}` ({}), renamed because `/{bare}` is taken; it joins the table once a file under {}/ is touched",
            row.name,
            row.path.as_deref().unwrap_or(""),
            row.dynamic.as_deref().unwrap_or("")
        ));
    }
    let agents: Vec<_> = r.lock.agents.iter().filter(|a| a.name == bare).collect();
    if !agents.is_empty() || builtin_agent(bare).is_some() {
        put(&mut out, format_args!("agent `{bare}`:"));
        for (n, a) in agents.iter().enumerate() {
            let verdict = if n == 0 { "  ← used" } else { "" };
            put(&mut out, format_args!("  {}. {} scope: {}{verdict}", n + 1, a.scope.as_str(), a.path));
            if let Some(by) = &a.shadowed_by {
                put(&mut out, format_args!("     not used: {} [{}]", rule_text(&by.rule), by.rule));
            }
            if let Some(rule) = &a.denied_by {
                put(&mut out, format_args!("     removed: deny rule `{rule}`"));
            }
        }
        if builtin_agent(bare).is_some() {
            let verdict = if agents.is_empty() { "  ← used" } else { "" };
            put(&mut out, format_args!("  {}. built-in agent of Claude Code{verdict}", agents.len() + 1));
            if !agents.is_empty() {
                let rule = Reason::AgentScopeOrder;
                put(&mut out, format_args!("     not used: {} [{}]", rule.text(), rule.id()));
            }
        }
    }
    let server_name =
        bare.strip_prefix("mcp__").map(|s| s.trim_end_matches("__*").trim_end_matches("__")).unwrap_or(bare);
    let servers: Vec<_> = r
        .lock
        .mcp_servers
        .iter()
        .filter(|s| s.name == bare || s.normalized == server_name || s.name == server_name)
        .collect();
    if !servers.is_empty() {
        put(&mut out, format_args!("MCP server `{server_name}` (tools `mcp__{}__…`):", servers[0].normalized));
        for (n, s) in servers.iter().enumerate() {
            let used = s.shadowed_by.is_none() && s.denied_by.is_none() && s.blocked_by.is_none();
            let verdict = if used { "  ← used" } else { "" };
            put(
                &mut out,
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
                put(&mut out, format_args!("     not used: {} [{}]", rule_text(&by.rule), by.rule));
            }
            if let Some(rule) = &s.denied_by {
                put(&mut out, format_args!("     every tool removed by deny rule `{rule}`"));
            }
            if let Some(why) = &s.blocked_by {
                put(&mut out, format_args!("     not loaded: {why}"));
            }
            if let Some(a) = &s.approval {
                put(&mut out, format_args!("     project-server approval: {}", a.as_str()));
            }
        }
    }
    if let Some(tool) = r.tools.iter().find(|t| t.name == bare) {
        let removed = &tool.removed_by;
        let tool = &tool.name;
        put(
            &mut out,
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
            &mut out,
            format_args!("permission rule `{}`: {} in {} ({})", p.rule, p.behavior.as_str(), p.path, p.scope.as_str()),
        );
        if !p.removes.is_empty() {
            put(&mut out, format_args!("  removes from the pool: {}", p.removes.join(", ")));
        }
        if let Some(by) = &p.pre_empted_by {
            put(&mut out, format_args!("  never decides: {by} comes first (deny → ask → allow)"));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Names `explain` knows, for `did you mean`.
pub fn names(r: &Resolution) -> Vec<String> {
    let mut names: Vec<String> = r.table.iter().map(|row| row.name.clone()).collect();
    names.extend(r.lock.agents.iter().map(|a| a.name.clone()));
    names.extend(r.lock.mcp_servers.iter().map(|s| s.name.clone()));
    names.sort();
    names.dedup();
    names
}

fn node_label(n: &super::resolve::GraphNode) -> String {
    let head = match n.kind {
        GraphNodeKind::Command => format!("{} /{}", n.origin, n.name),
        GraphNodeKind::Permission => format!("{} {}", n.origin, n.name),
        kind => format!("{} {}", kind.as_str(), n.name),
    };
    let scope = if n.scope == Scope::Builtin { "builtin".to_string() } else { n.scope.as_str().to_string() };
    match &n.path {
        Some(p) => format!("{head}\\n{scope} · {p}"),
        None => format!("{head}\\n{scope}"),
    }
}

/// A DOT label: control characters written as escapes (`printable`), then `\` and `"`
/// escaped for DOT, keeping the label's own `\n` line breaks.
fn escape(s: &str) -> String {
    crate::printable::escape(s).replace('\\', "\\\\").replace('"', "\\\"").replace("\\\\n", "\\n")
}

/// One line of human output: every control character in it escaped (`printable`), so a name
/// or path from the repository can neither drive the terminal nor start a line of its own.
fn put(out: &mut String, args: std::fmt::Arguments<'_>) {
    out.push_str(&crate::printable::escape(&args.to_string()));
    out.push('\n');
}

/// The nodes a graph view shows: every declaration, and the built-ins something touches
/// (all built-ins with `all`).
fn shown_nodes(r: &Resolution, all: bool) -> Vec<petgraph::graph::NodeIndex> {
    r.graph
        .node_indices()
        .filter(|&i| all || r.graph[i].scope != Scope::Builtin || r.graph.neighbors_undirected(i).next().is_some())
        .collect()
}

/// `capc graph --format dot`.
pub fn graph_dot(r: &Resolution, all: bool) -> String {
    let mut out = String::from("digraph capabilities {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
    for i in shown_nodes(r, all) {
        let n = &r.graph[i];
        let style = match n.kind {
            GraphNodeKind::Command if n.scope == Scope::Builtin => ", style=dashed",
            GraphNodeKind::Command | GraphNodeKind::Agent => "",
            GraphNodeKind::Permission => ", shape=note",
            GraphNodeKind::Plugin => ", shape=folder",
            GraphNodeKind::McpServer => ", shape=component",
            GraphNodeKind::Tool => ", shape=ellipse",
            GraphNodeKind::Hook => ", shape=cds",
        };
        let _ = writeln!(out, "  n{} [label=\"{}\"{style}];", i.index(), escape(&node_label(n)));
    }
    for e in r.graph.edge_indices() {
        let Some((a, b)) = r.graph.edge_endpoints(e) else { continue };
        let w = &r.graph[e];
        let style = match w.kind() {
            EdgeKind::Shadows => "",
            EdgeKind::Removes | EdgeKind::PreEmpts | EdgeKind::Clashes => ", color=red",
            EdgeKind::Declares | EdgeKind::TakesAlias => ", color=gray",
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{}\\n{}\"{style}];",
            a.index(),
            b.index(),
            w.kind().as_str(),
            w.rule()
        );
    }
    out.push_str("}\n");
    out
}

/// `capc graph --format json`, version 1.
pub fn graph_json(r: &Resolution, all: bool) -> String {
    let nodes: Vec<Value> = shown_nodes(r, all)
        .into_iter()
        .map(|i| {
            let n = &r.graph[i];
            json!({"id": i.index(), "kind": n.kind.as_str(), "name": n.name, "origin": n.origin, "scope": n.scope.as_str(), "path": n.path})
        })
        .collect();
    let edges: Vec<Value> = r
        .graph
        .edge_indices()
        .filter_map(|e| {
            let (a, b) = r.graph.edge_endpoints(e)?;
            let w = &r.graph[e];
            Some(json!({"from": a.index(), "to": b.index(), "kind": w.kind().as_str(), "rule": w.rule()}))
        })
        .collect();
    let mut text = crate::printable::escape_json(
        &serde_json::to_string_pretty(&json!({"version": 1, "nodes": nodes, "edges": edges})).unwrap_or_default(),
    )
    .into_owned();
    text.push('\n');
    text
}

/// `capc ls`'s section of instruction files (empty when there is none): each file in the order
/// Claude Code sends it, its scope, its token estimate, and what brings it in (an import, or
/// the `paths` a rule waits for).
pub fn instructions_text(instructions: &[crate::model::Instruction]) -> String {
    if instructions.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let at_start: Vec<&crate::model::Instruction> = instructions.iter().filter(|i| i.at_start()).collect();
    let tokens: u64 = at_start.iter().map(|i| i.tokens).sum();
    let _ = writeln!(
        out,
        "\nInstructions, in the order Claude Code sends them ({} at the start, about {}):",
        count(at_start.len(), "file"),
        count(usize::try_from(tokens).unwrap_or(usize::MAX), "token")
    );
    let width = instructions.iter().map(|i| i.path.len()).max().unwrap_or(0).max(24);
    for i in instructions {
        let mut line = format!("  {:>4}  {:width$}  {:8}  {:>6} tokens", i.order, i.path, i.scope.as_str(), i.tokens);
        if let Some(by) = &i.imported_by {
            let _ = write!(line, "  imported by {by}");
        }
        if !i.at_start() {
            let _ = write!(line, "  (conditional: sent {})", i.condition());
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// `capc explain PATH` for an instruction file: whether and when Claude Code sends it, and
/// through which imports; `None` when no instruction file of the lock has that path.
pub fn explain_instruction(instructions: &[crate::model::Instruction], path: &str) -> Option<String> {
    let path = path.trim_start_matches("./");
    let i = instructions.iter().find(|i| i.path == path)?;
    let mut out = String::new();
    let at_start = instructions.iter().filter(|i| i.at_start()).count();
    if i.at_start() {
        let place = instructions.iter().filter(|o| o.at_start()).position(|o| o.path == i.path).unwrap_or(0) + 1;
        let _ = writeln!(
            out,
            "{}: an instruction file ({}), sent at the start of every session, {place} of {at_start}, about {}",
            i.path,
            i.scope.as_str(),
            count(usize::try_from(i.tokens).unwrap_or(usize::MAX), "token")
        );
    } else {
        let _ = writeln!(
            out,
            "{}: {} ({}), sent {}, about {}",
            i.path,
            if i.paths.is_empty() { "a nested folder's instruction file" } else { "a rule" },
            i.scope.as_str(),
            i.condition(),
            count(usize::try_from(i.tokens).unwrap_or(usize::MAX), "token")
        );
    }
    // The chain of imports that brings it in, from the file Claude Code reads by its name.
    let mut chain = vec![i.path.as_str()];
    let mut at = i;
    while let Some(by) = at.imported_by.as_deref() {
        chain.push(by);
        match instructions.iter().find(|o| o.path == by) {
            Some(o) if chain.len() <= instructions.len() => at = o,
            _ => break,
        }
    }
    if chain.len() > 1 {
        chain.reverse();
        let _ = writeln!(out, "  imported through: {}", chain.join(" → "));
    } else {
        let _ = writeln!(out, "  read by its name");
    }
    if !i.imports.is_empty() {
        let _ = writeln!(out, "  imports: {}", i.imports.join(", "));
    }
    Some(out)
}

/// `capc ls --runs`: every command Claude Code may run from the declarations (`[[run]]`),
/// grouped by kind, each with where it is declared, when it runs, what Claude Code asks first,
/// whether it is sandboxed and what pins it.
pub fn runs_text(runs: &[crate::model::Run]) -> String {
    let mut out = String::new();
    if runs.is_empty() {
        out.push_str("Nothing here runs a command.\n");
        return out;
    }
    let _ = writeln!(out, "What Claude Code may run here ({}):", count(runs.len(), "command"));
    let mut kind = None;
    for r in runs {
        if kind != Some(r.kind) {
            kind = Some(r.kind);
            let _ = writeln!(out, "\n{}:", r.kind.as_str());
        }
        let owner = r.owner.as_deref().map(|o| format!(" ({o})")).unwrap_or_default();
        let _ = writeln!(out, "  {}{owner}: {}", crate::printable::escape(&r.name), crate::printable::escape(&r.run));
        let at = if r.line > 0 { format!("{}:{}", r.path, r.line) } else { r.path.clone() };
        let _ = writeln!(out, "      at {}  ({})", crate::printable::escape(&at), r.scope.as_str());
        let sandbox = if r.sandboxed { "sandboxed" } else { "not sandboxed" };
        let _ = writeln!(out, "      runs {}; gate: {}; {sandbox}", crate::printable::escape(&r.when), r.gate.as_str());
        let pinned = match (&r.script, &r.script_sha256, &r.fetches) {
            (Some(script), Some(sha), _) => format!("script {} sha256 {}", script, &sha[..sha.len().min(12)]),
            (_, _, Some(fetches)) => format!("{} ({fetches})", r.pinned.as_str()),
            _ => r.pinned.as_str().to_string(),
        };
        let _ = writeln!(out, "      pinned: {}", crate::printable::escape(&pinned));
    }
    out
}

/// `capc ls --runs --format json`: `{"version": 1, "runs": [...]}`, each row as the lock's.
pub fn runs_json(runs: &[crate::model::Run]) -> String {
    let out = json!({"version": 1, "runs": runs});
    let mut text = crate::printable::escape_json(&serde_json::to_string_pretty(&out).unwrap_or_default()).into_owned();
    text.push('\n');
    text
}
