//! Which changes give Claude Code more power than before (escalations), and why, in words
//! a reviewer reads. The policy, one line each:
//! - an `allow` rule that matches something no old allow rule matched (a new rule, or one
//!   that widens a removed one: `Bash(git:*)` → `Bash(*)`); an allow rule that a deny or ask
//!   rule no longer pre-empts;
//! - a removed `deny` (or `ask`) rule that no new deny (or deny or ask) rule covers;
//! - `allowed-tools` a skill or command did not have; a `!` injection it did not have; its
//!   `model` or `effort` raised (unset counts as the middle tier: `sonnet`, `medium`); its
//!   prompt body changed while it holds allowed tools;
//! - a new hook handler (a hook is its event, matcher and command), said louder when it
//!   downloads a program and runs it (`curl … | sh`);
//! - a new MCP server, or one whose command, arguments, URL, environment, headers or working
//!   folder changed, or that became approved, allowed by the MCP policy or no longer denied;
//! - a tool an MCP server offers that the old lock did not record (`[[mcp_tool]]`), a changed
//!   description of a recorded tool, a tool no longer marked read-only or newly destructive;
//! - a plugin that now loads;
//! - a marketplace entry's remote source that pins nothing (a new one, or a pin removed);
//!   and, for each plugin a marketplace of the folder lists, the same policy applied to what
//!   installing it gives (its skills' `allowed-tools` and `!` injections, hooks, servers);
//! - an agent's `model` raised;
//! - a name (command, agent, MCP server) that now reaches a declared entry it did not reach;
//! - a policy loosened: a switch no longer in force (or locking fewer surfaces), and a
//!   declaration a switch or the MCP lists removed that is in force again.
//!
//! "Covers" is the resolver's own test (`lock::resolve::covers`): a rule matches every call
//! another matches.

use crate::lock::resolve::covers;
use crate::model::{
    Agent, Approval, Behavior, Command, Hook, Lock, MarketplacePlugin, McpServer, McpToolAnnotations, McpToolEntry,
    Permission, Pin, PinOf, Plugin, PolicySwitch, RemovedByPolicy,
};
use capc_grammar::{parse_permission_rule, PermissionRule};

/// The rules of both locks, parsed once.
pub(super) struct Context<'a> {
    old_rules: Vec<(&'a Permission, Option<PermissionRule>)>,
    new_rules: Vec<(&'a Permission, Option<PermissionRule>)>,
}

impl<'a> Context<'a> {
    pub(super) fn new(old: &'a Lock, new: &'a Lock) -> Context<'a> {
        let parse = |lock: &'a Lock| -> Vec<(&'a Permission, Option<PermissionRule>)> {
            lock.permissions.iter().map(|p| (p, parse_permission_rule(&p.rule).ok())).collect()
        };
        Context { old_rules: parse(old), new_rules: parse(new) }
    }

    pub(super) fn permission_added(&self, p: &Permission, removed: &[&Permission]) -> Vec<String> {
        if p.behavior != Behavior::Allow {
            return Vec::new();
        }
        let Some(rule) = parse_permission_rule(&p.rule).ok() else {
            return vec![format!(
                "a new allow rule `{}` (capc cannot read it, so cannot tell what it matches)",
                p.rule
            )];
        };
        // An old allow rule already allowed every call this one does.
        let already = self.old_rules.iter().any(|(o, parsed)| {
            o.behavior == Behavior::Allow
                && o.pre_empted_by.is_none()
                && parsed.as_ref().is_some_and(|o| covers(o, &rule))
        });
        if already {
            return Vec::new();
        }
        let widened: Vec<&str> = removed
            .iter()
            .filter(|r| r.behavior == Behavior::Allow)
            .filter(|r| parse_permission_rule(&r.rule).ok().is_some_and(|r| covers(&rule, &r)))
            .map(|r| r.rule.as_str())
            .collect();
        match widened.as_slice() {
            [] => vec![format!("a new allow rule: `{}` runs without asking", p.rule)],
            rules => vec![format!(
                "allow rule widened: `{}` matches more than {} did",
                p.rule,
                rules.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
            )],
        }
    }

    pub(super) fn permission_removed(&self, p: &Permission) -> Vec<String> {
        let covering: &[Behavior] = match p.behavior {
            Behavior::Deny => &[Behavior::Deny],
            Behavior::Ask => &[Behavior::Deny, Behavior::Ask],
            Behavior::Allow => return Vec::new(),
        };
        let rule = parse_permission_rule(&p.rule).ok();
        let still = rule.as_ref().is_some_and(|rule| {
            self.new_rules
                .iter()
                .any(|(n, parsed)| covering.contains(&n.behavior) && parsed.as_ref().is_some_and(|n| covers(n, rule)))
        });
        if still {
            return Vec::new();
        }
        let consequence = match p.behavior {
            Behavior::Deny => "what it refused is no longer refused",
            _ => "what it asked about is no longer asked about",
        };
        vec![format!("{} rule `{}` removed: {consequence}", p.behavior.as_str(), p.rule)]
    }
}

