//! Readers for each declaration format. A reader never fails: it records what it could
//! read and reports what is wrong, then the next file is read.

pub mod components;
pub mod declare;
pub mod fields;
pub(crate) mod helpers;
pub mod hooks;
pub mod manifest;
pub mod markdown;
pub mod marketplace;
pub mod mcp;
pub mod permissions;
pub mod plugin;
pub mod settings;
pub mod settings_schema;

use crate::walk::Tree;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where a declaration comes from (managed > user > project; plugins are their own scope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileScope {
    Managed,
    User,
    Project,
    Plugin,
    /// A folder of skills that no project or plugin claims (an installable collection).
    Collection,
}

impl FileScope {
    pub fn as_str(self) -> &'static str {
        match self {
            FileScope::Managed => "managed",
            FileScope::User => "user",
            FileScope::Project => "project",
            FileScope::Plugin => "plugin",
            FileScope::Collection => "collection",
        }
    }
}

/// What kind of file a path was claimed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    Skill,
    Command,
    Agent,
    PluginManifest,
    Marketplace,
    /// `.mcp.json` of a project: the `mcpServers` wrapper is required.
    ProjectMcp,
    /// `.mcp.json` (or a manifest-named MCP file) of a plugin: the flat form is allowed too.
    PluginMcp,
    Hooks,
    Settings,
    /// `~/.claude.json`: its `mcpServers` (user scope) and, in the checked project's entry of
    /// `projects`, `mcpServers` (local scope) and the MCP approval switches.
    UserConfig,
    /// An instruction file: CLAUDE.md, .claude/CLAUDE.md, a rule of `.claude/rules/`,
    /// CLAUDE.local.md, AGENTS.md, or a file an `@` import of one of them names.
    Instructions,
    /// A plugin's monitors file (`monitors/monitors.json`, or the file plugin.json names).
    Monitors,
    /// A plugin's LSP configuration (`.lsp.json`, or a file `lspServers` names).
    LspConfig,
    /// An output style: a plugin's (`output-styles/`), a project's or the user's
    /// (`.claude/output-styles/`).
    OutputStyle,
    /// A plugin's theme (`themes/*.json`).
    Theme,
    /// A plugin's workflow script (`workflows/*.js`).
    Workflow,
    /// A file of a plugin's `bin/` (any bytes: hashed, not parsed).
    PluginBin,
    /// A plugin's root `settings.json`.
    PluginSettings,
}

impl FileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Skill => "skill",
            FileKind::Command => "command",
            FileKind::Agent => "agent",
            FileKind::PluginManifest => "plugin manifest",
            FileKind::Marketplace => "marketplace",
            FileKind::ProjectMcp | FileKind::PluginMcp => "MCP config",
            FileKind::Hooks => "hooks",
            FileKind::Settings => "settings",
            FileKind::UserConfig => "user config",
            FileKind::Instructions => "instructions",
            FileKind::Monitors => "monitors",
            FileKind::LspConfig => "LSP config",
            FileKind::OutputStyle => "output style",
            FileKind::Theme => "theme",
            FileKind::Workflow => "workflow",
            FileKind::PluginBin => "plugin bin",
            FileKind::PluginSettings => "plugin settings",
        }
    }
}

/// The walked tree as a file's reader asks it about other files (is a path a file, a folder):
/// each question is noted, so that a cache (`check::Cache`) knows the reading depends on the
/// folder's listing, not only on the file's own text.
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a> {
    tree: &'a Tree,
    asked: &'a AtomicBool,
}

impl<'a> Listing<'a> {
    /// `tree`, its questions noted in `asked`.
    pub fn new(tree: &'a Tree, asked: &'a AtomicBool) -> Listing<'a> {
        Listing { tree, asked }
    }

    fn ask(&self) -> &'a Tree {
        self.asked.store(true, Ordering::Relaxed);
        self.tree
    }

    pub fn is_file(&self, rel: &str) -> bool {
        self.ask().is_file(rel)
    }

    pub fn is_dir(&self, rel: &str) -> bool {
        self.ask().is_dir(rel)
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.ask().exists(rel)
    }
}

/// What a reader needs beyond the file itself.
#[derive(Debug, Clone, Copy)]
pub struct FileCx<'a> {
    pub tree: Listing<'a>,
    pub rel: &'a str,
    pub scope: FileScope,
    /// For plugin files: the plugin's root directory (relative, `""` for the checked root).
    pub plugin_root: Option<&'a str>,
    /// For project files: the project root, where `$CLAUDE_PROJECT_DIR` points.
    pub project_root: Option<&'a str>,
    /// The file's text when it is JSON, so a diagnostic can point inside a string value.
    pub json_source: Option<&'a str>,
    /// For plugin files: the plugin's namespace.
    pub plugin_name: Option<&'a str>,
    /// Where the file's declarations land in the lock; `None` for files Claude Code does
    /// not load from the checked folder (skill collections, nested projects' settings).
    pub placement: Option<crate::model::Placement<'a>>,
}

impl FileCx<'_> {
    /// The span of `range` (in the decoded value) inside a string node, or the whole node
    /// when the source is not JSON.
    pub(crate) fn sub_span(&self, node: &crate::node::Node, range: std::ops::Range<usize>) -> crate::span::Span {
        self.json_source.and_then(|source| crate::json::string_sub_span(source, node.span, range)).unwrap_or(node.span)
    }
}

/// Declarations a file contributed, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub skills: usize,
    pub commands: usize,
    pub agents: usize,
    pub plugins: usize,
    pub marketplaces: usize,
    pub mcp_servers: usize,
    pub hooks: usize,
    pub settings: usize,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.skills += o.skills;
        self.commands += o.commands;
        self.agents += o.agents;
        self.plugins += o.plugins;
        self.marketplaces += o.marketplaces;
        self.mcp_servers += o.mcp_servers;
        self.hooks += o.hooks;
        self.settings += o.settings;
    }
}

/// Joins a relative directory and a relative path, resolving `.` and `..`; `None` when the
/// result would leave the checked root.
pub(crate) fn join_rel(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The parent directory of a relative path (`""` at the top).
pub fn parent(rel: &str) -> &str {
    rel.rfind('/').map_or("", |i| &rel[..i])
}

/// The last path segment.
pub fn file_name(rel: &str) -> &str {
    rel.rfind('/').map_or(rel, |i| &rel[i + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins() {
        assert_eq!(join_rel("a/b", "./c").as_deref(), Some("a/b/c"));
        assert_eq!(join_rel("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join_rel("", "./"), Some(String::new()));
        assert_eq!(join_rel("a", "../../x"), None);
    }
}
