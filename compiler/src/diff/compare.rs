//! Matching entries of two locks and comparing them field by field; what each name reaches.

use super::escalate;
use super::pairing::{compare_fields, entry, pair, Paired};
use super::{Change, Class, FieldChange, Section};
use crate::model::{Agent, Command, Hook, Lock, MarketplacePlugin, McpServer, Permission, Pin, Plugin};

use std::collections::{BTreeMap, BTreeSet};

/// Every change between `old` and `new`, escalations weighed, unsorted: what a session in
/// the folder loads, then what each marketplace plugin gives once installed.
pub(super) fn changes(old: &Lock, new: &Lock) -> Vec<Change> {
    let hashes = Hashes::of(old, new);
    let mut out = loaded(old, new, &hashes);
    marketplace_plugins(old, new, &hashes, &mut out);
    out
}

/// The changes of one lock's session entries (or of one marketplace plugin's, as a lock of
/// its own).
fn loaded(old: &Lock, new: &Lock, hashes: &Hashes<'_>) -> Vec<Change> {
    let mut out = Vec::new();
    commands(old, new, hashes, &mut out);
    agents(old, new, hashes, &mut out);
    servers(old, new, &mut out);
    mcp_tools(old, new, &mut out);
    output_styles(old, new, hashes, &mut out);
    instructions(old, new, &mut out);
    hooks(old, new, &mut out);
    permissions(old, new, &mut out);
    plugins(old, new, hashes, &mut out);
    pins(old, new, hashes, &mut out);
    super::runs::runs(old, new, &|path| hashes.same(path), &mut out);
    super::runs::settings(old, new, &|path| hashes.same(path), &mut out);
    policy(old, new, &mut out);
    super::reroutes::reroutes(old, new, &mut out);
    out
}

/// The commands, by name and file: added, removed, and kept ones whose entry or file changed.
fn commands(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let commands = pair(&old.commands, &new.commands, |c| (c.name.as_str(), c.path.as_str()));
    for c in commands.added {
        out.push(entry(Section::Command, Class::Added, command_subject(c), command_what(c), &[&c.path]));
        last(out).escalations = escalate::command_added(c);
    }
    for c in commands.removed {
        out.push(entry(Section::Command, Class::Removed, command_subject(c), command_what(c), &[&c.path]));
    }
    for (o, n) in commands.kept {
        let body = hashes.changed(&n.path);
        if o == n && body.is_none() {
            continue;
        }
        // What a file's own bytes decide cannot change while its hash stays: a difference there
        // comes from a lock written before capc recorded it (`shell_injections`).
        let unchanged_file = hashes.same(&n.path);
        let mut ignore = vec!["shadowed_by", "shadows"];
        if unchanged_file {
            ignore.push("shell_injections");
        }
        let mut fields = compare_fields(o, n, &ignore);
        fields.extend(body.clone());
        if fields.is_empty() {
            continue;
        }
        out.push(Change {
            fields,
            ..entry(Section::Command, Class::Changed, command_subject(n), command_what(n), &[&n.path])
        });
        let mut before = o.clone();
        if unchanged_file {
            before.shell_injections.clone_from(&n.shell_injections);
        }
        last(out).escalations = escalate::command_changed(&before, n, body.is_some());
    }
}

/// The agents, by name and file: added, removed, and kept ones whose entry or file changed.
fn agents(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let agents = pair(&old.agents, &new.agents, |a| (a.name.as_str(), a.path.as_str()));
    for a in agents.added {
        out.push(entry(Section::Agent, Class::Added, a.name.clone(), agent_what(a), &[&a.path]));
        last(out).escalations = super::runs::agent_added(a);
    }
    for a in agents.removed {
        out.push(entry(Section::Agent, Class::Removed, a.name.clone(), agent_what(a), &[&a.path]));
    }
    for (o, n) in agents.kept {
        let body = hashes.changed(&n.path);
        let mut fields = if o == n { Vec::new() } else { compare_fields(o, n, &["shadowed_by", "shadows"]) };
        fields.extend(body);
        if fields.is_empty() {
            continue;
        }
        out.push(Change { fields, ..entry(Section::Agent, Class::Changed, n.name.clone(), agent_what(n), &[&n.path]) });
        last(out).escalations = escalate::agent_changed(o, n);
        last(out).escalations.extend(super::runs::agent_widened(o, n));
    }
}

