//! capc's own knowledge of each declaration field, one table per file kind: the key, the value
//! type capc checks, what it means (the hover and completion text of `capc lsp`), and where it
//! lands in `capabilities.lock`. The checkers (`markdown.rs`, `plugin.rs`, `marketplace.rs`,
//! `mcp.rs`, `hooks.rs`, `components.rs`) check against these tables, the LSP reads its text
//! from them, and `tests/it/fields.rs` locks a tree that uses every key and finds each one at
//! the place its entry names. CONTRIBUTING.md, "Adding a declaration field", is the recipe.
//!
//! Which keys Claude Code itself knows is another table, generated from its release
//! (`markdown::claude_code_keys`, the settings schema of `settings_schema.rs`): a key there and
//! not here is accepted without a check of its value, and has no hover.

use crate::schema::{Named, Ty};

/// Where a key's value lands in the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lands {
    /// A lock path: the table (`command`, `agent`, `plugin`, `mcp_server`, …, a nested one as
    /// `plugin.inventory`) and the field that holds the value or what it names.
    At(&'static str),
    /// Not in the lock, and why.
    Not(&'static str),
}

/// One key of one kind of file.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    /// The value type capc checks (`wrong-field-type` otherwise).
    pub ty: Ty,
    /// What the key means to Claude Code: one line of Markdown, for hover and completion.
    pub doc: &'static str,
    pub lock: Lands,
}

impl Named for Key {
    fn name(&self) -> &'static str {
        self.name
    }
    fn ty(&self) -> Ty {
        self.ty
    }
}

const fn key(name: &'static str, ty: Ty, lock: Lands, doc: &'static str) -> Key {
    Key { name, ty, doc, lock }
}

use Lands::{At, Not};

const LISTING: Lands = Not("metadata for people and the plugin manager; a session runs nothing from it");
const EDITOR: Lands = Not("read by editors for completion; Claude Code ignores it");

/// Frontmatter of skills (`SKILL.md`) and commands (`commands/**/*.md`): the skills docs, plus
/// `version`, which Claude Code's loader reads. The lock paths are a skill's; a legacy
/// command ignores `name`.
pub const SKILL: &[Key] = &[
    key("name", Ty::String, At("command.display_name"), "The skill's name: what `/name` types and the Skill tool calls (defaults to the folder or file name; a plugin's skills get `plugin:name`)."),
    key("description", Ty::String, At("command.description"), "What the skill does and when to use it: the model reads it in the Skill listing to decide whether to call it (cut with `when_to_use` at 1,536 characters)."),
    key("when_to_use", Ty::String, At("command.when_to_use"), "Added to `description` in the Skill listing: when the model should reach for this skill."),
    key("argument-hint", Ty::Any, At("command.argument_hint"), "The hint shown after `/name` while typing, such as `[issue-number]`."),
    key("arguments", Ty::StringOrList, At("command.arguments"), "Named arguments: `$name` in the body is replaced by the argument in that position."),
    key("disable-model-invocation", Ty::BoolLike, At("command.disable_model_invocation"), "`true`: only people can run it by typing `/name`; the model does not see it in the Skill listing."),
    key("user-invocable", Ty::BoolLike, At("command.user_invocable"), "`false`: hidden from the `/` menu; only the model can use it (through the Skill tool)."),
    key("allowed-tools", Ty::StringOrList, At("command.allowed_tools"), "Tools the skill may use without asking while it runs (permission rules: `Bash(git status:*)`, `Read`, `mcp__server__tool`)."),
    key("disallowed-tools", Ty::StringOrList, Not("it only takes tools away while the skill runs; capc does not record it yet"), "Tools removed while the skill runs."),
    key("model", Ty::String, At("command.model"), "The model that runs the skill (`sonnet`, `opus`, `haiku` or a full model id)."),
    key("effort", Ty::Any, At("command.effort"), "The reasoning effort while the skill runs (`low`, `medium`, `high`, `xhigh`, `max`)."),
    key("context", Ty::String, At("command.context"), "`fork`: run the skill in a subagent with its own context instead of the conversation."),
    key("agent", Ty::String, At("command.agent"), "With `context: fork`: the subagent type that runs the skill."),
    key("background", Ty::BoolLike, Not("it changes when a forked skill's result comes back, not what it may do"), "Run the forked skill in the background."),
    key("hooks", Ty::Object, At("run.run"), "Hooks active while the skill runs, as in settings (`PreToolUse`, `PostToolUse`, `Stop`, …)."),
    key("paths", Ty::StringOrList, At("command.paths"), "Glob patterns: the skill is offered only once a file matching one is read or edited."),
    key("shell", Ty::String, Not("the injections it runs are recorded (`shell_injections`, `[[run]]`), not the shell"), "The shell `!` injections of the body run in (`bash` or `powershell`)."),
    key("metadata", Ty::Any, Not("free-form data Claude Code does not read"), "Free-form data for tools; Claude Code does not read it."),
    key("license", Ty::String, Not("Claude Code does not read it"), "The skill's license (Agent Skills standard); not read by Claude Code."),
    key("compatibility", Ty::String, Not("Claude Code does not read it"), "What the skill needs to run (Agent Skills standard); not read by Claude Code."),
    key("version", Ty::Any, Not("read by the loader and shown nowhere"), "The skill's version; read by the loader, shown nowhere."),
];

