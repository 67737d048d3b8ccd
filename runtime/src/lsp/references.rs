//! `textDocument/references`: from a command, skill, agent or MCP server name (where it is
//! declared, or where a file names it) to every place it is declared or named in the files of
//! the check.
//!
//! Declarations come from the check's resolution (every declaration of the name, the one that
//! wins and those it hides); uses are found in the texts the check read: `/name` in a body,
//! `Skill(name)` in a rule or `allowed-tools`, an agent's `skills:`, `agent:`, `Agent(name)`
//! and `Task(name)`, `mcp__server…` names, and `enabledMcpjsonServers`/`disabledMcpjsonServers`
//! entries.

use super::analysis::Analysis;
use super::features::{self, Doc, Texts};
use super::text::Lines;
use capc_compiler::decl::FileKind;
use capc_compiler::frontmatter;
use capc_compiler::walk::{Content, TextSource};
use lsp_types::{Location, ReferenceParams};

/// What a name at the cursor stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A command or skill, by the name a typed `/name` reaches it by.
    Command(String),
    Agent(String),
    /// An MCP server, by its normalized name (as `mcp__<server>__` writes it).
    Server(String),
}

pub(crate) fn references(analysis: &Analysis, texts: &Texts<'_>, params: ReferenceParams) -> Option<Vec<Location>> {
    let at = params.text_document_position;
    let doc = Doc::of(analysis, texts, &at.text_document.uri)?;
    let offset = Lines::new(&doc.text).offset(at.position);
    let target = target_at(analysis, &doc, offset)?;
    let mut out = Vec::new();
    if params.context.include_declaration {
        out.extend(declarations(analysis, &target));
    }
    out.extend(uses(analysis, texts, &target));
    // A declaration's own name can also be found as a use (a `name:` line); keep one of each.
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|l| seen.insert((l.uri.to_string(), l.range.start.line, l.range.start.character)));
    Some(out)
}

/// The name at `offset` in `doc`, and what it stands for.
pub(crate) fn target_at(analysis: &Analysis, doc: &Doc, offset: usize) -> Option<Target> {
    let (start, end) = features::word_at(&doc.text, offset);
    let word = &doc.text[start..end];
    if let Some(server) = features::server_named(word) {
        return Some(Target::Server(server.to_string()));
    }
    let bare = word.trim_end_matches(":*").trim_end_matches('*').trim_end_matches(':');
    if bare.is_empty() {
        return None;
    }
    let before = &doc.text[..start];
    if before.ends_with("Skill(") {
        return Some(Target::Command(bare.trim_start_matches('/').to_string()));
    }
    if before.ends_with("Agent(") || before.ends_with("Task(") {
        return Some(Target::Agent(bare.to_string()));
    }
    if doc.is_markdown() {
        let key = features::frontmatter_at(&doc.text, offset).filter(|fm| !fm.on_key).map(|fm| fm.key);
        return match key {
            Some("name") => {
                let file = analysis.checked.as_ref()?.source(&doc.shown)?;
                let name = file.name.as_deref().unwrap_or(bare).to_string();
                Some(if doc.kind == Some(FileKind::Agent) { Target::Agent(name) } else { Target::Command(name) })
            }
            Some("agent") => Some(Target::Agent(bare.to_string())),
            Some("skills") => Some(Target::Command(bare.to_string())),
            Some(_) => None,
            None if before.ends_with('/') => Some(Target::Command(bare.to_string())),
            None => None,
        };
    }
    // A key of `mcpServers`: the server it declares.
    let literal = features::json_string_at(&doc.text, offset)?;
    let container = literal.container.as_ref().map(|(_, k)| k.as_str());
    let named = (literal.is_key && container == Some("mcpServers"))
        || (!literal.is_key && matches!(container, Some("enabledMcpjsonServers" | "disabledMcpjsonServers")));
    if named {
        let resolution = analysis.checked.as_ref()?.resolution.as_ref()?;
        let server = resolution.lock.mcp_servers.iter().find(|s| s.name == literal.value)?;
        return Some(Target::Server(server.normalized.clone()));
    }
    None
}

