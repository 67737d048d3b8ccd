//! MCP servers: which one each name reaches, which are dropped as duplicates of another's
//! command or URL, and what the settings' approval and policy turn off.

use super::permissions::glob_match;
use super::{reference, scope_rank, Builder, GraphEdge, GraphNodeKind, Reason};
use crate::diagnostic::{report_at, Severity};
use crate::model::decl::{McpApproval, McpPolicy};
use crate::model::{
    Approval, Behavior, Decl, Item, McpServer, Origin, Permission, PolicyEntry, RemovedByPolicy, Scope,
};
use crate::rules;
use crate::span::Span;
use capc_grammar::{PermissionRule, ToolKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Project-server approval from every settings file: (enable all, enabled, disabled), and
/// the other servers turned off in this project (`disabledMcpServers`).
pub(super) struct Approvals {
    enable_all: Option<bool>,
    enabled: BTreeSet<String>,
    disabled: BTreeSet<String>,
    turned_off: BTreeSet<String>,
}

pub(super) fn approvals(decls: &[Decl]) -> Approvals {
    let mut found: Vec<&McpApproval> = decls
        .iter()
        .filter_map(|d| match &d.item {
            Item::McpApproval(approval) => Some(&**approval),
            _ => None,
        })
        .collect();
    found.sort_by_key(|approval| scope_rank(approval.scope));
    let mut out = Approvals {
        enable_all: None,
        enabled: BTreeSet::new(),
        disabled: BTreeSet::new(),
        turned_off: BTreeSet::new(),
    };
    for McpApproval { enable_all, enabled, disabled, .. } in found {
        out.enable_all = out.enable_all.or(*enable_all);
        out.enabled.extend(enabled.iter().cloned());
        out.disabled.extend(disabled.iter().cloned());
    }
    for d in decls {
        if let Item::McpToggle(toggle) = &d.item {
            out.turned_off.extend(toggle.disabled.iter().cloned());
        }
    }
    out
}

/// The MCP policy of every settings file: `deniedMcpServers` entries, and
/// `allowedMcpServers` — unset allows every server, `[]` none; once it has a `serverCommand`
/// entry a stdio server must match one, once it has a `serverUrl` entry a remote server must
/// match one, otherwise the name must be listed. Deny beats allow. Lists merge across files;
/// a managed `allowManagedMcpServersOnly` keeps only the managed allowlist.
pub(super) struct ServerPolicy {
    allowed: Option<Vec<PolicyEntry>>,
    /// The files whose allowlist counts.
    allowed_in: BTreeSet<String>,
    denied: Vec<(PolicyEntry, String, Scope)>,
}

impl ServerPolicy {
    pub(super) fn of(decls: &[Decl]) -> ServerPolicy {
        let managed_only = decls.iter().any(
            |d| matches!(&d.item, Item::McpPolicy(p) if p.scope == Scope::Managed && p.managed_only == Some(true)),
        );
        let mut policy = ServerPolicy { allowed: None, allowed_in: BTreeSet::new(), denied: Vec::new() };
        for d in decls {
            let Item::McpPolicy(keys) = &d.item else { continue };
            let McpPolicy { scope, allowed, denied, .. } = &**keys;
            policy.denied.extend(denied.iter().map(|e| (e.clone(), d.path.clone(), *scope)));
            if let Some(allowed) = allowed.as_ref().filter(|_| !managed_only || *scope == Scope::Managed) {
                policy.allowed.get_or_insert_with(Vec::new).extend(allowed.iter().cloned());
                policy.allowed_in.insert(d.path.clone());
            }
        }
        policy
    }

    fn matches(entry: &PolicyEntry, s: &McpServer) -> bool {
        use PolicyEntry as E;
        match entry {
            E::Name(name) => *name == s.name,
            E::Command(argv) => {
                s.url.is_none()
                    && argv.first() == s.command.as_ref()
                    && argv.len() == s.args.len() + 1
                    && argv[1..] == s.args[..]
            }
            E::Url(pattern) => s.url.as_deref().is_some_and(|url| glob_match(pattern, url)),
        }
    }

    /// A deny entry: as [`ServerPolicy::matches`], except that a URL pattern with no query also
    /// matches the URL with any query, with a trailing slash added, or (when the pattern's path
    /// has no `*`) with one removed.
    fn denies(entry: &PolicyEntry, s: &McpServer) -> bool {
        let (PolicyEntry::Url(pattern), Some(url)) = (entry, s.url.as_deref()) else {
            return ServerPolicy::matches(entry, s);
        };
        if glob_match(pattern, url) {
            return true;
        }
        if pattern.contains('?') {
            return false;
        }
        let base = url.split(['?', '#']).next().unwrap_or(url);
        let path_has_star = pattern
            .split_once("://")
            .map_or(pattern.as_str(), |(_, rest)| rest)
            .split_once('/')
            .is_some_and(|(_, path)| path.contains('*'));
        let mut forms = vec![base.to_string(), format!("{base}/")];
        if !path_has_star {
            forms.push(base.trim_end_matches('/').to_string());
        }
        forms.iter().any(|form| glob_match(pattern, form))
    }

    /// Why the policy keeps `s` from loading, if it does: the key that decides, the file or
    /// files that set it, and the reason in words.
    fn blocks(&self, s: &McpServer) -> Option<(&'static str, String, String)> {
        use PolicyEntry as E;
        // An entry only a project's settings hold keeps no server the organization provides out.
        let applies = |scope: &Scope| s.scope != Scope::Managed || !matches!(scope, Scope::Project | Scope::Local);
        if let Some((entry, path, _)) =
            self.denied.iter().find(|(e, _, scope)| applies(scope) && ServerPolicy::denies(e, s))
        {
            return Some(("deniedMcpServers", path.clone(), format!("deniedMcpServers {entry} ({path})")));
        }
        let allowed = self.allowed.as_ref()?;
        let remote = s.url.is_some();
        let by_command = allowed.iter().any(|e| matches!(e, E::Command(_)));
        let by_url = allowed.iter().any(|e| matches!(e, E::Url(_)));
        // Which kind of entry the server must match, and what to say when none does.
        let (needed, kind): (&str, fn(&E) -> bool) = match (remote, by_command, by_url) {
            (false, true, _) => {
                ("no serverCommand entry of allowedMcpServers matches its command", |e| matches!(e, E::Command(_)))
            }
            (true, _, true) => ("no serverUrl entry of allowedMcpServers matches its URL", |e| matches!(e, E::Url(_))),
            _ => ("allowedMcpServers does not list its name", |e| matches!(e, E::Name(_))),
        };
        if allowed.iter().any(|e| kind(e) && ServerPolicy::matches(e, s)) {
            return None;
        }
        let files = self.allowed_in.iter().map(String::as_str).collect::<Vec<_>>().join(", ");
        let why = if allowed.is_empty() {
            format!("allowedMcpServers is empty ({files})")
        } else {
            format!("{needed} ({files})")
        };
        Some(("allowedMcpServers", files, why))
    }
}

/// What a server connects to. `${CLAUDE_PLUGIN_ROOT}` differs per plugin, so two plugins
/// running `${CLAUDE_PLUGIN_ROOT}/server` are different servers.
fn endpoint(s: &McpServer) -> String {
    let text = match &s.url {
        Some(url) => url.clone(),
        None => format!("{} {}", s.command.clone().unwrap_or_default(), s.args.join(" ")),
    };
    match &s.plugin {
        Some(plugin) => text.replace("${CLAUDE_PLUGIN_ROOT}", &format!("<plugin {plugin}>")),
        None => text,
    }
}

/// What a server runs together with its environment: two plugins' servers that differ only in
/// `env` are two servers.
fn signature(s: &McpServer) -> String {
    let env: Vec<String> = s.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} {}", endpoint(s), env.join(" "))
}

