//! What a file declares, as `model::Decl`s: readers call these next to their checks
//! (`Sink::decls`), with the same parsed tree the checks saw, so nothing is read twice.
//!
//! Every literal that reaches the lock passes [`Literals`]: a value that looks like a literal
//! secret is reported (`literal-secret`, its span marked secret so snippets mask it) and kept
//! only as `sha256:<hex>`: whole for what runs or connects (MCP fields, hook commands), the
//! content of a permission rule (`Bash(sha256:…)`), and word by word in prose (descriptions).

use super::settings_schema;
use crate::diagnostic::Sink;
use crate::model::{
    Agent, Behavior, Command, Decl, Form, Hook, Item, McpServer, Origin, Permission, Placement, PolicyEntry, Scope,
    Transport,
};
use crate::node::{Node, NodeKind};
use crate::span::Span;
use serde_json::Value;
use thin_vec::ThinVec;

/// How a literal is kept when it looks like a secret.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Hashed whole: what runs or connects (a half-redacted command would run wrongly; a hash
    /// is refused at launch).
    Whole,
    /// A permission rule: its content hashed, its tool kept.
    Rule,
    /// Prose: each credential-shaped word hashed, the rest kept.
    Words,
}

/// What Claude Code lists for a skill or command without `description` (its loader
/// sets the description once, so the listing, `/help` and the Skill tool all show this): the
/// body's first non-empty line, trimmed, without a leading `# ` heading marker (`#`s and at
/// least one space, as `^#+\s+(\S.*)$` reads it); a line over 100 UTF-16 code units is cut to
/// its first 97 and `...`. A body with no such line gives `default`, the kind's word.
fn first_body_line(body: &str, default: &str) -> String {
    let js_space = |c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}';
    let Some(line) = body.split('\n').map(|l| l.trim_matches(js_space)).find(|l| !l.is_empty()) else {
        return default.to_string();
    };
    // `.` stops at a line terminator, so a line holding one keeps its `#`s.
    let heading = line.trim_start_matches('#');
    let text = match heading.strip_prefix(js_space) {
        Some(rest) if heading.len() < line.len() && !rest.contains(['\r', '\u{2028}', '\u{2029}']) => {
            rest.trim_start_matches(js_space)
        }
        _ => line,
    };
    if text.encode_utf16().count() <= 100 {
        return text.to_string();
    }
    // The first 97 code units; a character they would split is left out (JavaScript keeps its
    // first half, a lone surrogate, which no Rust string holds).
    let mut units = 0;
    let end = text
        .char_indices()
        .find(|(_, c)| {
            units += c.len_utf16();
            units > 97
        })
        .map_or(text.len(), |(i, _)| i);
    format!("{}...", &text[..end])
}

/// Literals on their way into the lock, reported when they look like secrets.
struct Literals<'s, 'p> {
    sink: &'s mut Sink<'p>,
    /// Who holds the values, for the message (`server `db``, `hook `PreToolUse``, `skill`).
    owner: String,
}

impl Literals<'_, '_> {
    /// The string `args` of a server's `config` as the lock keeps them. They are read together:
    /// a flag's value is the argument after it (`--token`, `X`).
    fn args(&mut self, config: &Node, help: &str) -> Vec<String> {
        let arg_nodes: Vec<(&Node, &str)> = config
            .get("args")
            .and_then(Node::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|a| Some((a, a.as_str()?)))
            .collect();
        let words: Vec<&str> = arg_nodes.iter().map(|(_, text)| *text).collect();
        let secret = crate::secrets::secret_args(config.get("command").and_then(Node::as_str), &words);
        arg_nodes
            .iter()
            .zip(secret)
            .map(|(&(node, text), secret)| self.value_if(secret, node, text, "an argument", Shape::Whole, help))
            .collect()
    }

    /// `value` (written at `node`, under `key`) as the lock keeps it.
    fn value(&mut self, node: &Node, value: &str, key: Option<&str>, what: &str, shape: Shape, help: &str) -> String {
        let secret = crate::secrets::looks_secret(key, value);
        self.value_if(secret, node, value, what, shape, help)
    }