/// Subagent frontmatter (the sub-agents docs, https://code.claude.com/docs/en/sub-agents).
pub const AGENT: &[Key] = &[
    key(
        "name",
        Ty::String,
        At("agent.name"),
        "The agent type: what the Agent tool's `subagent_type` names (a plugin's agents get `plugin:name`).",
    ),
    key(
        "description",
        Ty::String,
        At("agent.description"),
        "When the main conversation should hand work to this agent: the model reads it in the agent listing.",
    ),
    key(
        "tools",
        Ty::StringOrList,
        At("agent.tools"),
        "The tools the agent has (all of the conversation's when absent), as tool names or rules.",
    ),
    key("disallowedTools", Ty::StringOrList, At("agent.disallowed_tools"), "Tools taken away from the agent."),
    key(
        "model",
        Ty::String,
        At("agent.model"),
        "The agent's model: `sonnet`, `opus`, `haiku`, `inherit` (the conversation's) or a full model id.",
    ),
    key(
        "permissionMode",
        Ty::String,
        At("agent.permission_mode"),
        "The permission mode the agent runs in (`default`, `acceptEdits`, `plan`, `bypassPermissions`, …).",
    ),
    key(
        "maxTurns",
        Ty::Integer,
        Not("it bounds how long the agent runs, not what it may do"),
        "The most turns the agent takes before it stops.",
    ),
    key(
        "skills",
        Ty::StringOrList,
        Not("the skills it names are locked as commands of their own"),
        "Skills loaded into the agent's context when it starts.",
    ),
    key(
        "mcpServers",
        Ty::Array,
        At("run.run"),
        "MCP servers for this agent: names of declared servers, or inline server entries.",
    ),
    key("hooks", Ty::Object, At("run.run"), "Hooks active while the agent runs."),
    key("memory", Ty::String, At("agent.memory"), "Persistent memory for the agent: `user`, `project` or `local`."),
    key(
        "background",
        Ty::BoolLike,
        Not("it changes when the agent's result comes back, not what it may do"),
        "Always run the agent in the background.",
    ),
    key(
        "omitClaudeMd",
        Ty::BoolLike,
        At("agent.omit_claude_md"),
        "`true`: run as a subagent, the agent gets none of the user, project and local CLAUDE.md files (managed ones stay); no effect on the main session's agent.",
    ),
    key("effort", Ty::Any, Not("capc does not record an agent's effort yet"), "The reasoning effort of the agent."),
    key(
        "isolation",
        Ty::String,
        At("agent.isolation"),
        "`worktree`: the agent works in a temporary git worktree of its own.",
    ),
    key("color", Ty::String, Not("how the terminal shows the agent"), "The agent's color in the terminal interface."),
    key(
        "initialPrompt",
        Ty::String,
        Not("a prompt of the main session's agent, read when it runs"),
        "A prompt sent as the agent's first turn when it runs as the main session.",
    ),
];

