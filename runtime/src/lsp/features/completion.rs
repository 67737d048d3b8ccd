//! Completion: frontmatter and JSON keys (the compiler's field tables), and the values Claude
//! Code reads for a key: tools and the check's MCP servers, models, modes, agents.

use super::{frontmatter_at, json_string_at, markdown, Doc, Literal, Texts};
use crate::lsp::analysis::Analysis;
use crate::lsp::text::Lines;
use capc_compiler::decl::fields::{self, Key};
use capc_compiler::decl::{self, FileKind};
use lsp_types::*;

pub(crate) fn completion(
    analysis: &Analysis,
    texts: &Texts<'_>,
    params: CompletionParams,
) -> Option<CompletionResponse> {
    let at = params.text_document_position;
    let doc = Doc::of(analysis, texts, &at.text_document.uri)?;
    let offset = Lines::new(&doc.text).offset(at.position);
    let items = if doc.is_markdown() {
        let fm = frontmatter_at(&doc.text, offset)?;
        if fm.on_key {
            doc.keys()
                .iter()
                .filter(|k| !fm.present.contains(&k.name) || fm.key == k.name)
                .map(|k| key_item(k.name, Some(k.doc), format!("{}: ", k.name)))
                .collect()
        } else {
            values_for(analysis, fm.key)
        }
    } else {
        let literal = json_string_at(&doc.text, offset)?;
        json_items(analysis, &doc, &literal)
    };
    Some(CompletionResponse::Array(items))
}

fn key_item(key: &str, doc: Option<&str>, insert: String) -> CompletionItem {
    CompletionItem {
        label: key.to_string(),
        kind: Some(CompletionItemKind::PROPERTY),
        documentation: doc.map(|d| Documentation::MarkupContent(markdown(d.to_string()))),
        insert_text: Some(insert),
        ..Default::default()
    }
}

fn value_item(value: &str, kind: CompletionItemKind) -> CompletionItem {
    CompletionItem { label: value.to_string(), kind: Some(kind), ..Default::default() }
}

/// Values Claude Code reads for a key (frontmatter or JSON).
fn values_for(analysis: &Analysis, key: &str) -> Vec<CompletionItem> {
    match key {
        "allowed-tools" | "disallowed-tools" | "tools" | "disallowedTools" | "allow" | "ask" | "deny" => {
            tools(analysis)
        }
        "model" => {
            ["sonnet", "opus", "haiku", "inherit"].iter().map(|m| value_item(m, CompletionItemKind::VALUE)).collect()
        }
        "permissionMode" | "defaultMode" => {
            decl::markdown::PERMISSION_MODES.iter().map(|m| value_item(m, CompletionItemKind::ENUM_MEMBER)).collect()
        }
        "effort" => {
            ["low", "medium", "high", "xhigh", "max"].iter().map(|m| value_item(m, CompletionItemKind::VALUE)).collect()
        }
        "context" => vec![value_item("fork", CompletionItemKind::VALUE)],
        "type" => decl::mcp::TYPES.iter().map(|t| value_item(t, CompletionItemKind::ENUM_MEMBER)).collect(),
        "agent" => agents(analysis),
        _ => Vec::new(),
    }
}

/// Built-in tool names, then `mcp__server__` for every server the check declares.
fn tools(analysis: &Analysis) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> =
        capc_grammar::BUILTIN_TOOLS.iter().map(|t| value_item(t, CompletionItemKind::FUNCTION)).collect();
    let mut seen = std::collections::BTreeSet::new();
    if let Some(resolution) = analysis.checked.as_ref().and_then(|c| c.resolution.as_ref()) {
        for server in &resolution.lock.mcp_servers {
            if seen.insert(server.normalized.clone()) {
                let mut item = value_item(&format!("mcp__{}__", server.normalized), CompletionItemKind::MODULE);
                item.detail = Some(format!("MCP server `{}` ({})", server.name, server.path));
                items.push(item);
            }
        }
    }
    items
}

fn agents(analysis: &Analysis) -> Vec<CompletionItem> {
    let Some(resolution) = analysis.checked.as_ref().and_then(|c| c.resolution.as_ref()) else { return Vec::new() };
    resolution
        .lock
        .agents
        .iter()
        .filter(|a| a.shadowed_by.is_none())
        .map(|a| value_item(&a.name, CompletionItemKind::CLASS))
        .collect()
}

fn json_items(analysis: &Analysis, doc: &Doc, literal: &Literal) -> Vec<CompletionItem> {
    let container_key = literal.container.as_ref().map_or("", |(_, k)| k.as_str());
    if !literal.is_key {
        return values_for(analysis, container_key);
    }
    let fields: Vec<&str> = if container_key == "hooks" {
        decl::hooks::EVENTS.to_vec()
    } else if literal.parent.as_deref() == Some("mcpServers") {
        names(fields::MCP_SERVER)
    } else if container_key == "permissions" {
        decl::settings::nested_keys(&["permissions"])
    } else if literal.depth == 1 {
        match doc.kind {
            Some(FileKind::PluginManifest) => names(fields::PLUGIN),
            Some(FileKind::Marketplace) => names(fields::MARKETPLACE),
            Some(FileKind::Settings) => decl::settings::known_keys(),
            Some(FileKind::ProjectMcp | FileKind::PluginMcp) => names(fields::MCP_FILE),
            Some(FileKind::Hooks) => names(fields::HOOKS_FILE),
            _ => Vec::new(),
        }
    } else {
        Vec::new()
    };
    fields.into_iter().map(|k| key_item(k, json_key_doc(doc.kind, literal, k), k.to_string())).collect()
}