    /// `value` as the lock keeps it, when whether it is a secret was decided with its
    /// neighbours (a command line's arguments, `crate::secrets::secret_args`).
    fn value_if(&mut self, secret: bool, node: &Node, value: &str, what: &str, shape: Shape, help: &str) -> String {
        if !secret {
            return value.to_string();
        }
        let kept = match shape {
            Shape::Whole => crate::secrets::redact(value),
            Shape::Rule => crate::secrets::redact_rule(value),
            Shape::Words => crate::secrets::redact_words(value).unwrap_or_else(|| crate::secrets::redact(value)),
        };
        self.sink
            .report(
                &crate::rules::literal_secret::RULE,
                node.span,
                format!("{}: {what} holds what looks like a literal secret", self.owner),
            )
            .secret()
            .help(format!("{help}; capabilities.lock stores only its SHA-256"));
        kept
    }

    /// A trimmed, non-empty string field.
    fn string(&mut self, fields: &Node, key: &str, shape: Shape) -> Option<String> {
        let node = fields.get(key)?;
        let text = node.as_str().map(str::trim).filter(|s| !s.is_empty())?;
        let help = match shape {
            Shape::Words => "write the secret out of the text; a declaration is committed and shown to the model",
            _ => "a declaration is committed with the repository; keep the secret in the environment",
        };
        Some(self.value(node, text, None, &format!("`{key}`"), shape, help))
    }

    /// A string field as written (a block scalar keeps its line breaks, which the agent listing
    /// keeps too); `None` when blank.
    fn raw_string(&mut self, fields: &Node, key: &str, shape: Shape) -> Option<String> {
        let node = fields.get(key)?;
        let text = node.as_str().filter(|s| !s.trim().is_empty())?;
        Some(self.value(
            node,
            text,
            None,
            &format!("`{key}`"),
            shape,
            "write the secret out of the text; a declaration is committed and shown to the model",
        ))
    }

    /// A list written as a YAML list or as a string: tool lists (`Shape::Rule`) split like
    /// permission rules (commas and spaces outside parentheses), other lists on `separators`.
    fn list(&mut self, fields: &Node, key: &str, separators: &[char], shape: Shape) -> Vec<String> {
        let Some(node) = fields.get(key) else { return Vec::new() };
        let items: Vec<(&Node, String)> = match &node.kind {
            NodeKind::Array(items) => items
                .iter()
                .filter_map(|i| Some((i, i.as_str()?.trim().to_string())))
                .filter(|(_, s)| !s.is_empty())
                .collect(),
            NodeKind::String(s) if shape == Shape::Rule => {
                crate::decl::permissions::split_rule_list(s).into_iter().map(|(_, r)| (node, r.to_string())).collect()
            }
            NodeKind::String(s) => {
                s.split(separators).map(str::trim).filter(|p| !p.is_empty()).map(|p| (node, p.to_string())).collect()
            }
            _ => Vec::new(),
        };
        let help = "a rule with a secret in it is committed with the repository; match a pattern instead";
        items.into_iter().map(|(at, item)| self.value(at, &item, None, &format!("`{key}`"), shape, help)).collect()
    }
}

fn flag(fields: &Node, key: &str) -> Option<bool> {
    match &fields.get(key)?.kind {
        NodeKind::Bool(b) => Some(*b),
        NodeKind::String(s) => crate::schema::bool_like(s),
        _ => None,
    }
}

