//! The plugin components beyond skills, commands, agents, hooks and MCP servers, typed as
//! Claude Code's loader types them (measured with `claude plugin validate` and
//! `claude --plugin-dir … plugin list`): monitors (`monitors/monitors.json` or plugin.json's
//! `monitors`), LSP servers (`.lsp.json` or `lspServers`), output styles (`output-styles/`,
//! also a project's and the user's `.claude/output-styles/`), themes (`themes/*.json`),
//! workflows (`workflows/*.js`) and the files of `bin/`.
//!
//! Monitors and LSP servers are strict: one entry Claude Code's schema refuses (a missing or
//! unknown key, a value of the wrong kind) makes it drop the whole file (`monitors load
//! failed`, `lsp-config-invalid`) while the rest of the plugin loads; so a file with an error
//! declares nothing.

use super::FileCx;
use crate::diagnostic::{Severity, Sink};
use crate::model::{Decl, Item, Monitor, OutputStyle, PartKind, Scope};
use crate::node::{Key, Node, NodeKind};
use crate::rules;
use std::collections::BTreeMap;

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: Option<&str>, offset: usize) -> u32 {
    text.map_or(1, |t| t.as_bytes()[..offset.min(t.len())].iter().filter(|b| **b == b'\n').count() as u32 + 1)
}

fn plugin_of<'a>(cx: &FileCx<'a>) -> Option<&'a str> {
    cx.placement.and_then(|p| p.plugin).or(cx.plugin_name)
}

/// Reports the keys of `object` outside `known` as errors that drop the file.
fn strict_keys(sink: &mut Sink<'_>, object: &Node, known: &[&str], what: &str, consequence: &str) -> bool {
    let mut fine = true;
    for (key, _) in object.as_object().unwrap_or_default() {
        if !known.contains(&key.name.as_str()) {
            fine = false;
            let hint = crate::diagnostic::did_you_mean(&key.name, known.iter().copied())
                .map(|s| format!("did you mean `{s}`? "))
                .unwrap_or_default();
            sink.report(&rules::unknown_field::RULE, key.span, format!("{what} has unknown key `{}`", key.name))
                .severity(Severity::Error)
                .help(format!("{hint}Claude Code's schema is strict here: {consequence}"));
        }
    }
    fine
}

fn wrong(sink: &mut Sink<'_>, node: &Node, message: String, consequence: &str) {
    sink.report(&rules::wrong_field_type::RULE, node.span, message)
        .severity(Severity::Error)
        .help(consequence.to_string());
}

/// A non-empty string field; reports what is wrong with it.
fn required_string<'n>(
    sink: &mut Sink<'_>,
    object: &'n Node,
    key: &str,
    what: &str,
    consequence: &str,
) -> Option<&'n str> {
    match object.get(key) {
        None => {
            sink.report(&rules::missing_required_field::RULE, object.span, format!("{what} has no `{key}`"))
                .help(format!("add `{key}`; {consequence}"));
            None
        }
        Some(value) => match value.as_str() {
            Some(text) if !text.is_empty() => Some(text),
            Some(_) => {
                sink.report(&rules::invalid_field_value::RULE, value.span, format!("`{key}` of {what} is empty"))
                    .severity(Severity::Error)
                    .help(consequence.to_string());
                None
            }
            None => {
                wrong(
                    sink,
                    value,
                    format!("`{key}` of {what} must be a string, found {}", value.type_name()),
                    consequence,
                );
                None
            }
        },
    }
}

const MONITOR_KEYS: &[&str] = &["name", "command", "description", "when"];
const MONITORS_DROPPED: &str = "Claude Code drops every monitor of this file (the rest of the plugin loads)";

/// A monitors array (a monitors file's whole value, or plugin.json's inline `monitors`):
/// checked, and declared when Claude Code would load it. Returns how many it declares.
pub(crate) fn check_monitors(sink: &mut Sink<'_>, cx: &FileCx<'_>, value: &Node) -> usize {
    let Some(entries) = value.as_array() else {
        wrong(sink, value, format!("monitors must be an array, found {}", value.type_name()), MONITORS_DROPPED);
        return 0;
    };
    let mut fine = true;
    let mut found: Vec<Monitor> = Vec::new();
    let mut seen: BTreeMap<&str, ()> = BTreeMap::new();
    for entry in entries {
        match monitor(sink, cx, entry, &mut seen) {
            Some(monitor) => found.push(monitor),
            None => fine = false,
        }
    }
    if !fine {
        return 0;
    }
    let (Some(_), Some(plugin)) = (cx.placement, plugin_of(cx)) else { return found.len() };
    let count = found.len();
    declare_monitors(sink, plugin, found, entries);
    count
}

