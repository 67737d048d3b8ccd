//! The data of `capabilities.lock`: what the compiler resolved, in the shape it is written.
//! The same types are read back by `capc lock --check` and by the runtime, and the JSON
//! Schema of the lock is derived from them, so the three cannot drift apart.
//!
//! Field order here is the order in the file; lists are sorted by the resolver (commands
//! in lookup order, everything else by stable keys), maps are `BTreeMap`s.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the lock format this build writes and reads (2: plugins carry whether and
/// why they load and what they hold; commands carry display names and aliases).
pub const LOCK_VERSION: u32 = 2;

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
    pub plugin_bins: Vec<PluginBin>,
    /// Output styles a session can switch to (`outputStyle`, `/output-style`): the project's,
    /// the user's and the loaded plugins', by scope then name. Absent from locks written before
    /// they were recorded.
    #[serde(default, rename = "output_style", skip_serializing_if = "Vec::is_empty")]
    pub output_styles: Vec<OutputStyle>,
}

/// One command Claude Code may run, from the declaration that makes it run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub kind: RunKind,
    /// What it is: the hook's event and matcher (`PreToolUse Bash`), the server's name, the
    /// settings key (`statusLine`, `apiKeyHelper`), the command (`/deploy`).
    pub name: String,
    /// A hook's type: `command`, `http`, `prompt`, `agent` or `mcp_tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_type: Option<String>,
    /// The command line, URL, prompt or tool, as written (a literal secret as `sha256:<hex>`).
    pub run: String,
    pub scope: Scope,
    /// The declaring file, as `[[source]]` names it.
    pub path: String,
    /// The line of the declaration in that file, from 1 (0 when not known).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The agent (`agent reviewer`) or skill (`/deploy`) whose frontmatter declares it: it runs
    /// only while that agent or skill runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// When Claude Code runs it, in words.
    pub when: String,
    /// What Claude Code asks before running it.
    pub gate: Gate,
    /// It runs inside Claude Code's sandbox (`sandbox.enabled`): only a `!` injection, which
    /// runs as the Bash tool does.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sandboxed: bool,
    /// Whether what it runs is pinned.
    pub pinned: Pinned,
    /// What it fetches before running: the package (`npx @acme/server`) or the URL piped to a
    /// shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetches: Option<String>,
    /// The script inside the locked folder (or a plugin folder) that it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Lowercase hex SHA-256 of that script's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_sha256: Option<String>,
}

/// What runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    /// A hook handler (settings, hooks.json, plugin.json, or an agent's or skill's frontmatter).
    #[default]
    Hook,
    /// A stdio MCP server's command (`.mcp.json`, `~/.claude.json`, a plugin, an agent's
    /// frontmatter).
    McpServer,
    /// A settings helper: `apiKeyHelper`, `awsAuthRefresh`, `awsCredentialExport`,
    /// `gcpAuthRefresh`, `otelHeadersHelper`, `proxyAuthHelper`, `policyHelper`,
    /// `fileSuggestion`.
    Helper,
    /// `statusLine` or `subagentStatusLine`.
    StatusLine,
    /// A `!` injection of a skill or command.
    Injection,
    /// A plugin's monitor (`[[monitor]]`): a background command whose every printed line
    /// reaches the model.
    Monitor,
    /// A plugin's LSP server (`[[lsp_server]]`).
    LspServer,
    /// A file of a plugin's `bin/` (`[[plugin_bin]]`), on the PATH of the commands Claude Code
    /// runs.
    PluginBin,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Hook => "hook",
            RunKind::McpServer => "mcp-server",
            RunKind::Helper => "helper",
            RunKind::StatusLine => "status-line",
            RunKind::Injection => "injection",
            RunKind::Monitor => "monitor",
            RunKind::LspServer => "lsp-server",
            RunKind::PluginBin => "plugin-bin",
        }
    }
}

/// What Claude Code asks before it runs something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    /// Nothing: it runs in any folder (the user's own or managed settings).
    #[default]
    None,
    /// The folder's trust dialog, once: accepted, it runs without another question.
    Trust,
    /// The project MCP server dialog (`.mcp.json`), unless settings approve the server.
    McpApproval,
    /// The Bash permission check (`allow` rules, the permission mode), as the Bash tool.
    Permission,
}

impl Gate {
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::None => "none",
            Gate::Trust => "trust",
            Gate::McpApproval => "mcp-approval",
            Gate::Permission => "permission",
        }
    }
}