/// A skill or command file as a command-table entry.
pub fn command(
    sink: &mut Sink<'_>,
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
    let mut keep = Literals { sink, owner: if is_skill { "skill".to_string() } else { "command".to_string() } };
    // `paths`: a trailing `/**` is dropped; all-`**` means no condition (Claude Code's loader).
    let mut paths: Vec<String> = keep
        .list(f, "paths", &[','], Shape::Whole)
        .into_iter()
        .map(|p| p.strip_suffix("/**").map(str::to_string).unwrap_or(p))
        .collect();
    if paths.iter().all(|p| p == "**" || p.is_empty()) {
        paths.clear();
    }
    let description = keep.string(f, "description", Shape::Words);
    // Without a description Claude Code lists the body's first line (the display name and
    // aliases are set by the caller, which knows where the file sits).
    let fallback_description = match description {
        None => {
            let default = match (at.plugin, is_skill) {
                (Some(_), true) => "Plugin skill",
                (Some(_), false) => "Plugin command",
                (None, true) => "Skill",
                (None, false) => "Custom command",
            };
            let body = text.get(body_start..).unwrap_or_default();
            let line = first_body_line(body, default);
            // A secret the cut splits is still kept out: the shown line is hashed whole then.
            let written = body.split('\n').find(|l| !l.trim().is_empty()).unwrap_or_default();
            Some(match crate::secrets::redact_words(&line) {
                Some(kept) => kept,
                None if crate::secrets::redact_words(written).is_some() => crate::secrets::redact(&line),
                None => line,
            })
        }
        Some(_) => None,
    };
    let command = Command {
        name,
        display_name: None,
        aliases: ThinVec::new(),
        shed_aliases: ThinVec::new(),
        origin,
        scope: at.scope,
        form: if is_skill { Form::Skill } else { Form::Command },
        path: path.to_string(),
        plugin: at.plugin.map(str::to_string),
        dynamic: at.dynamic.map(Into::into),
        description,
        fallback_description: fallback_description.map(Into::into),
        when_to_use: keep.string(f, "when_to_use", Shape::Words).map(Into::into),
        argument_hint: keep.string(f, "argument-hint", Shape::Words).map(Into::into),
        // Empty and all-digit argument names are dropped (Claude Code's loader).
        arguments: keep
            .list(f, "arguments", &[' ', '\t', '\n'], Shape::Whole)
            .into_iter()
            .filter(|a| !a.chars().all(|c| c.is_ascii_digit()))
            .collect(),
        allowed_tools: keep.list(f, "allowed-tools", &[], Shape::Rule).into(),
        model: keep.string(f, "model", Shape::Whole).filter(|m| m != "inherit").map(Into::into),
        effort: keep.string(f, "effort", Shape::Whole).map(Into::into),
        context: keep.string(f, "context", Shape::Whole).filter(|c| c == "fork").map(Into::into),
        agent: keep.string(f, "agent", Shape::Whole).map(Into::into),
        paths: paths.into(),
        disable_model_invocation: flag(f, "disable-model-invocation").unwrap_or(false),
        user_invocable: flag(f, "user-invocable").unwrap_or(true),
        content_length: text.len().saturating_sub(body_start),
        shell_injections: crate::decl::markdown::shell_injections(&text[body_start.min(text.len())..])
            .into_iter()
            .map(|(command, _)| command)
            .collect(),
        shadowed_by: None,
        shadows: ThinVec::new(),
    };
    // Point at what identifies the entry to a reader: its `name`, else its `description`.
    let span = fields.and_then(|f| f.get("name").or_else(|| f.get("description"))).map(|n| n.span);
    Decl { path: path.to_string(), span, item: Item::Command(Box::new(command)) }
}