/// Every declaration of the target the check resolved: the one that wins and those it hides.
fn declarations(analysis: &Analysis, target: &Target) -> Vec<Location> {
    let Some(resolution) = analysis.checked.as_ref().and_then(|c| c.resolution.as_ref()) else { return Vec::new() };
    match target {
        Target::Command(name) => resolution
            .table
            .iter()
            .filter(|row| {
                row.name == *name || row.display_name.as_deref() == Some(name) || row.aliases.iter().any(|a| a == name)
            })
            .filter_map(|row| name_location(analysis, row.path.as_deref()?))
            .collect(),
        Target::Agent(name) => resolution
            .lock
            .agents
            .iter()
            .filter(|a| a.name == *name)
            .filter_map(|a| name_location(analysis, &a.path))
            .collect(),
        Target::Server(server) => resolution
            .lock
            .mcp_servers
            .iter()
            .filter(|s| s.normalized == *server)
            .filter_map(|s| features::server_location(analysis, &s.path, &s.name))
            .collect(),
    }
}

/// A declaration file's `name:` value, or its start when it has none (a skill is named by
/// its folder).
fn name_location(analysis: &Analysis, shown: &str) -> Option<Location> {
    let url = analysis.url(shown)?;
    let range = text_of(analysis, shown)
        .and_then(|text| {
            let frontmatter::Split::Found(block) = frontmatter::split(&text) else { return None };
            let yaml = &text[block.yaml.start..block.yaml.end];
            let mut at = block.yaml.start;
            for line in yaml.split_inclusive('\n') {
                if let Some(value) = line.strip_prefix("name:") {
                    let start = at + "name:".len() + (value.len() - value.trim_start().len());
                    let end = at + line.trim_end().len();
                    return Some(Lines::new(&text).range(start, end.max(start)));
                }
                at += line.len();
            }
            None
        })
        .unwrap_or_default();
    Some(Location::new(url, range))
}

