//! The data of `capabilities.lock`: what the compiler resolved, in the shape it is written.
//! The same types are read back by `capc lock --check` and by the runtime, and the JSON
//! Schema of the lock is derived from them, so the three cannot drift apart.
//!
//! Field order here is the order in the file; lists are sorted by the resolver (commands
//! in lookup order, everything else by stable keys), maps are `BTreeMap`s.

use super::ThinStr;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thin_vec::ThinVec;

mod kinds;
mod runs;

pub use kinds::*;
pub use runs::*;

/// The version of the lock format this build writes and reads (2: plugins carry whether and
/// why they load and what they hold; commands carry display names and aliases).
pub(crate) const LOCK_VERSION: u32 = 2;

/// The Claude Code version whose behaviour capc follows, the one the oracle tests recorded
/// (`capc --version` names it; ARCHITECTURE.md, "Sources of truth about Claude Code", says
/// how it is weighed against the docs).
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// A whole lock file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Format version; `1`.
    pub version: u32,
    /// The Claude Code version whose behaviour the resolution follows.
    pub claude_code: String,
    /// The Claude Code version the built-in command and tool tables describe.
    pub builtins: String,
    /// Every file read, with its content hash.
    #[serde(default, rename = "source", skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    /// Plugins found, and whether settings enable them.
    #[serde(default, rename = "plugin", skip_serializing_if = "Vec::is_empty")]
    pub plugins: Vec<Plugin>,
    /// Skills and commands, in the order Claude Code looks names up (built-ins are not
    /// listed; the `builtins` tables of the named version complete the table).
    #[serde(default, rename = "command", skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<Command>,
    /// Subagents, winners before the definitions they hide.
    #[serde(default, rename = "agent", skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<Agent>,
    /// MCP servers, by name then scope.
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServer>,
    /// Hook handlers, by file then position.
    #[serde(default, rename = "hook", skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
    /// Permission rules, by file then position.
    #[serde(default, rename = "permission", skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<Permission>,
    /// What the folder pulls in from outside and what pins it: packages and images MCP
    /// servers fetch, marketplace entries' remote plugin sources, marketplaces settings
    /// declare; by kind, name and file. Absent from locks written before pins were recorded.
    #[serde(default, rename = "pin", skip_serializing_if = "Vec::is_empty")]
    pub pins: Vec<Pin>,
    /// The plugins each marketplace of the locked folder lists, as Claude Code installs them
    /// from it: for review (`capc diff`), not for the session, since nothing here loads unless
    /// `[[plugin]]` says so; by marketplace file, then entry order. Absent from locks written
    /// before they were recorded.
    #[serde(default, rename = "marketplace_plugin", skip_serializing_if = "Vec::is_empty")]
    pub marketplace_plugins: Vec<MarketplacePlugin>,
    /// What each connected MCP server offered when `capc lock --connect` listed it: one entry
    /// per tool, by server then tool. `capc lock` without `--connect` keeps these as they were
    /// (for servers still declared). Absent from locks written before it was recorded.
    #[serde(default, rename = "mcp_tool", skip_serializing_if = "Vec::is_empty")]
    pub mcp_tools: Vec<McpToolEntry>,
    /// The servers `capc lock --connect` could not list (they failed to start, connect or list),
    /// by name.
    #[serde(default, rename = "mcp_failed", skip_serializing_if = "Vec::is_empty")]
    pub mcp_failed: Vec<McpFailed>,
    /// Settings files of the session that Claude Code 2.1.332 does not load at all (nothing in
    /// them is in effect), each with what its notice names, by path. Absent from locks written
    /// before it was recorded.
    #[serde(default, rename = "settings_not_loaded", skip_serializing_if = "Vec::is_empty")]
    pub settings_not_loaded: Vec<SettingsNotLoaded>,
    /// The instruction files a session started in the folder reads (CLAUDE.md, .claude/CLAUDE.md,
    /// `.claude/rules/`, CLAUDE.local.md, AGENTS.md, and the files their `@` imports name), in
    /// the order Claude Code sends them. Absent from locks written before they were recorded.
    #[serde(default, rename = "instruction", skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<Instruction>,
    /// Every command Claude Code may run on this machine from what the session loads (hooks of
    /// every type, stdio MCP servers, helper commands and status lines, `!` injections), with
    /// when it runs, what Claude Code asks first and what pins it: `capc ls --runs`; by kind,
    /// file, line and name. Absent from locks written before it was recorded.
    #[serde(default, rename = "run", skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
    /// Settings that widen what Claude Code may do or change where its traffic and credentials
    /// go: `permissions.defaultMode`, each `permissions.additionalDirectories` entry, the
    /// `sandbox` keys, each `env` key; and those that change what a turn sends (`attribution`,
    /// `includeCoAuthoredBy`, the Skill listing's keys); by key, then file. Absent from locks written before they
    /// were recorded.
    #[serde(default, rename = "setting", skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<Setting>,
    /// The policy switches in force (`allowManagedHooksOnly`, `disableAllHooks`,
    /// `allowManagedPermissionRulesOnly`, `strictPluginOnlyCustomization`,
    /// `disableSkillShellExecution`, `permissions.disableBypassPermissionsMode`), each with the
    /// file that sets it, by key. Absent from locks written before policy was recorded.
    #[serde(default, rename = "policy", skip_serializing_if = "Vec::is_empty")]
    pub policy: Vec<PolicySwitch>,
    /// What a policy switch keeps out of the session: each hook, permission rule, skill or
    /// command, agent and MCP server removed, with the key and the file that removed it, by
    /// kind, name and file. Absent from locks written before policy was recorded.
    #[serde(default, rename = "removed_by_policy", skip_serializing_if = "Vec::is_empty")]
    pub removed_by_policy: Vec<RemovedByPolicy>,
    /// The background monitors the loaded plugins arm (unsandboxed shell commands whose every
    /// output line reaches the model), by plugin load order then file and line. Absent from
    /// locks written before they were recorded.
    #[serde(default, rename = "monitor", skip_serializing_if = "Vec::is_empty")]
    pub monitors: Vec<Monitor>,
    /// The LSP servers the loaded plugins start, by plugin load order then name. Absent from
    /// locks written before they were recorded.
    #[serde(default, rename = "lsp_server", skip_serializing_if = "Vec::is_empty")]
    pub lsp_servers: Vec<LspServer>,
    /// The files of the loaded plugins' `bin/` folders, which Claude Code puts on the PATH of
    /// the commands it runs, with their hashes; by plugin load order then name. Absent from
    /// locks written before they were recorded.
    #[serde(default, rename = "plugin_bin", skip_serializing_if = "Vec::is_empty")]
    pub(crate) plugin_bins: Vec<PluginBin>,
    /// Output styles a session can switch to (`outputStyle`, `/output-style`): the project's,
    /// the user's and the loaded plugins', by scope then name. Absent from locks written before
    /// they were recorded.
    #[serde(default, rename = "output_style", skip_serializing_if = "Vec::is_empty")]
    pub output_styles: Vec<OutputStyle>,
}