/// An agent file, or `None` when Claude Code would not load it (a local agent needs a
/// `name` and a `description`; a plugin agent loads under its file name regardless, with the
/// fields of frontmatter that does not parse dropped).
pub fn agent(sink: &mut Sink<'_>, name: String, fields: Option<&Node>, at: Placement<'_>, path: &str) -> Option<Decl> {
    let empty = Node { kind: NodeKind::Object(Vec::new()), span: Span::new(0, 0) };
    let f = match fields {
        Some(f) => f,
        None if at.plugin.is_some() => &empty,
        None => return None,
    };
    let present = |key: &str| f.get(key).and_then(Node::as_str).is_some_and(|s| !s.trim().is_empty());
    if at.plugin.is_none() && (!present("name") || !present("description")) {
        return None;
    }
    let mut keep = Literals { sink, owner: format!("agent `{name}`") };
    let agent = Agent {
        scope: at.scope,
        path: path.to_string(),
        plugin: at.plugin.map(str::to_string),
        description: agent_description(&mut keep, f, at.plugin),
        tools: keep.list(f, "tools", &[], Shape::Rule),
        disallowed_tools: keep.list(f, "disallowedTools", &[], Shape::Rule),
        model: keep.string(f, "model", Shape::Whole).filter(|m| m != "inherit"),
        // Claude Code ignores `permissionMode` in a plugin's agent.
        permission_mode: at.plugin.is_none().then(|| keep.string(f, "permissionMode", Shape::Whole)).flatten(),
        memory: keep.string(f, "memory", Shape::Whole),
        isolation: keep.string(f, "isolation", Shape::Whole),
        // Claude Code takes `true` and the string `true` as on, and any other value as off.
        omit_claude_md: f
            .get("omitClaudeMd")
            .is_some_and(|v| matches!(v.kind, NodeKind::Bool(true)) || v.as_str() == Some("true")),
        name,
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

/// An agent's description, as the listing shows it. Claude Code's plugin agent loader trims
/// it and falls back on `when_to_use` (or `when-to-use`), then on `Agent from <plugin>
/// plugin`, so a plugin agent whose frontmatter is empty or does not parse is still listed
/// with a description. A project or user agent's description is kept as written, but for a
/// literal `\n` (a backslash and an `n`), which that loader turns into a line break.
fn agent_description(keep: &mut Literals<'_, '_>, f: &Node, plugin: Option<&str>) -> Option<String> {
    let Some(plugin) = plugin else {
        return keep.raw_string(f, "description", Shape::Words).map(|d| d.replace("\\n", "\n"));
    };
    let mut trimmed = |key: &str| keep.raw_string(f, key, Shape::Words).map(|d| d.trim().to_string());
    trimmed("description")
        .or_else(|| trimmed("when_to_use"))
        .or_else(|| trimmed("when-to-use"))
        .or_else(|| Some(format!("Agent from {plugin} plugin")))
}

/// The handlers of an event map `{Event: [{matcher, hooks: [handler]}]}`.
pub fn hooks(sink: &mut Sink<'_>, map: &Node, at: Placement<'_>, path: &str, out: &mut Vec<Decl>) {
    // An unknown event is ignored by Claude Code (`unknown-hook-event`): nothing runs for it.
    for (event, groups) in
        map.as_object().unwrap_or_default().iter().filter(|(e, _)| super::hooks::EVENTS.contains(&e.name.as_str()))
    {
        let mut keep = Literals { sink: &mut *sink, owner: format!("hook `{}`", event.name) };
        for group in groups.as_array().unwrap_or_default() {
            let matcher = group.get("matcher").and_then(Node::as_str).map(str::to_string);
            for handler in group.get("hooks").and_then(Node::as_array).unwrap_or_default() {
                let Some(kind) = handler.get("type").and_then(Node::as_str) else { continue };
                let run = ["command", "url", "prompt", "tool"].iter().find_map(|k| {
                    let node = handler.get(k)?;
                    let help = "read it from the environment where the hook runs (`$API_TOKEN`)";
                    Some(keep.value(node, node.as_str()?, None, &format!("`{k}`"), Shape::Whole, help))
                });
                let condition = handler.get("if").and_then(|node| {
                    let help = "a rule with a secret in it is committed with the repository; match a pattern instead";
                    Some(keep.value(node, node.as_str()?, None, "`if`", Shape::Rule, help))
                });
                let hook = Hook {
                    event: event.name.clone(),
                    matcher: matcher.clone(),
                    kind: kind.to_string(),
                    run,
                    condition,
                    scope: at.scope,
                    path: path.to_string(),
                    plugin: at.plugin.map(str::to_string),
                };
                out.push(Decl { path: path.to_string(), span: Some(handler.span), item: Item::Hook(Box::new(hook)) });
            }
        }
    }
}

/// `permissions.allow|ask|deny` of a settings file.
pub fn rules(sink: &mut Sink<'_>, permissions: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    let mut keep = Literals { sink, owner: "permissions".to_string() };
    for behavior in [Behavior::Allow, Behavior::Ask, Behavior::Deny] {
        for rule in permissions.get(behavior.as_str()).and_then(Node::as_array).unwrap_or_default() {
            let Some(text) = rule.as_str() else { continue };
            let help = "a rule with a secret in it is committed with the repository; match a pattern instead";
            let article = if behavior == Behavior::Deny { "a" } else { "an" };
            let what = format!("{article} `{}` rule", behavior.as_str());
            let permission = Permission {
                rule: keep.value(rule, text, None, &what, Shape::Rule, help),
                behavior,
                scope,
                path: path.to_string(),
                removes: Vec::new(),
                pre_empted_by: None,
            };
            out.push(Decl { path: path.to_string(), span: Some(rule.span), item: Item::Rule(Box::new(permission)) });
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
            item: Item::EnablePlugin(Box::new(crate::model::decl::EnablePlugin {
                key: key.name.clone(),
                enabled,
                scope,
            })),
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
                    item: Item::Pin(Box::new(crate::model::Pin {
                        of: crate::model::PinOf::Marketplace,
                        name: key.name.clone(),
                        path: path.to_string(),
                        via: kind.to_string(),
                        package,
                        exact,
                        requested: text("ref"),
                    })),
                });
            }
            out.push(Decl {
                path: path.to_string(),
                span: Some(key.span),
                item: Item::KnownMarketplace(Box::new(crate::model::decl::KnownMarketplace {
                    name: key.name.clone(),
                    scope,
                    source: kind.to_string(),
                    path: dir.map(str::to_string),
                    location: None,
                    fields: source.map(text_fields).unwrap_or_default(),
                })),
            });
        }
    }
    mcp_approval(root, scope, path, out);
    switches(root, scope, path, out);
    let sources = |key: &str| root.get(key).map(|l| l.as_array().unwrap_or_default().iter().map(text_fields).collect());
    let (strict, blocked): (Option<Vec<_>>, Option<Vec<_>>) =
        (sources("strictKnownMarketplaces"), sources("blockedMarketplaces"));
    if strict.is_some() || blocked.is_some() {
        out.push(Decl {
            path: path.to_string(),
            span: None,
            item: Item::MarketplacePolicy(Box::new(crate::model::decl::MarketplacePolicy {
                scope,
                strict,
                blocked: blocked.unwrap_or_default(),
            })),
        });
    }
    let allowed = root.get("allowedMcpServers").map(policy_entries);
    let denied = root.get("deniedMcpServers").map(policy_entries).unwrap_or_default();
    // In managed settings, a value Claude Code cannot read is its restrictive `true`.
    let managed_only = root.get("allowManagedMcpServersOnly").and_then(|node| match node.as_bool() {
        Some(on) => Some(on),
        None if scope == Scope::Managed => managed_switch("allowManagedMcpServersOnly", node).0?.as_bool(),
        None => None,
    });
    if allowed.is_some() || !denied.is_empty() || managed_only.is_some() {
        out.push(Decl {
            path: path.to_string(),
            span: None,
            item: Item::McpPolicy(Box::new(crate::model::decl::McpPolicy { scope, allowed, denied, managed_only })),
        });
    }
}