/// Checks one monitor entry (and that no earlier one in `seen` has its name); the monitor,
/// with no plugin or path yet, when Claude Code's schema takes it.
fn monitor<'n>(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    entry: &'n Node,
    seen: &mut BTreeMap<&'n str, ()>,
) -> Option<Monitor> {
    if entry.as_object().is_none() {
        wrong(sink, entry, format!("a monitor must be an object, found {}", entry.type_name()), MONITORS_DROPPED);
        return None;
    }
    let mut fine = strict_keys(sink, entry, MONITOR_KEYS, "a monitor", MONITORS_DROPPED);
    let name = required_string(sink, entry, "name", "a monitor", MONITORS_DROPPED);
    let command = required_string(sink, entry, "command", "a monitor", MONITORS_DROPPED);
    let description = required_string(sink, entry, "description", "a monitor", MONITORS_DROPPED);
    let when = monitor_when(sink, entry);
    if let Some(name) = name {
        if seen.insert(name, ()).is_some() {
            let span = entry.get("name").map_or(entry.span, |n| n.span);
            sink.report(&rules::duplicate_declaration::RULE, span, format!("two monitors are named `{name}`"))
                .severity(Severity::Error)
                .help(format!("monitor names must be unique within a plugin; {MONITORS_DROPPED}"));
            fine = false;
        }
    }
    let (Some(name), Some(command), Some(description), Some(when)) = (name, command, description, when) else {
        return None;
    };
    fine.then(|| Monitor {
        name: name.to_string(),
        plugin: String::new(),
        path: String::new(),
        line: line_of(cx.json_source, entry.span.start),
        command: command.to_string(),
        description: description.to_string(),
        when: when.to_string(),
        ..Monitor::default()
    })
}

/// A monitor's `when`: `always` (also when absent) or `on-skill-invoke:<skill>`; reports
/// anything else.
fn monitor_when<'n>(sink: &mut Sink<'_>, entry: &'n Node) -> Option<&'n str> {
    let Some(w) = entry.get("when") else { return Some("always") };
    match w.as_str() {
        Some("always") => Some("always"),
        Some(text) if text.starts_with("on-skill-invoke:") && text.len() > "on-skill-invoke:".len() => Some(text),
        Some(text) => {
            sink.report(
                &rules::invalid_field_value::RULE,
                w.span,
                format!("monitor `when` is `{text}`, not `always` or `on-skill-invoke:<skill>`"),
            )
            .severity(Severity::Error)
            .help(MONITORS_DROPPED);
            None
        }
        None => {
            wrong(sink, w, format!("monitor `when` must be a string, found {}", w.type_name()), MONITORS_DROPPED);
            None
        }
    }
}

/// Declares each checked monitor for `plugin`, after reporting a command that downloads and
/// runs a script or runs a package it does not pin.
fn declare_monitors(sink: &mut Sink<'_>, plugin: &str, found: Vec<Monitor>, entries: &[Node]) {
    let path = sink.path().to_string();
    for (mut monitor, entry) in found.into_iter().zip(entries) {
        monitor.plugin = plugin.to_string();
        monitor.path = path.clone();
        if let Some(shape) = crate::provenance::download_and_run(&monitor.command) {
            sink.report(
                &rules::download_and_run::RULE,
                entry.get("command").map(|c| c.span),
                format!(
                    "monitor `{}` downloads a script and runs it (`{shape}`) in the background for the whole session",
                    monitor.name
                ),
            )
            .help("ship the script in the plugin and run it as `\"${CLAUDE_PLUGIN_ROOT}\"/…`, or pin what it fetches and check its checksum before running it");
        }
        if let Some(command) = entry.get("command") {
            crate::decl::helpers::unpinned(
                sink,
                command.span,
                &format!("monitor `{}`", monitor.name),
                &monitor.command,
                "in the background for the whole session",
            );
        }
        monitor.command = crate::decl::declare::kept_command(
            sink,
            entry.get("command").unwrap_or(entry),
            &monitor.command,
            &format!("monitor `{}`", monitor.name),
        );
        sink.decls.push(Decl { path: path.clone(), span: Some(entry.span), item: Item::Monitor(Box::new(monitor)) });
    }
}