/// `.claude-plugin/plugin.json` (the plugins reference, and `claude plugin validate` measured).
pub const PLUGIN: &[Key] = &[
    key("name", Ty::String, At("plugin.name"), "The plugin's name: its namespace, `plugin:skill`; kebab-case, no spaces."),
    key("$schema", Ty::String, EDITOR, "The JSON Schema editors check the file against."),
    key("displayName", Ty::String, LISTING, "The name the plugin manager shows."),
    key("version", Ty::String, At("plugin.version"), "The plugin's version; updates are offered when it changes."),
    key("description", Ty::String, LISTING, "What the plugin does, shown in the plugin manager."),
    key("author", Ty::Object, LISTING, "`{ name, email, url }` of the author."),
    key("homepage", Ty::String, LISTING, "The plugin's home page."),
    key("repository", Ty::String, LISTING, "The plugin's source repository."),
    key("license", Ty::String, LISTING, "The plugin's license (an SPDX id)."),
    key("keywords", Ty::StringArray, LISTING, "Words the plugin manager's search finds it by."),
    key("metadata", Ty::Any, Not("free-form data Claude Code does not read"), "Free-form data for tools."),
    key("defaultEnabled", Ty::Bool, Not("capc does not record it; `enabledPlugins` decides what loads here"), "Whether the plugin is on once installed, until settings say otherwise."),
    key("skills", Ty::StringOrStringArray, At("plugin.inventory.commands.name"), "Extra skill folders, relative to the plugin root and starting with `./`."),
    key("commands", Ty::StringOrStringArray, At("plugin.inventory.commands.name"), "Extra command files or folders, relative to the plugin root and starting with `./`; the `commands/` folder is read too."),
    key("agents", Ty::StringOrStringArray, At("plugin.inventory.agents"), "Extra agent files, relative to the plugin root and starting with `./`."),
    key("workflows", Ty::StringOrStringArray, Not("capc does not read workflow files yet"), "Extra workflow files or folders."),
    key("hooks", Ty::PathsOrObjects, At("plugin.inventory.hooks"), "Hooks: a path to a hooks file, or the hooks themselves, by event."),
    key("mcpServers", Ty::StringOrArrayOrObject, At("plugin.inventory.mcp_servers"), "MCP servers: a path to an MCP file, or the servers themselves, by name."),
    key("outputStyles", Ty::StringOrStringArray, At("plugin.inventory.output_styles"), "Extra output style files or folders."),
    key("lspServers", Ty::StringOrArrayOrObject, At("plugin.inventory.lsp_servers"), "Language servers Claude Code starts for the files they handle."),
    key("experimental", Ty::Any, Not("its `themes`, `monitors` and `outputStyles` are recorded as the top-level keys are"), "Components Claude Code reads under test (`themes`, `monitors`, `outputStyles`, …)."),
    key("themes", Ty::Any, At("plugin.inventory.themes"), "Color themes the plugin adds (deprecated here: write them under `experimental`)."),
    key("monitors", Ty::Any, At("plugin.inventory.monitors"), "Background monitors: shell commands whose output reaches the model (deprecated here: write them under `experimental`)."),
    key("userConfig", Ty::Object, Not("options a user sets at install; their values live outside the folder"), "Options the user is asked for when enabling the plugin, each `{ type, title, description, … }`."),
    key("channels", Ty::Array, Not("capc does not record channels"), "Message channels the plugin's MCP servers provide."),
    key("dependencies", Ty::Array, Not("checked against the marketplace (`unsatisfied-dependency`), not recorded"), "Plugins this one needs, installed with it."),
    key("optionalDependencies", Ty::Any, Not("checked against the marketplace, not recorded"), "Plugins this one uses when they are installed."),
    key("engines", Ty::Any, Not("capc does not record it"), "The Claude Code versions the plugin works with."),
    key("network", Ty::Object, Not("capc does not record it"), "The network access the plugin declares."),
    key("settings", Ty::Object, At("plugin.agent"), "Settings the plugin applies while enabled (only `agent` and `subagentStatusLine`)."),
    key("types", Ty::Any, Not("capc does not record it"), "Type declarations for the plugin's modules."),
    key("binaries", Ty::Any, Not("the files of `bin/` are recorded (`[[plugin_bin]]`), not this key"), "Programs the plugin ships."),
];

