//! Claude Code's own slash commands, bundled skills and workflows, built-in agents and reserved
//! names: the names a user's skill or command can collide with, and the rows that complete the
//! command table. Nothing here is a table: the facts are data under `compiler/data/claude-code/`,
//! read once. What the bundle gives as data (the command objects' aliases, types and
//! availability; the bundled-skill registrations) is extracted by `scripts/claude-code-tables`
//! into `commands.json` and `bundled-skills.json`; what only a session shows (the table's order,
//! which commands a headless session has, the texts the Skill and agent listings send) is
//! measured into `measured/*.json`, each row naming the oracle scenario that shows it
//! (`tests/oracle/scenarios`). The tests (`builtins/tests.rs`) tie the two together and each
//! measured row to its recording.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// What kind of built-in a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuiltinKind {
    /// A command implemented in the client (`/clear`, `/model`), or one of its prompt commands
    /// (`/init`).
    Command,
    /// A bundled skill: a prompt command a local skill of the same name replaces (but not
    /// its aliases).
    BundledSkill,
    /// A bundled workflow (`/deep-research`); in the table just after the skill folders'
    /// commands, before plugin commands.
    #[serde(rename = "workflow")]
    BundledWorkflow,
    /// A skill of a plugin built into Claude Code (`/plugin-authoring`); after bundled skills.
    PluginSkill,
}

/// Who may use a built-in, by how they sign in (`availability` in Claude Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Availability {
    Everyone,
    /// claude.ai subscribers only.
    ClaudeAi,
    /// claude.ai subscribers and Anthropic Console (API key) users, not third-party providers.
    FirstParty,
}

impl Availability {
    /// A command object's `availability` list: none is everyone; `claude-ai` alone, claude.ai
    /// subscribers; with a Console entry, first-party sign-ins.
    fn of_object(list: &[String]) -> Availability {
        if list.is_empty() {
            Availability::Everyone
        } else if list.iter().all(|a| a == "claude-ai") {
            Availability::ClaudeAi
        } else {
            Availability::FirstParty
        }
    }
}

/// How an entry of the command table runs, in Claude Code's words: a `prompt` becomes a
/// model request, a `local` command answers in text, a `local-jsx` one draws an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandType {
    Prompt,
    Local,
    LocalJsx,
}

impl CommandType {
    /// `prompt`, `local` or `local-jsx`, as Claude Code's table and capc's outputs name it.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandType::Prompt => "prompt",
            CommandType::Local => "local",
            CommandType::LocalJsx => "local-jsx",
        }
    }
}

/// One built-in of the command table.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: BuiltinKind,
    /// How it runs in a headless session where it has one, else interactively.
    pub command_type: CommandType,
    /// In the interactive CLI's table (from the bundle; gated-off commands are left out).
    pub interactive: bool,
    /// In a headless (`-p`, SDK) session's table (measured: `system/init`'s `slash_commands`).
    pub headless: bool,
    pub availability: Availability,
}

/// The extracted command objects (`scripts/claude-code-tables`).
const COMMANDS_FILE: &str = include_str!("../data/claude-code/commands.json");
/// The measured rows of the command table.
const MEASURED_COMMANDS: &str = include_str!("../data/claude-code/measured/commands.json");
/// The measured bundled skills and built-in prompt commands, with their texts.
const MEASURED_SKILLS: &str = include_str!("../data/claude-code/measured/bundled-skills.json");
/// The measured built-in agents, with their listing texts.
const MEASURED_AGENTS: &str = include_str!("../data/claude-code/measured/agents.json");
/// Names Claude Code keeps for itself.
const RESERVED_NAMES: &str = include_str!("../data/claude-code/measured/reserved-names.json");

/// A measured file (`compiler/data/claude-code/measured/`): the release it was measured on and
/// its rows. The runtime reads its own measured file, the tool conditions, through it too.
#[derive(Deserialize)]
pub struct Measured<R> {
    /// A test ties it to the version capc follows.
    pub claude_code: String,
    pub rows: Vec<R>,
}

