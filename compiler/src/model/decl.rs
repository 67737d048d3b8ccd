//! Declarations as readers find them, before resolution: one `Decl` per skill, command,
//! agent, MCP server, hook handler, permission rule and setting that changes what exists.
//! Readers (`decl/`) push them; the resolver (`lock/`) reads them. This module imports
//! neither: it is the vocabulary both sides share.

use super::lock::{
    Agent, Command, Hook, LspServer, McpServer, Monitor, OutputStyle, Permission, Pin, PluginBin, Run, Scope, Setting,
};
use crate::span::Span;

/// One declaration, with where it is written.
#[derive(Debug, Clone)]
pub struct Decl {
    /// The file, as shown (relative, `~/…`, `<managed>/…`).
    pub path: String,
    /// The name or value in that file, when there is one to point at.
    pub span: Option<Span>,
    pub item: Item,
}

// A check holds one `Decl` per declaration, a few times over on a large tree (read, gathered,
// cached by `capc lsp`): every variant with fields is boxed, so that each is at most this.
const _: () = assert!(std::mem::size_of::<Decl>() <= 64);

#[derive(Debug, Clone)]
pub enum Item {
    Command(Box<Command>),
    Agent(Box<Agent>),
    Server(Box<McpServer>),
    Hook(Box<Hook>),
    Rule(Box<Permission>),
    /// An `enabledPlugins` entry.
    EnablePlugin(Box<EnablePlugin>),
    /// A marketplace settings make known (`extraKnownMarketplaces`).
    KnownMarketplace(Box<KnownMarketplace>),
    /// Managed `strictKnownMarketplaces` (`None` when unset) and `blockedMarketplaces` of one
    /// settings file: each entry a marketplace source's text fields, `source` among them.
    MarketplacePolicy(Box<MarketplacePolicy>),
    /// Project-server approval keys of one settings file.
    McpApproval(Box<McpApproval>),
    /// The MCP policy keys of one settings file.
    McpPolicy(Box<McpPolicy>),
    /// A policy switch a settings file sets (`allowManagedHooksOnly`, `disableAllHooks`, …),
    /// with its value as Claude Code reads it (`true`, `false`, `disable`, or the surfaces
    /// `strictPluginOnlyCustomization` locks).
    Switch(Box<Switch>),
    /// `~/.claude.json`'s per-project `disabledMcpServers`: servers (other than `.mcp.json`
    /// ones) turned off in this project.
    McpToggle(Box<McpToggle>),
    /// A settings file Claude Code refuses whole (nothing else it declares is read).
    SettingsNotLoaded(Box<super::SettingsNotLoaded>),
    /// A plugin folder, its namespace and how it may load.
    Plugin(Box<PluginFolder>),
    /// Something pulled in from outside (a server's package, a remote plugin source, a
    /// declared marketplace) and what pins it.
    Pin(Box<Pin>),
    /// Something Claude Code may run (`crate::runs` turns the lock's entries and these into
    /// `[[run]]`): a hook, server or injection of another declaration with its line, or a
    /// settings helper, status line, agent's own server or frontmatter hook.
    Run(Box<Run>),
    /// A setting that widens what Claude Code may do (`[[setting]]`).
    Setting(Box<Setting>),
    /// A plugin's monitor.
    Monitor(Box<Monitor>),
    /// A plugin's LSP server.
    LspServer(Box<LspServer>),
    /// A file of a plugin's `bin/`.
    PluginBin(Box<PluginBin>),
    /// An output style (a project's, the user's or a plugin's).
    OutputStyle(Box<OutputStyle>),
    /// A plugin's theme, workflow or hooks module: named in its inventory only.
    PluginPart(Box<PluginPart>),
    /// A setting that selects something by name: `outputStyle` (an output style) or `agent`
    /// (the agent the main thread runs as); checked once every name is known.
    Selects(Box<Selects>),
    /// A plugin's root `settings.json` (or plugin.json's `settings`): the keys Claude Code
    /// applies from it while the plugin is enabled.
    PluginSettings(Box<PluginSettings>),
    /// A marketplace: its folder and the plugins it lists, with their folders when local.
    Marketplace(Box<Marketplace>),
}

/// The fields of [`Item::EnablePlugin`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct EnablePlugin {
    pub key: String,
    pub enabled: bool,
    pub scope: Scope,
}

/// The fields of [`Item::MarketplacePolicy`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct MarketplacePolicy {
    pub scope: Scope,
    pub strict: Option<Vec<Vec<(String, String)>>>,
    pub blocked: Vec<Vec<(String, String)>>,
}

/// The fields of [`Item::McpApproval`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct McpApproval {
    pub scope: Scope,
    pub enable_all: Option<bool>,
    pub enabled: Vec<String>,
    pub disabled: Vec<String>,
}

/// The fields of [`Item::McpPolicy`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct McpPolicy {
    pub scope: Scope,
    /// `allowedMcpServers`, when the file sets it (`[]` allows nothing).
    pub allowed: Option<Vec<PolicyEntry>>,
    pub denied: Vec<PolicyEntry>,
    /// `allowManagedMcpServersOnly`.
    pub(crate) managed_only: Option<bool>,
}

/// The fields of [`Item::Switch`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct Switch {
    pub scope: Scope,
    pub key: &'static str,
    pub value: String,
    /// Why the value is not the one written (managed settings Claude Code cannot read as
    /// written: a policy key at its restrictive value, `"true"` read as `true`).
    pub why: Option<String>,
}