/// `.claude-plugin/marketplace.json`.
pub const MARKETPLACE: &[Key] = &[
    key("name", Ty::String, At("plugin.id"), "The marketplace's name: a plugin from it is `plugin@marketplace`; kebab-case, no spaces."),
    key("owner", Ty::Object, LISTING, "The marketplace's maintainer: `{ name, email }`."),
    key("plugins", Ty::Array, At("marketplace_plugin.id"), "The marketplace's plugins: each entry's `name` and `source` (a `./` path in this repository, or a git or GitHub source)."),
    key("$schema", Ty::String, EDITOR, "The JSON Schema editors check the file against."),
    key("description", Ty::String, LISTING, "What the marketplace offers."),
    key("version", Ty::String, LISTING, "The marketplace's version."),
    key("metadata", Ty::Object, Not("`pluginRoot` is applied to the entries' sources; the rest is listing metadata"), "`{ description, version, pluginRoot }`: `pluginRoot` is prefixed to relative sources."),
    key("allowCrossMarketplaceDependenciesOn", Ty::StringArray, Not("checked, not recorded"), "Other marketplaces whose plugins this one's plugins may depend on."),
    key("renames", Ty::Object, Not("capc does not record it"), "Old plugin names and the names they became."),
    key("forceRemoveDeletedPlugins", Ty::Bool, Not("it acts on installed copies, outside the folder"), "`true`: plugins no longer listed are removed from users' installs."),
];

/// A plugin entry of `marketplace.json`: these keys, and every key of [`PLUGIN`].
pub const MARKETPLACE_ENTRY: &[Key] = &[
    key("source", Ty::Any, At("marketplace_plugin.source"), "Where the plugin comes from: `./path` relative to the marketplace root, or `{ source: github|git|url|npm, … }`."),
    key("category", Ty::String, LISTING, "The category the plugin manager files the plugin under."),
    key("tags", Ty::StringArray, LISTING, "Words the plugin manager's search finds the plugin by."),
    key("strict", Ty::Bool, At("marketplace_plugin.strict"), "`false`: the marketplace entry is the whole manifest; the plugin needs no plugin.json of its own."),
    key("relevance", Ty::Object, LISTING, "Hints for when the plugin manager suggests the plugin."),
    key("id", Ty::String, LISTING, "An identifier of the entry for the marketplace's own tools."),
    key("headers", Ty::Object, Not("sent when fetching the source, outside the folder"), "HTTP headers sent when fetching a `url` source."),
    key("headersHelper", Ty::String, Not("run when fetching the source, outside the folder"), "A command whose output (JSON) gives the headers for fetching the source."),
];

/// The top level of an MCP file (`.mcp.json`, or one a plugin names).
pub const MCP_FILE: &[Key] = &[
    key("mcpServers", Ty::Object, At("mcp_server.name"), "MCP servers, by name."),
    key("$schema", Ty::String, EDITOR, "The JSON Schema editors check the file against."),
];

/// An MCP server entry (in `.mcp.json`, a plugin, `~/.claude.json` or an agent).
pub const MCP_SERVER: &[Key] = &[
    key(
        "type",
        Ty::String,
        At("mcp_server.transport"),
        "The server's transport: `stdio` (default), `http`, `sse` or `ws`.",
    ),
    key("command", Ty::String, At("mcp_server.command"), "The program a stdio server runs."),
    key("args", Ty::StringArray, At("mcp_server.args"), "Its arguments."),
    key(
        "env",
        Ty::Object,
        At("mcp_server.env"),
        "Environment of the server process; use `${VAR}` references, never literal secrets.",
    ),
    key("cwd", Ty::String, At("mcp_server.cwd"), "The folder a stdio server starts in."),
    key("url", Ty::String, At("mcp_server.url"), "The address of an `http`, `sse` or `ws` server."),
    key(
        "headers",
        Ty::Object,
        At("mcp_server.headers"),
        "HTTP headers sent to the server; use `${VAR}` references for tokens.",
    ),
    key(
        "headersHelper",
        Ty::String,
        At("mcp_server.headers_helper"),
        "A command whose output (JSON) gives the headers.",
    ),
    key(
        "oauth",
        Ty::Object,
        Not("the client's OAuth settings; the tokens it gets live outside the folder"),
        "OAuth client settings for a remote server (`clientId`, `callbackPort`, …).",
    ),
    key("timeout", Ty::Number, At("mcp_server.timeout"), "How long a tool call may take, in milliseconds."),
    key(
        "alwaysLoad",
        Ty::Bool,
        At("mcp_server.always_load"),
        "`true`: the server's tools are always in the context, never deferred behind tool search.",
    ),
];

