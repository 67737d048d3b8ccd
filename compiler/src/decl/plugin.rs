//! Plugin manifests (`.claude-plugin/plugin.json`). Checks follow `claude plugin validate`,
//! measured: component paths start with `./`, `agents` name `.md` files and `hooks` a
//! `.json` file, named paths exist, recognised fields have their documented types.

use super::manifest::{check_author, check_manifest_fields, check_name, check_semver, is_loadable_name};
use super::{join_rel, FileCx};
use crate::diagnostic::{Diagnostic, Edit, Severity, Sink};
use crate::node::{Node, NodeKind};
use crate::rules;
use crate::schema::{check_fields, field, require, Field, Ty, Unknown};
use crate::span::Span;

/// Keys of `experimental` (measured).
const EXPERIMENTAL_FIELDS: &[Field] = &[
    field("themes", Ty::StringOrStringArray),
    field("monitors", Ty::Any),
    field("outputStyles", Ty::StringOrStringArray),
    field("evals", Ty::Any),
    field("syntaxHighlighting", Ty::Any),
];

/// Component fields: (field, what a file entry must end with, whether a folder is allowed,
/// whether setting it replaces the default folder).
const COMPONENTS: &[(&str, Option<&str>, bool, Option<&str>)] = &[
    ("skills", None, true, None),
    ("commands", None, true, Some("commands")),
    ("agents", Some(".md"), false, Some("agents")),
    ("workflows", None, true, Some("workflows")),
    ("outputStyles", None, true, Some("output-styles")),
    ("hooks", Some(".json"), false, None),
    ("mcpServers", Some(".json"), false, None),
    ("lspServers", Some(".json"), false, None),
];

