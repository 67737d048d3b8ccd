//! What Claude Code may run on this machine from the declarations (`[[run]]`, `capc ls
//! --runs`), and the settings that widen what it may do (`[[setting]]`).
//!
//! Readers declare rows as they read a file (`declared`, `settings`, `frontmatter`): the line
//! of each hook, server and `!` injection another reader declared, the settings helpers and
//! status lines, an agent's own MCP servers and an agent's or skill's frontmatter hooks (which
//! run only while it runs), each with the repository script it runs and that script's hash.
//! `inventory` turns the resolved lock and the rows that reached the session into `[[run]]`:
//! one source per kind (`SOURCES`), each a function of the lock, so a kind the lock records
//! plugs in with one function.
//!
//! What Claude Code asks first (`Gate`): nothing from the folder's own settings,
//! agents, skills or plugins runs before its trust dialog is accepted ("Leaving out the
//! checkout's hooks - workspace trust not accepted", "apiKeyHelper requires workspace
//! trust"); the user's and managed settings' hooks and helpers run in any folder; a status
//! line runs only in a trusted folder, whoever declares it; a `.mcp.json` server also waits
//! for its approval dialog unless settings approve it; a `!` injection passes the Bash
//! permission check. `-p` shows no trust dialog: there, everything the folder declares runs.

use crate::diagnostic::LineIndex;
use crate::model::{Decl, Gate, Item, Lock, McpServer, Pinned, Run, RunKind, Scope, Setting};
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
pub const HELPERS: &[Helper] = &[
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
pub fn helper_command(value: &Node) -> Option<&Node> {
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
pub fn hook_name(event: &str, matcher: Option<&str>) -> String {
    match matcher {
        Some(m) if !m.is_empty() => format!("{event} {m}"),
        _ => event.to_string(),
    }
}

/// A stdio server's command line, as one line.
pub fn server_line(s: &McpServer) -> String {
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
        out.push(Decl { path: at.path.to_string(), span: Some(node.span), item: Item::Setting(setting) });
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

/// The word of a command line that names the script it runs: the program, or an interpreter's
/// first argument (`bash ./x.sh`, `node server.js`), when it looks like a file.
pub fn script_word(line: &str) -> Option<String> {
    const INTERPRETERS: &[&str] =
        &["sh", "bash", "zsh", "dash", "python", "python3", "node", "deno", "bun", "ruby", "perl", "pwsh", "tsx", "uv"];
    let analysis = capc_grammar::analyse_shell(line);
    let first = analysis.commands.first()?;
    let words: Vec<String> = first.program_words().iter().map(|w| w.text.replace(['"', '\''], "")).collect();
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let word = if INTERPRETERS.contains(&name) {
        words.iter().skip(1).find(|w| !w.starts_with('-') && *w != "run")?
    } else {
        program
    };
    let looks_like_file = word.contains('/')
        || [".sh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1"].iter().any(|e| word.ends_with(e));
    looks_like_file.then(|| word.clone())
}

/// The folder-relative path a script word names: `${CLAUDE_PROJECT_DIR}/x` and a relative
/// path under `project` (where hooks and helpers run), `${CLAUDE_PLUGIN_ROOT}/x` under
/// `plugin`; `None` for an absolute path, a home path, another variable or one that leaves the
/// folder.
pub fn script_path(word: &str, project: Option<&str>, plugin: Option<&str>) -> Option<String> {
    let strip = |w: &'_ str, var: &str| -> Option<String> {
        w.strip_prefix(&format!("${{{var}}}")).or_else(|| w.strip_prefix(&format!("${var}"))).map(str::to_string)
    };
    let (base, rest) = if let Some(rest) = strip(word, "CLAUDE_PLUGIN_ROOT") {
        (plugin?, rest)
    } else if let Some(rest) = strip(word, "CLAUDE_PROJECT_DIR") {
        (project?, rest)
    } else if word.starts_with(['/', '~', '$', '\\']) || word.contains("://") {
        return None;
    } else {
        (project?, format!("/{word}"))
    };
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    let floor = parts.len();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > floor => {
                parts.pop();
            }
            ".." => return None,
            p if p.contains(['$', '*', '?', '`']) => return None,
            p => parts.push(p),
        }
    }
    (parts.len() > floor).then(|| parts.join("/"))
}