/// The text fields of a marketplace source object, by key.
fn text_fields(source: &Node) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = source
        .as_object()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.name.clone(), v.as_str()?.to_string())))
        .collect();
    fields.sort();
    fields
}

/// The surfaces `strictPluginOnlyCustomization` can lock.
pub(crate) const SURFACES: [&str; 4] = ["skills", "agents", "hooks", "mcp"];

/// A plugin id as Claude Code's schema writes it: `plugin@marketplace`, each part a name.
fn plugin_id(text: &str) -> Option<(&str, &str)> {
    let name = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    };
    let (plugin, marketplace) = text.split_once('@')?;
    (name(plugin) && name(marketplace)).then_some((plugin, marketplace))
}

/// A managed `allowedChannelPlugins` entry as Claude Code reads it: an object with string
/// `plugin` and `marketplace`, or (accepted with a notice) a string `plugin@marketplace`;
/// `None` for an entry it ignores.
pub(crate) fn channel_plugin(entry: &Node) -> Option<(String, String)> {
    if let Some(text) = entry.as_str() {
        return plugin_id(text).map(|(p, m)| (p.to_string(), m.to_string()));
    }
    Some((entry.get("plugin")?.as_str()?.to_string(), entry.get("marketplace")?.as_str()?.to_string()))
}