/// Servers of one name in precedence order: managed, local, project, user, then plugins'.
fn precedence(s: Scope) -> u8 {
    match s {
        Scope::Managed => 0,
        Scope::Local => 1,
        Scope::Project => 2,
        Scope::User => 3,
        _ => 4,
    }
}

/// A server with the span of its declaration.
type Spanned = (McpServer, Option<Span>);

/// Which server each name reaches, which are dropped as duplicates, which names clash, and
/// what approval, policy and deny rules do to each; by name, the winner first.
pub(super) fn resolve_servers(
    servers: Vec<(McpServer, Option<Span>, Option<usize>)>,
    approvals: &Approvals,
    policy: &ServerPolicy,
    permissions: &[(Permission, Option<Span>)],
    parsed: &[Option<PermissionRule>],
    removed: &mut Vec<RemovedByPolicy>,
    b: &mut Builder,
) -> Vec<McpServer> {
    let mut servers = in_precedence_order(servers);
    shadow_servers(&mut servers, approvals, b);
    name_clashes(&servers, b);
    let mut out: Vec<McpServer> = servers.into_iter().map(|(s, _)| s).collect();
    for s in &mut out {
        if let Some(approval) = approval(s, approvals) {
            s.approval = Some(approval);
        }
        if s.blocked_by.is_none() {
            if let Some((key, by, why)) = policy.blocks(s) {
                s.blocked_by = Some(why);
                let (kind, name, path) = ("mcp-server".to_string(), s.name.clone(), s.path.clone());
                removed.push(RemovedByPolicy { kind, name, path, key: key.to_string(), by });
            }
        }
        deny_rules(s, permissions, parsed, b);
    }
    // By name, and within a name in precedence order (the winner first).
    out.sort_by(|a, c| (&a.name, precedence(a.scope), &a.path).cmp(&(&c.name, precedence(c.scope), &c.path)));
    out
}