/// A source of inventory rows: the lock, and the rows readers declared that reached the session.
pub type Source = fn(&Lock, &[Run]) -> Vec<Run>;

/// Every kind of row, one function each.
pub const SOURCES: &[Source] = &[hooks, servers, injections, helpers, owned, monitors, lsp_servers, plugin_bins];

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

/// The settings scopes in the order Claude Code lets them override each other.
fn precedence(scope: Scope) -> u8 {
    match scope {
        Scope::User => 1,
        Scope::Project => 2,
        Scope::Local => 3,
        Scope::Managed => 5,
        _ => 0,
    }
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

/// The setting of the highest-precedence scope for a key (`None` when no file sets it).
pub fn effective<'l>(lock: &'l Lock, key: &str) -> Option<&'l Setting> {
    lock.settings.iter().filter(|s| s.key == key).max_by_key(|s| precedence(s.scope))
}

/// Permission modes by how much runs without asking: `plan` reads only; `default` (and its
/// alias `manual`) and `dontAsk` (which refuses what it would ask) run only what rules allow;
/// `acceptEdits` edits files unasked; `auto` lets a classifier approve; `bypassPermissions`
/// asks nothing.
pub fn mode_rank(mode: Option<&str>) -> u8 {
    match mode.unwrap_or("default") {
        "plan" => 0,
        "acceptEdits" => 2,
        "auto" => 3,
        "bypassPermissions" => 4,
        _ => 1,
    }
}