pub(super) fn permission_changed(old: &Permission, new: &Permission) -> Vec<String> {
    match (&old.pre_empted_by, &new.pre_empted_by, new.behavior) {
        (Some(by), None, Behavior::Allow) => {
            vec![format!("allow rule `{}` now decides (it was pre-empted by {by})", new.rule)]
        }
        _ => Vec::new(),
    }
}

pub(super) fn command_added(c: &Command) -> Vec<String> {
    let mut out = Vec::new();
    if !c.allowed_tools.is_empty() {
        out.push(format!("`/{}` pre-approves tools: {}", c.name, code_list(&c.allowed_tools)));
    }
    for injection in &c.shell_injections {
        out.push(format!("`/{}` runs a `!` injection: `{injection}`", c.name));
    }
    out
}

pub(super) fn command_changed(old: &Command, new: &Command, body_changed: bool) -> Vec<String> {
    let mut out = Vec::new();
    let old_tools: Vec<Option<PermissionRule>> =
        old.allowed_tools.iter().map(|t| parse_permission_rule(t).ok()).collect();
    let gained: Vec<String> = new
        .allowed_tools
        .iter()
        .filter(|t| {
            let Some(rule) = parse_permission_rule(t).ok() else { return !old.allowed_tools.contains(t) };
            !old_tools.iter().flatten().any(|o| covers(o, &rule))
        })
        .cloned()
        .collect();
    if !gained.is_empty() {
        out.push(format!("`/{}` gains allowed-tools: {}", new.name, code_list(&gained)));
    }
    for injection in new.shell_injections.iter().filter(|i| !old.shell_injections.contains(i)) {
        out.push(format!("`/{}` runs a new `!` injection: `{injection}`", new.name));
    }
    if let Some(raised) = raised("model", old.model.as_deref(), new.model.as_deref(), model_rank) {
        out.push(format!("`/{}`: {raised}", new.name));
    }
    if let Some(raised) = raised("effort", old.effort.as_deref(), new.effort.as_deref(), effort_rank) {
        out.push(format!("`/{}`: {raised}", new.name));
    }
    if body_changed && !new.allowed_tools.is_empty() {
        out.push(format!(
            "`/{}` changed its prompt while it holds allowed tools ({})",
            new.name,
            code_list(&new.allowed_tools)
        ));
    }
    out
}

pub(super) fn agent_changed(old: &Agent, new: &Agent) -> Vec<String> {
    raised("model", old.model.as_deref(), new.model.as_deref(), model_rank)
        .map(|r| vec![format!("agent `{}`: {r}", new.name)])
        .unwrap_or_default()
}

pub(super) fn server_added(s: &McpServer) -> Vec<String> {
    if s.blocked_by.is_some() {
        return Vec::new();
    }
    vec![format!("a new MCP server `{}` {}", s.name, runs(s))]
}

/// A tool a server offers that it did not offer when the old lock was written: the model is
/// told about it and may call it.
pub(super) fn tool_added(t: &McpToolEntry) -> Vec<String> {
    let marked = match t.annotations.as_ref() {
        Some(a) if a.destructive_hint == Some(true) => ", which the server marks destructive",
        _ => "",
    };
    vec![format!("a new tool `{}` of MCP server `{}` that the model is offered{marked}", t.name, t.server)]
}

/// A tool whose description (what the model is told it does) changed, or that lost its
/// read-only mark or gained a destructive one. A changed input schema is reported, not weighed.
pub(super) fn tool_changed(old: &McpToolEntry, new: &McpToolEntry) -> Vec<String> {
    let mut out = Vec::new();
    if old.description_sha256 != new.description_sha256 {
        out.push(format!("the description the model reads for `{}` (MCP server `{}`) changed", new.name, new.server));
    }
    let hint = |t: &McpToolEntry, f: fn(&McpToolAnnotations) -> Option<bool>| t.annotations.as_ref().and_then(f);
    if hint(old, |a| a.read_only_hint) == Some(true) && hint(new, |a| a.read_only_hint) != Some(true) {
        out.push(format!("`{}` is no longer marked read-only by its server", new.name));
    }
    if hint(old, |a| a.destructive_hint) != Some(true) && hint(new, |a| a.destructive_hint) == Some(true) {
        out.push(format!("`{}` is now marked destructive by its server", new.name));
    }
    out
}

