//! Document symbols (a declaration's frontmatter keys, a JSON file's objects) and workspace
//! symbols (every command, skill, agent and MCP server of the check).

use super::{navigation::server_location, Doc, Texts};
use crate::lsp::analysis::Analysis;
use crate::lsp::text::Lines;
use capc_compiler::decl::FileKind;
use capc_compiler::frontmatter;
use lsp_types::*;

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written; `tags` replaces it.
fn symbol(name: String, kind: SymbolKind, range: Range, children: Vec<DocumentSymbol>) -> DocumentSymbol {
    DocumentSymbol {
        name,
        detail: None,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: (!children.is_empty()).then_some(children),
    }
}

pub(crate) fn document_symbols(
    analysis: &Analysis,
    texts: &Texts<'_>,
    params: DocumentSymbolParams,
) -> Option<DocumentSymbolResponse> {
    let doc = Doc::of(analysis, texts, &params.text_document.uri)?;
    let lines = Lines::new(&doc.text);
    let symbols = if doc.is_markdown() {
        let mut keys = Vec::new();
        if let frontmatter::Split::Found(block) = frontmatter::split(&doc.text) {
            let mut at = block.yaml.start;
            for line in doc.text[block.yaml.start..block.yaml.end].split_inclusive('\n') {
                if let Some(colon) = line.find(':').filter(|_| !line.starts_with([' ', '\t', '-', '#'])) {
                    keys.push(symbol(
                        line[..colon].trim().to_string(),
                        SymbolKind::PROPERTY,
                        lines.range(at, at + colon),
                        Vec::new(),
                    ));
                }
                at += line.len();
            }
        }
        let name = analysis
            .checked
            .as_ref()
            .and_then(|c| c.source(&doc.shown))
            .and_then(|f| f.name.as_deref().map(str::to_string))
            .unwrap_or_else(|| doc.shown.clone());
        let kind = if doc.kind == Some(FileKind::Agent) { SymbolKind::CLASS } else { SymbolKind::FUNCTION };
        vec![symbol(name, kind, lines.range(0, doc.text.len()), keys)]
    } else {
        let node = capc_compiler::json::parse(&doc.text).ok()?;
        json_symbols(&node, &lines, 0)
    };
    Some(DocumentSymbolResponse::Nested(symbols))
}

fn json_symbols(node: &capc_compiler::node::Node, lines: &Lines<'_>, depth: usize) -> Vec<DocumentSymbol> {
    let Some(entries) = node.as_object() else { return Vec::new() };
    entries
        .iter()
        .map(|(key, value)| {
            let children = if depth < 2 { json_symbols(value, lines, depth + 1) } else { Vec::new() };
            let kind = if value.as_object().is_some() { SymbolKind::OBJECT } else { SymbolKind::PROPERTY };
            let range = lines.range(key.span.start, value.span.end);
            DocumentSymbol {
                selection_range: lines.range(key.span.start, key.span.end),
                ..symbol(key.name.clone(), kind, range, children)
            }
        })
        .collect()
}

/// Every command, skill, agent and MCP server of the check whose name contains the query
/// (any case), in path order, then the lock's servers.
#[allow(deprecated)] // `SymbolInformation::deprecated` must be written; `tags` replaces it.
pub(crate) fn workspace_symbols(analysis: &Analysis, params: WorkspaceSymbolParams) -> Option<WorkspaceSymbolResponse> {
    let lock = &analysis.checked.as_ref()?.resolution.as_ref()?.lock;
    let query = params.query.to_lowercase();
    let mut out = Vec::new();
    let mut push = |name: &str, kind: SymbolKind, location: Option<Location>, container: Option<&String>| {
        if let Some(location) = location.filter(|_| name.to_lowercase().contains(&query)) {
            out.push(SymbolInformation {
                name: name.to_string(),
                kind,
                tags: None,
                deprecated: None,
                location,
                container_name: container.cloned(),
            });
        }
    };
    // Every skill, command and agent file of the check, loaded here or not.
    for f in &analysis.checked.as_ref()?.files {
        let kind = match f.kind {
            FileKind::Skill | FileKind::Command => SymbolKind::FUNCTION,
            FileKind::Agent => SymbolKind::CLASS,
            _ => continue,
        };
        let Some(name) = &f.name else { continue };
        let location = analysis.url(&f.path).map(|u| Location::new(u, Range::default()));
        push(name, kind, location, None);
    }
    for s in &lock.mcp_servers {
        push(&s.name, SymbolKind::MODULE, server_location(analysis, &s.path, &s.name), s.plugin.as_ref());
    }
    Some(WorkspaceSymbolResponse::Flat(out))
}