/// What the rest of the check needs from a plugin.json.
#[derive(Debug, Clone, Default)]
pub struct PluginInfo {
    pub name: Option<String>,
    pub name_span: Option<Span>,
    pub version: Option<String>,
    /// Component paths, resolved against the plugin root, by field.
    pub paths: Vec<(&'static str, String)>,
    /// Inline `mcpServers` / `hooks` were present.
    pub(crate) inline_mcp: usize,
    pub(crate) inline_hooks: usize,
    pub(crate) declares_components: bool,
    /// Well-formed `dependencies` entries: `name` or `name@marketplace`, the version range
    /// Claude Code compares for it (an object entry's `version`), and the entry's span.
    pub dependencies: Vec<(String, Option<String>, Span)>,
}

pub fn check_plugin(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node) -> PluginInfo {
    let mut info = PluginInfo::default();
    if not_an_object(sink, root, "plugin.json").is_some() {
        return info;
    }
    let plugin_root = cx.plugin_root.unwrap_or("");
    check_manifest_fields(sink, root, super::fields::PLUGIN, "plugin.json");
    if require(sink, root, "name", "plugin.json") {
        if let Some(name) = root.get("name") {
            if let Some(s) = name.as_str() {
                check_name(sink, name.span, s, "plugin");
                info.name = Some(s.to_string());
                info.name_span = Some(name.span);
            }
        }
    }
    info.version = root.get("version").and_then(Node::as_str).map(str::to_string);
    if let Some(version) = root.get("version") {
        check_semver(sink, version);
    }
    check_author(sink, root);
    check_components(sink, cx, root, plugin_root, &mut info);
    check_user_config(sink, root);
    for (name, expected) in [("engines", "an object"), ("optionalDependencies", "an array")] {
        if let Some(value) = root.get(name) {
            let ok = if name == "engines" { value.as_object().is_some() } else { value.as_array().is_some() };
            if !ok {
                sink.report(
                    &rules::wrong_field_type::RULE,
                    value.span,
                    format!("`{name}` in plugin.json must be {expected}, found {}", value.type_name()),
                )
                .severity(Severity::Warning)
                .help("Claude Code ignores it at load time");
            }
        }
    }
    check_channels(sink, root);
    info.dependencies = check_dependencies(sink, root);
    if let Some(settings) = root.get("settings").filter(|s| s.as_object().is_some()) {
        let plugin = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
        let placement = Some(crate::model::Placement { scope: crate::model::Scope::Plugin, plugin, dynamic: None });
        let cx = FileCx { plugin_name: plugin, placement, ..*cx };
        crate::decl::components::check_plugin_settings(sink, &cx, settings);
    }
    check_engines(sink, root);
    check_experimental(sink, cx, root, plugin_root, &mut info);
    if let Some(metadata) = root.get("metadata") {
        if let Some(finding) = not_an_object(sink, metadata, "`metadata` in plugin.json") {
            finding.severity(Severity::Warning).help("Claude Code ignores a `metadata` that is not an object");
        }
    }
    for legacy in ["themes", "monitors"] {
        if let Some((key, _)) = root.get_entry(legacy) {
            sink.report(&rules::unknown_field::RULE, key.span, format!("top-level `{legacy}` is deprecated"))
                .help(format!("move it under `experimental.{legacy}`"));
        }
    }
    info
}

/// An inline event map of plugin.json's `hooks` (the value, or an item of its array). It is the
/// map itself, not the hooks file's shape: a `hooks` key in it is an unknown event, which
/// Claude Code ignores, unless it holds guard hooks, which make Claude Code skip the plugin.
fn inline_hooks(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, map: &Node, info: &mut PluginInfo) {
    if let Some(why) = crate::decl::hooks::unloadable_guard(map) {
        let span = map.get("hooks").map_or(map.span, |h| h.span);
        sink.report(
            &rules::unknown_hook_event::RULE,
            span,
            format!("inline `hooks` in plugin.json: {why}, so Claude Code loads nothing of this plugin"),
        )
        .severity(Severity::Error)
        .help("write the events directly under `hooks` (`\"hooks\": {\"PreToolUse\": [ … ]}`), without a second `hooks` level");
        return;
    }
    info.inline_hooks += crate::decl::hooks::check_event_map(sink, cx, map, "inline `hooks`");
    let name = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
    let at = crate::model::Placement { scope: crate::model::Scope::Plugin, plugin: name, dynamic: None };
    let path = sink.path().to_string();
    let mut hooks = Vec::new();
    crate::decl::declare::hooks(sink, map, at, &path, &mut hooks);
    sink.decls.append(&mut hooks);
}

/// Inline LSP servers of plugin.json's `lspServers` (the value, or an item of its array).
fn inline_lsp(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, map: &Node) {
    let plugin = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
    let placement = Some(crate::model::Placement { scope: crate::model::Scope::Plugin, plugin, dynamic: None });
    let cx = FileCx { plugin_name: plugin, placement, ..*cx };
    crate::decl::components::check_lsp(sink, &cx, map);
}

pub(super) fn check_components(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    root: &Node,
    plugin_root: &str,
    info: &mut PluginInfo,
) {
    for &(name, suffix, folder_ok, replaces) in COMPONENTS {
        let Some(value) = root.get(name) else { continue };
        info.declares_components = true;
        let paths: Vec<&Node> = match &value.kind {
            NodeKind::String(_) => vec![value],
            NodeKind::Array(items) => {
                // `hooks` may list inline event maps beside paths (Claude Code loads each).
                if name == "hooks" {
                    for item in items.iter().filter(|i| i.as_object().is_some()) {
                        inline_hooks(sink, cx, root, item, info);
                    }
                }
                if name == "lspServers" {
                    for item in items.iter().filter(|i| i.as_object().is_some()) {
                        inline_lsp(sink, cx, root, item);
                    }
                }
                items.iter().filter(|i| i.as_str().is_some()).collect()
            }
            NodeKind::Object(entries) => {
                match name {
                    "mcpServers" => {
                        let name = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
                        let placement = Some(crate::model::Placement {
                            scope: crate::model::Scope::Plugin,
                            plugin: name,
                            dynamic: None,
                        });
                        let cx = FileCx { plugin_name: name, placement, ..*cx };
                        info.inline_mcp =
                            crate::decl::mcp::check_servers(sink, &cx, value, "inline `mcpServers`", false);
                    }
                    "hooks" => inline_hooks(sink, cx, root, value, info),
                    "lspServers" => inline_lsp(sink, cx, root, value),
                    _ => {}
                }
                let _ = entries;
                continue;
            }
            _ => continue,
        };
        let mut points_into_default = false;
        for path_node in paths {
            let path = path_node.as_str().unwrap_or("");
            if let Some(default) = replaces {
                let named = join_rel(plugin_root, path).unwrap_or_default();
                let default_dir = join_rel(plugin_root, default).unwrap_or_default();
                if named == default_dir || named.starts_with(&format!("{default_dir}/")) {
                    points_into_default = true;
                }
            }
            let field = ComponentField { name, suffix, folder_ok, plugin_root };
            let Some(resolved) = check_component_path(sink, cx, path_node, path, &field) else {
                continue;
            };
            info.paths.push((name, resolved));
        }
        if let Some(default) = replaces {
            let default_dir = join_rel(plugin_root, default).unwrap_or_default();
            if cx.tree.is_dir(&default_dir) && !points_into_default {
                let key_span = root.get_entry(name).map_or(value.span, |(k, _)| k.span);
                sink.report(
                    &rules::ignored_default_folder::RULE,
                    key_span,
                    format!("`{name}` replaces the default `{default}/` folder, so the files in it are not loaded"),
                )
                .help(format!("add `\"./{default}/\"` to `{name}`, or move those files"));
            }
        }
    }
}

/// What a manifest field of component paths accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ComponentField<'a> {
    /// The field, as messages name it (`commands`, `experimental.themes`).
    pub name: &'a str,
    /// The file ending its files must have (`.md`, `.json`), if any.
    pub suffix: Option<&'a str>,
    /// Whether a folder may be named as well as a file.
    pub(crate) folder_ok: bool,
    /// The plugin's folder, which every path must stay inside.
    pub plugin_root: &'a str,
}