/// The MCP servers, by name, scope and file.
fn servers(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let servers = pair(&old.mcp_servers, &new.mcp_servers, |s| (s.name.as_str(), s.scope, s.path.as_str()));
    for s in servers.added {
        out.push(entry(Section::McpServer, Class::Added, s.name.clone(), server_what(s), &[&s.path]));
        last(out).escalations = escalate::server_added(s);
    }
    for s in servers.removed {
        out.push(entry(Section::McpServer, Class::Removed, s.name.clone(), server_what(s), &[&s.path]));
    }
    for (o, n) in servers.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &["shadowed_by", "shadows"]);
        if fields.is_empty() {
            continue;
        }
        out.push(Change {
            fields,
            ..entry(Section::McpServer, Class::Changed, n.name.clone(), server_what(n), &[&n.path])
        });
        last(out).escalations = escalate::server_changed(o, n);
    }
}

/// The instruction files, by path; where each comes in the reminder is no change of its own.
fn instructions(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let instructions = pair(&old.instructions, &new.instructions, |i| i.path.as_str());
    // An import of a file outside the project that was not there: Claude Code asks the user to
    // read it, and once approved sends a file nobody reviewed here.
    let new_outside = |old: Option<&crate::model::Instruction>, new: &crate::model::Instruction| -> Vec<String> {
        new.external_imports
            .iter()
            .filter(|w| old.is_none_or(|o| !o.external_imports.contains(w)))
            .map(|w| {
                format!(
                    "instruction file `{}` imports `@{w}`, outside the project: Claude Code asks to read it, and sends it once approved",
                    new.path
                )
            })
            .collect()
    };
    for i in instructions.added {
        out.push(entry(Section::Instruction, Class::Added, i.path.clone(), instruction_what(i), &[&i.path]));
        let mut escalations = Vec::new();
        if i.at_start() {
            escalations.push(format!("a new instruction file `{}` is sent to the model in every turn", i.path));
        }
        escalations.extend(new_outside(None, i));
        last(out).escalations = escalations;
    }
    for i in instructions.removed {
        out.push(entry(Section::Instruction, Class::Removed, i.path.clone(), instruction_what(i), &[&i.path]));
    }
    for (o, n) in instructions.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &["order"]);
        if fields.is_empty() {
            continue;
        }
        out.push(Change {
            fields,
            ..entry(Section::Instruction, Class::Changed, n.path.clone(), instruction_what(n), &[&n.path])
        });
        let mut escalations = Vec::new();
        if !o.at_start() && n.at_start() {
            escalations.push(format!(
                "instruction file `{}` is now sent in every turn, not only for the files {}",
                n.path,
                if o.paths.is_empty() { "below its folder" } else { "its `paths` match" }
            ));
        }
        escalations.extend(new_outside(Some(o), n));
        last(out).escalations = escalations;
    }
}

/// The hooks added and removed, each matched by all that makes it (`hook_key`).
fn hooks(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let hooks = pair(&old.hooks, &new.hooks, hook_key);
    for h in hooks.added {
        out.push(entry(Section::Hook, Class::Added, hook_subject(h), hook_what(h), &[&h.path]));
        last(out).escalations = escalate::hook_added(h);
    }
    for h in hooks.removed {
        out.push(entry(Section::Hook, Class::Removed, hook_subject(h), hook_what(h), &[&h.path]));
    }
}

/// The permission rules, weighed against what the other side allowed.
fn permissions(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let cx = escalate::Context::new(old, new);
    let rules = pair(&old.permissions, &new.permissions, |p| (p.behavior, p.rule.as_str(), p.scope, p.path.as_str()));
    for p in &rules.added {
        out.push(entry(
            Section::Permission,
            Class::Added,
            permission_subject(p),
            Some(p.scope.as_str().to_string()),
            &[&p.path],
        ));
        last(out).escalations = cx.permission_added(p, &rules.removed);
    }
    for p in &rules.removed {
        out.push(entry(
            Section::Permission,
            Class::Removed,
            permission_subject(p),
            Some(p.scope.as_str().to_string()),
            &[&p.path],
        ));
        last(out).escalations = cx.permission_removed(p);
    }
    for (o, n) in rules.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &[]);
        out.push(Change {
            fields,
            ..entry(
                Section::Permission,
                Class::Changed,
                permission_subject(n),
                Some(n.scope.as_str().to_string()),
                &[&n.path],
            )
        });
        last(out).escalations = escalate::permission_changed(o, n);
    }
}