/// The text the check read for a file, else the open buffer's or the disk's as it is now.
fn text_of(analysis: &Analysis, shown: &str) -> Option<String> {
    if let Some(text) = analysis.text(shown) {
        return Some(text.to_string());
    }
    match analysis.snapshot.read(&capc_compiler::check::locate(&analysis.options, shown)) {
        Content::Text(text) => Some(text),
        _ => None,
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || "_-.:".contains(c)
}

/// Every place a file of the check names the target.
fn uses(analysis: &Analysis, texts: &Texts<'_>, target: &Target) -> Vec<Location> {
    let Some(checked) = analysis.checked.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for file in &checked.files {
        let Some(url) = analysis.url(&file.path) else { continue };
        let Some(text) = texts(&url).or_else(|| text_of(analysis, &file.path)) else { continue };
        let spans = match target {
            Target::Server(server) => server_uses(&text, server, file.kind),
            Target::Command(name) => command_uses(&text, name, file.kind),
            Target::Agent(name) => agent_uses(&text, name, file.kind),
        };
        if spans.is_empty() {
            continue;
        }
        let lines = Lines::new(&text);
        out.extend(spans.into_iter().map(|(s, e)| Location::new(url.clone(), lines.range(s, e))));
    }
    out
}

/// Where `needle` occurs in `text` with no name character right after it (and, when
/// `boundary_before`, none right before).
fn occurrences(text: &str, needle: &str, boundary_before: bool) -> Vec<(usize, usize)> {
    text.match_indices(needle)
        .filter(|(i, _)| {
            let after = text[i + needle.len()..].chars().next();
            let before = text[..*i].chars().next_back();
            let joined_after = after.is_some_and(|c| is_name_char(c) && c != ':' && c != '.');
            let joined_before = boundary_before && before.is_some_and(is_name_char);
            !(joined_after || joined_before)
        })
        .map(|(i, _)| (i, i + needle.len()))
        .collect()
}

fn server_uses(text: &str, server: &str, kind: FileKind) -> Vec<(usize, usize)> {
    let needle = format!("mcp__{server}");
    let mut out: Vec<(usize, usize)> = text
        .match_indices(&needle)
        .filter(|(i, _)| {
            let rest = &text[i + needle.len()..];
            rest.starts_with("__") || !rest.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
        .map(|(i, _)| (i, i + needle.len()))
        .collect();
    if kind == FileKind::Settings {
        // `enabledMcpjsonServers` and `disabledMcpjsonServers` name servers as declared; the
        // normalized name is the declared one for every name written in `[A-Za-z0-9_-]`.
        let quoted = format!("\"{server}\"");
        for (i, _) in text.match_indices(&quoted) {
            let inside = features::json_string_at(text, i + 1);
            let container = inside.as_ref().and_then(|l| l.container.as_ref()).map(|(_, k)| k.as_str());
            if matches!(container, Some("enabledMcpjsonServers" | "disabledMcpjsonServers")) {
                out.push((i + 1, i + 1 + server.len()));
            }
        }
    }
    out.sort_unstable();
    out
}

fn command_uses(text: &str, name: &str, kind: FileKind) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // `Skill(name)`, `Skill(name:*)`, `Skill(name *)`.
    for (s, e) in occurrences(text, &format!("Skill({name}"), true) {
        out.push((s + "Skill(".len(), e));
    }
    let markdown = matches!(kind, FileKind::Skill | FileKind::Command | FileKind::Agent);
    if markdown {
        let body_start = match frontmatter::split(text) {
            frontmatter::Split::Found(block) => {
                // An agent's `skills:` list names skills.
                if kind == FileKind::Agent {
                    out.extend(key_values(text, block.yaml.start, block.yaml.end, "skills", name));
                }
                block.yaml.end
            }
            _ => 0,
        };
        // A typed `/name` in the body.
        let typed = format!("/{name}");
        for (s, e) in occurrences(&text[body_start..], &typed, true) {
            out.push((body_start + s + 1, body_start + e));
        }
    }
    out.sort_unstable();
    out
}

fn agent_uses(text: &str, name: &str, kind: FileKind) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for call in ["Agent(", "Task("] {
        for (s, e) in occurrences(text, &format!("{call}{name}"), true) {
            out.push((s + call.len(), e));
        }
    }
    if matches!(kind, FileKind::Skill | FileKind::Command) {
        if let frontmatter::Split::Found(block) = frontmatter::split(text) {
            out.extend(key_values(text, block.yaml.start, block.yaml.end, "agent", name));
        }
    }
    out.sort_unstable();
    out
}

/// Where `name` stands as a whole word in the value of the frontmatter key `key` (its line and
/// the indented or list lines under it), between `start` and `end` of `text`.
fn key_values(text: &str, start: usize, end: usize, key: &str, name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut in_key = false;
    let mut at = start;
    for line in text[start..end].split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '-']) && !line.trim().is_empty();
        let mut from = 0;
        if top_level {
            in_key = line.split(':').next().map(str::trim) == Some(key);
            from = line.find(':').map_or(line.len(), |c| c + 1);
        }
        if in_key {
            for (s, e) in occurrences(&line[from..], name, true) {
                out.push((at + from + s, at + from + e));
            }
        }
        at += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_are_whole_names() {
        let text =
            "---\nallowed-tools: Skill(deploy), Skill(deploy-all), Skill(deploy:*)\n---\nRun /deploy, not /deployer.\n";
        let found: Vec<&str> =
            command_uses(text, "deploy", FileKind::Command).iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(found, vec!["deploy", "deploy", "deploy"]);
        let rules = r#"{"allow": ["mcp__db__query", "mcp__db", "mcp__dbx__q"], "enabledMcpjsonServers": ["db"]}"#;
        assert_eq!(server_uses(rules, "db", FileKind::Settings).len(), 3);
        let agent = "---\nname: a\nskills:\n  - deploy\n  - other\n---\nbody deploy\n";
        let found = command_uses(agent, "deploy", FileKind::Agent);
        assert_eq!(found.len(), 1);
        assert_eq!(&agent[found[0].0..found[0].1], "deploy");
    }
}
