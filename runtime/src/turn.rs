//! One turn's view of the capabilities, recomputed from scratch every turn, as Claude Code
//! 2.1.332 computes them for the request it sends: the command table with availability and
//! enablement re-checked and dynamic skills placed, the Skill listing, the agent listing, the
//! tool pool in the order it is sent with the deferred tools announced, and the tool section of
//! the system prompt. Nothing here keeps state: the same lock, MCP state and context give the
//! same view.
//!
//! [`TurnContext`] names everything besides the lock and the MCP state that changes Claude
//! Code's answer; its defaults are a headless (`claude -p`) run signed in with an API key in a
//! folder that has not been trusted, with the default model's context window.

use crate::loaded::Loaded;
use crate::mcp::McpState;
use crate::permissions::Permissions;
use capc_compiler::builtins::{BuiltinKind, BundledSkill, BundledSource, Gate, BUILTINS};
use capc_compiler::model::{Command, Origin, Scope};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// How Claude Code was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// `claude -p` or the Agent SDK (`--output-format stream-json` sends the same request).
    #[default]
    Headless,
    /// The terminal UI.
    Interactive,
}

/// How the user is signed in, and to which provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Auth {
    /// An Anthropic API key (`console`, the name capc used before, is read as this).
    #[default]
    #[serde(alias = "console")]
    ApiKey,
    /// A claude.ai subscription (OAuth).
    ClaudeAi,
    /// Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK`).
    Bedrock,
    /// Google Vertex AI (`CLAUDE_CODE_USE_VERTEX`).
    Vertex,
    /// Another provider (Foundry, a gateway): treated as Vertex, which capc has measured.
    ThirdParty,
}

impl Auth {
    /// Signed in with Anthropic itself (an API key or claude.ai), not through a cloud provider.
    pub fn first_party(self) -> bool {
        matches!(self, Auth::ApiKey | Auth::ClaudeAi)
    }
}

/// `--permission-mode`, with the choices Claude Code 2.1.332 accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "String")]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Auto,
    BypassPermissions,
    Manual,
    DontAsk,
    Plan,
}

impl PermissionMode {
    /// The word `--permission-mode` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Auto => "auto",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Manual => "manual",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Plan => "plan",
        }
    }
}

impl TryFrom<String> for PermissionMode {
    type Error = String;
    fn try_from(word: String) -> Result<Self, String> {
        Ok(match word.as_str() {
            "default" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "auto" => PermissionMode::Auto,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "manual" => PermissionMode::Manual,
            "dontAsk" => PermissionMode::DontAsk,
            "plan" => PermissionMode::Plan,
            _ => {
                return Err(format!(
                    "option '--permission-mode <mode>' argument '{word}' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan."
                ))
            }
        })
    }
}

/// Permission rules added during the session (answers to prompts, `/permissions`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRules {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
}

/// One skill's entry of `skillUsage` in `~/.claude.json`.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
pub struct SkillUsage {
    #[serde(rename = "usageCount", default)]
    pub usage_count: f64,
    /// Milliseconds since the epoch.
    #[serde(rename = "lastUsedAt", default)]
    pub last_used_at: f64,
}

/// The context window of Claude Code 2.1.332's default model (Opus 5.5), in tokens.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 1_000_000;
/// Bytes per token the listing budget assumes for that model (4 for older models).
pub const DEFAULT_BYTES_PER_TOKEN: u64 = 3;

/// What a turn is computed from, besides the lock and the MCP state. Every field has the
/// default of a headless run with an API key in an untrusted folder.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TurnContext {
    #[serde(default)]
    pub entry: Entry,
    #[serde(default)]
    pub auth: Auth,
    /// The folder's trust dialog was accepted (`hasTrustDialogAccepted`).
    #[serde(default)]
    pub trusted: bool,
    #[serde(default)]
    pub permission_mode: PermissionMode,
    /// Environment variables and settings keys, by name (`ENABLE_TOOL_SEARCH`,
    /// `CLAUDE_CODE_DISABLE_CRON`, `skillOverrides`, `skillListingMaxDescChars`, …; docs/session.md
    /// lists what each changes).
    #[serde(default)]
    pub flags: BTreeMap<String, Value>,
    /// `--tools`: only these built-in tools (`[]` or `[""]`: none; `["default"]`: all).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// `--disallowedTools`: deny rules.
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    /// `--allowedTools`: allow rules.
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub session_rules: SessionRules,
    /// Files read or edited so far, relative to the project root with `/`.
    #[serde(default)]
    pub touched_files: Vec<String>,
    /// The model's context window, in tokens (default 1,000,000).
    #[serde(default)]
    pub context_window: Option<u64>,
    /// Bytes per token for the listing budget (default 3).
    #[serde(default)]
    pub bytes_per_token: Option<u64>,
    /// `skillUsage` of `~/.claude.json`: which skills keep their description first when the
    /// listing is over budget.
    #[serde(default)]
    pub skill_usage: BTreeMap<String, SkillUsage>,
    /// The time `skill_usage` is weighed at, in milliseconds since the epoch; without it
    /// every recorded use counts as recent.
    #[serde(default)]
    pub now: Option<u64>,
}