/// The plugins, by id and folder, with the files that changed under a kept one.
fn plugins(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    // A folder nothing loads that a marketplace plugin on both sides holds is reported there,
    // component by component.
    let listed = |lock: &Lock, root: &str| lock.marketplace_plugins.iter().any(|m| m.root.as_deref() == Some(root));
    let reported_there = |p: &Plugin| !p.loaded && listed(old, &p.root) && listed(new, &p.root);
    let plugins = pair(&old.plugins, &new.plugins, |p| (p.id.as_str(), p.root.as_str()));
    let plugins = Paired {
        added: plugins.added.into_iter().filter(|p| !reported_there(p)).collect(),
        removed: plugins.removed.into_iter().filter(|p| !reported_there(p)).collect(),
        kept: plugins.kept.into_iter().filter(|(o, n)| !(reported_there(o) && reported_there(n))).collect(),
    };
    for p in plugins.added {
        out.push(entry(Section::Plugin, Class::Added, p.id.clone(), plugin_what(p), &[&p.root]));
        last(out).escalations = escalate::plugin_added(p);
    }
    for p in plugins.removed {
        out.push(entry(Section::Plugin, Class::Removed, p.id.clone(), plugin_what(p), &[&p.root]));
    }
    for (o, n) in plugins.kept {
        let mut fields = if o == n { Vec::new() } else { compare_fields(o, n, &[]) };
        let (content, files) = hashes.under(&n.root);
        fields.extend(content);
        if fields.is_empty() {
            continue;
        }
        let mut paths: Vec<&str> = vec![&n.root];
        paths.extend(files.iter().map(String::as_str));
        out.push(Change { fields, ..entry(Section::Plugin, Class::Changed, n.id.clone(), plugin_what(n), &paths) });
        last(out).escalations = escalate::plugin_changed(o, n);
    }
}

/// The pins, each marked with the marketplace plugin it belongs to.
fn pins(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let pins =
        pair(&old.pins, &new.pins, |p| (p.of, p.name.as_str(), p.path.as_str(), p.via.as_str(), p.package.as_str()));
    // A pin of a file that did not change, against a lock without pins, is one that lock's capc
    // did not record yet.
    let pins_added: Vec<&Pin> = match old.pins.is_empty() {
        true => pins.added.into_iter().filter(|p| !hashes.same(&p.path)).collect(),
        false => pins.added,
    };
    for p in pins_added {
        out.push(entry(Section::Pin, Class::Added, pin_subject(p), pin_what(p), &[&p.path]));
        last(out).plugin = pin_plugin(p, new);
        last(out).escalations = escalate::pin_added(p);
    }
    for p in pins.removed {
        out.push(entry(Section::Pin, Class::Removed, pin_subject(p), pin_what(p), &[&p.path]));
        last(out).plugin = pin_plugin(p, old);
    }
    for (o, n) in pins.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &[]);
        out.push(Change { fields, ..entry(Section::Pin, Class::Changed, pin_subject(n), pin_what(n), &[&n.path]) });
        last(out).plugin = pin_plugin(n, new);
        last(out).escalations = escalate::pin_changed(o, n);
    }
}

