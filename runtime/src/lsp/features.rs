//! Hover, completion, go-to-definition and symbols, from the newest text of the document and
//! the newest check of the workspace (which names win, which servers are declared).

use super::analysis::Analysis;
use super::text::Lines;
use capc_compiler::decl::fields::{self, Key};
use capc_compiler::decl::{self, FileKind};
use capc_compiler::{frontmatter, names, walk};
use lsp_types::*;
use std::path::{Component, Path, PathBuf};

/// The open text of a document, if the client has it open.
pub(crate) type Texts<'a> = dyn Fn(&Url) -> Option<String> + 'a;

/// A workspace document: its path as the report shows it, its newest text, and its kind.
pub(crate) struct Doc {
    pub(crate) shown: String,
    pub(crate) text: String,
    pub(crate) kind: Option<FileKind>,
}

impl Doc {
    pub(crate) fn of(analysis: &Analysis, texts: &Texts<'_>, url: &Url) -> Option<Doc> {
        let shown = analysis.shown(url)?;
        let text = match texts(url).or_else(|| analysis.text(&shown).map(str::to_string)) {
            Some(text) => text,
            None => match walk::read(&analysis.options.root.join(&shown)) {
                walk::Content::Text(text) => text,
                _ => return None,
            },
        };
        let kind =
            analysis.checked.as_ref().and_then(|c| c.source(&shown)).map(|f| f.kind).or_else(|| kind_by_name(&shown));
        Some(Doc { shown, text, kind })
    }

    pub(crate) fn is_markdown(&self) -> bool {
        matches!(self.kind, Some(FileKind::Skill | FileKind::Command | FileKind::Agent))
    }

    /// The frontmatter table of a Markdown declaration.
    fn keys(&self) -> &'static [Key] {
        if self.kind == Some(FileKind::Agent) {
            fields::AGENT
        } else {
            fields::SKILL
        }
    }
}

/// The kind of a file no check claimed yet (a new file), by its name.
fn kind_by_name(shown: &str) -> Option<FileKind> {
    let name = shown.rsplit('/').next().unwrap_or(shown);
    Some(match name {
        "SKILL.md" => FileKind::Skill,
        "plugin.json" => FileKind::PluginManifest,
        "marketplace.json" => FileKind::Marketplace,
        ".mcp.json" => FileKind::ProjectMcp,
        "hooks.json" => FileKind::Hooks,
        "settings.json" | "settings.local.json" => FileKind::Settings,
        _ if name.ends_with(".md") && shown.contains("agents/") => FileKind::Agent,
        _ if name.ends_with(".md") && shown.contains("commands/") => FileKind::Command,
        _ => return None,
    })
}

/// Where the cursor is in a Markdown file's frontmatter.
pub(crate) struct FrontmatterAt<'t> {
    /// The key of the cursor's line (or, on an indented or list line, of the entry it is in).
    pub(crate) key: &'t str,
    /// The cursor is on the key itself (or on a line that has no `:` yet).
    pub(crate) on_key: bool,
    /// The keys the block already has.
    pub(crate) present: Vec<&'t str>,
}

pub(crate) fn frontmatter_at(text: &str, offset: usize) -> Option<FrontmatterAt<'_>> {
    let frontmatter::Split::Found(block) = frontmatter::split(text) else { return None };
    if offset < block.yaml.start || offset > block.yaml.end {
        return None;
    }
    let yaml = &text[block.yaml.start..block.yaml.end];
    let mut present = Vec::new();
    let mut at = None;
    let mut line_start = block.yaml.start;
    for line in yaml.split_inclusive('\n') {
        let line_end = line_start + line.trim_end_matches(['\n', '\r']).len();
        let top_level = !line.starts_with([' ', '\t', '-']) && !line.trim().is_empty();
        let colon = line.find(':');
        let key = colon.map_or(line.trim_end(), |c| &line[..c]).trim();
        if top_level {
            present.push(key);
        }
        if (line_start..=line_end).contains(&offset) {
            at = Some(if top_level || line.trim().is_empty() {
                let on_key = colon.is_none_or(|c| offset <= line_start + c);
                (key, on_key)
            } else {
                (present.last().copied().unwrap_or(""), false)
            });
        }
        line_start += line.len();
    }
    let (key, on_key) = at.unwrap_or(("", true));
    Some(FrontmatterAt { key, on_key, present })
}

/// The word around `offset`: letters, digits and `_ - . : * /` (tool names, `mcp__…`,
/// `plugin:name`).
pub(crate) fn word_at(text: &str, offset: usize) -> (usize, usize) {
    let is_word = |c: char| c.is_alphanumeric() || "_-.:*@".contains(c);
    let offset = offset.min(text.len());
    let offset = (0..=offset).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    let start = text[..offset].char_indices().rev().take_while(|(_, c)| is_word(*c)).last().map_or(offset, |(i, _)| i);
    let end = text[offset..].char_indices().find(|(_, c)| !is_word(*c)).map_or(text.len(), |(i, _)| offset + i);
    (start, end)
}

