//! The `[[run]]` inventory of a resolved lock: one source per kind, each a function of the lock
//! and the rows readers declared, then each row's sandboxing and pin.

use super::declare::{hook_name, server_line, HELPERS};
use super::widening::{effective, precedence};
use crate::model::{Gate, Lock, Pinned, Run, RunKind, Scope};

/// A source of inventory rows: the lock, and the rows readers declared that reached the session.
pub type Source = fn(&Lock, &[Run]) -> Vec<Run>;

/// Every kind of row, one function each.
pub(crate) const SOURCES: &[Source] =
    &[hooks, servers, injections, helpers, owned, monitors, lsp_servers, plugin_bins, plugin_code];

/// The `[[run]]` inventory of a resolved lock.
pub fn inventory(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    let sandboxed = effective(lock, "sandbox.enabled").is_some_and(|s| s.value == "true");
    let mut rows: Vec<Run> = SOURCES.iter().flat_map(|source| source(lock, declared)).collect();
    for row in &mut rows {
        finish(row, sandboxed);
    }
    rows.sort_by(|a, b| order(a).cmp(&order(b)));
    rows.dedup();
    rows
}

type Order<'a> = (RunKind, &'a str, u32, &'a str, Option<&'a str>, &'a str);

fn order(r: &Run) -> Order<'_> {
    (r.kind, &r.path, r.line, &r.name, r.owner.as_deref(), &r.run)
}

/// The declared row that matches, for its line and script.
fn found<'d>(declared: &'d [Run], kind: RunKind, path: &str, name: &str, run: &str) -> Option<&'d Run> {
    declared.iter().find(|d| d.kind == kind && d.owner.is_none() && d.path == path && d.name == name && d.run == run)
}

fn located(mut row: Run, at: Option<&Run>) -> Run {
    if let Some(at) = at {
        row.line = at.line;
        row.script.clone_from(&at.script);
        row.script_sha256.clone_from(&at.script_sha256);
    }
    row
}

/// The gate of what a scope declares (hooks, helpers, servers other than `.mcp.json`'s).
fn gate_of(scope: Scope) -> Gate {
    match scope {
        Scope::User | Scope::Managed => Gate::None,
        _ => Gate::Trust,
    }
}

fn hooks(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    lock.hooks
        .iter()
        .map(|h| {
            let name = hook_name(&h.event, h.matcher.as_deref());
            let run = h.run.clone().unwrap_or_default();
            let at = found(declared, RunKind::Hook, &h.path, &name, &run);
            let row = Run {
                kind: RunKind::Hook,
                when: format!("on `{}`", h.event),
                gate: gate_of(h.scope),
                hook_type: Some(h.kind.clone()),
                scope: h.scope,
                path: h.path.clone(),
                plugin: h.plugin.clone(),
                name,
                run,
                ..Run::default()
            };
            located(row, at)
        })
        .collect()
}

fn servers(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    use crate::model::{Approval, Transport};
    lock.mcp_servers
        .iter()
        .filter(|s| s.transport == Transport::Stdio && s.command.is_some())
        .filter(|s| s.shadowed_by.is_none() && s.blocked_by.is_none() && s.approval != Some(Approval::Disabled))
        .map(|s| {
            let run = server_line(s);
            let at = found(declared, RunKind::McpServer, &s.path, &s.name, &run);
            let gate = match (s.scope, s.approval) {
                (Scope::Project, Some(Approval::Approved)) => Gate::Trust,
                (Scope::Project, _) => Gate::McpApproval,
                (Scope::Local, _) => Gate::None,
                (scope, _) => gate_of(scope),
            };
            let row = Run {
                kind: RunKind::McpServer,
                name: s.name.clone(),
                run,
                scope: s.scope,
                path: s.path.clone(),
                plugin: s.plugin.clone(),
                when: "at session start".to_string(),
                gate,
                ..Run::default()
            };
            located(row, at)
        })
        .collect()
}

fn injections(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    let mut out = Vec::new();
    for c in lock.commands.iter().filter(|c| c.shadowed_by.is_none()) {
        let name = format!("/{}", c.name);
        for injection in &c.shell_injections {
            let at = found(declared, RunKind::Injection, &c.path, &name, injection);
            let row = Run {
                kind: RunKind::Injection,
                name: name.clone(),
                run: injection.clone(),
                scope: c.scope,
                path: c.path.clone(),
                plugin: c.plugin.clone(),
                when: format!("when `{name}` is expanded"),
                gate: Gate::Permission,
                ..Run::default()
            };
            out.push(located(row, at));
        }
    }
    out
}

/// Settings helpers and status lines: the one of the highest-precedence scope for each key.
fn helpers(_lock: &Lock, declared: &[Run]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for helper in HELPERS {
        let winner = declared
            .iter()
            .filter(|d| {
                d.owner.is_none() && matches!(d.kind, RunKind::Helper | RunKind::StatusLine) && d.name == helper.key
            })
            .max_by_key(|d| (precedence(d.scope), std::cmp::Reverse(d.path.clone())));
        if let Some(w) = winner {
            let mut row = w.clone();
            row.when = helper.when.to_string();
            row.gate = if helper.kind == RunKind::StatusLine { Gate::Trust } else { gate_of(w.scope) };
            out.push(row);
        }
    }
    out
}

