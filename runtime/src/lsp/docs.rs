//! What each key means to Claude Code, for hover and completion: a line per key, from
//! Claude Code's public documentation of skills, slash commands, subagents, plugins, MCP
//! servers and settings, and capc's own docs/rules.md where capc measured more.

/// Frontmatter of skills and commands.
pub(crate) const SKILL_KEYS: &[(&str, &str)] = &[
    ("name", "The skill's name: what `/name` types and the Skill tool calls (defaults to the folder or file name; a plugin's skills get `plugin:name`)."),
    ("description", "What the skill does and when to use it: the model reads it in the Skill listing to decide whether to call it (cut with `when_to_use` at 1,536 characters)."),
    ("when_to_use", "Added to `description` in the Skill listing: when the model should reach for this skill."),
    ("argument-hint", "The hint shown after `/name` while typing, such as `[issue-number]`."),
    ("arguments", "Named arguments: `$name` in the body is replaced by the argument in that position."),
    ("disable-model-invocation", "`true`: only people can run it by typing `/name`; the model does not see it in the Skill listing."),
    ("user-invocable", "`false`: hidden from the `/` menu; only the model can use it (through the Skill tool)."),
    ("allowed-tools", "Tools the skill may use without asking while it runs (permission rules: `Bash(git status:*)`, `Read`, `mcp__server__tool`)."),
    ("disallowed-tools", "Tools removed while the skill runs."),
    ("model", "The model that runs the skill (`sonnet`, `opus`, `haiku` or a full model id)."),
    ("effort", "The reasoning effort while the skill runs (`low`, `medium`, `high`, `xhigh`, `max`)."),
    ("context", "`fork`: run the skill in a subagent with its own context instead of the conversation."),
    ("agent", "With `context: fork`: the subagent type that runs the skill."),
    ("background", "Run the forked skill in the background."),
    ("hooks", "Hooks active while the skill runs, as in settings (`PreToolUse`, `PostToolUse`, `Stop`, …)."),
    ("paths", "Glob patterns: the skill is offered only once a file matching one is read or edited."),
    ("shell", "The shell `!` injections of the body run in (`bash` or `powershell`)."),
    ("metadata", "Free-form data for tools; Claude Code does not read it."),
    ("license", "The skill's license (Agent Skills standard); not read by Claude Code."),
    ("compatibility", "What the skill needs to run (Agent Skills standard); not read by Claude Code."),
    ("version", "The skill's version; read by the loader, shown nowhere."),
];

/// Frontmatter of subagents.
pub(crate) const AGENT_KEYS: &[(&str, &str)] = &[
    ("name", "The agent type: what the Agent tool's `subagent_type` names (a plugin's agents get `plugin:name`)."),
    (
        "description",
        "When the main conversation should hand work to this agent: the model reads it in the agent listing.",
    ),
    ("tools", "The tools the agent has (all of the conversation's when absent), as tool names or rules."),
    ("disallowedTools", "Tools taken away from the agent."),
    ("model", "The agent's model: `sonnet`, `opus`, `haiku`, `inherit` (the conversation's) or a full model id."),
    (
        "permissionMode",
        "The permission mode the agent runs in (`default`, `acceptEdits`, `plan`, `bypassPermissions`, …).",
    ),
    ("maxTurns", "The most turns the agent takes before it stops."),
    ("skills", "Skills loaded into the agent's context when it starts."),
    ("mcpServers", "MCP servers for this agent: names of declared servers, or inline server entries."),
    ("hooks", "Hooks active while the agent runs."),
    ("memory", "Persistent memory for the agent: `user`, `project` or `local`."),
    ("background", "Always run the agent in the background."),
    ("effort", "The reasoning effort of the agent."),
    ("isolation", "`worktree`: the agent works in a temporary git worktree of its own."),
    ("color", "The agent's color in the terminal interface."),
    ("initialPrompt", "A prompt sent as the agent's first turn when it runs as the main session."),
];

/// Keys of `plugin.json`, `marketplace.json`, `.mcp.json` and settings files.
pub(crate) const JSON_KEYS: &[(&str, &str)] = &[
    ("name", "The plugin's (or marketplace's) name: its namespace, `plugin:skill`; kebab-case, no spaces."),
    ("version", "The plugin's version; updates are offered when it changes."),
    ("description", "What the plugin does, shown in the plugin manager."),
    ("author", "`{ name, email, url }` of the author."),
    ("commands", "Extra command files or folders, relative to the plugin root and starting with `./`; the `commands/` folder is read too."),
    ("agents", "Extra agent files, relative to the plugin root and starting with `./`."),
    ("skills", "Extra skill folders, relative to the plugin root and starting with `./`."),
    ("hooks", "Hooks: a path to a hooks file, or the hooks themselves, by event."),
    ("mcpServers", "MCP servers: a path to an MCP file, or the servers themselves, by name."),
    ("lspServers", "Language servers Claude Code starts for the files they handle."),
    ("outputStyles", "Extra output style files or folders."),
    ("plugins", "The marketplace's plugins: each entry's `name` and `source` (a `./` path in this repository, or a git or GitHub source)."),
    ("source", "Where the plugin comes from: `./path` relative to the marketplace root, or `{ source: github|git|url|npm, … }`."),
    ("owner", "The marketplace's maintainer: `{ name, email }`."),
    ("strict", "`false`: the marketplace entry is the whole manifest; the plugin needs no plugin.json of its own."),
    ("type", "The server's transport: `stdio` (default), `http`, `sse` or `ws`."),
    ("command", "The program a stdio server runs."),
    ("args", "Its arguments."),
    ("env", "Environment of the server process; use `${VAR}` references, never literal secrets."),
    ("url", "The address of an `http`, `sse` or `ws` server."),
    ("headers", "HTTP headers sent to the server; use `${VAR}` references for tokens."),
    ("headersHelper", "A command whose output (JSON) gives the headers."),
    ("permissions", "Permission rules: `allow`, `ask`, `deny` lists of rules, `defaultMode`, `additionalDirectories`."),
    ("allow", "Rules for tool uses that go ahead without asking (`Bash(npm test)`, `Read(./src/**)`, `mcp__server__tool`)."),
    ("ask", "Rules for tool uses that always ask first."),
    ("deny", "Rules for tool uses that are refused; deny wins over ask and allow."),
    ("defaultMode", "The permission mode sessions start in."),
    ("enabledPlugins", "Plugins turned on or off here: `\"plugin@marketplace\": true`."),
    ("extraKnownMarketplaces", "Marketplaces a session here knows about, by name, with their `source`."),
    ("enableAllProjectMcpServers", "`true`: every server of the project's .mcp.json starts without asking."),
    ("enabledMcpjsonServers", "Project .mcp.json servers approved to start."),
    ("disabledMcpjsonServers", "Project .mcp.json servers refused."),
    ("model", "The model sessions start with."),
    ("matcher", "Which tools (or sources) a hook group applies to: a tool name, `A|B`, a regular expression, or empty for all."),
];

pub(crate) fn lookup(table: &[(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, doc)| *doc)
}