/// Environment variables that send Claude Code's traffic or credentials elsewhere, or load
/// code into it and the programs it starts, with why (the names of Claude Code's own
/// lists of endpoint, proxy, certificate and loader variables).
pub const REDIRECTING_ENV: &[(&str, &str)] = &[
    ("ANTHROPIC_BASE_URL", "sends the model's requests, with the API key, to another endpoint"),
    ("ANTHROPIC_BEDROCK_BASE_URL", "sends Bedrock requests, with AWS credentials, to another endpoint"),
    ("ANTHROPIC_VERTEX_BASE_URL", "sends Vertex requests, with Google credentials, to another endpoint"),
    ("ANTHROPIC_FOUNDRY_BASE_URL", "sends Foundry requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_AWS_BASE_URL", "sends AWS requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_GOOGLE_CLOUD_BASE_URL", "sends Google Cloud requests, with their credentials, to another endpoint"),
    ("ANTHROPIC_BEDROCK_MANTLE_BASE_URL", "sends Bedrock requests, with AWS credentials, to another endpoint"),
    ("_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL", "treats another endpoint as Anthropic's own"),
    ("ANTHROPIC_CUSTOM_HEADERS", "adds headers to every model request"),
    ("ANTHROPIC_API_KEY", "replaces the API key Claude Code sends"),
    ("ANTHROPIC_AUTH_TOKEN", "replaces the bearer token Claude Code sends"),
    ("ANTHROPIC_UNIX_SOCKET", "sends the model's requests through a local socket"),
    ("CLAUDE_CODE_USE_BEDROCK", "switches the model provider to Bedrock"),
    ("CLAUDE_CODE_USE_VERTEX", "switches the model provider to Vertex"),
    ("CLAUDE_CODE_USE_FOUNDRY", "switches the model provider to Foundry"),
    ("CLAUDE_CODE_USE_GATEWAY", "switches the model provider to a gateway"),
    ("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "sends Bedrock requests without AWS authentication"),
    ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "sends Vertex requests without Google authentication"),
    ("CLAUDE_CODE_MEMORY_API_BASE_URL", "sends memory requests to another endpoint"),
    ("CLAUDE_CODE_MEMORY_API_TOKEN", "replaces the memory service's token"),
    ("HTTPS_PROXY", "sends Claude Code's HTTPS traffic through a proxy"),
    ("HTTP_PROXY", "sends Claude Code's HTTP traffic through a proxy"),
    ("ALL_PROXY", "sends Claude Code's traffic through a proxy"),
    ("NO_PROXY", "changes which hosts bypass the proxy"),
    ("CLAUDE_CODE_HTTPS_PROXY", "sends Claude Code's HTTPS traffic through a proxy"),
    ("CLAUDE_CODE_HTTP_PROXY", "sends Claude Code's HTTP traffic through a proxy"),
    ("NPM_CONFIG_PROXY", "sends package downloads through a proxy"),
    ("NPM_CONFIG_HTTPS_PROXY", "sends package downloads through a proxy"),
    ("NODE_EXTRA_CA_CERTS", "trusts another certificate authority, so a proxy can read TLS traffic"),
    ("SSL_CERT_FILE", "replaces the trusted certificate authorities"),
    ("SSL_CERT_DIR", "replaces the trusted certificate authorities"),
    ("CLAUDE_CODE_CERT_STORE", "changes which certificate authorities are trusted"),
    ("NODE_TLS_REJECT_UNAUTHORIZED", "turns off TLS certificate checks"),
    ("CLAUDE_CODE_CLIENT_CERT", "presents another client certificate"),
    ("CLAUDE_CODE_CLIENT_KEY", "presents another client key"),
    ("NODE_OPTIONS", "loads code into Claude Code and every Node.js program it starts"),
    ("NODE_PATH", "changes where Node.js programs load modules from"),
    ("BUN_OPTIONS", "loads code into Bun programs Claude Code starts"),
    ("LD_PRELOAD", "loads a library into every program Claude Code starts"),
    ("LD_LIBRARY_PATH", "changes where programs Claude Code starts load libraries from"),
    ("LD_AUDIT", "loads a library into every program Claude Code starts"),
    ("DYLD_INSERT_LIBRARIES", "loads a library into every program Claude Code starts"),
    ("DYLD_LIBRARY_PATH", "changes where programs Claude Code starts load libraries from"),
    ("DYLD_FRAMEWORK_PATH", "changes where programs Claude Code starts load frameworks from"),
    ("BASH_ENV", "runs a script before every Bash command"),
    ("ENV", "runs a script when a shell starts"),
    ("ZDOTDIR", "runs another folder's zsh start-up files"),
    ("PROMPT_COMMAND", "runs a command before each shell prompt"),
    ("PATH", "changes which programs every command finds"),
    ("GIT_SSH_COMMAND", "runs another program for git's SSH connections"),
    ("GIT_ASKPASS", "runs another program for git's credentials"),
    ("SSH_ASKPASS", "runs another program for SSH credentials"),
    ("JAVA_TOOL_OPTIONS", "loads code into every Java program Claude Code starts"),
    ("PYTHONSTARTUP", "runs a script when Python starts"),
    ("PYTHONPATH", "changes where Python programs load modules from"),
    ("PERL5OPT", "loads code into every Perl program Claude Code starts"),
    ("RUBYOPT", "loads code into every Ruby program Claude Code starts"),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "sends telemetry to another endpoint"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "adds headers to telemetry"),
];

/// Why an `env` key redirects traffic or credentials, when it does.
pub fn redirects(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    REDIRECTING_ENV.iter().find(|(k, _)| *k == upper).map(|(_, why)| *why).or_else(|| {
        (upper.starts_with("AWS_") || upper.starts_with("GOOGLE_APPLICATION_CREDENTIALS"))
            .then_some("replaces the cloud credentials Claude Code uses")
    })
}

/// How a `sandbox` key loosens the sandbox: a boolean that loosens at the given value
/// (`default` is Claude Code's when unset), or a list whose added (or, for a deny list,
/// removed) entries loosen it.
pub enum Loosens {
    When { value: bool, default: bool },
    Added,
    Removed,
}