/// Checks one manifest path; returns it resolved against the checked root when it is
/// well-formed and inside the plugin.
pub(crate) fn check_component_path(
    sink: &mut Sink<'_>,
    cx: &FileCx<'_>,
    node: &Node,
    path: &str,
    field: &ComponentField<'_>,
) -> Option<String> {
    let ComponentField { name: field_name, suffix, folder_ok, plugin_root } = *field;
    let dot_ok = field_name == "skills" && (path == "." || path == "./");
    if !path.starts_with("./") && !dot_ok {
        let help = if path.starts_with('/') || path.contains(":\\") {
            "absolute paths break once the plugin is installed; write a path relative to the plugin root, starting with `./`".to_string()
        } else {
            format!("write `./{}`", path.trim_start_matches("./"))
        };
        let fix = prefix_fix(cx, node, path, field);
        let diagnostic = sink
            .report(
                &rules::component_path_format::RULE,
                node.span,
                format!("`{field_name}` path `{path}` must start with `./`"),
            )
            .help(help);
        if let Some(edits) = fix {
            diagnostic.with_fix(edits);
        }
        return None;
    }
    if let Some(suffix) = suffix {
        if !path.ends_with(suffix) {
            let mut message = format!("`{field_name}` path `{path}` must name a `{suffix}` file");
            let looks_like_folder = path.ends_with('/') || !super::file_name(path).contains('.');
            if !folder_ok && looks_like_folder {
                message.push_str(", not a folder");
            }
            sink.report(&rules::component_path_format::RULE, node.span, message)
                .help(format!("list each `{suffix}` file, or remove the field to use the default location"));
            return None;
        }
    }
    let resolved = match join_rel(plugin_root, path) {
        Some(r) if plugin_root.is_empty() || r == plugin_root || r.starts_with(&format!("{plugin_root}/")) => r,
        _ => {
            sink.report(
                &rules::component_path_format::RULE,
                node.span,
                format!("`{field_name}` path `{path}` leaves the plugin folder"),
            )
            .help("installed plugins are copied into a cache, so paths must stay inside the plugin root");
            return None;
        }
    };
    if !cx.tree.exists(&resolved) {
        let consequence = if field_name == "mcpServers" {
            "Claude Code skips a missing MCP file without a word, so none of its servers load"
        } else {
            "Claude Code reports a load failure"
        };
        sink.report(
            &rules::missing_component_path::RULE,
            node.span,
            format!("`{field_name}` path `{path}` does not exist"),
        )
        .help(format!("{consequence}; create `{resolved}` or fix the path"));
        return None;
    }
    if field_name == "skills" && cx.tree.is_file(&resolved) {
        let parent_dir = super::parent(path);
        sink.report(
            &rules::component_path_format::RULE,
            node.span,
            format!("`skills` path `{path}` is a file; skills entries are folders"),
        )
        .help(format!("point to the folder that holds SKILL.md: `{parent_dir}`"));
        return None;
    }
    if field_name == "commands" && cx.tree.is_file(&resolved) && !resolved.ends_with(".md") {
        sink.report(
            &rules::component_path_format::RULE,
            node.span,
            format!("`commands` path `{path}` is not a `.md` file"),
        )
        .severity(Severity::Warning)
        .help("Claude Code loads no command from it; list `.md` files or folders");
        return None;
    }
    Some(resolved)
}