impl<R> Measured<R> {
    /// A measured file, parsed (one that does not parse reads as no rows: a test checks each
    /// parses, with its rows).
    pub fn read(text: &str) -> Measured<R>
    where
        R: serde::de::DeserializeOwned,
    {
        serde_json::from_str(text).unwrap_or_else(|_| Measured { claude_code: String::new(), rows: Vec::new() })
    }
}

/// A row of `measured/commands.json` (its `about` says what each field means).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(test), allow(dead_code))]
struct CommandRow {
    name: String,
    kind: BuiltinKind,
    #[serde(rename = "type")]
    command_type: Option<CommandType>,
    aliases: Option<Vec<String>>,
    availability: Option<Availability>,
    interactive: bool,
    headless: bool,
    scenario: String,
    note: Option<String>,
}

/// A command object of `commands.json`.
#[derive(Deserialize)]
struct CommandObject {
    aliases: Vec<String>,
    availability: Vec<String>,
    #[serde(rename = "type")]
    types: Vec<CommandType>,
}

#[derive(Deserialize)]
struct CommandsFile {
    #[cfg_attr(not(test), allow(dead_code))]
    claude_code: String,
    commands: BTreeMap<String, CommandObject>,
}

/// The extracted command objects, read once (a file that does not parse reads as none: a test
/// checks it parses).
fn command_objects() -> &'static CommandsFile {
    static FILE: OnceLock<CommandsFile> = OnceLock::new();
    FILE.get_or_init(|| {
        serde_json::from_str(COMMANDS_FILE)
            .unwrap_or_else(|_| CommandsFile { claude_code: String::new(), commands: BTreeMap::new() })
    })
}

fn measured_commands() -> &'static Measured<CommandRow> {
    static FILE: OnceLock<Measured<CommandRow>> = OnceLock::new();
    FILE.get_or_init(|| Measured::read(MEASURED_COMMANDS))
}

/// A row's command object, if it is a command the bundle writes as an object.
fn object_of(row: &CommandRow) -> Option<&'static CommandObject> {
    (row.kind == BuiltinKind::Command).then(|| command_objects().commands.get(&row.name)).flatten()
}

/// Each measured row's aliases: its own, else its command object's (in the bundle's order).
fn alias_lists() -> &'static [Vec<&'static str>] {
    static LISTS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    LISTS.get_or_init(|| {
        let rows = &measured_commands().rows;
        rows.iter()
            .map(|row| {
                let aliases = row.aliases.as_deref().or(object_of(row).map(|o| o.aliases.as_slice()));
                aliases.unwrap_or_default().iter().map(String::as_str).collect()
            })
            .collect()
    })
}

/// A measured row completed from its command object: aliases, type and availability come from
/// the object unless the row gives them (a command with two variants, an override, a command
/// no object holds).
fn complete(row: &'static CommandRow, aliases: &'static [&'static str]) -> Builtin {
    let object = object_of(row);
    let command_type = row
        .command_type
        .or(object.and_then(|o| match o.types.as_slice() {
            [only] => Some(*only),
            _ => None,
        }))
        .unwrap_or(CommandType::Prompt);
    let availability =
        row.availability.or(object.map(|o| Availability::of_object(&o.availability))).unwrap_or(Availability::Everyone);
    Builtin {
        name: &row.name,
        aliases,
        kind: row.kind,
        command_type,
        interactive: row.interactive,
        headless: row.headless,
        availability,
    }
}

/// Every built-in, in Claude Code's table order within each kind (bundled workflows,
/// bundled skills in registration order, built-in plugin skills, then commands). Commands that
/// exist in an interactive and a headless variant are one row.
pub fn builtins() -> &'static [Builtin] {
    static ROWS: OnceLock<Vec<Builtin>> = OnceLock::new();
    ROWS.get_or_init(|| {
        measured_commands().rows.iter().zip(alias_lists()).map(|(row, aliases)| complete(row, aliases)).collect()
    })
}

/// The built-in named `name` (not following aliases).
pub fn named(name: &str) -> Option<&'static Builtin> {
    builtins().iter().find(|b| b.name == name)
}

/// The built-in a name or alias refers to.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    named(name).or_else(|| builtins().iter().find(|b| b.aliases.contains(&name)))
}