const LSP_KEYS: &[&str] = &[
    "command",
    "args",
    "extensionToLanguage",
    "transport",
    "env",
    "initializationOptions",
    "settings",
    "workspaceFolder",
    "startupTimeout",
    "shutdownTimeout",
    "requestTimeout",
    "restartOnCrash",
    "maxRestarts",
    "diagnostics",
];
const LSP_DROPPED: &str =
    "Claude Code drops every LSP server of this file (`lsp-config-invalid`; the rest of the plugin loads)";

/// An LSP configuration (a `.lsp.json` file's value, or plugin.json's inline `lspServers`):
/// servers by name. Checked, and declared when Claude Code would load it; returns how many.
pub(crate) fn check_lsp(sink: &mut Sink<'_>, cx: &FileCx<'_>, value: &Node) -> usize {
    let Some(servers) = value.as_object() else {
        wrong(
            sink,
            value,
            format!("an LSP configuration must be an object of servers by name, found {}", value.type_name()),
            LSP_DROPPED,
        );
        return 0;
    };
    let mut fine = true;
    for (key, config) in servers {
        fine &= lsp_server_fine(sink, key, config);
    }
    if !fine {
        return 0;
    }
    let Some(plugin) = plugin_of(cx).filter(|_| cx.placement.is_some()) else { return servers.len() };
    declare_lsp_servers(sink, cx, plugin, servers);
    servers.len()
}

/// Checks one LSP server's configuration; whether Claude Code's schema takes it.
fn lsp_server_fine(sink: &mut Sink<'_>, key: &Key, config: &Node) -> bool {
    if config.as_object().is_none() {
        wrong(
            sink,
            config,
            format!("LSP server `{}` must be an object, found {}", key.name, config.type_name()),
            LSP_DROPPED,
        );
        return false;
    }
    let what = format!("LSP server `{}`", key.name);
    let mut fine = strict_keys(sink, config, LSP_KEYS, &what, LSP_DROPPED);
    fine &= lsp_command_fine(sink, config, &what);
    fine &= lsp_extensions_fine(sink, key, config, &what);
    fine &= lsp_options_fine(sink, config, &what);
    fine
}

/// Checks an LSP server's `command` (a program, no arguments in it) and `args`.
fn lsp_command_fine(sink: &mut Sink<'_>, config: &Node, what: &str) -> bool {
    let mut fine = true;
    match required_string(sink, config, "command", what, LSP_DROPPED) {
        Some(command) if command.contains(' ') && !command.starts_with('/') => {
            let node = config.get("command").unwrap_or(config);
            sink.report(&rules::invalid_field_value::RULE, node.span, format!("`command` of {what} holds a space"))
                .severity(Severity::Error)
                .help(format!("name only the program and put its arguments in `args`; {LSP_DROPPED}"));
            fine = false;
        }
        Some(_) => {}
        None => fine = false,
    }
    if let Some(args) = config.get("args") {
        let ok = args.as_array().is_some_and(|a| a.iter().all(|x| x.as_str().is_some_and(|s| !s.is_empty())));
        if !ok {
            wrong(sink, args, format!("`args` of {what} must be an array of non-empty strings"), LSP_DROPPED);
            fine = false;
        }
    }
    fine
}