pub(super) fn server_changed(old: &McpServer, new: &McpServer) -> Vec<String> {
    let mut out = Vec::new();
    let what: Vec<&str> = [
        ("transport", old.transport != new.transport),
        ("command", old.command != new.command),
        ("args", old.args != new.args),
        ("url", old.url != new.url),
        ("env", old.env != new.env),
        ("headers", old.headers != new.headers),
        ("headers_helper", old.headers_helper != new.headers_helper),
        ("cwd", old.cwd != new.cwd),
    ]
    .into_iter()
    .filter(|(_, changed)| *changed)
    .map(|(field, _)| field)
    .collect();
    if !what.is_empty() {
        out.push(format!(
            "MCP server `{}` changed what it runs or connects to ({}): now {}",
            new.name,
            what.join(", "),
            runs(new)
        ));
    }
    if new.approval == Some(Approval::Approved) && old.approval != Some(Approval::Approved) {
        out.push(format!("MCP server `{}` is now approved", new.name));
    } else if old.approval == Some(Approval::Disabled) && new.approval != Some(Approval::Disabled) {
        out.push(format!("MCP server `{}` is no longer disabled", new.name));
    }
    if old.blocked_by.is_some() && new.blocked_by.is_none() {
        out.push(format!("the MCP policy no longer keeps `{}` out", new.name));
    }
    if old.denied_by.is_some() && new.denied_by.is_none() {
        out.push(format!("no deny rule removes `{}`'s tools any more", new.name));
    }
    out
}