/// The policy switches and what they remove: a switch no longer in force, or a declaration
/// no longer removed while it is declared still, loosens the policy.
fn policy(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let switches = pair(&old.policy, &new.policy, |s| s.key.as_str());
    for s in switches.added {
        out.push(entry(Section::Policy, Class::Added, s.key.clone(), Some(s.value.clone()), &[&s.path]));
        last(out).escalations = escalate::policy_switch_loosened(None, Some(s));
    }
    for s in switches.removed {
        out.push(entry(Section::Policy, Class::Removed, s.key.clone(), Some(s.value.clone()), &[&s.path]));
        last(out).escalations = escalate::policy_switch_loosened(Some(s), None);
    }
    for (o, n) in switches.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &[]);
        out.push(Change {
            fields,
            ..entry(Section::Policy, Class::Changed, n.key.clone(), Some(n.value.clone()), &[&n.path])
        });
        last(out).escalations = escalate::policy_switch_loosened(Some(o), Some(n));
    }
    let removals =
        pair(&old.removed_by_policy, &new.removed_by_policy, |r| (r.kind.as_str(), r.name.as_str(), r.path.as_str()));
    let what = |r: &crate::model::RemovedByPolicy| Some(format!("{} removed by {} in {}", r.kind, r.key, r.by));
    for r in removals.added {
        out.push(entry(Section::Policy, Class::Added, r.name.clone(), what(r), &[&r.path, &r.by]));
    }
    for r in removals.removed {
        out.push(entry(Section::Policy, Class::Removed, r.name.clone(), what(r), &[&r.path, &r.by]));
        last(out).escalations = escalate::policy_removal_lifted(r, new);
    }
}

/// The marketplace plugin a pin belongs to: the plugin entry's own source, or a server of a
/// plugin folder a marketplace lists (and no session loads).
fn pin_plugin(p: &Pin, lock: &Lock) -> Option<String> {
    let of_loaded = lock.plugins.iter().any(|l| l.loaded && crate::lock::plugins::inside(&p.path, &l.root));
    lock.marketplace_plugins
        .iter()
        .find(|m| match p.of {
            crate::model::PinOf::Plugin => m.id == p.name && m.marketplace == p.path,
            crate::model::PinOf::McpServer => {
                !of_loaded && m.root.as_deref().is_some_and(|r| crate::lock::plugins::inside(&p.path, r))
            }
            crate::model::PinOf::Marketplace => false,
        })
        .map(|m| m.id.clone())
}

/// What installing each marketplace plugin gives, compared: the entry itself (source,
/// version, strictness), then its components as a lock of their own, each change marked with
/// the plugin.
fn marketplace_plugins(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let listed = pair(&old.marketplace_plugins, &new.marketplace_plugins, |m| (m.id.as_str(), m.marketplace.as_str()));
    let files = |m: &MarketplacePlugin| -> Vec<String> {
        std::iter::once(m.marketplace.clone()).chain(m.root.clone()).collect()
    };
    let unchanged_files = |m: &MarketplacePlugin| {
        hashes.same(&m.marketplace) && m.root.as_deref().is_none_or(|r| hashes.under(r).0.is_none())
    };
    for m in listed.added {
        // Against a lock written before capc recorded marketplace plugins, one whose files did
        // not change is not new.
        if old.marketplace_plugins.is_empty() && unchanged_files(m) {
            continue;
        }
        let paths = files(m);
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        out.push(Change {
            plugin: Some(m.id.clone()),
            ..entry(Section::Plugin, Class::Added, m.id.clone(), listed_what(m), &paths)
        });
        contents(None, m, hashes, out);
    }
    for m in listed.removed {
        let paths = files(m);
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        out.push(Change {
            plugin: Some(m.id.clone()),
            ..entry(Section::Plugin, Class::Removed, m.id.clone(), listed_what(m), &paths)
        });
    }
    for (o, n) in listed.kept {
        if o == n && unchanged_files(n) {
            continue;
        }
        let components =
            ["command", "agent", "mcp_server", "hook", "monitor", "lsp_server", "plugin_bin", "output_style"];
        let mut fields = compare_fields(o, n, &components);
        let (content, changed) = n.root.as_deref().map(|r| hashes.under(r)).unwrap_or_default();
        fields.extend(content);
        if !fields.is_empty() {
            let mut paths = files(n);
            paths.extend(changed);
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            out.push(Change {
                fields,
                plugin: Some(n.id.clone()),
                ..entry(Section::Plugin, Class::Changed, n.id.clone(), listed_what(n), &paths)
            });
            last(out).escalations = escalate::listed_changed(o, n);
        }
        contents(Some(o), n, hashes, out);
    }
}