/// Checks an LSP server's `extensionToLanguage`: required, not empty, `.ext` to a language id.
fn lsp_extensions_fine(sink: &mut Sink<'_>, key: &Key, config: &Node, what: &str) -> bool {
    let Some(map) = config.get("extensionToLanguage") else {
        sink.report(&rules::missing_required_field::RULE, key.span, format!("{what} has no `extensionToLanguage`"))
            .help(format!(
                "map each file extension it serves to a language id (`{{\".rs\": \"rust\"}}`); {LSP_DROPPED}"
            ));
        return false;
    };
    let pairs = match map.as_object() {
        Some([]) => {
            sink.report(
                &rules::invalid_field_value::RULE,
                map.span,
                format!("`extensionToLanguage` of {what} is empty"),
            )
            .severity(Severity::Error)
            .help(format!("map at least one extension; {LSP_DROPPED}"));
            return false;
        }
        Some(pairs) => pairs,
        None => {
            wrong(
                sink,
                map,
                format!("`extensionToLanguage` of {what} must be an object, found {}", map.type_name()),
                LSP_DROPPED,
            );
            return false;
        }
    };
    let mut fine = true;
    for (ext, language) in pairs {
        if ext.name.len() < 2 || !ext.name.starts_with('.') {
            sink.report(
                &rules::invalid_field_value::RULE,
                ext.span,
                format!("extension `{}` of {what} does not start with `.`", ext.name),
            )
            .severity(Severity::Error)
            .help(format!("write `.{}`; {LSP_DROPPED}", ext.name.trim_start_matches('.')));
            fine = false;
        }
        if language.as_str().is_none_or(str::is_empty) {
            wrong(sink, language, format!("the language of `{}` must be a non-empty string", ext.name), LSP_DROPPED);
            fine = false;
        }
    }
    fine
}

/// Checks an LSP server's optional settings: `transport`, `env`, `workspaceFolder`, the
/// switches and the timeouts.
fn lsp_options_fine(sink: &mut Sink<'_>, config: &Node, what: &str) -> bool {
    let mut fine = true;
    if let Some(transport) = config.get("transport") {
        if !matches!(transport.as_str(), Some("stdio" | "socket")) {
            sink.report(
                &rules::invalid_field_value::RULE,
                transport.span,
                format!("`transport` of {what} is not `stdio` or `socket`"),
            )
            .severity(Severity::Error)
            .help(LSP_DROPPED);
            fine = false;
        }
    }
    if let Some(env) = config.get("env") {
        let ok = env.as_object().is_some_and(|e| e.iter().all(|(_, v)| v.as_str().is_some()));
        if !ok {
            wrong(sink, env, format!("`env` of {what} must be an object of strings"), LSP_DROPPED);
            fine = false;
        }
    }
    if let Some(folder) = config.get("workspaceFolder").filter(|f| f.as_str().is_none()) {
        wrong(
            sink,
            folder,
            format!("`workspaceFolder` of {what} must be a string, found {}", folder.type_name()),
            LSP_DROPPED,
        );
        fine = false;
    }
    for key in ["restartOnCrash", "diagnostics"] {
        if let Some(v) = config.get(key).filter(|v| v.as_bool().is_none()) {
            wrong(sink, v, format!("`{key}` of {what} must be true or false, found {}", v.type_name()), LSP_DROPPED);
            fine = false;
        }
    }
    for (key, min) in [("startupTimeout", 1), ("shutdownTimeout", 1), ("requestTimeout", 1), ("maxRestarts", 0)] {
        let Some(v) = config.get(key) else { continue };
        let ok = match &v.kind {
            NodeKind::Number(n) => n.parse::<i64>().is_ok_and(|n| n >= min && n <= 2_147_483_647),
            _ => false,
        };
        if !ok {
            let want = if min == 0 { "a whole number, 0 or more" } else { "a whole number above 0" };
            wrong(sink, v, format!("`{key}` of {what} must be {want}"), LSP_DROPPED);
            fine = false;
        }
    }
    fine
}

/// Declares each LSP server of a checked configuration for `plugin`, after reporting a command
/// line that runs a package it does not pin.
fn declare_lsp_servers(sink: &mut Sink<'_>, cx: &FileCx<'_>, plugin: &str, servers: &[(Key, Node)]) {
    let path = sink.path().to_string();
    for (key, config) in servers {
        if let Some(command) = config.get("command") {
            let mut line = command.as_str().unwrap_or_default().to_string();
            for arg in config.get("args").and_then(Node::as_array).unwrap_or_default() {
                line.push(' ');
                line.push_str(arg.as_str().unwrap_or_default());
            }
            crate::decl::helpers::unpinned(
                sink,
                command.span,
                &format!("LSP server `{}`", key.name),
                &line,
                "when a file it serves is opened",
            );
        }
        let server = crate::decl::declare::lsp_server(
            sink,
            &key.name,
            config,
            plugin,
            &path,
            line_of(cx.json_source, key.span.start),
        );
        sink.decls.push(Decl { path: path.clone(), span: Some(key.span), item: Item::LspServer(Box::new(server)) });
    }
}