/// A file the lock was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Relative to the locked folder with `/`; `~/…` for `--user-dir`, `<managed>/…` for
    /// `--managed-dir`, `<add-dir N>/…` for the N-th `--add-dir`, `<plugin-dir N>/…` for the
    /// N-th `--plugin-dir` when it lies outside the locked folder.
    pub path: String,
    /// `skill`, `command`, `agent`, `plugin manifest`, `marketplace`, `MCP config`, `hooks`,
    /// `settings`, `instructions`.
    // Borrowed when a check makes it (one of a few names), owned when read from a lock: a
    // large tree's lock lists a source per file.
    pub kind: std::borrow::Cow<'static, str>,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// The declaration that hides another one, or one that is hidden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ref {
    pub name: String,
    pub origin: Origin,
    pub scope: Scope,
    /// The declaring file; absent for built-ins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Why the winner wins (`skills-before-commands`, `scope-order`, …); see `capc explain`.
    pub rule: String,
}

/// A plugin folder: whether a session here loads it and why, and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plugin {
    pub name: String,
    /// `name@marketplace` as `enabledPlugins` keys it: `@inline` for `--plugin-dir` (and for
    /// a folder nothing lists), `@skills-dir` for a plugin inside a skills folder.
    pub id: String,
    /// The plugin's folder.
    pub root: String,
    /// Whether a session started in the locked folder loads it. Loaded plugins come first, in
    /// Claude Code's load order (`--plugin-dir` in order, then `enabledPlugins` in key order,
    /// then skills-folder plugins); the others follow, by folder.
    pub loaded: bool,
    /// What loads it (`--plugin-dir 1`, `enabledPlugins in .claude/settings.json`, …), or why
    /// it does not load.
    pub reason: String,
    /// Loaded only once the user trusts the folder: enabled through a marketplace that only
    /// project or local settings declare, or a plugin in the project's skills folder.
    #[serde(default, skip_serializing_if = "is_false")]
    pub requires_trust: bool,
    /// The version Claude Code installs it as when one is written: `plugin.json`'s
    /// `version`, else the marketplace entry's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the plugin holds, as Claude Code names it, whether or not it loads here.
    #[serde(default, skip_serializing_if = "Inventory::is_empty")]
    pub inventory: Inventory,
    /// The `agent` its root `settings.json` (else plugin.json's `settings`) sets: while it is
    /// enabled, the session's main thread runs as that agent. Absent from locks written before
    /// it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The `subagentStatusLine` command its settings set, as written: a shell command Claude
    /// Code runs to draw subagents' status lines. Absent from locks written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_status_line: Option<String>,
}