/// The fields of [`Item::McpToggle`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct McpToggle {
    pub disabled: Vec<String>,
}

/// The fields of [`Item::PluginPart`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct PluginPart {
    pub kind: PartKind,
    /// As Claude Code names it (`plugin:slug`, `plugin:name`, the module's path).
    pub name: String,
    pub plugin: String,
}

/// The fields of [`Item::Selects`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct Selects {
    pub key: &'static str,
    pub value: String,
}

/// The fields of [`Item::PluginSettings`] (boxed: an `Item` is two words).
#[derive(Debug, Clone)]
pub struct PluginSettings {
    pub plugin: String,
    /// `agent`: the agent this session's main thread runs as.
    pub agent: Option<String>,
    /// `subagentStatusLine.command`: a shell command Claude Code runs for the status line.
    pub(crate) subagent_status_line: Option<String>,
}

/// A marketplace settings make known (`extraKnownMarketplaces`): [`Item::KnownMarketplace`].
#[derive(Debug, Clone)]
pub struct KnownMarketplace {
    pub name: String,
    pub scope: Scope,
    /// `source.source`: `directory`, `github`, `git`, `url`, … (empty when absent).
    pub source: String,
    /// A `directory` source's `path`, as written.
    pub path: Option<String>,
    /// The folder it names, as shown, when it lies in a folder this check reads (set once
    /// every folder is walked).
    pub location: Option<String>,
    /// The source object's text fields as written (`repo`, `url`, `path`, `package`, `ref`,
    /// …), by key: what `strictKnownMarketplaces` and `blockedMarketplaces` match.
    pub fields: Vec<(String, String)>,
}

/// A marketplace: its folder and the plugins it lists, with their folders when local
/// ([`Item::Marketplace`]).
#[derive(Debug, Clone)]
pub struct Marketplace {
    pub name: String,
    pub root: String,
    pub plugins: Vec<(String, Option<String>)>,
    /// Its entries as Claude Code installs them, in order (for `[[marketplace_plugin]]`).
    pub entries: Vec<ListedEntry>,
}

/// The kinds of plugin component recorded by name only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    Theme,
    Workflow,
    Module,
}

/// A marketplace entry: what installing the plugin from the marketplace starts from.
#[derive(Debug, Clone, Default)]
pub struct ListedEntry {
    pub name: String,
    /// The plugin folder, as shown, when the source is a folder that exists.
    pub root: Option<String>,
    /// The source: a folder as written, or a remote kind and place (`github acme/lint`).
    pub source: String,
    pub strict: bool,
    /// The entry's `version`.
    pub version: Option<String>,
}

/// A plugin folder as discovery finds it.
#[derive(Debug, Clone, Default)]
pub struct PluginFolder {
    pub name: String,
    /// The folder, as shown.
    pub root: String,
    /// The marketplace that lists it, or the one whose cache holds it.
    pub marketplace: Option<String>,
    /// Given with the n-th `--plugin-dir` (from 1).
    pub plugin_dir: Option<usize>,
    /// A plugin inside a skills folder (`.claude/skills/<x>/.claude-plugin/`): the scope of
    /// that folder (user or project).
    pub(crate) skills_dir: Option<Scope>,
    /// Why Claude Code refuses its `plugin.json` (it then loads nothing of the plugin).
    pub refused: Option<String>,
    /// The checked folder itself is this plugin (a plugin repository).
    pub at_root: bool,
    /// `plugin.json`'s `version`, else the marketplace entry's.
    pub version: Option<String>,
    /// The version its manifest gives, which a dependency's range is compared with:
    /// `plugin.json`'s `version` (a marketplace entry's only when there is no plugin.json).
    pub(crate) manifest_version: Option<String>,
    /// Its `dependencies`, as Claude Code reads them: `name` or `name@marketplace` (a version
    /// range dropped), each with where plugin.json writes it.
    pub dependencies: Vec<Dependency>,
}

/// One entry of a plugin's `dependencies`.
#[derive(Debug, Clone, Default)]
pub struct Dependency {
    /// `name` or `name@marketplace`.
    pub id: String,
    /// The version range Claude Code requires of it (an object entry's `version`).
    pub range: Option<String>,
    /// The plugin.json, as shown, and the entry in it.
    pub path: String,
    pub span: Option<Span>,
}

/// Where a file's declarations land, decided by its place in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement<'a> {
    pub scope: Scope,
    pub plugin: Option<&'a str>,
    /// For skills of a nested `.claude/skills/`: that project folder.
    pub dynamic: Option<&'a str>,
}

/// One `allowedMcpServers` / `deniedMcpServers` entry: exactly one of its three keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyEntry {
    Name(String),
    /// The exact argv of a stdio server.
    Command(Vec<String>),
    /// A URL pattern, `*` matching any characters.
    Url(String),
}

impl std::fmt::Display for PolicyEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolicyEntry::Name(n) => write!(f, "serverName `{n}`"),
            PolicyEntry::Command(argv) => write!(f, "serverCommand `{}`", argv.join(" ")),
            PolicyEntry::Url(u) => write!(f, "serverUrl `{u}`"),
        }
    }
}

/// A reference to an MCP server by a permission rule, checked against the declared servers
/// once every file is read.
#[derive(Debug, Clone)]
pub(crate) struct ServerRef {
    pub server: String,
    pub span: Span,
}