/// The servers in the order they claim names: plugins' servers in the plugins' load order, the
/// others by name. A name Claude Code keeps for its own servers never loads (the reader
/// reports it: `reserved-name`).
fn in_precedence_order(servers: Vec<(McpServer, Option<Span>, Option<usize>)>) -> Vec<Spanned> {
    let mut servers = servers;
    servers.sort_by(|(a, _, la), (c, _, lc)| {
        (precedence(a.scope), la, &a.name, &a.path).cmp(&(precedence(c.scope), lc, &c.name, &c.path))
    });
    let mut servers: Vec<Spanned> = servers.into_iter().map(|(s, span, _)| (s, span)).collect();
    for (s, _) in servers.iter_mut() {
        if s.plugin.is_none() && crate::builtins::is_reserved_mcp_name(&s.name) {
            s.blocked_by = Some(format!("`{}` is a name Claude Code keeps for its own servers", s.name));
        }
    }
    servers
}

/// Marks each server another hides: every other source when `managed-mcp.json` is there
/// (managed settings' `managedMcpServers` load beside the others), a plugin's server that runs
/// what a configured one or an earlier plugin's runs, a server whose name an earlier one took.
fn shadow_servers(servers: &mut [Spanned], approvals: &Approvals, b: &mut Builder) {
    let exclusive = |m: &McpServer| m.scope == Scope::Managed && m.path.ends_with("managed-mcp.json");
    let managed = servers.iter().any(|(s, _)| exclusive(s));
    // A project server the settings reject does not hide another of its name (measured).
    let rejected = |m: &McpServer| m.scope == Scope::Project && approvals.disabled.contains(&m.name);
    let mut by_name: HashMap<String, usize> = HashMap::new();
    // What a configured server runs (without its environment), and what a plugin's runs (with
    // it): a plugin's duplicate of the one, or of an earlier plugin's, is dropped.
    let mut configured: HashMap<String, usize> = HashMap::new();
    let mut plugin_signatures: HashMap<String, usize> = HashMap::new();
    for i in 0..servers.len() {
        let s = &servers[i].0;
        if s.blocked_by.is_some() {
            continue;
        }
        let winner = if managed && !exclusive(s) {
            servers.iter().position(|(m, _)| exclusive(m)).map(|w| (w, Reason::ManagedMcpExclusive))
        } else if s.scope == Scope::Plugin {
            configured
                .get(&endpoint(s))
                .or_else(|| plugin_signatures.get(&signature(s)))
                .map(|w| (*w, Reason::McpEndpoint))
        } else if rejected(s) {
            None
        } else {
            by_name.get(&s.name).map(|w| (*w, Reason::McpScopeOrder))
        };
        match winner {
            Some((w, rule)) => shadowed(servers, w, i, rule, b),
            None if rejected(s) => {}
            None if s.scope == Scope::Plugin => {
                plugin_signatures.entry(signature(s)).or_insert(i);
            }
            None => {
                by_name.entry(s.name.clone()).or_insert(i);
                configured.entry(endpoint(s)).or_insert(i);
            }
        }
    }
}

/// Server `w` hides server `l` by `rule`: recorded on both, as an edge, and reported.
fn shadowed(servers: &mut [Spanned], w: usize, l: usize, rule: Reason, b: &mut Builder) {
    let (win, s) = (servers[w].0.clone(), servers[l].0.clone());
    servers[l].0.shadowed_by = Some(Box::new(reference(&win.name, Origin::Mcp, win.scope, Some(&win.path), rule)));
    servers[w].0.shadows.push(reference(&s.name, Origin::Mcp, s.scope, Some(&s.path), rule));
    let from = b.node(GraphNodeKind::McpServer, &win.name, "mcp", win.scope, Some(&win.path));
    let to = b.node(GraphNodeKind::McpServer, &s.name, "mcp", s.scope, Some(&s.path));
    b.edge(from, to, GraphEdge::Shadows(rule));
    let message = match rule {
        Reason::ManagedMcpExclusive => {
            format!("MCP server `{}` is never started: `{}` replaces every other MCP source", s.name, win.path)
        }
        Reason::McpEndpoint => format!(
            "MCP server `{}` runs the same {} as `{}` ({}) and is dropped",
            s.name,
            if s.url.is_some() { "URL" } else { "command" },
            win.name,
            win.path
        ),
        _ => format!(
            "MCP server `{}` is hidden by the {} server of the same name ({})",
            s.name,
            win.scope.as_str(),
            win.path
        ),
    };
    report_at(&mut b.diagnostics, s.path.clone(), &rules::shadowed_declaration::RULE, servers[l].1, message)
        .help(rule.text());
}

