//! The read stage's JSON reader: the file parsed (`invalid-json` graded as Claude Code treats
//! each kind), then what its kind holds checked ([`check`]) and, for a file a session here
//! loads, declared ([`declare`]). A new JSON kind is an arm in each.

use super::super::load::parse_json;
use super::reader::{At, Made};
use crate::decl::{self, FileCx, FileKind, FileScope};
use crate::diagnostic::{Severity, Sink};
use crate::model::Item;
use crate::node::Node;
use crate::rules;

/// Reads a JSON declaration file of any kind.
pub(super) fn read(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made) {
    let (kind, text, path) = (at.claim.kind, at.text, at.path);
    let parsed = parse_json(sink, text, kind);
    if matches!(kind, FileKind::Theme | FileKind::PluginSettings) && parsed.is_none() {
        // Claude Code skips a theme it cannot parse, with a warning.
        for d in sink.diagnostics.iter_mut().filter(|d| d.rule == rules::invalid_json::RULE.id) {
            d.severity(Severity::Warning);
        }
    }
    if kind == FileKind::Settings && parsed.is_none() && text.trim().is_empty() {
        // Claude Code reads an empty settings file as no settings, without a word.
        for d in sink.diagnostics.iter_mut().filter(|d| d.rule == rules::invalid_json::RULE.id) {
            d.severity(crate::diagnostic::Severity::Warning)
                .help("Claude Code reads an empty settings file as no settings; write `{}` or delete it");
        }
    }
    // A settings file Claude Code refuses whole (not JSON, not an object) declares
    // nothing, and its errors do not stop `capc lock`: the lock records it as not
    // loaded, with the words of Claude Code's notice.
    let refused = (kind == FileKind::Settings && cx.placement.is_some())
        .then(|| decl::settings::refused_whole(text, parsed.as_ref()))
        .flatten();
    if let Some(message) = refused {
        let why = format!("Claude Code refuses this settings file: {message}");
        made.not_loaded.get_or_insert_with(|| (path.to_string(), why));
        made.decls.push(crate::model::Decl {
            path: path.to_string(),
            span: None,
            item: crate::model::Item::SettingsNotLoaded(Box::new(crate::model::SettingsNotLoaded {
                path: path.to_string(),
                key: String::new(),
                message: message.to_string(),
            })),
        });
    }
    if let Some(node) = parsed {
        check(sink, cx, at, made, &node);
        if cx.placement.is_some() {
            declare(sink, cx, at, made, &node);
        }
    }
}

/// What a JSON file of each kind holds, checked.
fn check(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made, node: &Node) {
    let counts = &mut made.counts;
    match at.claim.kind {
        FileKind::ProjectMcp => counts.mcp_servers = decl::mcp::check_file(sink, cx, node, true),
        FileKind::PluginMcp => counts.mcp_servers = decl::mcp::check_file(sink, cx, node, false),
        FileKind::UserConfig => read_user_config(sink, cx, at, made, node),
        FileKind::Hooks => {
            counts.hooks = decl::hooks::check_file(sink, cx, node);
            if let (Some(root), Some(why)) = (&at.claim.owner.plugin_root, decl::hooks::skips_plugin(node)) {
                made.skips_plugin = Some((at.realm.display(root), why));
            }
        }
        FileKind::Settings => counts.hooks = decl::settings::check(sink, cx, node),
        FileKind::Monitors => {
            decl::components::check_monitors(sink, cx, node);
        }
        FileKind::LspConfig => {
            decl::components::check_lsp(sink, cx, node);
        }
        FileKind::Theme => decl::components::check_theme(sink, cx, node),
        FileKind::PluginSettings => decl::components::check_plugin_settings(sink, cx, node),
        _ => {}
    }
}

/// `~/.claude.json`: the user's servers, and this project's own (local scope).
fn read_user_config(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made, node: &Node) {
    let path = at.path;
    if let Some(servers) = node.get("mcpServers") {
        made.counts.mcp_servers = decl::mcp::check_servers(sink, cx, servers, "`mcpServers`", false);
    }
    // Local scope: this project's own servers (`claude mcp add`'s default).
    let projects = node.get("projects");
    let project = at.project_keys.iter().find_map(|k| projects?.get(k));
    if let (Some(project), Some(_)) = (project, cx.placement) {
        use crate::model::Scope as L;
        crate::decl::declare::mcp_approval(project, L::Local, path, &mut made.decls);
        crate::decl::declare::mcp_toggles(project, path, &mut made.decls);
    }
    if let Some(servers) = project.and_then(|p| p.get("mcpServers")) {
        let placement = cx.placement.map(|at| crate::model::Placement { scope: crate::model::Scope::Local, ..at });
        let local_cx = FileCx { placement, ..*cx };
        made.counts.mcp_servers +=
            decl::mcp::check_servers(sink, &local_cx, servers, "`projects[…].mcpServers`", false);
    }
}

/// What a JSON file a session here loads declares.
fn declare(sink: &mut Sink<'_>, cx: &FileCx<'_>, at: &At<'_>, made: &mut Made, node: &Node) {
    let Some(placed) = cx.placement else { return };
    let (path, decls) = (at.path, &mut made.decls);
    match at.claim.kind {
        FileKind::Hooks => {
            if let Some(map) = node.get("hooks") {
                crate::decl::declare::hooks(sink, map, placed, path, decls);
            }
            decl::components::declare_module(sink, cx, node);
        }
        // Refused whole by Claude Code: it declares nothing, and its errors
        // do not stop `capc lock` (a session here does not load the file).
        FileKind::Settings if decl::settings::refused(node, cx.scope == FileScope::Managed).is_some() => {
            let (key, message) = decl::settings::refused(node, cx.scope == FileScope::Managed).unwrap_or_default();
            let why = format!("Claude Code refuses this settings file: `{key}`: {message}");
            made.not_loaded.get_or_insert_with(|| (path.to_string(), why));
            decls.push(crate::model::Decl {
                path: path.to_string(),
                span: None,
                item: crate::model::Item::SettingsNotLoaded(Box::new(crate::model::SettingsNotLoaded {
                    path: path.to_string(),
                    key,
                    message,
                })),
            });
        }
        FileKind::Settings => {
            if let Some(map) = node.get("hooks") {
                crate::decl::declare::hooks(sink, map, placed, path, decls);
            }
            if let Some(permissions) = node.get("permissions") {
                crate::decl::declare::rules(sink, permissions, placed.scope, path, decls);
            }
            crate::decl::declare::settings(node, placed.scope, path, decls);
            let lines = crate::diagnostic::LineIndex::new(at.text);
            let here =
                crate::runs::At { text: at.text, lines: &lines, path, scope: placed.scope, plugin: placed.plugin };
            crate::runs::settings(node, &here, decls);

            for key in ["outputStyle", "agent"] {
                if let Some(value) = node.get(key).filter(|v| v.as_str().is_some_and(|s| !s.is_empty())) {
                    decls.push(crate::model::Decl {
                        path: path.to_string(),
                        span: Some(value.span),
                        item: Item::Selects(Box::new(crate::model::decl::Selects {
                            key,
                            value: value.as_str().unwrap_or_default().to_string(),
                        })),
                    });
                }
            }
        }
        _ => {}
    }
}