/// The policy switches of a settings file, each as Claude Code reads its value; the resolver
/// (`lock::resolve::policy`) decides in which scopes each counts. Managed settings are read as
/// Claude Code's tolerant reading reads them (`settings_schema::managed_reading`): a value it
/// cannot read puts a policy key at its restrictive value (`allowManagedHooksOnly: "yes"` is
/// `true`), and `disableAllHooks` is then ignored.
fn switches(root: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    let mut push = |key: &'static str, node: &Node, value: String, why: Option<String>| {
        out.push(Decl {
            path: path.to_string(),
            span: Some(node.span),
            item: Item::Switch(Box::new(crate::model::decl::Switch { scope, key, value, why })),
        });
    };
    let managed = scope == Scope::Managed;
    for key in
        ["allowManagedHooksOnly", "allowManagedPermissionRulesOnly", "disableAllHooks", "disableSkillShellExecution"]
    {
        let Some(node) = root.get(key) else { continue };
        match (node.as_bool(), managed) {
            (Some(on), _) => push(key, node, on.to_string(), None),
            (None, true) => {
                if let (Some(Value::Bool(on)), why) = managed_switch(key, node) {
                    push(key, node, on.to_string(), why);
                }
            }
            (None, false) => {}
        }
    }
    let bypass = "permissions.disableBypassPermissionsMode";
    match root.get("permissions") {
        Some(permissions) if permissions.as_object().is_none() && managed => {
            if let settings_schema::ManagedReading::Locks(locks) =
                settings_schema::managed_reading("permissions", permissions)
            {
                if locks.iter().any(|l| l == "disableBypassPermissionsMode") {
                    let why = format!(
                        "`permissions` is {}, not an object: Claude Code applies the restrictive value of each policy key in it",
                        permissions.type_name()
                    );
                    push(bypass, permissions, "disable".to_string(), Some(why));
                }
            }
        }
        Some(permissions) => {
            if let Some(node) = permissions.get("disableBypassPermissionsMode") {
                match managed_switch(bypass, node) {
                    (Some(Value::String(value)), why) if managed => push(bypass, node, value, why),
                    (_, _) if managed => {}
                    _ => push(bypass, node, node.as_str().unwrap_or_default().to_string(), None),
                }
            }
        }
        None => {}
    }
    // Channels (MCP servers pushing messages into a session): Claude Code reads both keys from
    // managed settings only. `allowedChannelPlugins` replaces the default allowlist; each entry
    // as `plugin@marketplace`.
    if let Some(node) = root.get("channelsEnabled") {
        match (node.as_bool(), managed_switch("channelsEnabled", node)) {
            (Some(on), _) => push("channelsEnabled", node, on.to_string(), None),
            (None, (Some(Value::Bool(on)), why)) if managed => push("channelsEnabled", node, on.to_string(), why),
            _ => {}
        }
    }
    // Read as Claude Code reads managed settings: a `plugin@marketplace` string is an entry, an
    // entry it cannot read is left out, a value that is not a list admits none.
    if let Some(node) = root.get("allowedChannelPlugins") {
        let mut entries: Vec<String> = node
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(|e| channel_plugin(e).map(|(p, m)| format!("{p}@{m}")))
            .collect();
        entries.sort();
        entries.dedup();
        push("allowedChannelPlugins", node, entries.join(", "), None);
    }
    if let Some(node) = root.get("strictPluginOnlyCustomization") {
        // `true` locks every surface, `false` none; a list locks the surfaces it names (an
        // unknown name locks nothing); any other value is taken as `true`.
        let locked: Vec<&str> = match (node.as_bool(), node.as_array()) {
            (Some(false), _) => Vec::new(),
            (_, Some(list)) => SURFACES.into_iter().filter(|s| list.iter().any(|e| e.as_str() == Some(*s))).collect(),
            _ => SURFACES.to_vec(),
        };
        push("strictPluginOnlyCustomization", node, locked.join(", "), None);
    }
}