/// The `mcp__server` a tool name or rule names, if any.
pub(crate) fn server_named(word: &str) -> Option<&str> {
    let rest = &word[word.find("mcp__")? + "mcp__".len()..];
    let server = rest.split("__").next().unwrap_or(rest);
    let server = server.split(['(', ')', ',', '"', ' ']).next().unwrap_or(server);
    (!server.is_empty()).then_some(server)
}

fn markdown(value: String) -> MarkupContent {
    MarkupContent { kind: MarkupKind::Markdown, value }
}

pub(crate) fn hover(analysis: &Analysis, texts: &Texts<'_>, params: HoverParams) -> Option<Hover> {
    let at = params.text_document_position_params;
    let doc = Doc::of(analysis, texts, &at.text_document.uri)?;
    let lines = Lines::new(&doc.text);
    let offset = lines.offset(at.position);
    let (start, end) = word_at(&doc.text, offset);
    let word = &doc.text[start..end];
    let mut range = Some(lines.range(start, end));
    let rule = (!doc.is_markdown()).then(|| json_string_at(&doc.text, offset)).flatten().filter(|l| {
        !l.is_key
            && l.parent.as_deref() == Some("permissions")
            && matches!(&l.container, Some((b'[', key)) if matches!(key.as_str(), "allow" | "ask" | "deny"))
    });
    let value = if let Some(value) = instruction_hover(analysis, &doc, offset) {
        if let Some((s, e)) = import_at(&doc.text, offset).map(|i| (i.span.start, i.span.end)) {
            range = Some(lines.range(s, e));
        } else {
            range = None;
        }
        value
    } else if let Some(rule) = rule {
        range = Some(lines.range(rule.start, rule.start + rule.value.len()));
        let behavior = rule.container.as_ref().map_or("", |(_, k)| k.as_str());
        super::rules::hover(analysis, &doc.shown, behavior, &rule.value)?
    } else if let Some(server) = server_named(word) {
        server_summary(analysis, server)
    } else if doc.is_markdown() {
        let fm = frontmatter_at(&doc.text, offset)?;
        if fm.on_key {
            let text = fields::find(doc.keys(), fm.key)?.doc;
            format!("**`{}`** ({})\n\n{text}", fm.key, doc.kind.map_or("declaration", FileKind::as_str))
        } else if fm.key == "name" {
            name_summary(analysis, &doc.shown)?
        } else {
            return None;
        }
    } else {
        let literal = json_string_at(&doc.text, offset)?;
        if !literal.is_key {
            return None;
        }
        let text = json_key_doc(doc.kind, &literal, &literal.value)?;
        format!("**`{}`**\n\n{text}", literal.value)
    };
    Some(Hover { contents: HoverContents::Markup(markdown(value)), range })
}

/// What a typed `/name` reaches in this file, and what it hides or is hidden by; for a file
/// no session here loads, why not.
fn name_summary(analysis: &Analysis, shown: &str) -> Option<String> {
    let checked = analysis.checked.as_ref()?;
    let resolution = checked.resolution.as_ref()?;
    let mut out = Vec::new();
    for row in resolution.table.iter().filter(|r| r.path.as_deref() == Some(shown)) {
        out.push(match &row.shadowed_by {
            Some(by) => format!(
                "`/{}` is hidden by `/{}` ({}; {}): typing it runs that one",
                row.name,
                by.name,
                by.path.as_deref().unwrap_or("built-in"),
                by.rule
            ),
            None => format!("`/{}` runs this {} ({} scope)", row.name, row.kind.as_str(), row.scope.as_str()),
        });
    }
    for row in &resolution.table {
        if let Some(by) = row.shadowed_by.as_ref().filter(|by| by.path.as_deref() == Some(shown)) {
            out.push(format!("hides `/{}` ({}; {})", row.name, row.path.as_deref().unwrap_or("built-in"), by.rule));
        }
    }
    for agent in resolution.lock.agents.iter().filter(|a| a.path == shown) {
        out.push(match &agent.shadowed_by {
            Some(by) => format!(
                "agent `{}` is hidden by `{}` ({}; {})",
                agent.name,
                by.name,
                by.path.as_deref().unwrap_or("built-in"),
                by.rule
            ),
            None => format!("agent `{}` ({} scope)", agent.name, agent.scope.as_str()),
        });
        for hidden in &agent.shadows {
            out.push(format!("hides agent `{}` ({})", hidden.name, hidden.path.as_deref().unwrap_or("built-in")));
        }
    }
    if out.is_empty() {
        let file = checked.source(shown)?;
        let name = file.name.as_deref()?;
        let why = checked.why_not_loaded(shown).unwrap_or("nothing here loads it");
        out.push(format!("{} `{name}` does not load in a session here: {why}", file.kind.as_str()));
    }
    Some(out.join("\n\n"))
}