/// The edit that writes `./` before a component path, when that is its only problem: the
/// prefixed path passes every other check of [`check_component_path`] (inside the plugin,
/// the right kind of file, present). JSON strings only; an absolute path is never fixed.
fn prefix_fix(cx: &FileCx<'_>, node: &Node, path: &str, field: &ComponentField<'_>) -> Option<Vec<Edit>> {
    let literal = cx.json_source?.get(node.span.start..node.span.end)?;
    if !literal.starts_with('"') || path.is_empty() || path.starts_with(['/', '~']) || path.contains(":\\") {
        return None;
    }
    let fixed = format!("./{path}");
    let mut scratch = Sink::new(cx.rel);
    let fine = check_component_path(&mut scratch, cx, node, &fixed, field).is_some();
    (fine && scratch.diagnostics.is_empty()).then(|| vec![Edit::insert(node.span.start + 1, "./")])
}

fn identifier(key: &str) -> bool {
    key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

const OPTION_FIELDS: &[Field] = &[
    field("type", Ty::String),
    field("title", Ty::String),
    field("description", Ty::String),
    field("sensitive", Ty::Bool),
    field("required", Ty::Bool),
    field("default", Ty::Any),
    field("multiple", Ty::Bool),
    field("min", Ty::Number),
    field("max", Ty::Number),
];

const OPTION_TYPES: &[&str] = &["string", "number", "boolean", "directory", "file"];

/// `userConfig`: identifier keys, each option `{type, title, description, …}` with no other
/// key; Claude Code refuses the manifest otherwise.
fn check_user_config(sink: &mut Sink<'_>, root: &Node) {
    let Some(options) = root.get("userConfig").and_then(Node::as_object) else { return };
    for (key, option) in options {
        if !identifier(&key.name) {
            sink.report(
                &rules::invalid_field_value::RULE,
                key.span,
                format!("`userConfig` key `{}` is not an identifier", key.name),
            )
            .severity(Severity::Error)
            .help("Claude Code refuses the manifest; use letters, digits and `_`, starting with a letter");
        }
        if not_an_object(sink, option, &format!("`userConfig.{}`", key.name)).is_some() {
            continue;
        }
        strict_fields(sink, option, OPTION_FIELDS, &format!("`userConfig.{}`", key.name));
        for required in ["type", "title", "description"] {
            if option.get(required).is_none() {
                sink.report(
                    &rules::missing_required_field::RULE,
                    key.span,
                    format!("`userConfig.{}` has no `{required}`", key.name),
                )
                .help(
                    "each option needs `type`, `title` and `description`; Claude Code refuses the manifest otherwise",
                );
            }
        }
        if let Some(kind) = option.get("type") {
            if let Some(value) = kind.as_str().filter(|v| !OPTION_TYPES.contains(v)) {
                sink.report(&rules::invalid_field_value::RULE, kind.span, format!("`userConfig.{}.type` is `{value}`, not one of `string`, `number`, `boolean`, `directory`, `file`", key.name))
                    .severity(Severity::Error)
                    .help("Claude Code refuses the manifest");
            }
        }
    }
}

/// Like `check_fields`, but unknown keys are errors: the schema is strict there.
fn strict_fields(sink: &mut Sink<'_>, object: &Node, fields: &[Field], what: &str) {
    let before = sink.diagnostics.len();
    check_fields(sink, object, fields, what, Unknown::Warn);
    for d in &mut sink.diagnostics[before..] {
        if d.rule == rules::unknown_field::RULE.id {
            d.severity = Severity::Error;
            d.help = Some(
                format!("{}; here Claude Code refuses the whole manifest", d.help.as_deref().unwrap_or("remove it"))
                    .into(),
            );
        }
    }
}

/// `channels`: `[{server, userConfig?}]`, `server` naming one of this plugin's MCP servers.
fn check_channels(sink: &mut Sink<'_>, root: &Node) {
    let Some(channels) = root.get("channels").and_then(Node::as_array) else { return };
    let servers: Option<Vec<&str>> =
        root.get("mcpServers").and_then(Node::as_object).map(|m| m.iter().map(|(k, _)| k.name.as_str()).collect());
    for channel in channels {
        if not_an_object(sink, channel, "a channel").is_some() {
            continue;
        }
        strict_fields(sink, channel, &[field("server", Ty::String), field("userConfig", Ty::Object)], "a channel");
        match channel.get("server") {
            None => {
                sink.report(&rules::missing_required_field::RULE, channel.span, "a channel has no `server`")
                    .help("name one of the plugin's MCP servers; Claude Code refuses the manifest otherwise");
            }
            Some(server) => {
                if let (Some(name), Some(servers)) = (server.as_str(), &servers) {
                    if !servers.contains(&name) {
                        sink.report(
                            &rules::invalid_field_value::RULE,
                            server.span,
                            format!("channel server `{name}` is not one of this plugin's `mcpServers`"),
                        )
                        .severity(Severity::Error);
                    }
                }
            }
        }
    }
}

/// `dependencies`: each entry a plugin name or `{name, version?, marketplace?}`. Returns the
/// well-formed `dependencies` (not the optional ones) as Claude Code reads them: `name` or
/// `name@marketplace` (a string's `@^range` dropped, as Claude Code drops it), each with the
/// range Claude Code compares: the `version` of an object entry keyed by the same `name` or
/// `name@marketplace` (the last such object wins).
fn check_dependencies(sink: &mut Sink<'_>, root: &Node) -> Vec<(String, Option<String>, Span)> {
    let mut required: Vec<(String, Span)> = Vec::new();
    for field_name in ["dependencies", "optionalDependencies"] {
        // A bad `optionalDependencies` is ignored at load time; a bad `dependencies` fails it.
        let optional = field_name == "optionalDependencies";
        let Some(entries) = root.get(field_name).and_then(Node::as_array) else { continue };
        for entry in entries {
            match &entry.kind {
                NodeKind::String(text) => {
                    if dependency_name(sink, entry, text, field_name, optional) && !optional {
                        required.push((dependency_id(text), entry.span));
                    }
                }
                NodeKind::Object(_) => {
                    check_fields(
                        sink,
                        entry,
                        &[field("name", Ty::String), field("version", Ty::String), field("marketplace", Ty::String)],
                        &format!("a `{field_name}` entry"),
                        Unknown::Warn,
                    );
                    match entry.get("name") {
                        None => {
                            sink.report(
                                &rules::missing_required_field::RULE,
                                entry.span,
                                format!("a `{field_name}` entry has no `name`"),
                            );
                        }
                        Some(name) => {
                            if let Some(text) = name.as_str() {
                                let marketplace = entry.get("marketplace").and_then(Node::as_str);
                                let fine = dependency_name(sink, name, text, field_name, optional)
                                    && marketplace.is_none_or(is_loadable_name);
                                if fine && !optional {
                                    let id = dependency_id(text);
                                    let id = match marketplace {
                                        Some(m) if !id.contains('@') => format!("{id}@{m}"),
                                        _ => id,
                                    };
                                    required.push((id, entry.span));
                                }
                            }
                        }
                    }
                    if let Some(marketplace) = entry.get("marketplace") {
                        if marketplace.as_str().is_some_and(|m| !is_loadable_name(m)) {
                            sink.report(
                                &rules::invalid_field_value::RULE,
                                marketplace.span,
                                format!("`{field_name}` marketplace is not a marketplace name"),
                            )
                            .severity(if optional {
                                Severity::Warning
                            } else {
                                Severity::Error
                            });
                        }
                    }
                }
                _ => {
                    sink.report(
                        &rules::wrong_field_type::RULE,
                        entry.span,
                        format!(
                            "a `{field_name}` entry must be a plugin name or an object, found {}",
                            entry.type_name()
                        ),
                    )
                    .severity(if optional { Severity::Warning } else { Severity::Error });
                }
            }
        }
    }
    let ranges = dependency_ranges(root);
    required
        .into_iter()
        .map(|(id, span)| {
            let range = ranges.iter().rev().find(|(key, _)| *key == id).map(|(_, range)| range.to_string());
            (id, range, span)
        })
        .collect()
}

/// The version ranges of `dependencies` as Claude Code collects them: from object entries
/// with a non-empty string `name` and a string `version`, keyed `name` or `name@marketplace`.
fn dependency_ranges(root: &Node) -> Vec<(String, &str)> {
    let entries = root.get("dependencies").and_then(Node::as_array).unwrap_or_default();
    entries
        .iter()
        .filter_map(|entry| {
            let name = entry.get("name")?.as_str().filter(|n| !n.is_empty())?;
            let version = entry.get("version")?.as_str()?;
            let key = match entry.get("marketplace").and_then(Node::as_str).filter(|m| !m.is_empty()) {
                Some(m) => format!("{name}@{m}"),
                None => name.to_string(),
            };
            Some((key, version))
        })
        .collect()
}

/// A dependency string as Claude Code keys it: `name` or `name@marketplace`, without a
/// trailing `@^range`.
fn dependency_id(text: &str) -> String {
    let mut parts: Vec<&str> = text.splitn(3, '@').collect();
    if parts.last().is_some_and(|p| p.starts_with('^')) {
        parts.pop();
    }
    parts.join("@")
}

const DEPENDENCY_NAME_HELP: &str = "a dependency is `plugin`, `plugin@marketplace`, or `plugin@^1.2` (letters, digits, `.`, `_`, `-`, starting with a letter or digit)";

/// A dependency as a string: `name`, `name@marketplace`, optionally `@^range`.
/// Whether it is one.
fn dependency_name(sink: &mut Sink<'_>, node: &Node, text: &str, field_name: &str, optional: bool) -> bool {
    let valid_name = |s: &str| is_loadable_name(s);
    let mut parts = text.splitn(3, '@');
    let name = parts.next().unwrap_or("");
    let second = parts.next();
    let third = parts.next();
    let ok = valid_name(name)
        && match (second, third) {
            (None, _) => true,
            (Some(m), None) => valid_name(m) || m.starts_with('^'),
            (Some(m), Some(range)) => valid_name(m) && range.starts_with('^'),
        };
    if !ok {
        sink.report(
            &rules::invalid_field_value::RULE,
            node.span,
            format!("`{field_name}` entry `{text}` is not a plugin reference"),
        )
        .severity(if optional { Severity::Warning } else { Severity::Error })
        .help(if optional {
            "Claude Code ignores it".to_string()
        } else {
            format!("Claude Code refuses the manifest; {DEPENDENCY_NAME_HELP}")
        });
    }
    ok
}

/// `engines`: `{"claude-code": ">=2.1.0"}`.
fn check_engines(sink: &mut Sink<'_>, root: &Node) {
    let Some(engines) = root.get("engines").and_then(Node::as_object) else { return };

    for (key, value) in engines {
        if key.name == "claude-code" {
            check_version_range(sink, value, "`engines.claude-code`");
        }
    }
}

fn check_version_range(sink: &mut Sink<'_>, node: &Node, what: &str) {
    let Some(range) = node.as_str() else {
        sink.report(
            &rules::wrong_field_type::RULE,
            node.span,
            format!("{what} must be a string, found {}", node.type_name()),
        );
        return;
    };
    if !is_version_range(range) {
        sink.report(&rules::invalid_field_value::RULE, node.span, format!("{what} `{range}` is not a version range"))
            .severity(Severity::Error)
            .help("write a range such as `>=2.1.0`, `^2.1` or `2.x`; Claude Code refuses the manifest otherwise");
    }
}

/// An npm-style semver range: comparators (`>=1.2.3`, `^1.2`, `~1`, `1.x`, `*`) joined by
/// spaces, ` - ` or `||`.
pub(crate) fn is_version_range(range: &str) -> bool {
    let range = range.trim();
    if range.is_empty() {
        return false;
    }
    range.split("||").all(|alternative| {
        let words: Vec<&str> = alternative.split_whitespace().filter(|w| *w != "-").collect();
        !words.is_empty() && words.iter().all(|w| is_comparator(w))
    })
}

fn is_comparator(word: &str) -> bool {
    let version = word.trim_start_matches(['>', '<', '=', '^', '~', 'v']);
    if version == "*" || version.eq_ignore_ascii_case("x") {
        return true;
    }
    let core = version.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    !core.is_empty()
        && parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && (p.chars().all(|c| c.is_ascii_digit()) || *p == "x" || *p == "X" || *p == "*"))
}