/// A frontmatter switch as Claude Code reads an output style's: a boolean, or a string or
/// number reading `1`, `true`, `yes`, `on` (on) or `0`, `false`, `no`, `off` (off), in any
/// case; `None` for anything else.
fn flag(value: &Node) -> Option<bool> {
    let text = match &value.kind {
        NodeKind::Bool(b) => return Some(*b),
        NodeKind::String(s) => s.trim().to_ascii_lowercase(),
        // Claude Code reads a number as the text JavaScript prints for it: `1.0` reads `1`.
        NodeKind::Number(n) => match n.parse::<f64>() {
            Ok(1.0) => "1".to_string(),
            Ok(0.0) => "0".to_string(),
            _ => n.clone(),
        },
        _ => return None,
    };
    match text.as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// An output style's Markdown: its frontmatter (`name`, `description`,
/// `keep-coding-instructions`, and for a plugin's `force-for-plugin`) and the name Claude Code
/// gives it.
pub(crate) fn check_output_style(sink: &mut Sink<'_>, cx: &FileCx<'_>, text: &str) {
    use crate::frontmatter::{self, Parsed, Split};
    let stem = super::file_name(cx.rel).trim_end_matches(".md").to_string();
    let mut fields: Option<Node> = None;
    let mut body_start = 0;
    match frontmatter::split(text) {
        Split::Found(block) => {
            body_start = block.body_start.min(text.len());
            match frontmatter::parse(text, &block) {
                Parsed::Fields { node, .. } => fields = Some(node),
                Parsed::Invalid { span, message } => {
                    sink.report(
                        &rules::invalid_frontmatter::RULE,
                        span,
                        format!("frontmatter is not valid YAML: {message}"),
                    )
                    .help("Claude Code skips this output style; fix the YAML");
                    return;
                }
                Parsed::NotAMapping { span, found } => {
                    sink.report(
                        &rules::invalid_frontmatter::RULE,
                        span,
                        format!("frontmatter is {found}, not `key: value` lines"),
                    )
                    .help("Claude Code skips this output style");
                    return;
                }
            }
        }
        Split::None | Split::Unclosed { .. } => {}
    }
    let plugin = plugin_of(cx).filter(|_| cx.scope == super::FileScope::Plugin);
    // `force-for-plugin` is read in a plugin's style only.
    let known: Vec<super::fields::Key> = super::fields::OUTPUT_STYLE
        .iter()
        .filter(|k| plugin.is_some() || k.name != "force-for-plugin")
        .copied()
        .collect();
    let mut keep = false;
    let mut force = false;
    if let Some(node) = &fields {
        crate::schema::check_fields(sink, node, &known, "an output style's frontmatter", crate::schema::Unknown::Warn);
        keep = switch(
            sink,
            node,
            "keep-coding-instructions",
            "Claude Code reads another value as not set, and drops its coding instructions",
        );
        if plugin.is_some() {
            force = switch(
                sink,
                node,
                "force-for-plugin",
                "Claude Code reads another value as not set: the style is applied only when `outputStyle` selects it",
            );
        }
        if plugin.is_none() {
            if let Some((key, _)) = node.get_entry("force-for-plugin") {
                sink.report(
                    &rules::ignored_field::RULE,
                    key.span,
                    "`force-for-plugin` applies only to a plugin's output styles",
                )
                .help("Claude Code ignores it here, with a warning");
            }
        }
    }
    let Some(at) = cx.placement else { return };
    let written = fields.as_ref().and_then(|f| f.get("name")).and_then(scalar_text).filter(|n| !n.is_empty());
    let own = written.unwrap_or_else(|| stem.clone());
    let name = match plugin {
        Some(p) => format!("{p}:{own}"),
        None => own,
    };
    let description = fields
        .as_ref()
        .and_then(|f| f.get("description"))
        .and_then(scalar_text)
        .filter(|d| !d.is_empty())
        .or_else(|| text[body_start..].lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string));
    let path = sink.path().to_string();
    let style = OutputStyle {
        name,
        scope: if plugin.is_some() { Scope::Plugin } else { at.scope },
        path: path.clone(),
        plugin: plugin.map(str::to_string),
        description: description.map(|d| crate::secrets::redact_words(&d).unwrap_or(d)),
        keep_coding_instructions: keep,
        force_for_plugin: force,
    };
    sink.decls.push(Decl { path, span: None, item: Item::OutputStyle(Box::new(style)) });
}