/// A `skillOverrides` level, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Override {
    On,
    /// Listed as `- name` only.
    NameOnly,
    /// Not listed; the user may still type it.
    UserInvocableOnly,
    /// Gone: not listed, and typing it says it is disabled.
    Off,
}

impl TurnContext {
    /// A switch that is on: `true`, a non-zero number, or a string other than ``, `0`,
    /// `false`, `no`, `off`.
    pub fn flag(&self, name: &str) -> bool {
        match self.flags.get(name) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|v| v != 0.0),
            Some(Value::String(s)) => {
                !matches!(s.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off")
            }
            _ => false,
        }
    }
    pub fn flag_text(&self, name: &str) -> Option<String> {
        match self.flags.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
    /// A numeric setting or variable (`"2000"` as well as `2000`).
    pub fn flag_number(&self, name: &str) -> Option<f64> {
        match self.flags.get(name)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    pub fn context_window(&self) -> u64 {
        self.context_window.filter(|w| *w > 0).unwrap_or(DEFAULT_CONTEXT_WINDOW)
    }
    pub fn bytes_per_token(&self) -> u64 {
        self.bytes_per_token.filter(|b| *b > 0).unwrap_or(DEFAULT_BYTES_PER_TOKEN)
    }
    /// `CLAUDE_CODE_SIMPLE`: Bash, Edit and Read only, no listings.
    pub fn simple(&self) -> bool {
        self.flag("CLAUDE_CODE_SIMPLE")
    }
    /// Bundled skills and built-in prompt commands are off.
    pub fn no_bundled(&self) -> bool {
        self.flag("disableBundledSkills") || self.flag("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS")
    }
    /// The `skillOverrides` level of a skill.
    pub fn skill_override(&self, name: &str) -> Override {
        let Some(Value::Object(map)) = self.flags.get("skillOverrides") else { return Override::On };
        match map.get(name).and_then(Value::as_str) {
            Some("name-only") => Override::NameOnly,
            Some("user-invocable-only") => Override::UserInvocableOnly,
            Some("off") => Override::Off,
            _ => Override::On,
        }
    }
    /// A skill's usage score: `usageCount × max(0.5^(days/7), 0.1)`.
    pub fn usage_score(&self, name: &str) -> f64 {
        let Some(usage) = self.skill_usage.get(name) else { return 0.0 };
        let days = self.now.map_or(0.0, |now| ((now as f64 - usage.last_used_at) / 86_400_000.0).max(0.0));
        usage.usage_count * 0.5f64.powf(days / 7.0).max(0.1)
    }
}

/// One entry of the turn's command table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandView {
    pub name: Arc<str>,
    /// The name it also answers to and shows (a skill's `name:`), when different.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<Arc<str>>,
    /// `prompt`, `local` or `local-jsx`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub origin: Origin,
    pub scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Arc<str>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub aliases: Arc<[Arc<str>]>,
    /// Index into the lock's commands, for declared entries.
    #[serde(skip)]
    pub decl: Option<usize>,
    /// Joined the table this turn because a touched file activated it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
}

/// One tool of the pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolView {
    pub name: Arc<str>,
    /// `builtin` or `mcp`.
    pub origin: &'static str,
    /// Left out of the request and announced instead, to be loaded through ToolSearch.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
}

/// Everything one turn sees.
#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub commands: Vec<CommandView>,
    /// The Skill listing (`- name: description` lines); empty without the Skill tool.
    pub skill_listing: String,
    /// The agent listing (`- type: description (Tools: …)` lines); empty without the Agent tool.
    pub agent_listing: String,
    /// The pool in the order Claude Code sends it: built-ins, then MCP tools, each sorted as
    /// `localeCompare` sorts; deferred ones are flagged (and not sent).
    pub tools: Vec<ToolView>,
    /// Whether ToolSearch is in the pool.
    pub tool_search: bool,
    /// The deferred tools the request announces, in code-unit order, as positions in `tools`
    /// (see [`TurnView::deferred`]).
    #[serde(skip)]
    pub announced: Vec<u32>,
    /// Whether `DeferredToolPlaceholder` goes before the last tool sent.
    pub placeholder: bool,
    /// The tool section of the system prompt, from the same values.
    pub tool_section: String,
    /// What Claude Code prints on stderr at start (permission rules an untrusted folder ignores).
    pub notices: Vec<String>,
}