/// A plugin's components, named as Claude Code names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    /// Skills and commands: `plugin:name`, with the display name and bare aliases each answers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<InventoryEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// Hook events with the number of handlers for each (`PreToolUse ×2`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<String>,
    /// MCP servers as their tools are prefixed (`mcp__plugin_<plugin>_<server>__`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<String>,
    /// LSP servers, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lsp_servers: Vec<String>,
    /// Monitors, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub monitors: Vec<String>,
    /// Output styles, as `outputStyle` names them (`plugin:name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_styles: Vec<String>,
    /// Themes (`plugin:slug`, the file name without `.json`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub themes: Vec<String>,
    /// Workflows (`plugin:name`, the name their `meta` gives).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workflows: Vec<String>,
    /// The files of `bin/`, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bin: Vec<String>,
    /// The hooks module a hooks file names in `modules`, by path in the plugin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
}

impl Inventory {
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
            && self.agents.is_empty()
            && self.hooks.is_empty()
            && self.mcp_servers.is_empty()
            && self.lsp_servers.is_empty()
            && self.monitors.is_empty()
            && self.output_styles.is_empty()
            && self.themes.is_empty()
            && self.workflows.is_empty()
            && self.bin.is_empty()
            && self.modules.is_empty()
    }
}

/// One skill or command of a plugin's inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct InventoryEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

/// A skill or command in the command table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Command {
    /// The name typed after `/` (`deploy`, `frontend:component`, `my-plugin:review`).
    pub name: String,
    /// The name shown to people, when it differs (a frontmatter `name`: `my-plugin:ship` for a
    /// plugin skill in `skills/release/`, `deploy` for `.claude/skills/deploy-prod`). Lookup
    /// finds it after every exact `name` in the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<ThinStr>,
    /// Bare names that also reach it (a plugin skill's or command's frontmatter `name` without
    /// a colon: `/ship`).
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub aliases: ThinVec<String>,
    /// Aliases Claude Code drops because another entry, a built-in or a non-plugin alias has
    /// the name, or because the name is not one a user can type; they reach nothing.
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub shed_aliases: ThinVec<String>,
    pub origin: Origin,
    pub scope: Scope,
    /// Which loader read it (a plugin has both).
    pub form: Form,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// For a skill of a nested `.claude/skills/`: the folder whose files activate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Without `description`: what Claude Code 2.1.332 lists instead — the body's first
    /// non-empty line, a `# ` heading marker removed, cut to 97 UTF-16 code units and `...`
    /// when over 100; without such a line, the kind's word (`Skill`, `Custom command`,
    /// `Plugin skill`, `Plugin command`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_description: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub arguments: ThinVec<String>,
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub allowed_tools: ThinVec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<ThinStr>,
    /// `fork` when the skill runs in a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ThinStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<ThinStr>,
    /// Globs that activate a conditional skill.
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub paths: ThinVec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub disable_model_invocation: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub user_invocable: bool,
    /// Characters of the body (after the frontmatter).
    #[serde(default)]
    pub content_length: usize,
    /// The `!` shell injections of the body (`` !`cmd` `` and ```` ```! ```` blocks), each
    /// command as written: Claude Code runs them when the prompt is expanded.
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<String>")]
    pub shell_injections: ThinVec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<Box<Ref>>,
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    #[schemars(with = "Vec<Ref>")]
    pub shadows: ThinVec<Ref>,
}

/// A subagent definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Agent {
    pub name: String,
    pub scope: Scope,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// As written: a block scalar keeps its line breaks, which the agent listing keeps too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `permissionMode`: the mode it runs in (Claude Code ignores it in a plugin's agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// `memory`: `user`, `project` or `local`, the agent memory folder it loads and writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// `isolation`: `worktree` (a temporary git worktree) or `remote`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    /// `omitClaudeMd: true`: run as a subagent, it gets none of the user's, project's and local
    /// CLAUDE.md files (managed ones stay). Absent from locks written before it was recorded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub omit_claude_md: bool,
    /// A blanket `Agent(name)` deny rule that removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<Box<Ref>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadows: Vec<Ref>,
}

