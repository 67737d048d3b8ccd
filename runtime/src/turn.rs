//! One turn's view of the capabilities, recomputed from scratch every turn (SEMANTICS
//! §2–§5, §7–§8): the command table with availability and enablement re-checked and
//! dynamic skills placed, the Skill-tool listing within its budget, the ordered tool pool
//! with blanket denies applied and deferred tools marked, and the tool section of the
//! system prompt. Nothing here keeps state: the same lock, MCP state and context give the
//! same view.

use crate::listing::{self, Listable, ListingEntry};
use crate::loaded::Loaded;
use crate::mcp::McpState;
use capc_compiler::builtins::{BuiltinKind, BUILTINS};
use capc_compiler::model::{Command, Origin, Scope};
use capc_grammar::{Behavior, MatchContext, PermissionRule, ToolCall};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// How the user is signed in (SEMANTICS §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Auth {
    /// A claude.ai subscriber.
    ClaudeAi,
    /// An Anthropic Console (API key) user on Anthropic's own endpoint.
    #[default]
    Console,
    /// Bedrock, Vertex, Foundry or another base URL.
    ThirdParty,
}

/// Permission rules added during the session (`--allowedTools`, answers to prompts).
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

/// What a turn is computed from, besides the lock and the MCP state.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TurnContext {
    #[serde(default)]
    pub auth: Auth,
    /// Settings and environment switches, by name: `disableBundledSkills`,
    /// `disableSlashCommands`, `DISABLE_DOCTOR_COMMAND`, `CLAUDE_CODE_ENABLE_TASKS`,
    /// `ENABLE_TOOL_SEARCH`, `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`,
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET`, `disableSkillShellExecution`.
    #[serde(default)]
    pub flags: BTreeMap<String, serde_json::Value>,
    /// `default`, `acceptEdits`, `plan`, `dontAsk`, `bypassPermissions`, …
    #[serde(default)]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub session_rules: SessionRules,
    /// Files read or edited so far, relative to the project root with `/`.
    #[serde(default)]
    pub touched_files: Vec<String>,
    /// The model's context window, in tokens.
    #[serde(default)]
    pub context_window: Option<u64>,
}

impl TurnContext {
    /// A switch that is on: `true`, a non-zero number, or a string other than ``, `0`, `false`.
    pub fn flag(&self, name: &str) -> bool {
        match self.flags.get(name) {
            Some(serde_json::Value::Bool(b)) => *b,
            Some(serde_json::Value::Number(n)) => n.as_f64().is_some_and(|v| v != 0.0),
            Some(serde_json::Value::String(s)) => {
                !matches!(s.to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off")
            }
            _ => false,
        }
    }
    pub fn flag_text(&self, name: &str) -> Option<String> {
        match self.flags.get(name)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
    /// Session rules as (behavior, rule, source) triples.
    pub fn extra_rules(&self) -> Vec<(Behavior, String, &'static str)> {
        let r = &self.session_rules;
        r.deny
            .iter()
            .map(|t| (Behavior::Deny, t.clone(), "session"))
            .chain(r.ask.iter().map(|t| (Behavior::Ask, t.clone(), "session")))
            .chain(r.allow.iter().map(|t| (Behavior::Allow, t.clone(), "session")))
            .collect()
    }
}

/// One entry of the turn's command table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandView {
    pub name: Arc<str>,
    /// `prompt`, `local` or `local-jsx`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub origin: Origin,
    pub scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Arc<str>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub aliases: &'static [&'static str],
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
    /// Loaded through ToolSearch rather than sent up front.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
}

/// Everything one turn sees.
#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub commands: Vec<CommandView>,
    /// The Skill-tool listing (`- name: description` lines); empty when the pool has no `Skill`.
    pub skill_listing: String,
    pub tools: Vec<ToolView>,
    /// Whether ToolSearch is on this turn.
    pub tool_search: bool,
    /// The tool section of the system prompt, from the same values.
    pub tool_section: String,
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
        Availability::FirstParty => cx.auth != Auth::ThirdParty,
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
        Switches {
            no_bundled: cx.flag("disableBundledSkills") || cx.flag("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"),
            no_doctor: cx.flag("DISABLE_DOCTOR_COMMAND"),
        }
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
        kind: "prompt",
        origin: c.origin,
        scope: c.scope,
        path: Some(loaded.names[i].1.clone()),
        aliases: &[],
        decl: Some(i),
        dynamic,
    };
    for (i, c) in commands.iter().enumerate() {
        if c.dynamic.is_none() && c.paths.is_empty() {
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
            (c.dynamic.is_some() || !c.paths.is_empty()) && activated(c, &cx.touched_files)
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
                    kind: b.command_type,
                    origin: b.origin,
                    scope: Scope::Builtin,
                    path: None,
                    aliases: b.aliases,
                    decl: None,
                    dynamic: false,
                };
                (row, b.kind, availability(b.name))
            })
            .collect()
    })
}

/// The first entry answering to `name` (its name or an alias; SEMANTICS §2.8).
pub fn find<'t>(table: &'t [CommandView], name: &str) -> Option<&'t CommandView> {
    table.iter().find(|c| &*c.name == name || c.aliases.contains(&name))
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

/// The Skill-tool listing (SEMANTICS §2.7, §4.5).
pub fn skill_listing(loaded: &Loaded, table: &[CommandView], cx: &TurnContext) -> String {
    let commands = &loaded.lock.commands;
    let entries: Vec<ListingEntry<'_>> = table
        .iter()
        .filter_map(|row| {
            let (description, when_to_use, listed) = match row.decl {
                Some(i) => {
                    let c = &commands[i];
                    let listed = listing::skill_tool_lists(&Listable {
                        is_prompt: true,
                        disable_model_invocation: c.disable_model_invocation,
                        is_builtin_source: false,
                        loaded_from: loaded_from(c),
                        has_user_description: c.description.is_some(),
                        has_when_to_use: c.when_to_use.is_some(),
                    });
                    (c.description.as_deref(), c.when_to_use.as_deref(), listed)
                }
                // A bundled skill: its registered text, unless the model may not invoke it.
                None if row.origin == Origin::Bundled => match capc_compiler::builtins::bundled_skill(&row.name) {
                    Some(b) => (b.description, b.when_to_use, b.model_invocable),
                    None => (None, None, true),
                },
                None => (None, None, false),
            };
            listed.then_some(ListingEntry { name: &row.name, description, when_to_use, bundled: row.decl.is_none() })
        })
        .collect();
    let budget_override = cx.flag_text("SLASH_COMMAND_TOOL_CHAR_BUDGET").and_then(|v| v.parse().ok());
    listing::render(&entries, listing::budget(cx.context_window, budget_override))
}

/// Built-in tools of the default pool (SEMANTICS §7.1 order is irrelevant: the pool is sorted).
/// Gated tools of FORMATS §7.2 (Cron*, Monitor, Workflow, …) are not in it; `TodoWrite`
/// replaces the `Task*` tools when `CLAUDE_CODE_ENABLE_TASKS=0`.
const BASE_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "NotebookEdit",
    "Read",
    "Skill",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Blanket (whole-tool) deny rules of the lock and the session, parsed.
pub fn blanket_denies(loaded: &Loaded, cx: &TurnContext) -> Vec<PermissionRule> {
    let mut out: Vec<PermissionRule> = loaded
        .rules
        .iter()
        .filter(|r| r.behavior == Behavior::Deny && r.parsed.is_whole_tool())
        .map(|r| r.parsed.clone())
        .collect();
    for text in &cx.session_rules.deny {
        if let Ok(rule) = capc_grammar::parse_permission_rule(text) {
            if rule.is_whole_tool() {
                out.push(rule);
            }
        }
    }
    out
}

fn denied(denies: &[PermissionRule], tool: &str) -> bool {
    let cx = MatchContext::default();
    denies.iter().any(|rule| rule.matches(Behavior::Deny, &ToolCall::new(tool), &cx))
}

/// Whether ToolSearch is on (SEMANTICS §8.2): `ENABLE_TOOL_SEARCH` unset or truthy → on;
/// `auto[:N]` → on when the deferred tools' descriptions exceed N% (default 10) of the
/// context window at 2.5 characters per token; false → off.
fn tool_search_on(cx: &TurnContext, deferred_chars: usize) -> bool {
    if cx.flag("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS") {
        return false;
    }
    match cx.flag_text("ENABLE_TOOL_SEARCH").map(|v| v.to_ascii_lowercase()) {
        None => true,
        Some(v) if v.starts_with("auto") => {
            let percent: f64 = v.strip_prefix("auto:").and_then(|n| n.parse().ok()).unwrap_or(10.0);
            if percent <= 0.0 {
                return true;
            }
            if percent >= 100.0 {
                return false;
            }
            let window = cx.context_window.unwrap_or(200_000) as f64;
            (deferred_chars as f64 / 2.5) > window * percent / 100.0
        }
        Some(_) => cx.flag("ENABLE_TOOL_SEARCH"),
    }
}

/// Whether a whole-server rule (`mcp__srv`, `mcp__srv__*`) or a per-tool rule.
fn whole_server(rule: &PermissionRule) -> bool {
    matches!(&rule.tool.kind, capc_grammar::ToolKind::Mcp { tool, .. } if tool.as_deref().is_none_or(|t| t == "*"))
}

/// The ordered tool pool (SEMANTICS §7.2–7.4): built-ins sorted, then MCP tools sorted, a
/// name once (built-ins win), blanket denies applied to both; MCP tools are deferred unless
/// `alwaysLoad`, and ToolSearch joins when it is on and something is deferred or pending.
///
/// MCP tools cannot clash with built-ins here: every one carries its `mcp__<server>__`
/// prefix (the SDK's no-prefix mode is not modelled). A whole-server deny is decided once
/// per server; only rules on particular tools are matched tool by tool.
pub fn tool_pool(cx: &TurnContext, denies: &[PermissionRule], mcp: &McpState) -> (Vec<ToolView>, bool) {
    let tasks_off = cx.flags.contains_key("CLAUDE_CODE_ENABLE_TASKS") && !cx.flag("CLAUDE_CODE_ENABLE_TASKS");
    let mut builtins: Vec<&str> =
        BASE_TOOLS.iter().copied().filter(|t| !(tasks_off && t.starts_with("Task") && *t != "TaskStop")).collect();
    if tasks_off {
        builtins.push("TodoWrite");
    }
    let mcp_tools = mcp.tools();
    let deny_cx = MatchContext::default();
    let (server_rules, tool_rules): (Vec<&PermissionRule>, Vec<&PermissionRule>) = denies
        .iter()
        .filter(|r| matches!(r.tool.kind, capc_grammar::ToolKind::Mcp { .. } | capc_grammar::ToolKind::Glob))
        .partition(|r| whole_server(r));
    let server_denied: Vec<bool> = mcp
        .servers()
        .map(|s| {
            let sample = format!("mcp__{}__tool", s.normalized);
            server_rules.iter().any(|r| r.matches(Behavior::Deny, &ToolCall::new(&sample), &deny_cx))
        })
        .collect();
    let kept = |t: &crate::mcp::McpTool| {
        !server_denied.get(t.server_index).copied().unwrap_or(false)
            && !tool_rules.iter().any(|r| r.matches(Behavior::Deny, &ToolCall::new(&t.name), &deny_cx))
    };
    let any_deferrable = mcp_tools.iter().any(|t| !t.always_load && kept(t));
    let deferred_chars: usize = if any_deferrable {
        mcp_tools.iter().filter(|t| !t.always_load).map(|t| t.description.len().min(2048)).sum()
    } else {
        0
    };
    let search =
        tool_search_on(cx, deferred_chars) && (any_deferrable || mcp.any_pending()) && !denied(denies, "ToolSearch");
    if search {
        builtins.push("ToolSearch");
    }
    if mcp.any_resources() {
        builtins.push("ListMcpResourcesTool");
        builtins.push("ReadMcpResourceTool");
    }
    builtins.sort_unstable();
    builtins.dedup();
    let mut pool: Vec<ToolView> = Vec::with_capacity(builtins.len() + mcp_tools.len());
    for name in builtins {
        if !denied(denies, name) {
            pool.push(ToolView { name: builtin_name(name), origin: "builtin", deferred: false });
        }
    }
    for tool in mcp_tools.iter().filter(|t| kept(t)) {
        pool.push(ToolView { name: tool.name.clone(), origin: "mcp", deferred: search && !tool.always_load });
    }
    (pool, search)
}

/// A built-in tool's name as a shared string, made once per name.
fn builtin_name(name: &str) -> Arc<str> {
    static NAMES: OnceLock<Vec<Arc<str>>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        BASE_TOOLS
            .iter()
            .chain(&["TodoWrite", "ToolSearch", "ListMcpResourcesTool", "ReadMcpResourceTool"])
            .map(|n| Arc::from(*n))
            .collect()
    });
    names.iter().find(|n| &***n == name).cloned().unwrap_or_else(|| Arc::from(name))
}

/// The tool section of the system prompt, from this turn's pool and MCP state.
pub fn tool_section(pool: &[ToolView], search: bool, mcp: &McpState) -> String {
    let mut out = String::from("# Tools\n");
    let loaded: Vec<&str> = pool.iter().filter(|t| !t.deferred).map(|t| &*t.name).collect();
    out.push_str(&loaded.join(", "));
    out.push('\n');
    if search {
        let deferred: Vec<&str> = pool.iter().filter(|t| t.deferred).map(|t| &*t.name).collect();
        if !deferred.is_empty() {
            out.push_str("\n# Deferred tools (load with ToolSearch)\n");
            out.push_str(&deferred.join(", "));
            out.push('\n');
        }
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

/// Recomputes everything a turn sees.
pub fn compute(loaded: &Loaded, mcp: &McpState, cx: &TurnContext) -> TurnView {
    let commands = command_table(loaded, cx);
    let denies = blanket_denies(loaded, cx);
    let (tools, tool_search) = tool_pool(cx, &denies, mcp);
    let skill_listing =
        if tools.iter().any(|t| &*t.name == "Skill") { skill_listing(loaded, &commands, cx) } else { String::new() };
    let tool_section = tool_section(&tools, tool_search, mcp);
    TurnView { commands, skill_listing, tools, tool_search, tool_section }
}

#[cfg(test)]
mod tests {
    use super::*;

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