impl TurnView {
    /// The `tools` array of the request: the pool without its deferred tools, with
    /// `DeferredToolPlaceholder` before the last one when the request has a deferred channel.
    pub fn sent_tools(&self) -> Vec<Arc<str>> {
        crate::pool::sent(&self.tools, self.placeholder)
    }

    /// The deferred tools the request announces, in code-unit order.
    pub fn deferred(&self) -> Vec<Arc<str>> {
        self.announced.iter().filter_map(|&i| self.tools.get(i as usize)).map(|t| t.name.clone()).collect()
    }
}

/// Built-ins that need a claude.ai subscription (`availability: ['claude-ai']`); a model of
/// the subscription commands the docs describe, not a table read from the client.
const CLAUDE_AI_ONLY: &[&str] = &["passes", "upgrade", "usage-credits"];

/// Who a built-in is available to (SEMANTICS §2.1–2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Availability {
    Always,
    /// `login` and `logout` exist only without third-party services (§2.1).
    FirstParty,
    ClaudeAi,
}

fn is_available(availability: Availability, cx: &TurnContext) -> bool {
    match availability {
        Availability::Always => true,
        Availability::FirstParty => cx.auth.first_party(),
        Availability::ClaudeAi => cx.auth == Auth::ClaudeAi,
    }
}

fn availability(name: &str) -> Availability {
    match name {
        "login" | "logout" => Availability::FirstParty,
        n if CLAUDE_AI_ONLY.contains(&n) => Availability::ClaudeAi,
        _ => Availability::Always,
    }
}

/// The settings switches that remove built-ins (FORMATS §5.6), read once per turn.
struct Switches {
    no_bundled: bool,
    no_doctor: bool,
}

impl Switches {
    fn of(cx: &TurnContext) -> Switches {
        Switches { no_bundled: cx.no_bundled(), no_doctor: cx.flag("DISABLE_DOCTOR_COMMAND") }
    }
    /// `/doctor` stays when bundled skills are off, unless `DISABLE_DOCTOR_COMMAND`.
    fn enabled(&self, name: &str, kind: BuiltinKind) -> bool {
        match kind {
            BuiltinKind::BundledSkill | BuiltinKind::BundledWorkflow if name == "doctor" => !self.no_doctor,
            BuiltinKind::BundledSkill | BuiltinKind::BundledWorkflow => !self.no_bundled,
            BuiltinKind::PluginSkill => true,
            BuiltinKind::Command => true,
        }
    }
}

/// A gitignore-style match of a relative path: `**` any folders, `*` and `?` within one
/// segment; a pattern without `/` matches the file name at any depth.
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./");
    if pattern.is_empty() || path.starts_with("..") || path.starts_with('/') {
        return false;
    }
    if !pattern.trim_end_matches('/').contains('/') {
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob_segment(pattern, name)
            || path.split('/').any(|seg| glob_segment(pattern.trim_end_matches('/'), seg));
    }
    let pat: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
    let segs: Vec<&str> = path.split('/').collect();
    // A pattern naming a folder covers everything below it.
    glob_path(&pat, &segs) || (1..segs.len()).any(|n| glob_path(&pat, &segs[..n]))
}

fn glob_path(pat: &[&str], segs: &[&str]) -> bool {
    match pat.first() {
        None => segs.is_empty(),
        Some(&"**") => (0..=segs.len()).any(|skip| glob_path(&pat[1..], &segs[skip..])),
        Some(p) => segs.first().is_some_and(|s| glob_segment(p, s)) && glob_path(&pat[1..], &segs[1..]),
    }
}