/// An MCP server. `command`, `args`, `url`, `cwd`, `env`, `headers` and `headersHelper`
/// values are written as in the source when they hold only `${VAR}` references or plain
/// settings; a literal that looks like a secret is replaced by `sha256:<hex>` of its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// The name as written (`plugin:<plugin>:<server>` for plugin servers).
    pub name: String,
    /// The name in tool names: `mcp__<normalized>__<tool>`.
    pub normalized: String,
    pub scope: Scope,
    pub transport: Transport,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub always_load: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_helper: Option<String>,
    /// Project servers: their approval. Others: `disabled` when turned off in this project
    /// (`disabledMcpServers`), else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
    /// The blanket deny rule that removes every tool of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied_by: Option<String>,
    /// Why the MCP policy (`deniedMcpServers`, `allowedMcpServers`) keeps the server from
    /// loading at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<Box<Ref>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadows: Vec<Ref>,
}

/// A hook handler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Hook {
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// `command`, `http`, `mcp_tool`, `prompt` or `agent`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The command, URL, tool or prompt it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "if")]
    pub condition: Option<String>,
    pub scope: Scope,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

/// A permission rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Permission {
    pub rule: String,
    pub behavior: Behavior,
    pub scope: Scope,
    pub path: String,
    /// For a blanket deny: the tools or `mcp__<server>` names it removes from the pool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removes: Vec<String>,
    /// For an allow rule that never decides: the deny or ask rule that always comes first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_empted_by: Option<String>,
}

/// A plugin a marketplace of the locked folder lists, and what installing it from that
/// marketplace gives Claude Code: its components resolved as if it were the only plugin
/// loaded (names as Claude Code gives them, its own clashes settled), with no setting of the
/// locked folder applied (they are not the installer's). A remote source is never fetched:
/// the entry records the source, `[[pin]]` what pins it, and nothing of what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct MarketplacePlugin {
    /// `name@marketplace`, as `enabledPlugins` keys it once installed.
    pub id: String,
    /// The marketplace.json that lists it.
    pub marketplace: String,
    /// The entry's `source`: a folder as written (`./plugins/lint`), or a remote source's kind
    /// and place (`github acme/lint`, `git-subdir https://…#plugins/lint`, `npm @acme/lint`).
    pub source: String,
    /// The plugin's folder, when the source is a folder here that exists; its files are the
    /// `[[source]]`s under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// `false` when the entry is the plugin's whole definition (`"strict": false`).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub strict: bool,
    /// The version Claude Code installs it as: `plugin.json`'s `version`, else the entry's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why Claude Code would load nothing of it once installed (a refused plugin.json).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Its skills and commands, in the order its own command table has them; their
    /// `allowed-tools` are the permission rules it grants.
    #[serde(default, rename = "command", skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<Command>,
    #[serde(default, rename = "agent", skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<Agent>,
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServer>,
    #[serde(default, rename = "hook", skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
    /// Its monitors, LSP servers, `bin/` files and output styles, as `[[monitor]]`,
    /// `[[lsp_server]]`, `[[plugin_bin]]` and `[[output_style]]` record a loaded plugin's.
    /// Absent from locks written before they were recorded.
    #[serde(default, rename = "monitor", skip_serializing_if = "Vec::is_empty")]
    pub monitors: Vec<Monitor>,
    #[serde(default, rename = "lsp_server", skip_serializing_if = "Vec::is_empty")]
    pub lsp_servers: Vec<LspServer>,
    #[serde(default, rename = "plugin_bin", skip_serializing_if = "Vec::is_empty")]
    pub(crate) plugin_bins: Vec<PluginBin>,
    #[serde(default, rename = "output_style", skip_serializing_if = "Vec::is_empty")]
    pub output_styles: Vec<OutputStyle>,
}

/// Something a folder pulls in from outside, and what pins it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    pub of: PinOf,
    /// The MCP server (named as in `[[mcp_server]]`), the plugin (`plugin@marketplace`) or
    /// the marketplace.
    pub name: String,
    /// The declaring file.
    pub path: String,
    /// How it is fetched: `npx`, `bunx`, `pnpm dlx`, `yarn dlx`, `uvx`, `pipx run`,
    /// `docker run`, `podman run` for a server; the source kind (`github`, `url`,
    /// `git-subdir`, `npm`, `archive`, `command`, `directory`, `git`, …) otherwise.
    pub via: String,
    /// The package, image, repository, URL, command or folder.
    pub package: String,
    /// The exact version, image digest, commit or checksum that pins it; absent when nothing does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    /// What is asked for when it is not exact: a version range, a tag, a branch or `ref`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
}

/// What a pin belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PinOf {
    /// The package or image a stdio server's command fetches before it runs.
    McpServer,
    /// A marketplace entry's source outside the marketplace.
    Plugin,
    /// An `extraKnownMarketplaces` source.
    Marketplace,
}

impl PinOf {
    pub fn as_str(self) -> &'static str {
        match self {
            PinOf::McpServer => "mcp-server",
            PinOf::Plugin => "plugin",
            PinOf::Marketplace => "marketplace",
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}