/// The changes of one marketplace plugin's components, compared as two locks of their own.
fn contents(old: Option<&MarketplacePlugin>, new: &MarketplacePlugin, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let lock = |m: Option<&MarketplacePlugin>| {
        let mut lock = crate::lock::resolve::empty_lock();
        if let Some(m) = m {
            lock.commands.clone_from(&m.commands);
            lock.agents.clone_from(&m.agents);
            lock.mcp_servers.clone_from(&m.mcp_servers);
            lock.hooks.clone_from(&m.hooks);
            lock.monitors.clone_from(&m.monitors);
            lock.lsp_servers.clone_from(&m.lsp_servers);
            lock.plugin_bins.clone_from(&m.plugin_bins);
            lock.output_styles.clone_from(&m.output_styles);
            // What it runs, as a loaded plugin's rows of `[[run]]` (monitors, LSP servers,
            // `bin/` files), weighed by the same section.
            lock.runs = crate::runs::inventory(&lock, &[]);
        }
        lock
    };
    for mut change in loaded(&lock(old), &lock(Some(new)), hashes) {
        change.plugin = Some(new.id.clone());
        out.push(change);
    }
}

fn listed_what(m: &MarketplacePlugin) -> Option<String> {
    let refused = if m.refused.is_some() { "; Claude Code refuses it" } else { "" };
    Some(format!("listed by {}, installs from {}{refused}", m.marketplace, m.source))
}

/// What the lock's MCP servers offer (`[[mcp_tool]]`, recorded by `capc lock --connect`),
/// tool by tool (a tool is its server and its own name). A server either side could not list
/// (`[[mcp_failed]]`) is not compared tool by tool, since what it offers is not known there;
/// that it could or could not be listed is a change of its own.
fn mcp_tools(old: &Lock, new: &Lock, out: &mut Vec<Change>) {
    let unlisted = |server: &str| old.mcp_failed.iter().chain(&new.mcp_failed).any(|f| f.server == server);
    let file = |server: &str| -> String {
        new.mcp_servers
            .iter()
            .chain(&old.mcp_servers)
            .find(|s| s.name == server)
            .map(|s| s.path.clone())
            .unwrap_or_default()
    };
    let tools = pair(&old.mcp_tools, &new.mcp_tools, |t| (t.server.as_str(), t.tool.as_str()));
    for t in tools.added.into_iter().filter(|t| !unlisted(&t.server)) {
        out.push(entry(Section::McpTool, Class::Added, t.name.clone(), tool_what(t), &[&file(&t.server)]));
        last(out).escalations = escalate::tool_added(t);
    }
    for t in tools.removed.into_iter().filter(|t| !unlisted(&t.server)) {
        out.push(entry(Section::McpTool, Class::Removed, t.name.clone(), tool_what(t), &[&file(&t.server)]));
    }
    for (o, n) in tools.kept.into_iter().filter(|(o, n)| o != n) {
        let fields = compare_fields(o, n, &["server", "tool"]);
        out.push(Change {
            fields,
            ..entry(Section::McpTool, Class::Changed, n.name.clone(), tool_what(n), &[&file(&n.server)])
        });
        last(out).escalations = escalate::tool_changed(o, n);
    }
    let failed = pair(&old.mcp_failed, &new.mcp_failed, |f| f.server.as_str());
    let listing = |server: &str, old: &str, new: &str| Change {
        fields: vec![FieldChange {
            field: "listed".to_string(),
            old: Some(old.to_string()),
            new: Some(new.to_string()),
        }],
        ..entry(Section::McpTool, Class::Changed, server.to_string(), Some("server".to_string()), &[&file(server)])
    };
    for f in failed.added {
        out.push(listing(&f.server, "yes", "no: it did not connect when the lock was written"));
    }
    for f in failed.removed {
        out.push(listing(&f.server, "no: it did not connect when the lock was written", "yes"));
    }
}

fn tool_what(t: &crate::model::McpToolEntry) -> Option<String> {
    Some(format!("server `{}`, {} tokens", t.server, t.tokens))
}

fn last(out: &mut [Change]) -> &mut Change {
    let at = out.len() - 1;
    &mut out[at]
}

/// The sources' hashes on both sides, to tell a changed file.
struct Hashes<'a> {
    old: BTreeMap<&'a str, &'a str>,
    new: BTreeMap<&'a str, &'a str>,
}