/// The `sandbox` keys of Claude Code's settings schema that loosen it.
pub const SANDBOX: &[(&str, Loosens)] = &[
    ("sandbox.enabled", Loosens::When { value: false, default: false }),
    ("sandbox.failIfUnavailable", Loosens::When { value: false, default: false }),
    ("sandbox.autoAllowBashIfSandboxed", Loosens::When { value: true, default: false }),
    ("sandbox.allowUnsandboxedCommands", Loosens::When { value: true, default: true }),
    ("sandbox.enableWeakerNestedSandbox", Loosens::When { value: true, default: false }),
    ("sandbox.enableWeakerNetworkIsolation", Loosens::When { value: true, default: false }),
    ("sandbox.allowAppleEvents", Loosens::When { value: true, default: false }),
    ("sandbox.allowNestedUserNamespaces", Loosens::When { value: true, default: false }),
    ("sandbox.network.allowAllUnixSockets", Loosens::When { value: true, default: false }),
    ("sandbox.network.allowLocalBinding", Loosens::When { value: true, default: false }),
    ("sandbox.network.strictAllowlist", Loosens::When { value: false, default: false }),
    ("sandbox.network.allowManagedDomainsOnly", Loosens::When { value: false, default: false }),
    ("sandbox.filesystem.disabled", Loosens::When { value: true, default: false }),
    ("sandbox.filesystem.allowManagedReadPathsOnly", Loosens::When { value: false, default: false }),
    ("sandbox.excludedCommands", Loosens::Added),
    ("sandbox.network.allowedDomains", Loosens::Added),
    ("sandbox.network.allowUnixSockets", Loosens::Added),
    ("sandbox.network.allowMachLookup", Loosens::Added),
    ("sandbox.filesystem.allowWrite", Loosens::Added),
    ("sandbox.filesystem.allowRead", Loosens::Added),
    ("sandbox.network.deniedDomains", Loosens::Removed),
    ("sandbox.filesystem.denyWrite", Loosens::Removed),
    ("sandbox.filesystem.denyRead", Loosens::Removed),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_words_and_paths() {
        assert_eq!(
            script_word("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh --fast").as_deref(),
            Some("$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh")
        );
        assert_eq!(script_word("bash scripts/status.sh").as_deref(), Some("scripts/status.sh"));
        assert_eq!(script_word("node server.js").as_deref(), Some("server.js"));
        assert_eq!(script_word("jq -r .x"), None);
        assert_eq!(
            script_path("$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", Some(""), None).as_deref(),
            Some(".claude/hooks/check.sh")
        );
        assert_eq!(
            script_path("${CLAUDE_PLUGIN_ROOT}/bin/x.sh", Some(""), Some("plugins/a")).as_deref(),
            Some("plugins/a/bin/x.sh")
        );
        assert_eq!(script_path("./x/../y.sh", Some("sub"), None).as_deref(), Some("sub/y.sh"));
        assert_eq!(script_path("../y.sh", Some(""), None), None);
        assert_eq!(script_path("/usr/bin/y.sh", Some(""), None), None);
        assert_eq!(script_path("~/y.sh", Some(""), None), None);
    }

    #[test]
    fn modes_rank_by_what_runs_unasked() {
        assert!(mode_rank(Some("bypassPermissions")) > mode_rank(Some("acceptEdits")));
        assert!(mode_rank(Some("acceptEdits")) > mode_rank(None));
        assert_eq!(mode_rank(Some("manual")), mode_rank(Some("default")));
        assert!(mode_rank(Some("plan")) < mode_rank(Some("dontAsk")));
    }

    #[test]
    fn redirecting_variables() {
        assert!(redirects("ANTHROPIC_BASE_URL").is_some());
        assert!(redirects("node_options").is_some());
        assert!(redirects("AWS_PROFILE").is_some());
        assert!(redirects("BASH_DEFAULT_TIMEOUT_MS").is_none());
    }
}