/// Whether what a command runs is fixed by what the lock records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Pinned {
    /// A package runner with an exact version or digest.
    Exact,
    /// A package runner without an exact version: each start may fetch different code.
    Unpinned,
    /// It downloads a program and runs it (`curl … | sh`): nothing pins it.
    Download,
    /// A script inside the locked folder or a plugin folder, hashed in `script_sha256`.
    Script,
    /// A program found on `PATH` (or a script outside the folders capc reads): capc cannot pin it.
    #[default]
    Program,
    /// Not a program: an HTTP hook's URL, a prompt or agent hook, an MCP tool.
    NotAProgram,
}

impl Pinned {
    pub fn as_str(self) -> &'static str {
        match self {
            Pinned::Exact => "exact",
            Pinned::Unpinned => "unpinned",
            Pinned::Download => "download",
            Pinned::Script => "script",
            Pinned::Program => "program",
            Pinned::NotAProgram => "not-a-program",
        }
    }
}

/// A setting that widens what Claude Code may do or redirects its traffic, or one that changes
/// what a turn sends (`runs::TURN_KEYS`, `env`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    /// `permissions.defaultMode`, `permissions.additionalDirectories`, `sandbox.enabled`,
    /// `sandbox.network.allowedDomains`, `env.ANTHROPIC_BASE_URL`, …
    pub key: String,
    /// The value as JSON text (a list's entries each on a row of their own; a literal secret
    /// as `sha256:<hex>`).
    pub value: String,
    pub scope: Scope,
    pub path: String,
    /// The line of the value in that file, from 1.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub line: u32,
}

/// A policy switch in force.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct PolicySwitch {
    /// The settings key (`allowManagedHooksOnly`, `permissions.disableBypassPermissionsMode`).
    pub key: String,
    /// What it is set to, as Claude Code reads it: `true`, `disable`, for
    /// `strictPluginOnlyCustomization` the surfaces it locks (`skills, hooks`), for managed
    /// `channelsEnabled` `true` or `false`, for `allowedChannelPlugins` the plugins it admits
    /// (`telegram@acme, slack@acme`; empty: none).
    pub value: String,
    /// The settings file that sets it (for a switch merged from several, the one that wins).
    pub path: String,
}

/// A declaration a policy switch keeps out of the session.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RemovedByPolicy {
    /// `hook`, `permission`, `allowed-tools` (a skill's or command's grant), `command`,
    /// `agent` or `mcp-server`.
    pub kind: String,
    /// The hook's event (and matcher), the rule, or the name.
    pub name: String,
    /// The declaring file.
    pub path: String,
    /// The policy key that removes it.
    pub key: String,
    /// The settings file that sets that key.
    pub by: String,
}

/// A plugin's background monitor (`monitors/monitors.json`, or plugin.json's `monitors` /
/// `experimental.monitors`): a shell command Claude Code runs for the session, unsandboxed,
/// delivering each line it prints to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Monitor {
    /// Its `name`, unique in the plugin.
    pub name: String,
    /// The plugin's name.
    pub plugin: String,
    /// The file that declares it.
    pub path: String,
    /// The line of its entry in that file.
    pub line: u32,
    /// The shell command, as written (`${CLAUDE_PLUGIN_ROOT}` and `${VAR}` unexpanded; a
    /// literal that looks like a secret kept as `sha256:<hex>`).
    pub command: String,
    pub description: String,
    /// When Claude Code arms it: `always` (session start and plugin reload) or
    /// `on-skill-invoke:<skill>` (the first time that skill runs).
    pub when: String,
    /// The script inside the folder its command runs, and that script's SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_sha256: Option<String>,
}

/// A plugin's LSP server (`.lsp.json`, or plugin.json's `lspServers`): a process Claude Code
/// starts for the files whose extensions it maps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct LspServer {
    pub name: String,
    pub plugin: String,
    pub path: String,
    pub line: u32,
    /// The program, as written.
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// `stdio` or `socket`.
    pub transport: String,
    /// The file extensions it serves (`extensionToLanguage`'s keys), sorted.
    pub extensions: Vec<String>,
    /// Environment it starts with: values as written (`${VAR}` kept), a literal that looks
    /// like a secret as `sha256:<hex>`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_folder: Option<String>,
    /// The script inside the folder its command runs, and that script's SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_sha256: Option<String>,
}

/// A file in a plugin's `bin/` folder: Claude Code adds the folder to the PATH of the commands
/// it runs (Bash, hooks, monitors), so a command named like it runs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct PluginBin {
    /// The file's name, as a command names it.
    pub name: String,
    pub plugin: String,
    pub path: String,
    /// Lowercase hex SHA-256 of its bytes (empty when it could not be read).
    pub sha256: String,
    /// Whether its mode lets it run.
    #[serde(default, skip_serializing_if = "is_false")]
    pub executable: bool,
}