/// A managed settings boolean or string switch as Claude Code applies it, and why, when that
/// is not the value as written.
fn managed_switch(key: &str, node: &Node) -> (Option<Value>, Option<String>) {
    use settings_schema::ManagedReading;
    let (value, reading) = settings_schema::managed_value(key, node);
    let shown = match &node.kind {
        NodeKind::String(s) => format!("\"{s}\""),
        NodeKind::Number(n) => n.clone(),
        _ => node.type_name().to_string(),
    };
    let why = match reading {
        Some(ManagedReading::Restrictive(_)) => {
            Some(format!("written {shown}, which Claude Code cannot read: it applies the key's restrictive value"))
        }
        Some(ManagedReading::Coerced(_)) => Some(format!("written {shown}, a string Claude Code reads as the boolean")),
        _ => None,
    };
    (value, why)
}

/// Project-server approval switches (`enableAllProjectMcpServers`, `enabledMcpjsonServers`,
/// `disabledMcpjsonServers`): in settings files, and in `~/.claude.json`'s entry of a project.
pub(crate) fn mcp_approval(root: &Node, scope: Scope, path: &str, out: &mut Vec<Decl>) {
    let names = |key: &str| root.get(key).and_then(strings).unwrap_or_default();
    let enable_all = root.get("enableAllProjectMcpServers").and_then(Node::as_bool);
    let (enabled, disabled) = (names("enabledMcpjsonServers"), names("disabledMcpjsonServers"));
    if enable_all.is_some() || !enabled.is_empty() || !disabled.is_empty() {
        out.push(Decl {
            path: path.to_string(),
            span: None,
            item: Item::McpApproval(Box::new(crate::model::decl::McpApproval { scope, enable_all, enabled, disabled })),
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
pub(crate) fn mcp_toggles(project: &Node, path: &str, out: &mut Vec<Decl>) {
    let Some(list) = project.get("disabledMcpServers") else { return };
    let disabled = strings(list).unwrap_or_default();
    if !disabled.is_empty() {
        out.push(Decl {
            path: path.to_string(),
            span: Some(list.span),
            item: Item::McpToggle(Box::new(crate::model::decl::McpToggle { disabled })),
        });
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
    config.as_object()?;
    let transport = match config.get("type").map(|t| t.as_str()) {
        None | Some(Some("stdio")) => Transport::Stdio,
        Some(Some("http" | "streamable-http")) => Transport::Http,
        Some(Some("sse")) => Transport::Sse,
        Some(Some("ws")) => Transport::Ws,
        _ => return None,
    };
    let has = |key: &str| config.get(key).and_then(Node::as_str).is_some();
    if (transport == Transport::Stdio && !has("command")) || (transport != Transport::Stdio && !has("url")) {
        return None;
    }
    let (full_name, normalized) = match at.plugin {
        Some(plugin) => (format!("plugin:{plugin}:{}", name.name), crate::names::plugin_server(plugin, &name.name)),
        None => (name.name.clone(), crate::names::normalize_server(&name.name)),
    };
    let mut keep = Literals { sink, owner: format!("server `{}`", name.name) };
    const REFERENCE: &str = "read it from the environment with a `${VAR}` reference (such as `Bearer ${API_TOKEN}`)";
    let field = |keep: &mut Literals<'_, '_>, key: &str| {
        let node = config.get(key)?;
        Some(keep.value(node, node.as_str()?, None, &format!("`{key}`"), Shape::Whole, REFERENCE))
    };
    let command = field(&mut keep, "command");
    let url = field(&mut keep, "url");
    let cwd = field(&mut keep, "cwd");
    let headers_helper = {
        let help = "have the helper read the secret from the environment or a file outside the repository";
        config
            .get("headersHelper")
            .and_then(|node| Some(keep.value(node, node.as_str()?, None, "`headersHelper`", Shape::Whole, help)))
    };
    let map = |keep: &mut Literals<'_, '_>, field: &str| -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        for (key, value) in config.get(field).and_then(Node::as_object).unwrap_or_default() {
            let Some(text) = value.as_str() else { continue };
            let what = format!("`{field}.{}`", key.name);
            let help = match field {
                "env" => format!("read it from the environment: `\"{0}\": \"${{{0}}}\"`", key.name),
                _ => REFERENCE.to_string(),
            };
            out.insert(key.name.clone(), keep.value(value, text, Some(&key.name), &what, Shape::Whole, &help));
        }
        out
    };
    let env = map(&mut keep, "env");
    let headers = map(&mut keep, "headers");
    let args = keep.args(config, REFERENCE);
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
        cwd,
        timeout: config.get("timeout").and_then(|t| match &t.kind {
            NodeKind::Number(n) => n.parse::<f64>().ok().filter(|v| *v >= 0.0).map(|v| v as u64),
            _ => None,
        }),
        always_load: config.get("alwaysLoad").and_then(Node::as_bool).unwrap_or(false),
        headers_helper,
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

/// A command line that runs (a monitor's), as the lock keeps it: hashed whole when it looks
/// like it holds a literal secret (reported).
pub(crate) fn kept_command(sink: &mut Sink<'_>, node: &Node, command: &str, owner: &str) -> String {
    let mut keep = Literals { sink, owner: owner.to_string() };
    keep.value(
        node,
        command,
        None,
        "`command`",
        Shape::Whole,
        "read it from the environment where the command runs (`$API_TOKEN`)",
    )
}

/// A plugin's LSP server entry (already checked) as the lock keeps it.
pub fn lsp_server(
    sink: &mut Sink<'_>,
    name: &str,
    config: &Node,
    plugin: &str,
    path: &str,
    line: u32,
) -> crate::model::LspServer {
    let mut keep = Literals { sink, owner: format!("LSP server `{name}`") };
    const REFERENCE: &str = "read it from the environment with a `${VAR}` reference";
    let command = config
        .get("command")
        .and_then(|node| Some(keep.value(node, node.as_str()?, None, "`command`", Shape::Whole, REFERENCE)))
        .unwrap_or_default();
    let args = keep.args(config, REFERENCE);
    let mut env = std::collections::BTreeMap::new();
    for (key, value) in config.get("env").and_then(Node::as_object).unwrap_or_default() {
        let Some(text) = value.as_str() else { continue };
        let help = format!("read it from the environment: `\"{0}\": \"${{{0}}}\"`", key.name);
        env.insert(
            key.name.clone(),
            keep.value(value, text, Some(&key.name), &format!("`env.{}`", key.name), Shape::Whole, &help),
        );
    }
    let mut extensions: Vec<String> = config
        .get("extensionToLanguage")
        .and_then(Node::as_object)
        .unwrap_or_default()
        .iter()
        .map(|(k, _)| k.name.clone())
        .collect();
    extensions.sort();
    extensions.dedup();
    crate::model::LspServer {
        name: name.to_string(),
        plugin: plugin.to_string(),
        path: path.to_string(),
        line,
        command,
        args,
        transport: config.get("transport").and_then(Node::as_str).unwrap_or("stdio").to_string(),
        extensions,
        env,
        workspace_folder: config.get("workspaceFolder").and_then(Node::as_str).map(str::to_string),
        ..crate::model::LspServer::default()
    }
}