/// The top level of a hooks file (`hooks/hooks.json`, or one a plugin names).
pub const HOOKS_FILE: &[Key] = &[
    key("description", Ty::String, LISTING, "What the hooks are for."),
    key(
        "hooks",
        Ty::Object,
        At("hook.event"),
        "Hooks, by event (`PreToolUse`, `PostToolUse`, `Stop`, …): each a list of matcher groups.",
    ),
    key("modules", Ty::Array, At("plugin.inventory.modules"), "Modules the plugin's hooks load."),
    key("$schema", Ty::String, EDITOR, "The JSON Schema editors check the file against."),
];

/// A matcher group of an event's list, in any hooks map.
pub const HOOK_GROUP: &[Key] = &[
    key(
        "matcher",
        Ty::String,
        At("hook.matcher"),
        "Which tools (or sources) a hook group applies to: a tool name, `A|B`, a regular expression, or empty for all.",
    ),
    key(
        "hooks",
        Ty::Array,
        At("hook.type"),
        "The group's handlers: `{ type: command|http|prompt|agent|mcp_tool, … }`.",
    ),
];

/// Every hook handler (`{ type, … }` in a matcher group's `hooks`), beside its type's table.
pub const HOOK_HANDLER: &[Key] = &[
    key(
        "type",
        Ty::String,
        At("hook.type"),
        "What the handler is: `command`, `http`, `prompt`, `agent` or `mcp_tool`.",
    ),
    key(
        "if",
        Ty::String,
        At("hook.if"),
        "A permission rule the tool use must match for the handler to run (`Bash(git push:*)`).",
    ),
    key(
        "timeout",
        Ty::Number,
        Not("it bounds how long the handler runs, not what it runs"),
        "How long the handler may run, in seconds.",
    ),
    key(
        "statusMessage",
        Ty::String,
        Not("what the terminal shows while the handler runs"),
        "The message shown while the handler runs.",
    ),
    key("once", Ty::Bool, Not("capc does not record it"), "`true`: the handler runs once, then is removed."),
];

/// A `command` hook handler.
pub const HOOK_COMMAND: &[Key] = &[
    key(
        "command",
        Ty::String,
        At("hook.run"),
        "The shell command the hook runs; the event's JSON arrives on its stdin.",
    ),
    key(
        "args",
        Ty::StringArray,
        Not("capc does not record a command hook's arguments yet"),
        "Arguments of the command, each one argument of the program; the shell expands nothing in them.",
    ),
    key(
        "async",
        Ty::Bool,
        Not("it changes when the result is read, not what runs"),
        "`true`: the command runs in the background and does not block.",
    ),
    key(
        "asyncRewake",
        Ty::Bool,
        Not("it changes when the result is read, not what runs"),
        "`true`: the command runs in the background and wakes the model when it exits with code 2.",
    ),
    key(
        "rewakeMessage",
        Ty::String,
        Not("a message to the model, not what runs"),
        "The start of the reminder the model gets when an `asyncRewake` command exits with code 2.",
    ),
    key(
        "rewakeSummary",
        Ty::String,
        Not("a message to the model, not what runs"),
        "The line the terminal shows when an `asyncRewake` command exits with code 2.",
    ),
    key(
        "shell",
        Ty::String,
        Not("capc records the command, not the shell it runs in"),
        "The shell the command runs in (`bash` or `powershell`).",
    ),
];

/// An `http` hook handler.
pub const HOOK_HTTP: &[Key] = &[
    key("url", Ty::String, At("hook.run"), "The address the event's JSON is posted to."),
    key(
        "headers",
        Ty::Object,
        Not("capc does not record an HTTP hook's headers"),
        "HTTP headers sent with the event; use `${VAR}` references for tokens.",
    ),
    key(
        "allowedEnvVars",
        Ty::StringArray,
        Not("capc does not record it"),
        "The environment variables the headers may reference; any other `$VAR` is left empty.",
    ),
];

/// An `mcp_tool` hook handler.
pub const HOOK_MCP_TOOL: &[Key] = &[
    key(
        "server",
        Ty::String,
        Not("capc records the tool, not its server, yet"),
        "The MCP server whose tool the hook calls.",
    ),
    key("tool", Ty::String, At("hook.run"), "The MCP tool the hook calls."),
    key(
        "input",
        Ty::Object,
        Not("capc does not record the tool's input"),
        "The tool's input; `${…}` references take values from the event.",
    ),
];