/// An output style: a Markdown file whose body replaces (or, with `keep-coding-instructions`,
/// joins) Claude Code's own instructions once selected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct OutputStyle {
    /// The name `outputStyle` selects it by: frontmatter `name`, else the file name without
    /// `.md`; a plugin's is `plugin:name`.
    pub name: String,
    pub scope: Scope,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `keep-coding-instructions: true`: Claude Code keeps its coding instructions beside it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep_coding_instructions: bool,
    /// A plugin's style with `force-for-plugin` on: Claude Code applies it whenever the plugin
    /// is enabled, whatever `outputStyle` selects (the first such style when several plugins
    /// force one). Absent from locks written before it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub force_for_plugin: bool,
}

/// A settings file Claude Code refuses whole, and why, in the words of its notice
/// (`These settings did not load, …`: `  FILE (KEY): MESSAGE`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct SettingsNotLoaded {
    /// The file, as `[[source]]` names it.
    pub path: String,
    /// The key that stops it (`permissions.defaultMode`); empty when the file as a whole is
    /// refused (not JSON, not an object).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Claude Code's message for that key.
    pub message: String,
}

/// One instruction file: a memory file, a rule or a file an `@` import names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Instruction {
    /// As `[[source]]` gives it: relative to the locked folder, `~/…` for `--user-dir`.
    pub path: String,
    /// `project` (checked in), `local` (CLAUDE.local.md: the user's private project
    /// instructions) or `user`; an imported file has the scope of the file that imports it.
    pub scope: Scope,
    /// Its place in the instructions Claude Code sends, from 1; a rule with `paths` is sent
    /// later, when the turn reads a matching file, and its place is among the rules.
    pub order: u32,
    /// The file whose `@` import brings it in (`None`: Claude Code reads it by its name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_by: Option<String>,
    /// The files its `@` imports bring in, in order (only those that load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// Its `@` imports of files outside the project (`~/…`, an absolute path, `../…` past the
    /// folder), as written, in order: Claude Code asks the user before it reads them and reads
    /// none until approved; capc never reads them. A new one is an escalation of `capc diff`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub external_imports: Vec<String>,
    /// A rule's `paths:` globs: it loads when the turn reads a file one of them matches, not at
    /// the start (empty: it loads at the start). A nested folder's rule matches them relative to
    /// that folder, the others relative to the locked folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// A nested folder's file (its `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`, rules,
    /// and what they import): the folder, relative to the locked folder. It loads when the turn
    /// reads a file below that folder, not at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The settings key whose string value is the text sent, rather than the file's text:
    /// `claudeMd` of `managed-settings.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
    /// Claude Code's own estimate of the tokens the text it sends costs where it has no
    /// tokenizer: `Math.round(length / 4)` of the body sent (frontmatter and HTML comments
    /// left out, trimmed) in UTF-16 code units.
    pub tokens: u64,
}

impl Instruction {
    /// Whether Claude Code sends it at the start of every session: neither a rule waiting for
    /// its `paths` nor a nested folder's file waiting for a file below it.
    pub fn at_start(&self) -> bool {
        self.paths.is_empty() && self.folder.is_none()
    }

    /// When it loads, in words: at the start, or what the turn must read.
    pub fn condition(&self) -> String {
        match (&self.folder, self.paths.is_empty()) {
            (None, true) => "at the start of every session".to_string(),
            (None, false) => format!("once the session reads a file matching {}", self.paths.join(", ")),
            (Some(folder), true) => format!("once the session reads a file below {folder}/"),
            (Some(folder), false) => {
                format!("once the session reads a file below {folder}/ matching {}", self.paths.join(", "))
            }
        }
    }
}

/// One tool of a connected MCP server, as `capc lock --connect` recorded it: what the model
/// is told about it, by hash, and what it costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct McpToolEntry {
    /// The server's name, as `[[mcp_server]]` gives it.
    pub server: String,
    /// The tool's name as the server lists it.
    pub tool: String,
    /// The name the model calls it by: `mcp__<server>__<tool>`, normalized as Claude Code
    /// composes it (`plugin_<plugin>_<server>` for a plugin's server).
    pub name: String,
    /// Lowercase hex SHA-256 of the description Claude Code passes on (cut at 2,048
    /// characters with its marker).
    pub description_sha256: String,
    /// Lowercase hex SHA-256 of the input schema as canonical JSON (keys sorted, no whitespace).
    pub input_schema_sha256: String,
    /// Claude Code's own estimate of the tokens the tool costs where it has no tokenizer:
    /// `Math.round(length / 4)` of `JSON.stringify({name, description, input_schema})` in
    /// UTF-16 code units, the description cut at 2,048 characters.
    pub tokens: u64,
    /// The tool's own `_meta` says `anthropic/alwaysLoad`: Claude Code never defers it behind
    /// tool search, whatever its server's entry says (the server's `alwaysLoad` is
    /// `[[mcp_server]]`'s).
    #[serde(default, skip_serializing_if = "is_false")]
    pub always_load: bool,
    /// The tool's annotations, as the server gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<McpToolAnnotations>,
}