/// Whether a name or alias is taken by a built-in (bundled skills and commands alike, switched
/// off or not): Claude Code drops a plugin's bare alias equal to one.
pub(crate) fn is_taken(name: &str) -> bool {
    builtin(name).is_some()
}

/// When Claude Code registers a bundled skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    Always,
    /// Not with `CLAUDE_CODE_DISABLE_CRON`.
    Cron,
    /// Not with `CLAUDE_CODE_DISABLE_WORKFLOWS`.
    Workflows,
    /// Only for a claude.ai sign-in.
    ClaudeAi,
}

/// Where a bundled entry comes from, which decides how switches and the listing budget treat it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BundledSource {
    /// A bundled skill: off with `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS`; keeps its description
    /// when the listing is over budget.
    Bundled,
    /// A built-in prompt command (`init`, `security-review`): off with
    /// `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS`, but cut to its name like a user's skill.
    Builtin,
    /// A skill of a built-in plugin (`plugin-authoring`): stays when bundled skills are off.
    BuiltinPlugin,
}

/// A bundled skill or built-in prompt command as Claude Code registers it: the text
/// its Skill listing shows, who may invoke it, and when it exists.
#[derive(Debug, Clone, Copy)]
pub struct BundledSkill {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub when_to_use: Option<&'static str>,
    /// In the Skill listing of a headless (`-p`) session when its gate holds. `doctor` and
    /// `verify` are registered but not listed there; the four the model may not invoke never are.
    pub listed: bool,
    pub model_invocable: bool,
    /// The user can type it; `keybindings-help` is the model's alone (and not named to the user).
    pub user_invocable: bool,
    pub gate: Gate,
    pub source: BundledSource,
    /// The prompt it sends when typed, where that is fixed text.
    pub prompt: Option<&'static str>,
}

/// A row of `measured/bundled-skills.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(test), allow(dead_code))]
struct SkillRow {
    name: String,
    description: Option<String>,
    when_to_use: Option<String>,
    listed: bool,
    model_invocable: bool,
    user_invocable: bool,
    gate: Gate,
    source: BundledSource,
    prompt: Option<String>,
    prompt_outside_git: Option<String>,
    scenario: String,
}

fn measured_skills() -> &'static Measured<SkillRow> {
    static FILE: OnceLock<Measured<SkillRow>> = OnceLock::new();
    FILE.get_or_init(|| Measured::read(MEASURED_SKILLS))
}

/// The bundled skills and built-in prompt commands, in the order Claude Code registers them,
/// which is the order of the Skill listing and of the commands named to the user; the unlisted
/// ones last. Their texts are the ones Claude Code ([`crate::model::CLAUDE_CODE_VERSION`]) sends.
pub fn bundled_skills() -> &'static [BundledSkill] {
    static ROWS: OnceLock<Vec<BundledSkill>> = OnceLock::new();
    ROWS.get_or_init(|| {
        measured_skills()
            .rows
            .iter()
            .map(|r| BundledSkill {
                name: &r.name,
                description: r.description.as_deref(),
                when_to_use: r.when_to_use.as_deref(),
                listed: r.listed,
                model_invocable: r.model_invocable,
                user_invocable: r.user_invocable,
                gate: r.gate,
                source: r.source,
                prompt: r.prompt.as_deref(),
            })
            .collect()
    })
}

/// A bundled skill or built-in prompt command, by name.
pub fn bundled_skill(name: &str) -> Option<&'static BundledSkill> {
    bundled_skills().iter().find(|b| b.name == name)
}

/// `/security-review`'s prompt outside a git repository, as Claude Code
/// ([`crate::model::CLAUDE_CODE_VERSION`]) sends it; `{cwd}` is the working directory. Inside
/// one, its prompt is built from the repository and capc has no copy.
pub fn security_review_outside_git() -> &'static str {
    measured_skills().rows.iter().find_map(|r| r.prompt_outside_git.as_deref()).unwrap_or_default()
}

/// When Claude Code offers a built-in agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentGate {
    Always,
    /// Not with `CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS`.
    ExplorePlan,
    /// Not with `CLAUDE_CODE_DISABLE_AGENT_VIEW`.
    AgentView,
}