fn runs(s: &McpServer) -> String {
    match (&s.command, &s.url) {
        (Some(command), _) => {
            let line = std::iter::once(command.as_str())
                .chain(s.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ");
            format!("runs `{line}`")
        }
        (None, Some(url)) => format!("connects to `{url}`"),
        (None, None) => "has no command or URL".to_string(),
    }
}

pub(super) fn hook_added(h: &Hook) -> Vec<String> {
    let on = match &h.matcher {
        Some(m) if !m.is_empty() => format!("`{}` (matcher `{m}`)", h.event),
        _ => format!("`{}`", h.event),
    };
    let run = h.run.as_deref().unwrap_or("");
    let fetches = if h.kind == "command" { crate::provenance::download_and_run(run) } else { None };
    vec![match h.kind.as_str() {
        "command" if fetches.is_some() => {
            format!("a new hook downloads a program and runs it ({}): `{run}` on {on}", fetches.unwrap_or_default())
        }
        "command" => format!("a new hook runs `{run}` on {on}"),
        kind => format!("a new `{kind}` hook on {on}: `{run}`"),
    }]
}

pub(super) fn plugin_added(p: &Plugin) -> Vec<String> {
    if p.loaded {
        vec![format!("plugin `{}` now loads ({})", p.id, p.reason)]
    } else {
        Vec::new()
    }
}

pub(super) fn plugin_changed(old: &Plugin, new: &Plugin) -> Vec<String> {
    if new.loaded && !old.loaded {
        vec![format!("plugin `{}` now loads ({})", new.id, new.reason)]
    } else {
        Vec::new()
    }
}

/// A new pin that pins nothing: a marketplace entry's remote source fetched at whatever its
/// branch or version range names at install time. (A new server escalates on its own; a
/// marketplace source cannot take a commit at all.)
pub(super) fn pin_added(p: &Pin) -> Vec<String> {
    if p.of != PinOf::Plugin || p.exact.is_some() {
        return Vec::new();
    }
    vec![unpinned(p, "is fetched from")]
}

/// A pin that no longer pins.
pub(super) fn pin_changed(old: &Pin, new: &Pin) -> Vec<String> {
    if old.exact.is_some() && new.exact.is_none() {
        vec![unpinned(new, "is no longer pinned: it is fetched from")]
    } else {
        Vec::new()
    }
}

fn unpinned(p: &Pin, verb: &str) -> String {
    let asks = match &p.requested {
        Some(r) => format!("follows `{r}`"),
        None if p.via == "command" => "runs that command to get it".to_string(),
        None => "follows whatever is newest".to_string(),
    };
    format!(
        "{} `{}` {verb} `{}` ({}) and {asks}: each install may fetch different code",
        p.of.as_str(),
        p.name,
        p.package,
        p.via
    )
}

/// A marketplace plugin whose plugin.json Claude Code refused before and loads now.
pub(super) fn listed_changed(old: &MarketplacePlugin, new: &MarketplacePlugin) -> Vec<String> {
    if old.refused.is_some() && new.refused.is_none() {
        vec![format!("marketplace plugin `{}` now loads once installed (its plugin.json was refused)", new.id)]
    } else {
        Vec::new()
    }
}

/// `field raised: a → b` when the rank went up (unset ranks as the middle tier).
fn raised(field: &str, old: Option<&str>, new: Option<&str>, rank: fn(Option<&str>) -> Option<u8>) -> Option<String> {
    let (o, n) = (rank(old)?, rank(new)?);
    (n > o).then(|| format!("{field} raised: {} → {}", old.unwrap_or("unset"), new.unwrap_or("unset")))
}

/// Model tiers by family name; unset (the session's model) is the middle tier.
fn model_rank(model: Option<&str>) -> Option<u8> {
    let Some(m) = model.map(str::to_ascii_lowercase) else { return Some(2) };
    if m.contains("haiku") {
        Some(1)
    } else if m.contains("sonnet") {
        Some(2)
    } else if m.contains("opus") {
        Some(3)
    } else {
        None
    }
}

fn effort_rank(effort: Option<&str>) -> Option<u8> {
    match effort.map(str::to_ascii_lowercase).as_deref() {
        Some("low") => Some(1),
        None | Some("medium") => Some(2),
        Some("high") => Some(3),
        Some("xhigh") => Some(4),
        Some("max") => Some(5),
        Some(_) => None,
    }
}

fn code_list(items: &[String]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// A policy switch gone, or set to something weaker (`strictPluginOnlyCustomization` locking
/// fewer surfaces, `permissions.disableBypassPermissionsMode` no longer `disable`).
pub(super) fn policy_switch_loosened(old: Option<&PolicySwitch>, new: Option<&PolicySwitch>) -> Vec<String> {
    let key = old.or(new).map_or("", |s| s.key.as_str());
    if key == "channelsEnabled" {
        // Managed settings that leave it unset or `false` keep channels off.
        let on = |s: Option<&PolicySwitch>| s.is_some_and(|s| s.value == "true");
        return match (on(old), on(new)) {
            (false, true) => vec![format!(
                "policy loosened: `channelsEnabled` is `true` ({}): channel plugins may push messages into sessions",
                new.map_or("", |s| s.path.as_str())
            )],
            _ => Vec::new(),
        };
    }
    let Some(old) = old else { return Vec::new() };
    let surfaces = |s: &PolicySwitch| s.value.split(", ").map(str::to_string).collect::<Vec<_>>();
    match new {
        None if old.key == "allowedChannelPlugins" => vec![format!(
            "policy loosened: `allowedChannelPlugins` ({}) is no longer in force: Claude Code's default allowlist of channel plugins applies",
            old.path
        )],
        Some(new) if old.key == "allowedChannelPlugins" => {
            let was: Vec<&str> = old.value.split(", ").filter(|e| !e.is_empty()).collect();
            let admitted: Vec<String> =
                new.value.split(", ").filter(|e| !e.is_empty() && !was.contains(e)).map(str::to_string).collect();
            match admitted.is_empty() {
                true => Vec::new(),
                false => vec![format!(
                    "policy loosened: `allowedChannelPlugins` now admits {}",
                    code_list(&admitted)
                )],
            }
        }
        None => vec![format!("policy loosened: `{}` ({}) is no longer in force", old.key, old.path)],
        Some(new) if old.key == "strictPluginOnlyCustomization" => {
            let kept = surfaces(new);
            let freed: Vec<String> = surfaces(old).into_iter().filter(|s| !kept.contains(s)).collect();
            match freed.is_empty() {
                true => Vec::new(),
                false => vec![format!(
                    "policy loosened: `strictPluginOnlyCustomization` no longer locks {}",
                    code_list(&freed)
                )],
            }
        }
        Some(new) if new.value != old.value => {
            vec![format!("policy loosened: `{}` is `{}` instead of `{}`", new.key, new.value, old.value)]
        }
        Some(_) => Vec::new(),
    }
}

/// A declaration the old lock's policy removed that the new lock has in force.
pub(super) fn policy_removal_lifted(r: &RemovedByPolicy, new: &Lock) -> Vec<String> {
    let back = match r.kind.as_str() {
        "hook" => new.hooks.iter().any(|h| h.path == r.path && r.name.starts_with(h.event.as_str())),
        "permission" => {
            new.permissions.iter().any(|p| p.path == r.path && r.name == format!("{} {}", p.behavior.as_str(), p.rule))
        }
        "allowed-tools" => new.commands.iter().any(|c| c.path == r.path && !c.allowed_tools.is_empty()),
        "command" => new.commands.iter().any(|c| c.path == r.path && c.name == r.name),
        "agent" => new.agents.iter().any(|a| a.path == r.path && a.name == r.name),
        "marketplace" => new.plugins.iter().any(|p| p.loaded && p.id.ends_with(&format!("@{}", r.name))),
        "mcp-server" => new.mcp_servers.iter().any(|s| s.path == r.path && s.name == r.name && s.blocked_by.is_none()),
        _ => false,
    };
    match back {
        true => vec![format!(
            "policy loosened: {} `{}` ({}) is in force again; `{}` in {} removed it",
            r.kind, r.name, r.path, r.key, r.by
        )],
        false => Vec::new(),
    }
}