/// A `prompt` or `agent` hook handler.
pub const HOOK_PROMPT: &[Key] = &[
    key(
        "prompt",
        Ty::String,
        At("hook.run"),
        "The prompt a model answers to decide (`$ARGUMENTS` is the event's JSON).",
    ),
    key(
        "model",
        Ty::String,
        Not("the model that answers does not change what runs"),
        "The model that answers the prompt.",
    ),
];

/// Frontmatter of an output style (`.claude/output-styles/*.md`, a plugin's `output-styles/`).
pub const OUTPUT_STYLE: &[Key] = &[
    key(
        "name",
        Ty::Any,
        At("output_style.name"),
        "The style's name, as `outputStyle` selects it (defaults to the file name).",
    ),
    key(
        "description",
        Ty::Any,
        At("output_style.description"),
        "What the style does, shown in the `/output-style` menu.",
    ),
    key(
        "keep-coding-instructions",
        Ty::Any,
        At("output_style.keep_coding_instructions"),
        "`true`: the style keeps Claude Code's coding instructions in the system prompt.",
    ),
    key(
        "force-for-plugin",
        Ty::Any,
        At("output_style.force_for_plugin"),
        "In a plugin's style: applied whenever the plugin is enabled.",
    ),
];

/// Settings keys capc says more about than their type (every settings key and its type is in
/// the settings schema Claude Code's release gives, `settings_schema.rs`). `name` is a dotted
/// path (`permissions.allow`); `ty` is the schema's, so it is not repeated here.
#[derive(Debug, Clone, Copy)]
pub struct SettingKey {
    pub path: &'static str,
    pub doc: &'static str,
    pub lock: Lands,
}

const fn setting(path: &'static str, lock: Lands, doc: &'static str) -> SettingKey {
    SettingKey { path, doc, lock }
}

pub const SETTINGS: &[SettingKey] = &[
    setting(
        "permissions",
        At("permission.rule"),
        "Permission rules: `allow`, `ask`, `deny` lists of rules, `defaultMode`, `additionalDirectories`.",
    ),
    setting(
        "permissions.allow",
        At("permission.rule"),
        "Rules for tool uses that go ahead without asking (`Bash(npm test)`, `Read(./src/**)`, `mcp__server__tool`).",
    ),
    setting("permissions.ask", At("permission.rule"), "Rules for tool uses that always ask first."),
    setting(
        "permissions.deny",
        At("permission.rule"),
        "Rules for tool uses that are refused; deny wins over ask and allow.",
    ),
    setting("permissions.defaultMode", At("setting.value"), "The permission mode sessions start in."),
    setting("enabledPlugins", At("plugin.reason"), "Plugins turned on or off here: `\"plugin@marketplace\": true`."),
    setting(
        "extraKnownMarketplaces",
        At("pin.name"),
        "Marketplaces a session here knows about, by name, with their `source`.",
    ),
    setting(
        "enableAllProjectMcpServers",
        At("mcp_server.approval"),
        "`true`: every server of the project's .mcp.json starts without asking.",
    ),
    setting("enabledMcpjsonServers", At("mcp_server.approval"), "Project .mcp.json servers approved to start."),
    setting("disabledMcpjsonServers", At("mcp_server.approval"), "Project .mcp.json servers refused."),
    setting("model", Not("the session's model does not change what it may do"), "The model sessions start with."),
    setting("hooks", At("hook.event"), "Hooks, by event: each a list of matcher groups."),
];

/// The entry for `name` in `table`.
pub fn find<'t>(table: &'t [Key], name: &str) -> Option<&'t Key> {
    table.iter().find(|k| k.name == name)
}

/// The entry of the settings key at `path` (`permissions.allow`).
pub fn setting_at(path: &str) -> Option<&'static SettingKey> {
    SETTINGS.iter().find(|k| k.path == path)
}

