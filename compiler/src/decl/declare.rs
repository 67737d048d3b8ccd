//! What a file declares, as `model::Decl`s: readers call these next to their checks
//! (`Sink::decls`), with the same parsed tree the checks saw, so nothing is read twice.

use crate::model::{
    Agent, Behavior, Command, Decl, Form, Hook, Item, McpServer, Origin, Permission, Placement, PolicyEntry, Scope,
    Transport,
};
use crate::node::{Node, NodeKind};
use crate::span::Span;

fn string(fields: &Node, key: &str) -> Option<String> {
    fields.get(key)?.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// A list written as a YAML list or as a string: tool lists split like permission rules
/// (commas and spaces outside parentheses), other lists on `separators`.
fn list(fields: &Node, key: &str, separators: &[char]) -> Vec<String> {
    match fields.get(key).map(|n| &n.kind) {
        Some(NodeKind::Array(items)) => {
            items.iter().filter_map(Node::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
        }
        Some(NodeKind::String(s)) if separators.is_empty() => {
            crate::decl::permissions::split_rule_list(s).into_iter().map(|(_, r)| r.to_string()).collect()
        }
        Some(NodeKind::String(s)) => {
            s.split(separators).map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect()
        }
        _ => Vec::new(),
    }
}

/// Tool lists: split as permission rules are.
const RULES: &[char] = &[];

fn flag(fields: &Node, key: &str) -> Option<bool> {
    match &fields.get(key)?.kind {
        NodeKind::Bool(b) => Some(*b),
        NodeKind::String(s) => crate::schema::bool_like(s),
        _ => None,
    }
}

/// A skill or command file as a command-table entry.
pub fn command(
    name: String,
    form: crate::decl::markdown::MarkdownKind,
    fields: Option<&Node>,
    text: &str,
    at: Placement<'_>,
    path: &str,
) -> Decl {
    let empty = Node { kind: NodeKind::Object(Vec::new()), span: Span::new(0, 0) };
    let f = fields.unwrap_or(&empty);
    let is_skill = form == crate::decl::markdown::MarkdownKind::Skill;
    let origin = match (at.plugin, is_skill) {
        (Some(_), _) => Origin::Plugin,
        (None, true) => Origin::Skill,
        (None, false) => Origin::Command,
    };
    let body_start = match crate::frontmatter::split(text) {
        crate::frontmatter::Split::Found(block) => block.body_start,
        _ => 0,
    };
    // `paths`: a trailing `/**` is dropped; all-`**` means no condition (v2.1.88 loader).
    let mut paths: Vec<String> =
        list(f, "paths", &[',']).into_iter().map(|p| p.strip_suffix("/**").map(str::to_string).unwrap_or(p)).collect();
    if paths.iter().all(|p| p == "**" || p.is_empty()) {
        paths.clear();
    }
    let command = Command {
        name,
        display_name: None,
        aliases: Vec::new(),
        shed_aliases: Vec::new(),
        origin,
        scope: at.scope,
        form: if is_skill { Form::Skill } else { Form::Command },
        path: path.to_string(),
        plugin: at.plugin.map(str::to_string),
        dynamic: at.dynamic.map(str::to_string),
        description: string(f, "description"),
        when_to_use: string(f, "when_to_use"),
        argument_hint: string(f, "argument-hint"),
        // Empty and all-digit argument names are dropped (v2.1.88 loader).
        arguments: list(f, "arguments", &[' ', '\t', '\n'])
            .into_iter()
            .filter(|a| !a.chars().all(|c| c.is_ascii_digit()))
            .collect(),
        allowed_tools: list(f, "allowed-tools", RULES),
        model: string(f, "model").filter(|m| m != "inherit"),
        effort: string(f, "effort"),
        context: string(f, "context").filter(|c| c == "fork"),
        agent: string(f, "agent"),
        paths,
        disable_model_invocation: flag(f, "disable-model-invocation").unwrap_or(false),
        user_invocable: flag(f, "user-invocable").unwrap_or(true),
        content_length: text.len().saturating_sub(body_start),
        shell_injections: crate::decl::markdown::shell_injections(&text[body_start.min(text.len())..])
            .into_iter()
            .map(|(command, _)| command)
            .collect(),
        shadowed_by: None,
        shadows: Vec::new(),
    };
    // Point at what identifies the entry to a reader: its `name`, else its `description`.
    let span = fields.and_then(|f| f.get("name").or_else(|| f.get("description"))).map(|n| n.span);
    Decl { path: path.to_string(), span, item: Item::Command(Box::new(command)) }
}

/// An agent file, or `None` when Claude Code would not load it (a local agent needs a
/// `name` and a `description`; a plugin agent loads under its file name regardless, with the
/// fields of frontmatter that does not parse dropped).
pub fn agent(name: String, fields: Option<&Node>, at: Placement<'_>, path: &str) -> Option<Decl> {
    let empty = Node { kind: NodeKind::Object(Vec::new()), span: Span::new(0, 0) };
    let f = match fields {
        Some(f) => f,
        None if at.plugin.is_some() => &empty,
        None => return None,
    };
    if at.plugin.is_none() && (string(f, "name").is_none() || string(f, "description").is_none()) {
        return None;
    }
    let agent = Agent {
        name,
        scope: at.scope,
        path: path.to_string(),
        plugin: at.plugin.map(str::to_string),
        description: string(f, "description"),
        tools: list(f, "tools", RULES),
        disallowed_tools: list(f, "disallowedTools", RULES),
        model: string(f, "model").filter(|m| m != "inherit"),
        denied_by: None,
        shadowed_by: None,
        shadows: Vec::new(),
    };
    Some(Decl {
        path: path.to_string(),
        span: fields.and_then(|f| f.get("name")).map(|n| n.span),
        item: Item::Agent(Box::new(agent)),
    })
}

/// The handlers of an event map `{Event: [{matcher, hooks: [handler]}]}`.
pub fn hooks(map: &Node, at: Placement<'_>, path: &str, out: &mut Vec<Decl>) {
    for (event, groups) in map.as_object().unwrap_or_default() {
        for group in groups.as_array().unwrap_or_default() {
            let matcher = group.get("matcher").and_then(Node::as_str).map(str::to_string);
            for handler in group.get("hooks").and_then(Node::as_array).unwrap_or_default() {
                let Some(kind) = handler.get("type").and_then(Node::as_str) else { continue };
                let run = ["command", "url", "prompt", "tool"]
                    .iter()
                    .find_map(|k| handler.get(k).and_then(Node::as_str))
                    .map(str::to_string);
                let hook = Hook {
                    event: event.name.clone(),
                    matcher: matcher.clone(),
                    kind: kind.to_string(),
                    run,
                    condition: handler.get("if").and_then(Node::as_str).map(str::to_string),
                    scope: at.scope,
                    path: path.to_string(),
                    plugin: at.plugin.map(str::to_string),
                };
                out.push(Decl { path: path.to_string(), span: Some(handler.span), item: Item::Hook(hook) });
            }
        }
    }
}

/// `permissions.allow|ask|deny` of a settings file.
pub fn rules(permissions: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    for behavior in [Behavior::Allow, Behavior::Ask, Behavior::Deny] {
        for rule in permissions.get(behavior.as_str()).and_then(Node::as_array).unwrap_or_default() {
            let Some(text) = rule.as_str() else { continue };
            let permission = Permission {
                rule: text.to_string(),
                behavior,
                scope,
                path: path.to_string(),
                removes: Vec::new(),
                pre_empted_by: None,
            };
            out.push(Decl { path: path.to_string(), span: Some(rule.span), item: Item::Rule(permission) });
        }
    }
}

/// The settings keys that change what exists: plugin enablement, known marketplaces and
/// project-server approval.
pub fn settings(root: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    for (key, value) in root.get("enabledPlugins").and_then(Node::as_object).unwrap_or_default() {
        // An array value (a version pin list) enables the plugin.
        let enabled = value.as_bool().unwrap_or(matches!(value.kind, NodeKind::Array(_)));
        out.push(Decl {
            path: path.to_string(),
            span: Some(key.span),
            item: Item::EnablePlugin { key: key.name.clone(), enabled, scope },
        });
    }
    for field in ["extraKnownMarketplaces", "additionalMarketplaces"] {
        for (key, value) in root.get(field).and_then(Node::as_object).unwrap_or_default() {
            let source = value.get("source");
            let kind = source.and_then(|s| s.get("source")).and_then(Node::as_str).unwrap_or_default();
            let dir = source.and_then(|s| s.get("path")).and_then(Node::as_str).filter(|_| kind == "directory");
            let text = |key: &str| source.and_then(|s| s.get(key)).and_then(Node::as_str).map(str::to_string);
            if let Some(package) =
                text("repo").or_else(|| text("url")).or_else(|| text("path")).or_else(|| text("name"))
            {
                let exact = text("sha").filter(|s| crate::provenance::is_commit_sha(s));
                out.push(Decl {
                    path: path.to_string(),
                    span: Some(key.span),
                    item: Item::Pin(crate::model::Pin {
                        of: crate::model::PinOf::Marketplace,
                        name: key.name.clone(),
                        path: path.to_string(),
                        via: kind.to_string(),
                        package,
                        exact,
                        requested: text("ref"),
                    }),
                });
            }
            out.push(Decl {
                path: path.to_string(),
                span: Some(key.span),
                item: Item::KnownMarketplace {
                    name: key.name.clone(),
                    scope,
                    source: kind.to_string(),
                    path: dir.map(str::to_string),
                    location: None,
                },
            });
        }
    }
    mcp_approval(root, scope, path, out);
    let allowed = root.get("allowedMcpServers").map(policy_entries);
    let denied = root.get("deniedMcpServers").map(policy_entries).unwrap_or_default();
    let managed_only = root.get("allowManagedMcpServersOnly").and_then(Node::as_bool);
    if allowed.is_some() || !denied.is_empty() || managed_only.is_some() {
        out.push(Decl {
            path: path.to_string(),
            span: None,
            item: Item::McpPolicy { scope, allowed, denied, managed_only },
        });
    }
}

/// Project-server approval switches (`enableAllProjectMcpServers`, `enabledMcpjsonServers`,
/// `disabledMcpjsonServers`): in settings files, and in `~/.claude.json`'s entry of a project.
pub fn mcp_approval(root: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    let names = |key: &str| root.get(key).and_then(strings).unwrap_or_default();
    let enable_all = root.get("enableAllProjectMcpServers").and_then(Node::as_bool);
    let (enabled, disabled) = (names("enabledMcpjsonServers"), names("disabledMcpjsonServers"));
    if enable_all.is_some() || !enabled.is_empty() || !disabled.is_empty() {
        out.push(Decl {
            path: path.to_string(),
            span: None,
            item: Item::McpApproval { scope, enable_all, enabled, disabled },
        });
    }
}

/// The entries of a policy list; an entry without exactly one known key is skipped (the
/// checker reports it).
fn policy_entries(list: &Node) -> Vec<PolicyEntry> {
    list.as_array()
        .unwrap_or_default()
        .iter()
        .filter_map(|e| {
            let name = e.get("serverName").and_then(Node::as_str).map(|n| PolicyEntry::Name(n.to_string()));
            let command = e.get("serverCommand").and_then(strings).map(PolicyEntry::Command);
            let url = e.get("serverUrl").and_then(Node::as_str).map(|u| PolicyEntry::Url(u.to_string()));
            let mut found = [name, command, url].into_iter().flatten();
            match (found.next(), found.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        })
        .collect()
}

/// `disabledMcpServers` of `~/.claude.json`'s entry for the project.
pub fn mcp_toggles(project: &Node, path: &str, out: &mut Vec<Decl>) {
    let Some(list) = project.get("disabledMcpServers") else { return };
    let disabled = strings(list).unwrap_or_default();
    if !disabled.is_empty() {
        out.push(Decl { path: path.to_string(), span: Some(list.span), item: Item::McpToggle { disabled } });
    }
}

/// The string elements of an array (others skipped; the checker reports them); `None` when
/// the node is not an array.
fn strings(node: &Node) -> Option<Vec<String>> {
    node.as_array().map(|items| items.iter().filter_map(Node::as_str).map(str::to_string).collect())
}

/// An MCP server entry as the lock keeps it, or `None` when Claude Code skips it (unknown
/// type, no command or URL). Literal secrets are reported and stored as hashes.
pub fn server(
    sink: &mut crate::diagnostic::Sink<'_>,
    name: &crate::node::Key,
    config: &Node,
    at: Placement<'_>,
    path: &str,
) -> Option<Decl> {
    use crate::secrets::{looks_secret, redact};
    config.as_object()?;
    let transport = match config.get("type").map(|t| t.as_str()) {
        None | Some(Some("stdio")) => Transport::Stdio,
        Some(Some("http" | "streamable-http")) => Transport::Http,
        Some(Some("sse")) => Transport::Sse,
        Some(Some("ws")) => Transport::Ws,
        _ => return None,
    };
    let command = config.get("command").and_then(Node::as_str).map(str::to_string);
    let url = config.get("url").and_then(Node::as_str).map(str::to_string);
    if (transport == Transport::Stdio && command.is_none()) || (transport != Transport::Stdio && url.is_none()) {
        return None;
    }
    let (full_name, normalized) = match at.plugin {
        Some(plugin) => (
            format!("plugin:{plugin}:{}", name.name),
            crate::decl::mcp::normalize(&format!("plugin_{plugin}_{}", name.name)),
        ),
        None => (name.name.clone(), crate::decl::mcp::normalize(&name.name)),
    };
    // `env_key`: the variable the value is set as, the natural name to read it from.
    let mut secret = |what: String, env_key: Option<&String>, key: Option<&str>, node: &Node| -> Option<String> {
        let value = node.as_str()?;
        if !looks_secret(key, value) {
            return Some(value.to_string());
        }
        sink.report(&crate::rules::literal_secret::RULE, node.span, format!("server `{}`: {what} holds what looks like a literal secret", name.name))
            .secret()
            .help(match env_key {
                Some(k) => format!("read it from the environment: `\"{k}\": \"${{{k}}}\"`; capabilities.lock stores only its SHA-256"),
                None => "read it from the environment with a `${VAR}` reference (such as `Bearer ${API_TOKEN}`); capabilities.lock stores only its SHA-256".to_string(),
            });
        Some(redact(value))
    };
    let mut map = |field: &str| -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        for (key, value) in config.get(field).and_then(Node::as_object).unwrap_or_default() {
            let what = format!("`{field}.{}`", key.name);
            if let Some(v) = secret(what, (field == "env").then_some(&key.name), Some(&key.name), value) {
                out.insert(key.name.clone(), v);
            }
        }
        out
    };
    let env = map("env");
    let headers = map("headers");
    let args: Vec<String> = config
        .get("args")
        .and_then(Node::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| secret("an argument".to_string(), None, None, a))
        .collect();
    let url = config.get("url").and_then(|u| secret("`url`".to_string(), None, None, u)).or(url);
    let server = McpServer {
        name: full_name,
        normalized,
        scope: at.scope,
        transport,
        path: path.to_string(),
        plugin: at.plugin.map(str::to_string),
        command,
        args,
        url,
        cwd: config.get("cwd").and_then(Node::as_str).map(str::to_string),
        timeout: config.get("timeout").and_then(|t| match &t.kind {
            NodeKind::Number(n) => n.parse::<f64>().ok().filter(|v| *v >= 0.0).map(|v| v as u64),
            _ => None,
        }),
        always_load: config.get("alwaysLoad").and_then(Node::as_bool).unwrap_or(false),
        headers_helper: config.get("headersHelper").and_then(Node::as_str).map(str::to_string),
        approval: None,
        denied_by: None,
        blocked_by: None,
        env,
        headers,
        shadowed_by: None,
        shadows: Vec::new(),
    };
    Some(Decl { path: path.to_string(), span: Some(name.span), item: Item::Server(Box::new(server)) })
}
