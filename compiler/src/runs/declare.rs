//! The rows readers declare as they read a file: the hooks, servers and `!` injections another
//! reader declared, the settings helpers and status lines, the settings that widen what runs,
//! and an agent's or skill's own frontmatter hooks and servers.

use crate::diagnostic::LineIndex;
use crate::model::{Decl, Item, McpServer, Run, RunKind, Scope, Setting};
use crate::node::{Node, NodeKind};

/// A settings key that runs a command: its kind, when it runs, and the scopes Claude Code honours it from.
pub struct Helper {
    pub key: &'static str,
    pub kind: RunKind,
    pub when: &'static str,
    /// `None`: every settings file; else only these scopes (the others are ignored).
    pub only: Option<&'static [Scope]>,
}

const ADMIN: &[Scope] = &[Scope::Managed];
const USER_OR_ADMIN: &[Scope] = &[Scope::Managed, Scope::User];

/// The settings keys whose value is a command Claude Code runs (its settings schema:
/// `apiKeyHelper` "Path to a script that outputs authentication values", …).
pub(crate) const HELPERS: &[Helper] = &[
    Helper {
        key: "apiKeyHelper",
        kind: RunKind::Helper,
        when: "when Claude Code needs an API key, and again when it expires",
        only: None,
    },
    Helper {
        key: "awsAuthRefresh",
        kind: RunKind::Helper,
        when: "when AWS credentials are missing or expired",
        only: None,
    },
    Helper {
        key: "awsCredentialExport",
        kind: RunKind::Helper,
        when: "when Claude Code needs AWS credentials",
        only: None,
    },
    Helper {
        key: "gcpAuthRefresh",
        kind: RunKind::Helper,
        when: "when Google Cloud credentials are missing or expired",
        only: None,
    },
    Helper {
        key: "otelHeadersHelper",
        kind: RunKind::Helper,
        when: "when telemetry is exported, for its headers",
        only: None,
    },
    Helper { key: "proxyAuthHelper", kind: RunKind::Helper, when: "when the proxy asks for credentials", only: None },
    Helper {
        key: "processWrapper",
        kind: RunKind::Helper,
        when: "in front of each background session Claude Code starts",
        only: Some(USER_OR_ADMIN),
    },
    Helper {
        key: "policyHelper",
        kind: RunKind::Helper,
        when: "at start, to compute managed settings",
        only: Some(ADMIN),
    },
    Helper { key: "fileSuggestion", kind: RunKind::Helper, when: "when `@` file suggestions are shown", only: None },
    Helper { key: "statusLine", kind: RunKind::StatusLine, when: "each time the status line refreshes", only: None },
    Helper {
        key: "subagentStatusLine",
        kind: RunKind::StatusLine,
        when: "for each row of the agent panel",
        only: None,
    },
];

/// The command a helper key's value runs: a string, `{type: "command", command}`, or
/// (`policyHelper`) `{path}`.
pub(crate) fn helper_command(value: &Node) -> Option<&Node> {
    match &value.kind {
        NodeKind::String(s) if !s.trim().is_empty() => Some(value),
        NodeKind::Object(_) => value.get("command").or_else(|| value.get("path")).filter(|c| c.as_str().is_some()),
        _ => None,
    }
}

/// Where a file's declarations sit, for the rows read from it.
pub struct At<'a> {
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub path: &'a str,
    pub scope: Scope,
    pub plugin: Option<&'a str>,
}

impl At<'_> {
    fn line(&self, offset: usize) -> u32 {
        u32::try_from(self.lines.position(self.text, offset).0).unwrap_or(u32::MAX)
    }

    fn row(&self, kind: RunKind, name: String, run: String, offset: Option<usize>) -> Run {
        Run {
            kind,
            name,
            run,
            scope: self.scope,
            path: self.path.to_string(),
            line: offset.map_or(0, |o| self.line(o)),
            plugin: self.plugin.map(str::to_string),
            ..Run::default()
        }
    }
}