/// One of Claude Code's own subagents, which a user or project agent of the same name replaces.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinAgent {
    pub name: &'static str,
    /// What the agent listing says it is for.
    pub description: &'static str,
    /// The listing's `(Tools: …)` text.
    pub tools: &'static str,
    pub gate: AgentGate,
}

/// A row of `measured/agents.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(test), allow(dead_code))]
struct AgentRow {
    name: String,
    description: String,
    tools: String,
    gate: AgentGate,
    scenario: String,
}

fn measured_agents() -> &'static Measured<AgentRow> {
    static FILE: OnceLock<Measured<AgentRow>> = OnceLock::new();
    FILE.get_or_init(|| Measured::read(MEASURED_AGENTS))
}

/// The built-in agents of a headless Claude Code session, with the texts its agent listing
/// sends, in its order. An interactive session also has `claude-code-guide`, whose text capc
/// does not have.
pub fn builtin_agents() -> &'static [BuiltinAgent] {
    static ROWS: OnceLock<Vec<BuiltinAgent>> = OnceLock::new();
    ROWS.get_or_init(|| {
        measured_agents()
            .rows
            .iter()
            .map(|r| BuiltinAgent { name: &r.name, description: &r.description, tools: &r.tools, gate: r.gate })
            .collect()
    })
}

/// A built-in agent, by name.
pub fn builtin_agent(name: &str) -> Option<&'static BuiltinAgent> {
    builtin_agents().iter().find(|a| a.name == name)
}

/// A built-in's row in the command table.
#[derive(Debug, Clone, Copy)]
pub struct TableEntry {
    pub name: &'static str,
    pub kind: BuiltinKind,
    pub origin: crate::model::Origin,
    pub command_type: CommandType,
    pub aliases: &'static [&'static str],
    pub builtin: &'static Builtin,
}

/// The built-ins in command-table order (bundled workflows, bundled skills, built-in plugin
/// skills, then commands, as Claude Code orders them), built once. Workflows go before plugin
/// commands in the whole table; the resolver and the runtime place them.
pub fn table() -> &'static [TableEntry] {
    use crate::model::Origin;
    static TABLE: OnceLock<Vec<TableEntry>> = OnceLock::new();
    TABLE.get_or_init(|| {
        builtins()
            .iter()
            .map(|b| TableEntry {
                name: b.name,
                kind: b.kind,
                origin: if b.kind == BuiltinKind::Command { Origin::Builtin } else { Origin::Bundled },
                command_type: b.command_type,
                aliases: b.aliases,
                builtin: b,
            })
            .collect()
    })
}

/// Whether `name` is a built-in command's (not a bundled skill's or workflow's).
pub fn is_command(name: &str) -> bool {
    named(name).is_some_and(|b| b.kind == BuiltinKind::Command)
}

/// `measured/reserved-names.json`.
#[derive(Deserialize, Default)]
struct ReservedNames {
    #[cfg_attr(not(test), allow(dead_code))]
    claude_code: String,
    marketplaces: NameList,
    mcp_servers: NameList,
}

#[derive(Deserialize, Default)]
#[cfg_attr(not(test), allow(dead_code))]
struct NameList {
    names: Vec<String>,
    scenario: Option<String>,
    note: Option<String>,
}

/// The reserved names, read once (a file that does not parse reads as none: a test checks it
/// parses).
fn reserved_names() -> &'static ReservedNames {
    static FILE: OnceLock<ReservedNames> = OnceLock::new();
    FILE.get_or_init(|| serde_json::from_str(RESERVED_NAMES).unwrap_or_default())
}

/// Whether Claude Code refuses an MCP server of this name: one it keeps for its own servers,
/// compared after characters outside `[A-Za-z0-9_-]` become `_` (case kept).
pub(crate) fn is_reserved_mcp_name(name: &str) -> bool {
    let name = crate::names::normalize_server(name);
    reserved_names().mcp_servers.names.iter().any(|r| crate::names::normalize_server(r) == name)
}

/// Whether a marketplace name (as written, or lowercased by the caller) is reserved for
/// Anthropic.
pub(crate) fn is_reserved_marketplace(name: &str) -> bool {
    reserved_names().marketplaces.names.iter().any(|r| r == name)
}

#[cfg(test)]
mod tests;