/// Reports the names that collide once normalized, and names that hold the `__` separator,
/// among the servers nothing hides.
fn name_clashes(servers: &[Spanned], b: &mut Builder) {
    let mut by_normalized: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..servers.len() {
        let s = &servers[i].0;
        if s.shadowed_by.is_some() {
            continue;
        }
        let raw = s.name.rsplit(':').next().unwrap_or(&s.name);
        if raw.contains("__") {
            report_at(&mut b.diagnostics, s.path.clone(), &rules::mcp_server_name_clash::RULE, servers[i].1, format!("MCP server name `{raw}` contains `__`, the separator of tool names"))
                .severity(Severity::Warning)
                .help(format!("Claude Code splits `mcp__{}__tool` at the first `__`, so rules and hooks for this server match the wrong thing; rename it (`{}`)", s.normalized, raw.replace("__", "_")));
        }
        match by_normalized.get(&s.normalized) {
            Some(&w) if servers[w].0.name != s.name => {
                let other = &servers[w].0;
                report_at(&mut b.diagnostics, s.path.clone(), &rules::mcp_server_name_clash::RULE, servers[i].1, format!("MCP servers `{}` and `{}` both name their tools `mcp__{}__…`", other.name, s.name, s.normalized))
                    .help(format!("`{}` declares `{}`; one server's tools replace the other's and no rule can tell them apart; rename one", other.path, other.name));
                let from = b.node(GraphNodeKind::McpServer, &other.name, "mcp", other.scope, Some(&other.path));
                let to = b.node(GraphNodeKind::McpServer, &s.name, "mcp", s.scope, Some(&s.path));
                b.edge(from, to, GraphEdge::Clashes);
            }
            Some(_) => {}
            None => {
                by_normalized.insert(s.normalized.clone(), i);
            }
        }
    }
}

/// A project server's approval, or `Disabled` for another server turned off with `/mcp` in
/// this project; `None` leaves the server's as it is.
fn approval(s: &McpServer, approvals: &Approvals) -> Option<Approval> {
    if s.scope == Scope::Project {
        let bare = &s.name;
        Some(if approvals.disabled.contains(bare) {
            Approval::Disabled
        } else if approvals.enable_all == Some(true) || approvals.enabled.contains(bare) {
            Approval::Approved
        } else {
            Approval::Pending
        })
    } else if approvals.turned_off.contains(&s.name) {
        Some(Approval::Disabled)
    } else {
        None
    }
}

/// Marks the server removed by the first deny rule that names all its tools (`mcp__server`,
/// `mcp__server__*`, or a glob), with an edge from the rule.
fn deny_rules(
    s: &mut McpServer,
    permissions: &[(Permission, Option<Span>)],
    parsed: &[Option<PermissionRule>],
    b: &mut Builder,
) {
    for (i, (p, _)) in permissions.iter().enumerate() {
        let Some(rule) = parsed[i].as_ref() else { continue };
        if p.behavior != Behavior::Deny || rule.content.is_some() || s.denied_by.is_some() {
            continue;
        }
        let hit = match &rule.tool.kind {
            ToolKind::Mcp { server, tool } => {
                tool.as_deref().is_none_or(|t| t == "*") && glob_match(server, &s.normalized)
            }
            ToolKind::Glob => glob_match(&rule.tool.canonical, &format!("mcp__{}__", s.normalized)),
            _ => false,
        };
        if hit {
            s.denied_by = Some(p.rule.clone());
            let from = b.node(GraphNodeKind::Permission, &p.rule, p.behavior.as_str(), p.scope, Some(&p.path));
            let to = b.node(GraphNodeKind::McpServer, &s.name, "mcp", s.scope, Some(&s.path));
            b.edge(from, to, GraphEdge::Removes);
        }
    }
}