/// MCP tool annotations (`ToolAnnotations`): hints, not guarantees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct McpToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A server `capc lock --connect` could not list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct McpFailed {
    pub server: String,
}

/// Where a declaration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The managed-settings folder (`--managed-dir`).
    Managed,
    /// The user's home (`--user-dir`): `~/.claude/`, `~/.claude.json`.
    User,
    /// The locked folder's `.claude/`, `.mcp.json` and nested `.claude/skills/`.
    #[default]
    Project,
    /// `.claude/settings.local.json`, and `~/.claude.json` servers of one project.
    Local,
    /// `--add-dir` folders.
    AddDir,
    /// A plugin's components.
    Plugin,
    /// Claude Code's own commands, skills, agents and tools.
    Builtin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Managed => "managed",
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::AddDir => "add-dir",
            Scope::Plugin => "plugin",
            Scope::Builtin => "builtin",
        }
    }
}

/// What kind of declaration an entry is (the `origin` of `capc ls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A command implemented in Claude Code.
    Builtin,
    /// A skill shipped inside Claude Code.
    Bundled,
    /// A `SKILL.md` in a skills folder.
    #[default]
    Skill,
    /// A legacy `.claude/commands/**.md` file.
    Command,
    /// A plugin's skill or command.
    Plugin,
    /// An MCP server's prompt (known only at run time).
    Mcp,
    /// A subagent definition (`agents/*.md`).
    Agent,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Builtin => "builtin",
            Origin::Bundled => "bundled",
            Origin::Skill => "skill",
            Origin::Command => "command",
            Origin::Plugin => "plugin",
            Origin::Mcp => "mcp",
            Origin::Agent => "agent",
        }
    }
}

/// Which loader read a skill or command: a skills folder's, or a commands folder's (a
/// `SKILL.md` folder under `commands/` is a command here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// From a skills folder (`skills/<name>/SKILL.md`).
    #[default]
    Skill,
    /// From a commands folder (`commands/**.md`).
    Command,
}

impl Form {
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Skill => "skill",
            Form::Command => "command",
        }
    }
}

/// How Claude Code talks to an MCP server (`streamable-http` is written `http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// A child process speaking on stdin/stdout.
    #[default]
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Legacy server-sent events.
    Sse,
    /// WebSocket.
    Ws,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
            Transport::Ws => "ws",
        }
    }
}

/// Whether a project server (`.mcp.json`) may start, from the approval settings; for other
/// servers only `disabled`, when `~/.claude.json` turns them off in this project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// `enableAllProjectMcpServers` or `enabledMcpjsonServers`.
    Approved,
    /// Claude Code asks the user first.
    Pending,
    /// `disabledMcpjsonServers`.
    Disabled,
}

impl Approval {
    pub fn as_str(self) -> &'static str {
        match self {
            Approval::Approved => "approved",
            Approval::Pending => "pending",
            Approval::Disabled => "disabled",
        }
    }
}

/// What a permission rule does when it matches: the grammar's, which matches the rules.
pub use capc_grammar::Behavior;

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
    pub kind: String,
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
    pub subagent_status_line: Option<String>,
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
    pub display_name: Option<String>,
    /// Bare names that also reach it (a plugin skill's or command's frontmatter `name` without
    /// a colon: `/ship`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Aliases Claude Code drops because another entry, a built-in or a non-plugin alias has
    /// the name, or because the name is not one a user can type; they reach nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shed_aliases: Vec<String>,
    pub origin: Origin,
    pub scope: Scope,
    /// Which loader read it (a plugin has both).
    pub form: Form,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// For a skill of a nested `.claude/skills/`: the folder whose files activate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Without `description`: what Claude Code 2.1.332 lists instead — the body's first
    /// non-empty line, a `# ` heading marker removed, cut to 97 UTF-16 code units and `...`
    /// when over 100; without such a line, the kind's word (`Skill`, `Custom command`,
    /// `Plugin skill`, `Plugin command`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// `fork` when the skill runs in a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Globs that activate a conditional skill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub disable_model_invocation: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub user_invocable: bool,
    /// Characters of the body (after the frontmatter).
    #[serde(default)]
    pub content_length: usize,
    /// The `!` shell injections of the body (`` !`cmd` `` and ```` ```! ```` blocks), each
    /// command as written: Claude Code runs them when the prompt is expanded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shell_injections: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<Ref>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadows: Vec<Ref>,
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
    pub shadowed_by: Option<Ref>,
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
    pub shadowed_by: Option<Ref>,
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
    pub plugin_bins: Vec<PluginBin>,
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