fn server_summary(analysis: &Analysis, server: &str) -> String {
    let declared = servers(analysis, server);
    if declared.is_empty() {
        return format!("no MCP server `{server}` is declared in this check: a rule naming it matches nothing");
    }
    declared
        .iter()
        .map(|s| {
            let how = s.command.as_deref().or(s.url.as_deref()).unwrap_or("");
            format!("MCP server `{}` ({} scope, {}): `{how}`", s.name, s.scope.as_str(), s.path)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn servers<'a>(analysis: &'a Analysis, server: &str) -> Vec<&'a capc_compiler::model::lock::McpServer> {
    let Some(resolution) = analysis.checked.as_ref().and_then(|c| c.resolution.as_ref()) else { return Vec::new() };
    resolution.lock.mcp_servers.iter().filter(|s| s.normalized == server || s.name == server).collect()
}

/// A JSON string literal around the cursor, found by scanning (the file may not parse while
/// it is being typed).
pub(crate) struct Literal {
    pub(crate) value: String,
    /// Where the value starts (after the opening quote).
    pub(crate) start: usize,
    /// Followed by `:`: an object's key.
    pub(crate) is_key: bool,
    /// The innermost array or object around it, and the key of that container.
    pub(crate) container: Option<(u8, String)>,
    /// The key of the container around that one.
    pub(crate) parent: Option<String>,
    pub(crate) depth: usize,
}

pub(crate) fn json_string_at(text: &str, offset: usize) -> Option<Literal> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(u8, String)> = Vec::new();
    let mut last_string = String::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' && bytes[j] != b'\n' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(bytes.len());
                let value = text.get(start..end).unwrap_or_default().to_string();
                let after = text.get(end + 1..).unwrap_or_default().trim_start();
                if (start..=end).contains(&offset) {
                    let n = stack.len();
                    return Some(Literal {
                        value,
                        start,
                        is_key: after.starts_with(':')
                            || (stack.last().is_some_and(|(c, _)| *c == b'{') && !after.starts_with(',')),
                        container: stack.last().cloned(),
                        parent: n.checked_sub(2).map(|k| stack[k].1.clone()),
                        depth: n,
                    });
                }
                last_string = value;
                i = end + 1;
                continue;
            }
            open @ (b'{' | b'[') => stack.push((open, std::mem::take(&mut last_string))),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => last_string.clear(),
            _ => {}
        }
        i += 1;
    }
    None
}

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
fn json_key_doc(kind: Option<FileKind>, literal: &Literal, key: &str) -> Option<&'static str> {
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
fn instruction<'a>(analysis: &'a Analysis, shown: &str) -> Option<&'a capc_compiler::model::Instruction> {
    analysis.checked.as_ref()?.instructions.iter().find(|i| i.path == shown)
}

/// The `@` import of an instruction file's text at `offset`.
fn import_at(text: &str, offset: usize) -> Option<capc_compiler::check::instructions::Import> {
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
fn import_target(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<String> {
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

/// Hover in an instruction file: on an `@` import, when the file it names is sent; elsewhere,
/// when this file is.
fn instruction_hover(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<String> {
    let checked = analysis.checked.as_ref()?;
    instruction(analysis, &doc.shown)?;
    let shown = match import_target(analysis, doc, offset) {
        Some(target) => {
            let Some(text) = capc_compiler::lock::view::explain_instruction(&checked.instructions, &target) else {
                return Some(format!("**`{target}`**: not sent (see the finding on this import, if any)"));
            };
            text
        }
        None => capc_compiler::lock::view::explain_instruction(&checked.instructions, &doc.shown)?,
    };
    Some(shown.lines().map(|l| l.trim()).collect::<Vec<_>>().join("\n\n"))
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
            .and_then(|f| f.name.clone())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_context() {
        let text = "---\nname: x\nallowed-tools:\n  - Bash\nmod\n---\nbody\n";
        let fm = frontmatter_at(text, text.find("Bash").expect("Bash")).expect("in frontmatter");
        assert_eq!((fm.key, fm.on_key), ("allowed-tools", false));
        let fm = frontmatter_at(text, text.find("mod").expect("mod") + 3).expect("in frontmatter");
        assert_eq!((fm.key, fm.on_key), ("mod", true));
        assert_eq!(fm.present, vec!["name", "allowed-tools", "mod"]);
        assert!(frontmatter_at(text, text.find("body").expect("body")).is_none());
    }

    #[test]
    fn json_literal_context() {
        let text = r#"{"mcpServers": {"db": {"comm": 1}}, "permissions": {"allow": ["mcp__db__q"]}}"#;
        let key = json_string_at(text, text.find("comm").expect("comm") + 2).expect("literal");
        assert!(key.is_key);
        assert_eq!(key.parent.as_deref(), Some("mcpServers"));
        let rule = json_string_at(text, text.find("mcp__db").expect("rule") + 3).expect("literal");
        assert!(!rule.is_key);
        assert_eq!(rule.container, Some((b'[', "allow".to_string())));
        assert_eq!(server_named(&rule.value), Some("db"));
    }

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