fn names(table: &[Key]) -> Vec<&'static str> {
    table.iter().map(|k| k.name).collect()
}

/// capc's text for the JSON key `key` (`decl/fields.rs`): from the table of the object it is
/// in when the scan tells which (a settings key or one nested in it, an MCP server entry, a hook
/// handler, a marketplace's plugin entry, the top level of a plugin, marketplace, MCP or hooks file),
/// else from the first JSON table that has it.
pub(super) fn json_key_doc(kind: Option<FileKind>, literal: &Literal, key: &str) -> Option<&'static str> {
    let container = literal.container.as_ref().map_or("", |(_, k)| k.as_str());
    let parent = literal.parent.as_deref();
    if kind == Some(FileKind::Settings) {
        let path = if literal.depth <= 1 { key.to_string() } else { format!("{container}.{key}") };
        if let Some(entry) = fields::setting_at(&path) {
            return Some(entry.doc);
        }
    }
    let here: &[&[Key]] = if parent == Some("mcpServers") {
        &[fields::MCP_SERVER]
    } else if parent == Some("hooks") && literal.depth > 1 {
        &[fields::HOOK_HANDLER, fields::HOOK_COMMAND, fields::HOOK_HTTP, fields::HOOK_MCP_TOOL, fields::HOOK_PROMPT]
    } else if parent == Some("plugins") && kind == Some(FileKind::Marketplace) {
        &[fields::MARKETPLACE_ENTRY, fields::PLUGIN]
    } else if literal.depth == 1 {
        match kind {
            Some(FileKind::PluginManifest) => &[fields::PLUGIN],
            Some(FileKind::Marketplace) => &[fields::MARKETPLACE],
            Some(FileKind::ProjectMcp | FileKind::PluginMcp) => &[fields::MCP_FILE],
            Some(FileKind::Hooks) => &[fields::HOOKS_FILE],
            _ => &[],
        }
    } else {
        &[]
    };
    let json = [
        fields::PLUGIN,
        fields::MARKETPLACE,
        fields::MARKETPLACE_ENTRY,
        fields::MCP_FILE,
        fields::MCP_SERVER,
        fields::HOOKS_FILE,
        fields::HOOK_GROUP,
        fields::HOOK_HANDLER,
        fields::HOOK_COMMAND,
        fields::HOOK_HTTP,
        fields::HOOK_MCP_TOOL,
        fields::HOOK_PROMPT,
    ];
    here.iter()
        .chain(&json)
        .find_map(|table| fields::find(table, key))
        .map(|k| k.doc)
        .or_else(|| fields::SETTINGS.iter().find(|s| s.path.rsplit('.').next() == Some(key)).map(|s| s.doc))
}

#[cfg(test)]
mod tests {
    use super::super::json_string_at;
    use super::*;

    /// The text of a JSON key at `needle` in `text`, in a file of `kind`.
    fn key_doc(kind: FileKind, text: &str, needle: &str) -> Option<&'static str> {
        let literal = json_string_at(text, text.find(needle).expect("needle") + 1).expect("literal");
        assert!(literal.is_key, "`{needle}` is a key");
        json_key_doc(Some(kind), &literal, &literal.value)
    }

    #[test]
    fn a_json_key_is_explained_by_the_table_of_the_object_it_is_in() {
        let doc = |table: &[Key], name: &str| fields::find(table, name).map(|k| k.doc);
        let plugin = r#"{"name": "p", "mcpServers": {"db": {"type": "stdio"}}}"#;
        assert_eq!(key_doc(FileKind::PluginManifest, plugin, "name"), doc(fields::PLUGIN, "name"));
        assert_eq!(key_doc(FileKind::PluginManifest, plugin, "type"), doc(fields::MCP_SERVER, "type"));
        let marketplace = r#"{"name": "m", "plugins": [{"name": "p", "source": "./p", "version": "1.0.0"}]}"#;
        assert_eq!(key_doc(FileKind::Marketplace, marketplace, "name"), doc(fields::MARKETPLACE, "name"));
        assert_ne!(doc(fields::MARKETPLACE, "name"), doc(fields::PLUGIN, "name"), "two meanings, two texts");
        assert_eq!(key_doc(FileKind::Marketplace, marketplace, "source"), doc(fields::MARKETPLACE_ENTRY, "source"));
        assert_eq!(key_doc(FileKind::Marketplace, marketplace, "version"), doc(fields::PLUGIN, "version"));
        let hooks = r#"{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "http", "url": "https://x"}]}]}}"#;
        assert_eq!(key_doc(FileKind::Hooks, hooks, "url"), doc(fields::HOOK_HTTP, "url"), "not an MCP server's `url`");
        assert_eq!(key_doc(FileKind::Hooks, hooks, "matcher"), doc(fields::HOOK_GROUP, "matcher"));
        let settings = r#"{"model": "opus", "permissions": {"allow": []}}"#;
        assert_eq!(key_doc(FileKind::Settings, settings, "model"), fields::setting_at("model").map(|k| k.doc));
        assert_eq!(
            key_doc(FileKind::Settings, settings, "allow"),
            fields::setting_at("permissions.allow").map(|k| k.doc)
        );
    }
}