/// Every table with what it is the table of, in the order `docs/lock.md` lists them.
pub const TABLES: &[(&str, &[Key])] = &[
    ("skill and command frontmatter", SKILL),
    ("agent frontmatter", AGENT),
    ("output-style frontmatter", OUTPUT_STYLE),
    ("plugin.json", PLUGIN),
    ("marketplace.json", MARKETPLACE),
    ("a marketplace's plugin entry (beside every plugin.json key)", MARKETPLACE_ENTRY),
    ("an MCP file (`.mcp.json`)", MCP_FILE),
    ("an MCP server entry", MCP_SERVER),
    ("a hooks file (`hooks/hooks.json`)", HOOKS_FILE),
    ("a matcher group of hooks", HOOK_GROUP),
    ("a hook handler, whatever its type", HOOK_HANDLER),
    ("a `command` hook handler", HOOK_COMMAND),
    ("an `http` hook handler", HOOK_HTTP),
    ("an `mcp_tool` hook handler", HOOK_MCP_TOOL),
    ("a `prompt` or `agent` hook handler", HOOK_PROMPT),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_once_in_its_table_with_a_text_and_a_landing() {
        for (kind, table) in TABLES {
            for (i, k) in table.iter().enumerate() {
                assert!(!table[..i].iter().any(|o| o.name == k.name), "`{}` twice in the {kind} table", k.name);
                assert!(
                    k.doc.ends_with('.') && !k.doc.contains('\n'),
                    "the {kind} key `{}` has one line of text",
                    k.name
                );
                match k.lock {
                    At(path) => assert!(path.contains('.'), "{kind} `{}` lands at a table and a field", k.name),
                    Not(why) => assert!(!why.is_empty(), "{kind} `{}` says why it is not locked", k.name),
                }
            }
        }
    }

    #[test]
    fn every_settings_entry_is_a_key_claude_code_knows() {
        for entry in SETTINGS {
            let mut parts: Vec<&str> = entry.path.split('.').collect();
            let last = parts.pop().unwrap_or_default();
            let known = if parts.is_empty() {
                super::super::settings::known_keys()
            } else {
                super::super::settings::nested_keys(&parts)
            };
            assert!(known.contains(&last), "`{}` is not a settings key of Claude Code's table", entry.path);
        }
    }

    #[test]
    fn every_frontmatter_key_capc_checks_is_one_claude_code_reads() {
        // A key of these tables that is not in Claude Code's own list is read through another
        // spelling Claude Code also accepts (`disallowed-tools` for `disallowedTools`).
        let known = super::super::markdown::claude_code_keys();
        for k in SKILL.iter().chain(AGENT) {
            assert!(
                known.contains(&k.name) || k.name == "disallowed-tools",
                "`{}` is not a key Claude Code reads",
                k.name
            );
        }
    }

    /// The keys the lock's readers (`declare::command`, `declare::agent`) take from
    /// frontmatter, as the source spells them: a key read there is in the table and lands in
    /// the lock, so a new reader cannot skip the table.
    #[test]
    fn every_key_the_lock_reads_from_frontmatter_is_in_the_table() {
        let source = include_str!("declare.rs");
        let section = |from: &str, to: &str| {
            let start = source.find(from).unwrap_or_else(|| panic!("`{from}` in declare.rs"));
            let end = start + source[start..].find(to).unwrap_or_else(|| panic!("`{to}` after `{from}`"));
            &source[start..end]
        };
        let read = |text: &str| -> Vec<String> {
            let mut keys = Vec::new();
            for call in ["string(f, \"", "list(f, \"", "flag(f, \"", "trimmed(\"", "get(\""] {
                for (at, _) in text.match_indices(call) {
                    let rest = &text[at + call.len()..];
                    keys.push(rest[..rest.find('"').unwrap_or(0)].to_string());
                }
            }
            keys
        };
        let landed = |table: &[Key], name: &str| find(table, name).is_some_and(|k| matches!(k.lock, At(_)));
        let skill = read(section("pub fn command(", "pub fn agent("));
        assert!(skill.len() >= 10, "the command reader was found: {skill:?}");
        for name in skill {
            assert!(landed(SKILL, &name), "declare::command reads `{name}`: SKILL needs it, with its lock path");
        }
        let agent = read(section("pub fn agent(", "pub fn hooks("));
        assert!(agent.len() >= 8, "the agent reader was found: {agent:?}");
        for name in agent {
            // A plugin agent's description falls back on these (`agent.description`).
            if matches!(name.as_str(), "when_to_use" | "when-to-use") {
                continue;
            }
            assert!(landed(AGENT, &name), "declare::agent reads `{name}`: AGENT needs it, with its lock path");
        }
    }
}