/// A `wrong-field-type` finding on `value` (named `what` in its message) when it is not an
/// object, to grade and explain; `None` when it is one.
fn not_an_object<'s>(sink: &'s mut Sink<'_>, value: &Node, what: &str) -> Option<&'s mut Diagnostic> {
    if value.as_object().is_some() {
        return None;
    }
    Some(sink.report(
        &rules::wrong_field_type::RULE,
        value.span,
        format!("{what} must be an object, found {}", value.type_name()),
    ))
}

/// `experimental`: an object of known keys. Its `themes` and `monitors` (or the deprecated
/// top-level ones, which Claude Code reads when `experimental` has none) are paths that must
/// exist; `monitors` may be the monitors array itself.
fn check_experimental(sink: &mut Sink<'_>, cx: &FileCx<'_>, root: &Node, plugin_root: &str, info: &mut PluginInfo) {
    let experimental = root.get("experimental");
    if let Some(experimental) = experimental {
        if let Some(finding) = not_an_object(sink, experimental, "`experimental`") {
            finding.severity(Severity::Warning).help("Claude Code ignores it");
        } else {
            check_fields(sink, experimental, EXPERIMENTAL_FIELDS, "`experimental`", Unknown::Warn);
        }
    }
    for name in ["themes", "monitors"] {
        let (value, field_name) = match experimental.and_then(|e| e.get(name)) {
            Some(v) => (v, format!("experimental.{name}")),
            None => match root.get(name) {
                Some(v) => (v, name.to_string()),
                None => continue,
            },
        };
        let paths: Vec<&Node> = match &value.kind {
            NodeKind::String(_) => vec![value],
            NodeKind::Array(items) if name == "monitors" && items.iter().any(|i| i.as_object().is_some()) => {
                info.paths.push(("monitors-inline", String::new()));
                let plugin = root.get("name").and_then(Node::as_str).or(cx.plugin_name);
                let placement =
                    Some(crate::model::Placement { scope: crate::model::Scope::Plugin, plugin, dynamic: None });
                let cx = FileCx { plugin_name: plugin, placement, ..*cx };
                crate::decl::components::check_monitors(sink, &cx, value);
                continue;
            }
            NodeKind::Array(items) => items.iter().filter(|i| i.as_str().is_some()).collect(),
            _ => continue,
        };
        for path in paths {
            let text = path.as_str().unwrap_or("");
            let field = ComponentField { name: &field_name, suffix: None, folder_ok: true, plugin_root };
            if let Some(resolved) = check_component_path(sink, cx, path, text, &field) {
                info.paths.push((if name == "themes" { "themes" } else { "monitors" }, resolved));
            }
        }
    }
}