/// One of an output style's two switches (`keep-coding-instructions`, `force-for-plugin`),
/// read as Claude Code reads both (see [`flag`]): off when absent, and off with a warning
/// when its value reads as neither on nor off.
fn switch(sink: &mut Sink<'_>, node: &Node, key: &str, help: &'static str) -> bool {
    let Some(v) = node.get(key) else { return false };
    match flag(v) {
        Some(on) => on,
        None => {
            sink.report(
                &rules::wrong_field_type::RULE,
                v.span,
                format!("`{key}` must be true or false (or `yes`/`no`, `on`/`off`, `1`/`0`)"),
            )
            .severity(Severity::Warning)
            .help(help);
            false
        }
    }
}

fn scalar_text(node: &Node) -> Option<String> {
    match &node.kind {
        NodeKind::String(s) => Some(s.trim().to_string()),
        NodeKind::Number(n) => Some(n.clone()),
        NodeKind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A theme file (`themes/<slug>.json`): a JSON object Claude Code lists as `plugin:slug`; one
/// that is not valid JSON or not an object is skipped with a warning.
pub(crate) fn check_theme(sink: &mut Sink<'_>, cx: &FileCx<'_>, value: &Node) {
    if value.as_object().is_none() {
        sink.report(
            &rules::wrong_field_type::RULE,
            value.span,
            format!("a theme must be a JSON object, found {}", value.type_name()),
        )
        .severity(Severity::Warning)
        .help("Claude Code skips this theme");
        return;
    }
    if let Some(base) = value.get("base") {
        let known = ["dark", "light", "dark-daltonized", "light-daltonized", "dark-ansi", "light-ansi"];
        if !base.as_str().is_some_and(|b| known.contains(&b)) {
            sink.report(
                &rules::invalid_field_value::RULE,
                base.span,
                "theme `base` is not one of Claude Code's themes",
            )
            .severity(Severity::Warning)
            .help(format!(
                "use one of {}; Claude Code uses `dark` otherwise",
                known.map(|k| format!("`{k}`")).join(", ")
            ));
        }
    }
    part(sink, cx, PartKind::Theme, super::file_name(cx.rel).trim_end_matches(".json"));
}

/// A workflow script (`workflows/*.js`): Claude Code lists it by the `name` of the
/// `export const meta = { … }` its first statement must be.
pub(crate) fn check_workflow(sink: &mut Sink<'_>, cx: &FileCx<'_>, text: &str) {
    match workflow_name(text) {
        Some(name) => part(sink, cx, PartKind::Workflow, &name),
        // An empty file offers nothing and loses nothing.
        None if text.trim().is_empty() => {}
        None => {
            sink.report(
                &rules::missing_required_field::RULE,
                None,
                "the workflow does not start with `export const meta = { name: …, description: … }`",
            )
            .severity(Severity::Info)
            .help(
                "Claude Code lists no workflow from this file, without a word; make that literal its first statement",
            );
        }
    }
}

/// The `name` of a workflow's leading `export const meta = { name: '…' … }` (a pure literal).
fn workflow_name(text: &str) -> Option<String> {
    let mut rest = text.trim_start();
    // Comments before the first statement.
    loop {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let rest = rest.strip_prefix("export")?.trim_start().strip_prefix("const")?.trim_start();
    let rest = rest.strip_prefix("meta")?.trim_start().strip_prefix('=')?.trim_start().strip_prefix('{')?;
    let at = rest.find("name")?;
    let after = rest[at + 4..].trim_start().trim_start_matches(['"', '\'']).trim_start();
    let after = after.strip_prefix(':')?.trim_start();
    let quote = after.chars().next().filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let value = &after[1..];
    let end = value.find(quote)?;
    Some(value[..end].to_string()).filter(|n| !n.is_empty())
}

fn part(sink: &mut Sink<'_>, cx: &FileCx<'_>, kind: PartKind, own: &str) {
    let (Some(_), Some(plugin)) = (cx.placement, plugin_of(cx)) else { return };
    let path = sink.path().to_string();
    let name = match kind {
        PartKind::Module => own.to_string(),
        _ => format!("{plugin}:{own}"),
    };
    sink.decls.push(Decl {
        path,
        span: None,
        item: Item::PluginPart(Box::new(crate::model::decl::PluginPart { kind, name, plugin: plugin.to_string() })),
    });
}

/// The hooks module a hooks file names in `modules` (the first; Claude Code loads one).
pub(crate) fn declare_module(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) {
    let Some(first) = root.get("modules").and_then(Node::as_array).and_then(|m| m.first()) else { return };
    let spec = first.as_str().or_else(|| first.get("path").and_then(Node::as_str));
    let (Some(spec), Some(root)) = (spec, cx.plugin_root) else { return };
    // Relative to the hooks file's folder; named by its path in the plugin.
    let Some(full) = super::join_rel(super::parent(cx.rel), spec) else { return };
    let inside =
        if root.is_empty() { Some(full.as_str()) } else { full.strip_prefix(root).and_then(|r| r.strip_prefix('/')) };
    if let Some(inside) = inside {
        part(sink, cx, PartKind::Module, inside);
    }
}

/// The keys Claude Code applies from a plugin's settings (its root `settings.json`, or
/// plugin.json's `settings` when that file gives nothing); the rest are dropped.
pub(crate) const PLUGIN_SETTINGS_KEYS: &[&str] = &["agent", "subagentStatusLine"];

/// A plugin's settings object: what Claude Code applies from it, declared; the keys it drops
/// reported.
pub(crate) fn check_plugin_settings(sink: &mut Sink<'_>, cx: &FileCx<'_>, value: &Node) {
    let Some(entries) = value.as_object() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            value.span,
            format!("a plugin's settings must be an object, found {}", value.type_name()),
        )
        .severity(Severity::Warning)
        .help("Claude Code applies none of it");
        return;
    };
    for (key, _) in entries {
        if !PLUGIN_SETTINGS_KEYS.contains(&key.name.as_str()) {
            sink.report(&rules::ignored_field::RULE, key.span, format!("Claude Code does not apply `{}` from a plugin's settings", key.name))
                .help("a plugin's settings give only `agent` and `subagentStatusLine`; put other settings in the user's or project's settings");
        }
    }
    let agent = value.get("agent").and_then(Node::as_str).map(str::to_string);
    let line = value.get("subagentStatusLine");
    let command = line.and_then(|l| l.get("command")).and_then(Node::as_str);
    // A value of the wrong shape makes Claude Code apply none of the object.
    let agent_ok = value.get("agent").is_none_or(|a| a.as_str().is_some());
    let line_ok = line.is_none_or(|l| l.as_object().is_some() && command.is_some());
    if !agent_ok || !line_ok {
        let node = if agent_ok { line.unwrap_or(value) } else { value.get("agent").unwrap_or(value) };
        sink.report(
            &rules::wrong_field_type::RULE,
            node.span,
            "`agent` must be a string and `subagentStatusLine` an object with a `command`",
        )
        .severity(Severity::Warning)
        .help("Claude Code applies none of this plugin's settings");
        return;
    }
    let (Some(_), Some(plugin)) = (cx.placement, plugin_of(cx)) else { return };
    if agent.is_none() && command.is_none() {
        return;
    }
    let subagent_status_line = match (command, line.and_then(|l| l.get("command"))) {
        (Some(text), Some(node)) => Some(crate::decl::declare::kept_command(sink, node, text, "`subagentStatusLine`")),
        _ => None,
    };
    let path = sink.path().to_string();
    sink.decls.push(Decl {
        path,
        span: Some(value.span),
        item: Item::PluginSettings(Box::new(crate::model::decl::PluginSettings {
            plugin: plugin.to_string(),
            agent,
            subagent_status_line,
        })),
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_workflow_is_named_by_its_leading_meta_literal() {
        let name = |t: &str| super::workflow_name(t);
        assert_eq!(name("export const meta = { name: 'triage', description: 'x' }\n"), Some("triage".into()));
        assert_eq!(name("// c\n/* d */\nexport const meta = {\n  \"name\": \"a-b\",\n}"), Some("a-b".into()));
        assert_eq!(name("const x = 1;\nexport const meta = { name: 'late' }"), None);
        assert_eq!(name("export default {}"), None);
    }
}