impl<'a> Hashes<'a> {
    fn of(old: &'a Lock, new: &'a Lock) -> Hashes<'a> {
        let map = |l: &'a Lock| l.sources.iter().map(|s| (s.path.as_str(), s.sha256.as_str())).collect();
        Hashes { old: map(old), new: map(new) }
    }

    /// The files under a plugin folder that were added, removed or changed, and a `content`
    /// field (a digest of their hashes on each side) when there are any.
    fn under(&self, root: &str) -> (Option<FieldChange>, Vec<String>) {
        let prefix = crate::lock::plugins::prefix(root);
        let inside = |map: &BTreeMap<&'a str, &'a str>| -> BTreeMap<&'a str, &'a str> {
            let from: std::ops::Bound<&str> = std::ops::Bound::Included(prefix.as_str());
            map.range::<str, _>((from, std::ops::Bound::Unbounded))
                .take_while(|(p, _)| p.starts_with(&prefix))
                .map(|(p, h)| (*p, *h))
                .collect()
        };
        let (old, new) = (inside(&self.old), inside(&self.new));
        let paths: BTreeSet<&str> = old.keys().chain(new.keys()).copied().collect();
        let changed: Vec<String> = paths.into_iter().filter(|p| old.get(p) != new.get(p)).map(str::to_string).collect();
        if changed.is_empty() || old.values().chain(new.values()).any(|h| h.is_empty()) {
            return (None, Vec::new());
        }
        let digest = |files: &BTreeMap<&str, &str>| {
            let all: String = files.iter().map(|(p, h)| format!("{p}\t{h}\n")).collect();
            let hex = crate::secrets::sha256_hex(all.as_bytes());
            format!("{} ({})", &hex[..12], crate::plural::count(files.len(), "file"))
        };
        let field = FieldChange { field: "content".to_string(), old: Some(digest(&old)), new: Some(digest(&new)) };
        (Some(field), changed)
    }

    /// Whether both sides hashed the file and found the same bytes.
    fn same(&self, path: &str) -> bool {
        matches!((self.old.get(path), self.new.get(path)), (Some(o), Some(n)) if !o.is_empty() && o == n)
    }

    /// The file's hashes when both sides have one and they differ.
    fn changed(&self, path: &str) -> Option<FieldChange> {
        let (o, n) = (self.old.get(path)?, self.new.get(path)?);
        (!o.is_empty() && !n.is_empty() && o != n).then(|| FieldChange {
            field: "sha256".to_string(),
            old: Some(o.get(..12).unwrap_or(o).to_string()),
            new: Some(n.get(..12).unwrap_or(n).to_string()),
        })
    }
}

pub(super) fn command_subject(c: &Command) -> String {
    format!("/{}", c.name)
}

fn command_what(c: &Command) -> Option<String> {
    Some(match &c.plugin {
        Some(p) => format!("{}, {} `{p}`", c.form.as_str(), c.origin.as_str()),
        None => format!("{}, {}", c.origin.as_str(), c.scope.as_str()),
    })
}

