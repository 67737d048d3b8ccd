//! Looking inside a resolution: `capc ls` (text and JSON), `capc explain NAME` and
//! `capc graph` (DOT and JSON). Everything here is a pure function of the resolution, so
//! the output is as deterministic as the lock. `ls.rs` is `capc ls` as text, `explain.rs` is
//! `capc explain NAME`; the JSON views, the graph and the instruction and run listings are here.

use super::resolve::{EdgeKind, GraphNodeKind, Reason, Resolution, Row};
use crate::model::{Origin, Ref, Scope};
use crate::plural::count;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn ref_json(r: Option<&Ref>) -> Value {
    match r {
        Some(r) => {
            json!({"name": r.name, "origin": r.origin.as_str(), "scope": r.scope.as_str(), "path": r.path, "rule": r.rule})
        }
        None => Value::Null,
    }
}

use crate::builtins::builtin_agents;

mod explain;
mod ls;

pub use explain::explain;
pub use ls::ls_text;

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
                "shadowed_by": ref_json(row.shadowed_by.as_deref()),
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
            json!({"name": a.name, "type": "agent", "origin": origin.as_str(), "scope": a.scope.as_str(), "path": a.path, "shadowed_by": ref_json(a.shadowed_by.as_deref()), "denied_by": a.denied_by})
        })
        .collect();
    for name in builtin_agents().iter().map(|a| a.name) {
        let by = r.lock.agents.iter().find(|a| a.name == name && a.shadowed_by.is_none());
        let shadowed = by.map(|a| json!({"name": a.name, "origin": "agent", "scope": a.scope.as_str(), "path": a.path, "rule": Reason::AgentScopeOrder.id()}));
        agents.push(json!({"name": name, "type": "agent", "origin": "builtin", "scope": "builtin", "path": null, "shadowed_by": shadowed.unwrap_or(Value::Null)}));
    }
    let servers: Vec<Value> = r
        .lock
        .mcp_servers
        .iter()
        .map(|s| {
            json!({"name": s.name, "normalized": s.normalized, "scope": s.scope.as_str(), "transport": s.transport, "path": s.path, "shadowed_by": ref_json(s.shadowed_by.as_deref()), "approval": s.approval, "denied_by": s.denied_by, "blocked_by": s.blocked_by})
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