fn glob_segment(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Whether a dynamic or conditional skill is active for these touched files.
fn activated(command: &Command, touched: &[String]) -> bool {
    if let Some(dir) = &command.dynamic {
        let inside = |f: &String| f.strip_prefix(dir.as_str()).is_some_and(|rest| rest.starts_with('/'));
        if !touched.iter().any(inside) {
            return false;
        }
        // A nested skill with `paths` needs a matching file too, relative to its folder.
        return command.paths.is_empty()
            || touched
                .iter()
                .filter_map(|f| f.strip_prefix(&format!("{dir}/")))
                .any(|f| command.paths.iter().any(|p| path_matches(p, f)));
    }
    touched.iter().any(|f| command.paths.iter().any(|p| path_matches(p, f)))
}

/// The command table (SEMANTICS §2.5–2.6 in Claude Code 2.1.332's order): the lock's static
/// entries (already in table order), bundled skills, built-ins; then every activated dynamic
/// skill whose name is not taken, just before the first built-in command.
pub fn command_table(loaded: &Loaded, cx: &TurnContext) -> Vec<CommandView> {
    if cx.flag("disableSlashCommands") {
        return Vec::new();
    }
    let commands = &loaded.lock.commands;
    let mut table: Vec<CommandView> = Vec::with_capacity(commands.len() + BUILTINS.len());
    let view = |i: usize, c: &Command, dynamic: bool| CommandView {
        name: loaded.names[i].0.clone(),
        display: loaded.displays[i].clone(),
        kind: "prompt",
        origin: c.origin,
        scope: c.scope,
        path: Some(loaded.names[i].1.clone()),
        aliases: loaded.aliases[i].clone(),
        decl: Some(i),
        dynamic,
    };
    // A plugin that only project settings enable is not loaded in an untrusted folder.
    let loads = |i: usize| cx.trusted || !loaded.needs_trust[i];
    for (i, c) in commands.iter().enumerate() {
        if c.dynamic.is_none() && c.paths.is_empty() && loads(i) {
            table.push(view(i, c, false));
        }
    }
    let switches = Switches::of(cx);
    for (row, kind, available) in builtin_rows() {
        if is_available(*available, cx) && switches.enabled(&row.name, *kind) {
            table.push(row.clone());
        }
    }
    if !cx.touched_files.is_empty() {
        let active = (0..commands.len()).filter(|&i| {
            let c = &commands[i];
            (c.dynamic.is_some() || !c.paths.is_empty()) && loads(i) && activated(c, &cx.touched_files)
        });
        // A name already in the table stays with its static owner (SEMANTICS §2.6).
        let in_base = |name: &str| {
            loaded.static_names.contains(name)
                || builtin_rows().iter().any(|(row, kind, available)| {
                    &*row.name == name && is_available(*available, cx) && switches.enabled(name, *kind)
                })
        };
        let mut added: Vec<CommandView> = Vec::new();
        for i in active {
            let name = &commands[i].name;
            if !in_base(name) && !added.iter().any(|a| &*a.name == name.as_str()) {
                added.push(view(i, &commands[i], true));
            }
        }
        if !added.is_empty() {
            let at = table
                .iter()
                .position(|c| match c.decl {
                    Some(i) => loaded.builtin_named[i],
                    None => c.origin == Origin::Builtin,
                })
                .unwrap_or(table.len());
            table.splice(at..at, added);
        }
    }
    table
}

/// The built-in rows (`capc_compiler::builtins::table`), as views, with who may use them; built once.
fn builtin_rows() -> &'static [(CommandView, BuiltinKind, Availability)] {
    static ROWS: OnceLock<Vec<(CommandView, BuiltinKind, Availability)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        capc_compiler::builtins::table()
            .iter()
            .map(|b| {
                let row = CommandView {
                    name: Arc::from(b.name),
                    display: None,
                    kind: b.command_type,
                    origin: b.origin,
                    scope: Scope::Builtin,
                    path: None,
                    aliases: b.aliases.iter().map(|a| Arc::from(*a)).collect(),
                    decl: None,
                    dynamic: false,
                };
                (row, b.kind, availability(b.name))
            })
            .collect()
    })
}

/// The entry a typed name runs (Claude Code 2.1.332's lookup): an exact name anywhere in the
/// table first; otherwise the first entry, in table order, whose display name is the name or
/// whose aliases hold it.
pub fn find<'t>(table: &'t [CommandView], name: &str) -> Option<&'t CommandView> {
    table
        .iter()
        .find(|c| &*c.name == name)
        .or_else(|| table.iter().find(|c| c.display.as_deref() == Some(name) || c.aliases.iter().any(|a| &**a == name)))
}

/// `loadedFrom` as Claude Code sets it for a lock entry (SEMANTICS §1).
pub fn loaded_from(c: &Command) -> Option<&'static str> {
    match (c.origin, c.form.as_str()) {
        (Origin::Plugin, "skill") => Some("plugin"),
        (Origin::Plugin, _) => None,
        (_, "command") => Some("commands_DEPRECATED"),
        _ => Some("skills"),
    }
}