/// The output styles, by name and file. The selected one (the effective `outputStyle`) is sent
/// in every turn: a new selected style, and a selected style that drops Claude Code's coding
/// instructions, escalate, as an instruction file that starts loading in every turn does; a
/// change of the selection itself is weighed with the settings.
fn output_styles(old: &Lock, new: &Lock, hashes: &Hashes<'_>, out: &mut Vec<Change>) {
    let selected = crate::runs::effective(new, "outputStyle").map(|s| s.value.as_str());
    let what = |o: &crate::model::OutputStyle| {
        let keeps = if o.keep_coding_instructions { ", keeps the coding instructions" } else { "" };
        let chosen = if selected == Some(o.name.as_str()) { ", selected" } else { "" };
        let forced = if o.force_for_plugin { ", forced" } else { "" };
        Some(match &o.plugin {
            Some(p) => format!("plugin `{p}`{keeps}{chosen}{forced}"),
            None => format!("{}{keeps}{chosen}", o.scope.as_str()),
        })
    };
    let styles = pair(&old.output_styles, &new.output_styles, |o| (o.name.as_str(), o.path.as_str()));
    // A plugin's style with `force-for-plugin` is applied whatever `outputStyle` selects.
    let forced = |o: &crate::model::OutputStyle| {
        format!(
            "plugin output style `{}` is forced (`force-for-plugin`): its text is sent to the model in every turn while the plugin is enabled, whatever `outputStyle` selects{}",
            o.name,
            if o.keep_coding_instructions { "" } else { ", in place of Claude Code's coding instructions" }
        )
    };
    for o in styles.added {
        out.push(entry(Section::OutputStyle, Class::Added, o.name.clone(), what(o), &[&o.path]));
        if o.force_for_plugin {
            last(out).escalations = vec![forced(o)];
        } else if selected == Some(o.name.as_str()) {
            last(out).escalations = vec![format!(
                "a new output style `{}` is selected: its text is sent to the model in every turn{}",
                o.name,
                if o.keep_coding_instructions { "" } else { ", in place of Claude Code's coding instructions" }
            )];
        }
    }
    for o in styles.removed {
        out.push(entry(Section::OutputStyle, Class::Removed, o.name.clone(), what(o), &[&o.path]));
    }
    for (o, n) in styles.kept {
        let body = hashes.changed(&n.path);
        let mut fields = if o == n { Vec::new() } else { compare_fields(o, n, &[]) };
        fields.extend(body);
        if fields.is_empty() {
            continue;
        }
        out.push(Change { fields, ..entry(Section::OutputStyle, Class::Changed, n.name.clone(), what(n), &[&n.path]) });
        if n.force_for_plugin && !o.force_for_plugin {
            last(out).escalations = vec![forced(n)];
        } else if selected == Some(n.name.as_str()) && o.keep_coding_instructions && !n.keep_coding_instructions {
            last(out).escalations = vec![format!(
                "the selected output style `{}` no longer keeps Claude Code's coding instructions: its text replaces them in every turn",
                n.name
            )];
        }
    }
}

fn instruction_what(i: &crate::model::Instruction) -> Option<String> {
    let brought = match &i.imported_by {
        Some(by) => format!(", imported by {by}"),
        None => String::new(),
    };
    Some(format!("{}, about {} tokens{brought}", i.scope.as_str(), i.tokens))
}

fn agent_what(a: &Agent) -> Option<String> {
    Some(match &a.plugin {
        Some(p) => format!("plugin `{p}`"),
        None => a.scope.as_str().to_string(),
    })
}

fn server_what(s: &McpServer) -> Option<String> {
    Some(format!("{}, {}", s.transport.as_str(), s.scope.as_str()))
}

/// A hook has no name: it is its event, matcher, type, what it runs, its condition and file.
type HookKey<'a> = (&'a str, Option<&'a str>, &'a str, Option<&'a str>, Option<&'a str>, &'a str, Option<&'a str>);

fn hook_key(h: &Hook) -> HookKey<'_> {
    (&h.event, h.matcher.as_deref(), &h.kind, h.run.as_deref(), h.condition.as_deref(), &h.path, h.plugin.as_deref())
}

pub(super) fn hook_subject(h: &Hook) -> String {
    let on = match &h.matcher {
        Some(m) if !m.is_empty() => format!("{} {m}", h.event),
        _ => h.event.clone(),
    };
    format!("{on}: {}", h.run.as_deref().unwrap_or(""))
}

fn hook_what(h: &Hook) -> Option<String> {
    Some(format!("{}, {}", h.kind, h.scope.as_str()))
}

fn permission_subject(p: &Permission) -> String {
    format!("{} {}", p.behavior.as_str(), p.rule)
}

fn plugin_what(p: &Plugin) -> Option<String> {
    Some(if p.loaded { "loaded".to_string() } else { "not loaded".to_string() })
}

fn pin_subject(p: &Pin) -> String {
    format!("{} {}: {} {}", p.of.as_str(), p.name, p.via, p.package)
}

fn pin_what(p: &Pin) -> Option<String> {
    Some(match (&p.exact, &p.requested) {
        (Some(e), _) => format!("pinned to {e}"),
        (None, Some(r)) => format!("not pinned (asks for {r})"),
        (None, None) => "not pinned".to_string(),
    })
}