/// The rows of the hooks, servers and commands a file declared (`decls`): each with its line.
pub fn declared(decls: &[Decl], at: &At<'_>) -> Vec<Run> {
    let mut out = Vec::new();
    for d in decls {
        let offset = d.span.map(|s| s.start);
        match &d.item {
            Item::Hook(h) => {
                let mut row = at.row(
                    RunKind::Hook,
                    hook_name(&h.event, h.matcher.as_deref()),
                    h.run.clone().unwrap_or_default(),
                    offset,
                );
                row.hook_type = Some(h.kind.clone());
                row.scope = h.scope;
                out.push(row);
            }
            Item::Server(s) if s.command.is_some() => {
                let mut row = at.row(RunKind::McpServer, s.name.clone(), server_line(s), offset);
                row.scope = s.scope;
                out.push(row);
            }
            Item::Command(c) => {
                for injection in &c.shell_injections {
                    let found = at.text.find(injection.as_str()).or(offset);
                    let mut row = at.row(RunKind::Injection, format!("/{}", c.name), injection.clone(), found);
                    row.scope = c.scope;
                    out.push(row);
                }
            }
            _ => {}
        }
    }
    out
}

/// A hook's name in the inventory: its event, then its matcher.
pub(crate) fn hook_name(event: &str, matcher: Option<&str>) -> String {
    match matcher {
        Some(m) if !m.is_empty() => format!("{event} {m}"),
        _ => event.to_string(),
    }
}

