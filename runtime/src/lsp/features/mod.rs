//! Hover, completion, go-to-definition and symbols, from the newest text of the document and
//! the newest check of the workspace (which names win, which servers are declared): one module
//! per feature (`hover`, `completion`, `navigation` for definitions and `@` import links,
//! `symbols`), and here what they share: the document a request is about and the scanners
//! that find where the cursor is in a text that may not parse while it is being typed.

mod completion;
mod hover;
mod navigation;
mod symbols;

pub(crate) use completion::completion;
pub(crate) use hover::hover;
pub(crate) use navigation::{definition, document_links, server_location};
pub(crate) use symbols::{document_symbols, workspace_symbols};

use super::analysis::Analysis;
use capc_compiler::decl::fields::{self, Key};
use capc_compiler::decl::FileKind;
use capc_compiler::{frontmatter, walk};
use lsp_types::*;

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
        let text = match texts(url).or_else(|| analysis.text(&shown).map(|t| t.to_string())) {
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

pub(super) fn servers<'a>(analysis: &'a Analysis, server: &str) -> Vec<&'a capc_compiler::model::lock::McpServer> {
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
}