/// An agent's own servers and hooks and a skill's hooks, of the agents and skills that load.
fn owned(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    let mut out = Vec::new();
    for d in declared.iter().filter(|d| d.owner.is_some()) {
        let owner = d.owner.as_deref().unwrap_or("");
        let loads = if let Some(agent) = owner.strip_prefix("agent ") {
            lock.agents.iter().any(|a| a.name == agent && a.path == d.path && a.shadowed_by.is_none())
        } else {
            lock.commands.iter().any(|c| c.path == d.path && c.shadowed_by.is_none())
        };
        if !loads {
            continue;
        }
        let mut row = d.clone();
        row.when = match (row.kind, owner.strip_prefix("agent ")) {
            (RunKind::McpServer, Some(agent)) => format!("when agent `{agent}` starts"),
            (_, Some(agent)) => format!("on `{}` while agent `{agent}` runs", event_of(&row.name)),
            _ => format!("on `{}` while `{owner}` runs", event_of(&row.name)),
        };
        row.gate = gate_of(row.scope);
        out.push(row);
    }
    out
}

/// The loaded plugins' monitors: armed at session start (or the first time a skill runs),
/// unsandboxed, behind the folder's trust as a plugin's hooks are.
fn monitors(lock: &Lock, _declared: &[Run]) -> Vec<Run> {
    lock.monitors
        .iter()
        .map(|m| Run {
            kind: RunKind::Monitor,
            name: m.name.clone(),
            run: m.command.clone(),
            scope: Scope::Plugin,
            path: m.path.clone(),
            line: m.line,
            plugin: Some(m.plugin.clone()),
            when: match m.when.strip_prefix("on-skill-invoke:") {
                Some(skill) => format!(
                    "in the background from the first time `{skill}` runs; each line it prints reaches the model"
                ),
                None => "in the background from session start; each line it prints reaches the model".to_string(),
            },
            gate: gate_of(Scope::Plugin),
            script: m.script.clone(),
            script_sha256: m.script_sha256.clone(),
            ..Run::default()
        })
        .collect()
}

/// The loaded plugins' LSP servers: started when a file they serve is opened.
fn lsp_servers(lock: &Lock, _declared: &[Run]) -> Vec<Run> {
    lock.lsp_servers
        .iter()
        .map(|l| {
            let mut run = l.command.clone();
            for arg in &l.args {
                run.push(' ');
                run.push_str(arg);
            }
            let extensions =
                if l.extensions.is_empty() { "a file it serves".to_string() } else { l.extensions.join(", ") };
            Run {
                kind: RunKind::LspServer,
                name: l.name.clone(),
                run,
                scope: Scope::Plugin,
                path: l.path.clone(),
                line: l.line,
                plugin: Some(l.plugin.clone()),
                when: format!("when a file is opened ({extensions})"),
                gate: gate_of(Scope::Plugin),
                script: l.script.clone(),
                script_sha256: l.script_sha256.clone(),
                ..Run::default()
            }
        })
        .collect()
}

/// The files of the loaded plugins' `bin/`: run when a command names them, each hashed.
fn plugin_bins(lock: &Lock, _declared: &[Run]) -> Vec<Run> {
    lock.plugin_bins
        .iter()
        .map(|b| Run {
            kind: RunKind::PluginBin,
            name: b.name.clone(),
            run: b.path.clone(),
            scope: Scope::Plugin,
            path: b.path.clone(),
            plugin: Some(b.plugin.clone()),
            when: format!("when a command Claude Code runs names `{}` (the plugin's bin/ is on its PATH)", b.name),
            gate: gate_of(Scope::Plugin),
            script: Some(b.path.clone()),
            script_sha256: (!b.sha256.is_empty()).then(|| b.sha256.clone()),
            ..Run::default()
        })
        .collect()
}

/// The loaded plugins' hooks modules and workflow scripts, as the readers of the hooks file and
/// the workflow declared them (each hashed). A hooks module is JavaScript Claude Code loads into
/// its own process as the plugin loads (policy took out those `allowManagedHooksOnly` stops). A
/// workflow script runs when the Workflow tool runs it.
fn plugin_code(lock: &Lock, declared: &[Run]) -> Vec<Run> {
    let loaded = |plugin: &Option<String>| {
        plugin.as_deref().is_some_and(|p| lock.plugins.iter().any(|l| l.loaded && l.name == p))
    };
    declared
        .iter()
        .filter(|d| d.owner.is_none() && loaded(&d.plugin))
        .filter_map(|d| {
            let when = match d.kind {
                RunKind::HooksModule => {
                    "at session start, as the plugin loads: its code runs inside Claude Code, on the events it hooks"
                        .to_string()
                }
                RunKind::Workflow => format!("when the Workflow tool runs workflow `{}`", d.name),
                _ => return None,
            };
            Some(Run { when, gate: gate_of(Scope::Plugin), ..d.clone() })
        })
        .collect()
}

fn event_of(name: &str) -> &str {
    name.split(' ').next().unwrap_or(name)
}

/// Sandboxing and pinning, from what the row runs.
fn finish(row: &mut Run, sandboxed: bool) {
    row.sandboxed = row.kind == RunKind::Injection && sandboxed;
    if row.kind == RunKind::Hook && row.hook_type.as_deref() != Some("command") {
        row.pinned = Pinned::NotAProgram;
        return;
    }
    if let Some(shape) = crate::provenance::download_and_run(&row.run) {
        row.pinned = Pinned::Download;
        row.fetches = Some(shape);
        return;
    }
    let words: Vec<String> = row.run.split_whitespace().map(str::to_string).collect();
    if let Some((first, rest)) = words.split_first() {
        if let Some(launch) = crate::provenance::server_launch(first, rest) {
            let unpinned = crate::provenance::unpinned(first, rest).is_some();
            row.pinned = if unpinned { Pinned::Unpinned } else { Pinned::Exact };
            row.fetches = Some(format!("{} {}", launch.via, launch.package));
            return;
        }
    }
    row.pinned = if row.script_sha256.is_some() { Pinned::Script } else { Pinned::Program };
}
