//! Go to definition (what a typed `/name`, an agent, an MCP server or a manifest path names)
//! and the links of an instruction file's `@` imports.

use super::{frontmatter_at, json_string_at, server_named, servers, word_at, Doc, Texts};
use crate::lsp::analysis::Analysis;
use crate::lsp::text::Lines;
use capc_compiler::{names, walk};
use lsp_types::*;
use std::path::{Component, Path, PathBuf};

pub(crate) fn definition(
    analysis: &Analysis,
    texts: &Texts<'_>,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let at = params.text_document_position_params;
    let doc = Doc::of(analysis, texts, &at.text_document.uri)?;
    let offset = Lines::new(&doc.text).offset(at.position);
    let (start, end) = word_at(&doc.text, offset);
    let word = &doc.text[start..end];
    if let Some(location) = import_location(analysis, &doc, offset) {
        return Some(GotoDefinitionResponse::Array(vec![location]));
    }
    let locations: Vec<Location> = if let Some(server) = server_named(word) {
        servers(analysis, server).iter().filter_map(|s| server_location(analysis, &s.path, &s.name)).collect()
    } else if doc.is_markdown() {
        let key = frontmatter_at(&doc.text, offset).map(|fm| fm.key);
        let typed = doc.text[..start].ends_with('/');
        match key {
            Some("agent") => agent_location(analysis, word).into_iter().collect(),
            Some("skills") | None if typed || key.is_some() => command_location(analysis, word).into_iter().collect(),
            _ if typed => command_location(analysis, word).into_iter().collect(),
            _ => Vec::new(),
        }
    } else {
        let literal = json_string_at(&doc.text, offset)?;
        let target = (literal.value.starts_with("./") || literal.value.starts_with("../"))
            .then(|| manifest_target(analysis, &doc.shown, &literal.value))
            .flatten()?;
        vec![Location::new(Url::from_file_path(target).ok()?, Range::default())]
    };
    (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
}

/// The instruction file of the lock at `shown`, when the document is one.
pub(super) fn instruction<'a>(analysis: &'a Analysis, shown: &str) -> Option<&'a capc_compiler::model::Instruction> {
    analysis.checked.as_ref()?.instructions.iter().find(|i| i.path == shown)
}

/// The `@` import of an instruction file's text at `offset`.
pub(super) fn import_at(text: &str, offset: usize) -> Option<capc_compiler::check::instructions::Import> {
    let body_start = match capc_compiler::frontmatter::split(text) {
        capc_compiler::frontmatter::Split::Found(block) => block.body_start.min(text.len()),
        _ => 0,
    };
    capc_compiler::check::instructions::scan(text, body_start)
        .imports
        .into_iter()
        .find(|i| i.span.start <= offset && offset <= i.span.end)
}

/// The file an `@` import at `offset` of an instruction file names (relative to the file, in
/// the workspace), as the lock resolved it.
pub(super) fn import_target(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<String> {
    instruction(analysis, &doc.shown)?;
    let import = import_at(&doc.text, offset)?;
    let folder = doc.shown.rsplit_once('/').map_or("", |(f, _)| f);
    let joined = if folder.is_empty() { import.written.clone() } else { format!("{folder}/{}", import.written) };
    let target = normalize(Path::new(&joined)).to_string_lossy().replace('\\', "/");
    Some(target)
}

/// The `@` imports of an instruction file, each a link to the file it names (those that are
/// files of the workspace, where definition goes).
pub(crate) fn document_links(
    analysis: &Analysis,
    texts: &Texts<'_>,
    params: DocumentLinkParams,
) -> Option<Vec<DocumentLink>> {
    let doc = Doc::of(analysis, texts, &params.text_document.uri)?;
    instruction(analysis, &doc.shown)?;
    let body_start = match capc_compiler::frontmatter::split(&doc.text) {
        capc_compiler::frontmatter::Split::Found(block) => block.body_start.min(doc.text.len()),
        _ => 0,
    };
    let lines = Lines::new(&doc.text);
    let links = capc_compiler::check::instructions::scan(&doc.text, body_start)
        .imports
        .into_iter()
        .filter_map(|import| {
            let target = import_location(analysis, &doc, import.span.start)?.uri;
            let range = lines.range(import.span.start, import.span.end);
            Some(DocumentLink { range, target: Some(target), tooltip: None, data: None })
        })
        .collect();
    Some(links)
}

/// Go to the file an `@` import names.
fn import_location(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<Location> {
    let target = import_target(analysis, doc, offset)?;
    let path = analysis.options.root.join(&target);
    if !path.is_file() || !normalize(&path).starts_with(&analysis.options.root) {
        return None;
    }
    Some(Location::new(Url::from_file_path(path).ok()?, Range::default()))
}

/// Where a server's name is written in its file.
pub(crate) fn server_location(analysis: &Analysis, shown: &str, name: &str) -> Option<Location> {
    let url = analysis.url(shown)?;
    let text = match analysis.text(shown) {
        Some(text) => text.to_string(),
        None => match walk::read(&capc_compiler::check::locate(&analysis.options, shown)) {
            walk::Content::Text(text) => text,
            _ => String::new(),
        },
    };
    let quoted = format!("\"{name}\"");
    let range = text
        .match_indices(&quoted)
        .find(|(i, q)| text[i + q.len()..].trim_start().starts_with(':'))
        .map(|(i, q)| Lines::new(&text).range(i, i + q.len()))
        .unwrap_or_default();
    Some(Location::new(url, range))
}

/// The declaration a typed `/name` runs (the table's lookup: exact name, display names,
/// aliases).
fn command_location(analysis: &Analysis, typed: &str) -> Option<Location> {
    let resolution = analysis.checked.as_ref()?.resolution.as_ref()?;
    let (i, _) = names::lookup(&resolution.table, typed.trim_start_matches('/'))?;
    let path = resolution.table[i].path.as_deref()?;
    Some(Location::new(analysis.url(path)?, Range::default()))
}

fn agent_location(analysis: &Analysis, name: &str) -> Option<Location> {
    let resolution = analysis.checked.as_ref()?.resolution.as_ref()?;
    let agent = resolution.lock.agents.iter().find(|a| a.name == name && a.shadowed_by.is_none())?;
    Some(Location::new(analysis.url(&agent.path)?, Range::default()))
}

/// The file a manifest path names: relative to the plugin (or marketplace) root for
/// `.claude-plugin/*.json`, else to the file's folder; only inside the workspace. A plugin
/// folder stands for its manifest.
fn manifest_target(analysis: &Analysis, shown: &str, value: &str) -> Option<PathBuf> {
    let file = analysis.options.root.join(shown);
    let folder = file.parent()?;
    let base = if folder.file_name().is_some_and(|n| n == ".claude-plugin") { folder.parent()? } else { folder };
    let target = normalize(&base.join(value));
    if !target.starts_with(&analysis.options.root) {
        return None;
    }
    if target.is_dir() {
        for inner in [".claude-plugin/plugin.json", "SKILL.md"] {
            if target.join(inner).is_file() {
                return Some(target.join(inner));
            }
        }
    }
    target.exists().then_some(target)
}

/// `a/./b/../c` as `a/c`, without touching the file system (a link could lead anywhere).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