/// A stdio server's command line, as one line.
pub(crate) fn server_line(s: &McpServer) -> String {
    std::iter::once(s.command.as_deref().unwrap_or(""))
        .chain(s.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The helpers and status lines of a settings file (`root`), and its widening settings.
pub fn settings(root: &Node, at: &At<'_>, out: &mut Vec<Decl>) {
    for helper in HELPERS {
        if helper.only.is_some_and(|only| !only.contains(&at.scope)) {
            continue;
        }
        let Some(command) = root.get(helper.key).and_then(helper_command) else { continue };
        let Some(text) = command.as_str() else { continue };
        let row = at.row(helper.kind, helper.key.to_string(), kept(text), Some(command.span.start));
        out.push(Decl { path: at.path.to_string(), span: Some(command.span), item: Item::Run(Box::new(row)) });
    }
    let mut push = |key: String, node: &Node, value: String| {
        let setting =
            Setting { key, value, scope: at.scope, path: at.path.to_string(), line: at.line(node.span.start) };
        out.push(Decl { path: at.path.to_string(), span: Some(node.span), item: Item::Setting(Box::new(setting)) });
    };
    if let Some(permissions) = root.get("permissions") {
        for key in ["defaultMode", "disableBypassPermissionsMode", "disableAutoMode"] {
            if let Some(v) = permissions.get(key).filter(|v| v.as_str().is_some()) {
                push(format!("permissions.{key}"), v, v.as_str().unwrap_or_default().to_string());
            }
        }
        for dir in permissions.get("additionalDirectories").and_then(Node::as_array).unwrap_or_default() {
            if let Some(d) = dir.as_str() {
                push("permissions.additionalDirectories".to_string(), dir, d.to_string());
            }
        }
    }
    if let Some(sandbox) = root.get("sandbox").filter(|s| s.as_object().is_some()) {
        let mut leaves = Vec::new();
        flatten("sandbox", sandbox, 0, &mut leaves);
        for (key, node, value) in leaves {
            push(key, node, value);
        }
    }
    // The keys that change what a turn sends (the session merges them as Claude Code does).
    for key in TURN_KEYS {
        let Some(node) = root.get(key) else { continue };
        match &node.kind {
            NodeKind::Object(_) => {
                let mut leaves = Vec::new();
                flatten(key, node, 0, &mut leaves);
                for (key, node, value) in leaves {
                    push(key, node, value);
                }
            }
            NodeKind::String(s) => push(key.to_string(), node, kept(s)),
            NodeKind::Bool(b) => push(key.to_string(), node, b.to_string()),
            NodeKind::Number(n) => push(key.to_string(), node, n.clone()),
            _ => {}
        }
    }
    for (key, value) in root.get("env").and_then(Node::as_object).unwrap_or_default() {
        let text = match &value.kind {
            NodeKind::String(s) => s.clone(),
            NodeKind::Number(n) => n.clone(),
            NodeKind::Bool(b) => b.to_string(),
            _ => continue,
        };
        let shown = if crate::secrets::looks_secret(Some(&key.name), &text) || credential_name(&key.name) {
            crate::secrets::redact(&text)
        } else {
            kept(&text)
        };
        push(format!("env.{}", key.name), value, shown);
    }
}

/// The settings keys that change what Claude Code sends in a turn, besides `env` and the policy
/// switches: the attribution lines (whether their reminder is sent), the Skill listing's limits
/// and overrides, the bundled skills' switch, and the selected output style. The lock records
/// them as `[[setting]]` rows (an object's leaves each on a row of their own) and the session
/// reads them from there.
pub const TURN_KEYS: [&str; 7] = [
    "outputStyle",
    "attribution",
    "includeCoAuthoredBy",
    "skillOverrides",
    "skillListingMaxDescChars",
    "skillListingBudgetFraction",
    "disableBundledSkills",
];

/// A value as the lock keeps it: a secret-looking word replaced by its hash.
fn kept(text: &str) -> String {
    crate::secrets::redact_words(text).unwrap_or_else(|| text.to_string())
}

/// An environment variable whose value is a credential by its name.
fn credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSPHRASE", "CREDENTIAL", "AUTH"].iter().any(|w| upper.contains(w))
        && !upper.ends_with("_URL")
}

/// The scalar leaves of `sandbox` (`sandbox.network.allowedDomains` once per entry).
fn flatten<'n>(prefix: &str, node: &'n Node, depth: usize, out: &mut Vec<(String, &'n Node, String)>) {
    if depth > 4 {
        return;
    }
    match &node.kind {
        NodeKind::Object(entries) => {
            for (k, v) in entries {
                flatten(&format!("{prefix}.{}", k.name), v, depth + 1, out);
            }
        }
        NodeKind::Array(items) => {
            for item in items {
                if let Some(s) = item.as_str() {
                    out.push((prefix.to_string(), item, kept(s)));
                }
            }
        }
        NodeKind::String(s) => out.push((prefix.to_string(), node, kept(s))),
        NodeKind::Bool(b) => out.push((prefix.to_string(), node, b.to_string())),
        NodeKind::Number(n) => out.push((prefix.to_string(), node, n.clone())),
        NodeKind::Null => {}
    }
}

/// The rows of an agent's or skill's own frontmatter: its `hooks` (run only while it runs) and,
/// for an agent, its `mcpServers` entries that define a server (started when the agent runs).
/// A plugin's agent gets none: Claude Code ignores both there.
/// `events` are the hook events Claude Code knows (a handler of another is never run).
pub fn frontmatter(fields: &Node, owner: &str, agent: bool, events: &[&str], at: &At<'_>, out: &mut Vec<Run>) {
    if agent && at.plugin.is_some() {
        return;
    }
    if let Some(map) = fields.get("hooks").and_then(Node::as_object) {
        for (event, groups) in map.iter().filter(|(e, _)| events.contains(&e.name.as_str())) {
            for group in groups.as_array().unwrap_or_default() {
                let matcher = group.get("matcher").and_then(Node::as_str);
                for handler in group.get("hooks").and_then(Node::as_array).unwrap_or_default() {
                    let Some(kind) = handler.get("type").and_then(Node::as_str) else { continue };
                    let run = ["command", "url", "prompt", "tool"]
                        .iter()
                        .find_map(|k| handler.get(k)?.as_str())
                        .map(kept)
                        .unwrap_or_default();
                    let mut row = at.row(RunKind::Hook, hook_name(&event.name, matcher), run, Some(handler.span.start));
                    row.hook_type = Some(kind.to_string());
                    row.owner = Some(owner.to_string());
                    out.push(row);
                }
            }
        }
    }
    if !agent {
        return;
    }
    for entry in fields.get("mcpServers").and_then(Node::as_array).unwrap_or_default() {
        let Some([(name, config)]) = entry.as_object() else { continue };
        let Some(command) = config.get("command").and_then(Node::as_str) else { continue };
        let args: Vec<String> = config
            .get("args")
            .and_then(Node::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|a| a.as_str().map(kept))
            .collect();
        let line = std::iter::once(kept(command)).chain(args).collect::<Vec<_>>().join(" ");
        let mut row = at.row(RunKind::McpServer, name.name.clone(), line, Some(name.span.start));
        row.owner = Some(owner.to_string());
        out.push(row);
    }
}
