//! The lock's tables of what a session runs and how it is set up: the commands Claude Code
//! may run, settings and policy switches, what policy removed, the loaded plugins' monitors,
//! LSP servers, `bin/` files and output styles, settings files not loaded, instruction files,
//! and the MCP tool surface `capc lock --connect` listed.

use super::{is_false, is_zero, Scope};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    pub(crate) hook_type: Option<String>,
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
    /// A plugin's hooks module (`modules` in its hooks file): JavaScript Claude Code loads
    /// into its own process when the plugin loads.
    HooksModule,
    /// A plugin's workflow script (`workflows/*.js`): JavaScript the Workflow tool runs.
    Workflow,
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
            RunKind::HooksModule => "hooks-module",
            RunKind::Workflow => "workflow",
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
    /// Why `value` is not what the file writes: managed settings Claude Code cannot read as
    /// written (a policy key at its restrictive value, a string `"true"` read as `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A declaration a policy switch keeps out of the session.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RemovedByPolicy {
    /// `hook`, `permission`, `allowed-tools` (a skill's or command's grant), `command`,
    /// `agent`, `mcp-server`, `helper` or `hooks-module`.
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
    pub(crate) workspace_folder: Option<String>,
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
    pub(crate) external_imports: Vec<String>,
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