/// Whether a bundled skill or built-in prompt command exists in this context: its gate holds
/// and bundled skills are not turned off (a built-in plugin's skill stays even then).
pub fn bundled_exists(b: &BundledSkill, cx: &TurnContext) -> bool {
    let gate = match b.gate {
        Gate::Always => true,
        Gate::Cron => !cx.flag("CLAUDE_CODE_DISABLE_CRON"),
        Gate::Workflows => !cx.flag("CLAUDE_CODE_DISABLE_WORKFLOWS"),
        Gate::ClaudeAi => cx.auth == Auth::ClaudeAi,
    };
    gate && (b.source == BundledSource::BuiltinPlugin || !cx.no_bundled())
}

/// Recomputes everything a turn sees, with the permission rules assembled for it.
pub fn compute(loaded: &Loaded, mcp: &McpState, cx: &TurnContext) -> TurnView {
    let permissions = Permissions::assemble(loaded, cx, &[]);
    compute_with(loaded, mcp, cx, &permissions)
}

/// [`compute`] with rules already assembled (a skill turn's grant among them).
pub fn compute_with(loaded: &Loaded, mcp: &McpState, cx: &TurnContext, permissions: &Permissions) -> TurnView {
    let commands = command_table(loaded, cx);
    let pool = crate::pool::tool_pool(cx, permissions, mcp);
    let has = |name: &str| pool.tools.iter().any(|t| &*t.name == name);
    let skill_listing =
        if has("Skill") && !cx.simple() { crate::listing::skill_listing(loaded, &commands, cx) } else { String::new() };
    let agent_listing = if has("Agent") && !cx.simple() {
        crate::agents::agent_listing(loaded, cx, permissions)
    } else {
        String::new()
    };
    let tool_section = tool_section(&pool.tools, pool.tool_search, mcp);
    TurnView {
        commands,
        skill_listing,
        agent_listing,
        tools: pool.tools,
        tool_search: pool.tool_search,
        announced: pool.announced,
        placeholder: pool.placeholder,
        tool_section,
        notices: permissions.notices(),
    }
}

/// The tool section of the system prompt, from this turn's pool and MCP state.
pub fn tool_section(pool: &[ToolView], search: bool, mcp: &McpState) -> String {
    let mut out = String::with_capacity(96 + pool.iter().map(|t| t.name.len() + 2).sum::<usize>());
    out.push_str("# Tools\n");
    let list = |out: &mut String, deferred: bool| {
        for (i, t) in pool.iter().filter(|t| t.deferred == deferred).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&t.name);
        }
        out.push('\n');
    };
    list(&mut out, false);
    if search && pool.iter().any(|t| t.deferred) {
        out.push_str("\n# Deferred tools (load with ToolSearch)\n");
        list(&mut out, true);
    }
    let instructions = mcp.instructions();
    if !instructions.is_empty() {
        out.push_str("\n# MCP Server Instructions\n");
        for (server, text) in instructions {
            out.push_str(&format!("\n## {server}\n{text}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_defaults_and_old_auth_words() {
        let cx: TurnContext = serde_json::from_str("{}").expect("empty context");
        assert_eq!((cx.entry, cx.auth, cx.trusted), (Entry::Headless, Auth::ApiKey, false));
        assert_eq!(cx.context_window() * cx.bytes_per_token() / 100, 30_000);
        let old: TurnContext = serde_json::from_str(r#"{"auth": "console"}"#).expect("console");
        assert_eq!(old.auth, Auth::ApiKey);
        let third: TurnContext = serde_json::from_str(r#"{"auth": "third-party"}"#).expect("third-party");
        assert_eq!(third.auth, Auth::ThirdParty);
        let bad = serde_json::from_str::<TurnContext>(r#"{"permission_mode": "bogus"}"#).expect_err("bogus mode");
        assert!(
            bad.to_string()
                .contains("Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan."),
            "{bad}"
        );
    }

    #[test]
    fn globs() {
        assert!(path_matches("db/**", "db/migrations/001.sql"));
        assert!(path_matches("migrations/*.sql", "migrations/001.sql"));
        assert!(!path_matches("migrations/*.sql", "migrations/old/001.sql"));
        assert!(path_matches("*.sql", "a/b/c.sql"));
        assert!(path_matches("infra", "infra/main.tf"));
        assert!(path_matches("src/**/*.rs", "src/a/b/c.rs"));
        assert!(path_matches("src/**/*.rs", "src/c.rs"));
        assert!(!path_matches("src/**", "../src/a"));
        assert!(!path_matches("docs/*.md", "src/docs/a.md"));
    }
}
